package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"dossier/generator/site"
)

func (a *app) buildCmd() *cobra.Command {
	var drafts, full bool
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Build the site into the publish directory",
		Long: `build reads content/, data/ and templates/ under the site root, computes every
model's facts and writes public/ (or --destination). The new output replaces
the old one only when the whole build succeeded.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadConfig(cmd, map[string]string{"destination": "publishdir", "search": "search"})
			if err != nil {
				return err
			}
			dest := cfg.Dir(cfg.PublishDir)
			prev := dest
			if full {
				prev = ""
			}
			s, err := site.Load(cfg, site.Options{Drafts: drafts, Previous: prev})
			if err != nil {
				return err
			}
			for _, d := range site.FutureDates(s, s.Today(), "warning") {
				fmt.Fprintln(a.stderr, d)
			}
			r, err := site.Build(s, site.Options{Destination: dest, Drafts: drafts})
			if err != nil {
				return err
			}
			if r.Unchanged {
				fmt.Fprintf(a.stdout, "nothing changed: %s already holds the %d files of %d model(s); nothing written\n",
					r.Destination, len(r.Files), len(r.Models))
				return nil
			}
			spliced := ""
			if len(r.Spliced) > 0 {
				spliced = fmt.Sprintf(", %d with only priced facts new", len(r.Spliced))
			}
			if len(r.Priced) > 0 {
				spliced += fmt.Sprintf(", %d priced from the kept model side", len(r.Priced))
			}
			fmt.Fprintf(a.stdout, "built %d model(s), %d files in %s (computed %d%s, reused %d unchanged; %d module trees built)\n",
				len(r.Models), len(r.Files), r.Destination, len(r.Rebuilt), spliced, len(r.Reused), r.ModuleTrees)
			return nil
		},
	}
	cmd.Flags().StringP("destination", "d", "", "publish directory (default publishDir from "+"hugo-like.yaml, public/)")
	cmd.Flags().BoolVar(&drafts, "drafts", false, "publish draft pages too")
	cmd.Flags().Bool("search", false, "index the built site with Pagefind (searchCommand in hugo-like.yaml)")
	cmd.Flags().BoolVar(&full, "full", false, "recompute every model instead of reusing pages whose inputs are unchanged")
	return cmd
}
