package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"dossier/generator/serve"
)

func (a *app) serveCmd() *cobra.Command {
	var (
		port   int
		bind   string
		drafts bool
	)
	cmd := &cobra.Command{
		Use:   "serve [--port N] [--bind ADDR]",
		Short: "Serve the site locally, rebuilding and reloading on change",
		Long: `serve builds the site into a temporary directory and serves it over HTTP
(default http://127.0.0.1:1313/). It watches content/, data/, templates/ and
hugo-like.yaml, rebuilds after a change and reloads the open pages. A build
that fails prints its error here and in the open pages, and the last good
build stays served. --port 0 picks a free port. The temporary directory is
removed on exit (Ctrl+C). The server is for local use only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if port < 0 || port > 65535 {
				return codeError{2, fmt.Errorf("--port %d: not a TCP port", port)}
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			return a.runServe(ctx, serve.Options{Source: a.source, Drafts: drafts, Log: a.stderr}, net.JoinHostPort(bind, strconv.Itoa(port)))
		},
	}
	cmd.Flags().IntVarP(&port, "port", "p", 1313, "TCP port; 0 picks a free one")
	cmd.Flags().StringVar(&bind, "bind", "127.0.0.1", "interface address to listen on")
	cmd.Flags().BoolVar(&drafts, "drafts", false, "publish draft pages too")
	return cmd
}

// runServe serves until ctx is done, then removes the build directory.
func (a *app) runServe(ctx context.Context, opts serve.Options, addr string) error {
	// Listen first: a busy port fails at once, not after a whole build.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return codeError{2, fmt.Errorf("--port/--bind %s: %w", addr, err)}
	}
	srv, err := serve.New(opts)
	if err != nil {
		ln.Close()
		return err
	}
	defer srv.Close()
	fmt.Fprintf(a.stdout, "serving %s at http://%s/ (Ctrl+C to stop; builds in %s)\n", opts.Source, ln.Addr(), srv.TempDir())
	err = srv.Serve(ctx, ln)
	fmt.Fprintln(a.stdout, "stopped")
	return err
}
