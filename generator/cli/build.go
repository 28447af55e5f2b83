package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"dossier/generator/site"
)

func (a *app) buildCmd() *cobra.Command {
	var drafts, full, verify bool
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Build the site into the publish directory",
		Long: `build reads content/, data/ and templates/ under the site root, computes every
model's facts and writes public/ (or --destination). The new output replaces
the old one only when the whole build succeeded. Work is reused only through
the build cache, .dossier-cache/ under the site root.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadConfig(cmd, map[string]string{"destination": "publishdir", "search": "search"})
			if err != nil {
				return err
			}
			s, err := site.Load(cfg, site.Options{Drafts: drafts, Full: full, Verify: verify})
			if err != nil {
				return err
			}
			for _, d := range site.FutureDates(s, s.Today(), "warning") {
				fmt.Fprintln(a.stderr, d)
			}
			wait := func(holder string) {
				fmt.Fprintf(a.stderr, "dossier build: waiting for the lock on %s (%s)\n", cfg.Dir(cfg.PublishDir), holder)
			}
			r, err := site.Build(s, site.Options{Destination: cfg.Dir(cfg.PublishDir), Wait: wait})
			if err != nil {
				return err
			}
			verified := ""
			if verify {
				verified = fmt.Sprintf("; verified %d cached files against a fresh build", r.Verified)
			}
			if r.Unchanged {
				fmt.Fprintf(a.stdout, "nothing changed: %s already holds the %d files of %d model(s); nothing written%s\n",
					r.Destination, len(r.Files), len(r.Models), verified)
				return nil
			}
			fmt.Fprintf(a.stdout, "built %d model(s), %d files in %s (computed %d, reused %d from the cache; %d module trees built%s)\n",
				len(r.Models), len(r.Files), r.Destination, len(r.Rebuilt), len(r.Reused), r.ModuleTrees, verified)
			return nil
		},
	}
	cmd.Flags().StringP("destination", "d", "", "publish directory (default publishDir from "+"hugo-like.yaml, public/)")
	cmd.Flags().BoolVar(&drafts, "drafts", false, "publish draft pages too")
	cmd.Flags().Bool("search", false, "index the built site with Pagefind (searchCommand in hugo-like.yaml)")
	cmd.Flags().BoolVar(&full, "full", false, "recompute every model without reading the build cache (it is still written)")
	cmd.Flags().BoolVar(&verify, "verify", false, "recompute every page read from the build cache and fail on any byte of difference")
	return cmd
}
