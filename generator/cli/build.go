package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"dossier/generator/site"
)

func (a *app) buildCmd() *cobra.Command {
	var drafts bool
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Build the site into the publish directory",
		Long: `build reads content/, data/ and templates/ under the site root, computes every
model's facts and writes public/ (or --destination). The new output replaces
the old one only when the whole build succeeded.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadConfig(cmd, map[string]string{"destination": "publishdir"})
			if err != nil {
				return err
			}
			s, err := site.Load(cfg, site.Options{Drafts: drafts})
			if err != nil {
				return err
			}
			r, err := site.Build(s, site.Options{Destination: cfg.Dir(cfg.PublishDir), Drafts: drafts})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "built %d model(s), %d files in %s\n", len(r.Models), len(r.Files), r.Destination)
			return nil
		},
	}
	cmd.Flags().StringP("destination", "d", "", "publish directory (default publishDir from "+"hugo-like.yaml, public/)")
	cmd.Flags().BoolVar(&drafts, "drafts", false, "publish draft pages too")
	return cmd
}
