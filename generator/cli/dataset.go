package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"dossier/generator/dataset"
)

func (a *app) datasetCmd() *cobra.Command {
	var from, out string
	cmd := &cobra.Command{
		Use:   "dataset [--from DIR] [--out DIR]",
		Short: "Write every model's facts as Parquet files (data/facts.parquet, data/models.parquet)",
		Long: `dataset reads a built site (the publish directory, or --from) — models.json
and every model's facts.json — and writes two Parquet files under --out
(default: the same directory): data/facts.parquet, one row per model and
fact (model, revision, key, value, value_int, text, unit, display,
derivation, sources, reason), and data/models.parquet, one row per model
with its headline figures. Run it after build, before deploying: a later
build replaces the publish directory and does not carry the dataset.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" {
				cfg, err := a.loadConfig(cmd, nil)
				if err != nil {
					return err
				}
				from = cfg.Dir(cfg.PublishDir)
			}
			if out == "" {
				out = from
			}
			nf, nm, err := dataset.Write(from, out)
			if err != nil {
				return fmt.Errorf("dataset: %w", err)
			}
			fmt.Fprintf(a.stdout, "dataset: %d facts of %d models in %s and %s under %s\n", nf, nm, dataset.FactsPath, dataset.ModelsPath, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the built site to read (default: the configured publishDir)")
	cmd.Flags().StringVar(&out, "out", "", "where to write data/*.parquet (default: the --from directory)")
	return cmd
}
