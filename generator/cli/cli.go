// Package cli is the dossier command line: cobra commands that parse flags,
// load the site configuration and call the generator's packages.
package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"dossier/generator/config"
)

// Version is the generator version, printed by --version and sent as the
// Hub client's User-Agent.
const Version = "0.1.0"

// app carries what every command shares; no globals.
type app struct {
	source string
	stdout io.Writer
	stderr io.Writer
}

// New returns the root command writing to stdout and stderr.
func New(stdout, stderr io.Writer) *cobra.Command {
	a := &app{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "dossier",
		Short: "Build fact-checked model dossiers from Hub artifacts",
		Long: `dossier builds one page per tracked model from its Hub metadata (config.json,
file listing, safetensors census) and the site's hardware and price data:
census tables, bytes accounting, fit verdicts and a claims-vs-artifacts
checklist. Every number on a page is a fact with its sources.`,
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVarP(&a.source, "source", "s", ".", "site root holding "+config.FileName)
	root.AddCommand(
		a.buildCmd(),
		a.planCmd(),
		a.checkCmd(),
		a.serveCmd(),
		a.syncCmd(),
		a.pricesCmd(),
		a.diffCmd(),
		a.newCmd(),
		a.familiesCmd(),
		a.loraCmd(),
		a.auditCmd(),
		a.datasetCmd(),
		a.changedCmd(),
		a.versionCmd(),
	)
	usageErrors(root)
	return root
}

// Execute runs the command line and returns the process exit code.
func Execute(args []string, stdout, stderr io.Writer) int {
	root := New(stdout, stderr)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(stderr, "dossier:", err)
		return exitCode(err)
	}
	return 0
}

// codeError carries a specific exit code (e.g. 1 for failed checks, 2 for
// usage) through cobra.
type codeError struct {
	code int
	err  error
}

func (e codeError) Error() string { return e.err.Error() }
func (e codeError) Unwrap() error { return e.err }

func asCode(err error, target *codeError) bool {
	for err != nil {
		if ce, ok := err.(codeError); ok {
			*target = ce
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

func (a *app) loadConfig(cmd *cobra.Command, flagKeys map[string]string) (*config.Site, error) {
	return config.Load(a.source, cmd.Flags(), flagKeys)
}
