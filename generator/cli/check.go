package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"dossier/generator/site"
)

func (a *app) checkCmd() *cobra.Command {
	var strict bool
	cmd := &cobra.Command{
		Use:   "check [--strict]",
		Short: "Check claims, measurements, data freshness and the six tells",
		Long: `check loads the whole site (drafts included) and reports, as file:line lines:
a claim without evidence or check, a hand-written verdict that contradicts a
computed one, a measurement without configuration or date, data older than
freshness.maxAgeDays, a price changed while its date stayed (against the
file's previous committed version), a web source without an archived copy,
hash or reason, and (warnings; errors with --strict) the tells raised by page
prose and a published page with an empty summary, its slug as title, no
review date, or nothing to check. It exits 1 when there is an error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			ds, err := site.Check(cfg, site.CheckOptions{Strict: strict})
			if err != nil {
				return err
			}
			errs, warns := 0, 0
			for _, d := range ds {
				fmt.Fprintln(a.stdout, d)
				if d.Severity == "error" {
					errs++
				} else {
					warns++
				}
			}
			fmt.Fprintf(a.stdout, "%d error(s), %d warning(s)\n", errs, warns)
			if errs > 0 {
				return codeError{1, errors.New("check failed")}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "treat tells in page prose and unfinished published pages as errors")
	return cmd
}
