package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"dossier/generator/content"
	"dossier/generator/hub"
)

func (a *app) syncCmd() *cobra.Command {
	var all, dryRun bool
	var concurrency int
	cmd := &cobra.Command{
		Use:   "sync [org/name[@revision]]... [--all] [--dry-run]",
		Short: "Read Hub metadata and safetensors headers into data/hub snapshots",
		Long: `sync reads a model's metadata from the Hub — model info, the file listing,
config.json, the safetensors index and every shard's header by HTTP Range —
without downloading weights, and writes data/hub/<org>/<name>/snapshot.json
pinned to the commit the Hub answered. A snapshot already at that commit is
left unchanged. --all syncs every model that has a page in content/.

Environment: HF_ENDPOINT (a mirror), HF_TOKEN or HUGGING_FACE_HUB_TOKEN or
$HF_HOME/token for private and gated repositories. The token is never written
to disk or printed.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			refs := args
			if all {
				site, err := content.Load(cfg.Dir(cfg.ContentDir))
				if err != nil {
					return err
				}
				for _, p := range site.Models {
					refs = append(refs, p.Front.Model)
				}
			}
			if len(refs) == 0 {
				return codeError{2, errors.New("sync needs org/name arguments or --all")}
			}
			hc, err := hub.ConfigFromEnv(os.Getenv, Version)
			if err != nil {
				return err
			}
			client, err := hub.New(hc)
			if err != nil {
				return err
			}
			var progress hub.Progress = hub.NopProgress{}
			if hub.IsTerminal(a.stderr) {
				progress = hub.NewTerminalProgress(a.stderr)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			failed := 0
			for _, ref := range refs {
				model, rev, err := hub.ParseRef(ref)
				if err != nil {
					return codeError{2, err}
				}
				r, err := hub.Sync(ctx, client, cfg.Dir(cfg.DataDir), model, rev, hub.Options{DryRun: dryRun, Concurrency: concurrency, Progress: progress})
				if err != nil {
					fmt.Fprintf(a.stderr, "dossier: sync %s: %v\n", ref, err)
					failed++
					if errors.Is(err, context.Canceled) {
						break
					}
					continue
				}
				fmt.Fprintln(a.stdout, r.Summary())
				for _, c := range r.Changes {
					fmt.Fprintln(a.stdout, "  "+c)
				}
				for _, w := range r.Warnings {
					fmt.Fprintln(a.stdout, "  warning: "+w)
				}
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d model(s) failed to sync", failed, len(refs))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "sync every model that has a page in content/")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "report what would change and write nothing")
	cmd.Flags().IntVar(&concurrency, "concurrency", 16, "header reads in flight at once")
	return cmd
}
