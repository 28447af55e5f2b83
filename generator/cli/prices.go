package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"

	"dossier/generator/catalog"
	"dossier/generator/pricing"
)

func (a *app) pricesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prices",
		Short: "Pull rental prices from providers' price APIs into data/pricing",
	}
	var dryRun bool
	sync := &cobra.Command{
		Use:   "sync [PROVIDER...]",
		Short: "Read providers' current prices into dated snapshots under data/pricing",
		Long: `prices sync reads each provider's public price API and writes
data/pricing/<provider>.json: when it was fetched, the endpoint, and per SKU
the accelerator it maps to (data/pricing/skus.yaml), GPUs per instance, the
on-demand price per instance-hour and per GPU-hour, currency and region.
Providers: azure (Azure Retail Prices API, Linux pay-as-you-go meters of one
region), runpod (RunPod GraphQL, needs RUNPOD_API_KEY), vastai (Vast.ai
offer search: count, minimum and median of reliable on-demand offers).
Without arguments it syncs all three.

A snapshot whose prices did not change is not rewritten. A provider that
fails (after retries on 429 and 5xx, honouring Retry-After), or answers a
price that is not in USD, not positive, or 100× away from its previous
snapshot, keeps its old snapshot and makes the command exit non-zero. SKUs
the map does not name are listed, never guessed.

Environment: DOSSIER_PRICING_AZURE_ENDPOINT, DOSSIER_PRICING_RUNPOD_ENDPOINT,
DOSSIER_PRICING_VASTAI_ENDPOINT (mirrors, tests), DOSSIER_PRICING_AZURE_REGION
(default eastus), RUNPOD_API_KEY (never printed or written).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := pricing.CheckProviders(args); err != nil {
				return codeError{2, fmt.Errorf("prices sync: %w", err)}
			}
			cfg, err := a.loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			opts := pricing.Options{Env: os.Getenv, HTTP: pricing.Config{UserAgent: "dossier/" + Version}, DryRun: dryRun}
			results, err := pricing.Sync(ctx, cfg.Dir(cfg.DataDir), args, opts)
			// What the build will not use: prices for accelerators the
			// hardware catalog does not describe yet.
			var notes []string
			if cat, cerr := catalog.Load(cfg.Dir(cfg.DataDir)); cerr == nil {
				notes = cat.Notes
			}
			for _, r := range results {
				fmt.Fprintln(a.stdout, strings.Replace(r.Summary(), cfg.Root+string(os.PathSeparator), "", 1))
				for _, c := range r.Changes {
					fmt.Fprintln(a.stdout, "  "+c)
				}
				if len(r.Unmapped) > 0 {
					fmt.Fprintf(a.stdout, "  %d SKU(s) not in skus.yaml, not priced: %s\n", len(r.Unmapped), strings.Join(r.Unmapped, ", "))
				}
				for _, w := range r.Warnings {
					fmt.Fprintln(a.stdout, "  warning: "+w)
				}
				for _, n := range notes {
					if strings.HasPrefix(n, r.Provider+".json:") {
						fmt.Fprintln(a.stdout, "  note: "+n)
					}
				}
			}
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return err
				}
				j, ok := err.(interface{ Unwrap() []error })
				if !ok {
					return err // before any provider ran: the SKU map, an argument
				}
				failed := j.Unwrap()
				for _, e := range failed {
					fmt.Fprintln(a.stderr, "dossier: prices sync: "+e.Error())
				}
				return fmt.Errorf("%d of %d provider(s) failed; their old snapshots are unchanged", len(failed), len(failed)+len(results))
			}
			return nil
		},
	}
	sync.Flags().BoolVar(&dryRun, "dry-run", false, "fetch and report changes, write nothing")
	cmd.AddCommand(sync)
	return cmd
}
