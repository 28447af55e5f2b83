package pricing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"dossier/generator/snapshot"
)

// JumpFactor is how far a price may move from the previous snapshot before
// sync refuses to publish it: a factor of 100 is a unit or parsing error
// far more often than a market move.
const JumpFactor = 100

// Options configures a sync.
type Options struct {
	Env    func(string) string // the environment; os.Getenv in the CLI
	HTTP   Config
	Now    func() time.Time
	DryRun bool // fetch and compare, write nothing
}

// Result is what syncing one provider did.
type Result struct {
	Provider string
	Path     string
	Endpoint string
	Wrote    bool
	Prices   int
	Changes  []string // per SKU: added, removed, old → new
	Unmapped []string // SKUs the provider priced that skus.yaml does not map
	Warnings []string
}

// Summary is the one-line report of a result.
func (r *Result) Summary() string {
	switch {
	case r.Wrote:
		return fmt.Sprintf("%s: wrote %s (%d prices, %d change(s))", r.Provider, r.Path, r.Prices, len(r.Changes))
	case len(r.Changes) > 0:
		return fmt.Sprintf("%s: %d change(s), dry run: %s not written", r.Provider, len(r.Changes), r.Path)
	default:
		return fmt.Sprintf("%s: %d prices unchanged, %s left as it was", r.Provider, r.Prices, r.Path)
	}
}

// CheckProviders rejects an unknown provider id before anything runs.
func CheckProviders(ids []string) error {
	for _, id := range ids {
		if _, ok := lookupProvider(id); !ok {
			return fmt.Errorf("unknown provider %q: expected one of %v", id, Providers())
		}
	}
	return nil
}

// Sync fetches each provider's prices and writes data/pricing/<id>.json
// when they changed. A provider that fails leaves its old snapshot as it
// was and does not stop the others; the error joins every failure.
func Sync(ctx context.Context, dataDir string, ids []string, opts Options) ([]*Result, error) {
	if len(ids) == 0 {
		ids = Providers()
	}
	if err := CheckProviders(ids); err != nil {
		return nil, err
	}
	if opts.Env == nil {
		opts.Env = func(string) string { return "" }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	skus, err := LoadSKUs(SKUPath(dataDir))
	if err != nil {
		return nil, err
	}
	var results []*Result
	var errs []error
	for _, id := range ids {
		p, _ := lookupProvider(id)
		r, err := syncOne(ctx, dataDir, p, skus, opts)
		if err != nil {
			errs = append(errs, err)
			if errors.Is(err, context.Canceled) {
				break
			}
			continue
		}
		results = append(results, r)
	}
	return results, errors.Join(errs...)
}

func syncOne(ctx context.Context, dataDir string, p provider, skus SKUMap, opts Options) (*Result, error) {
	endpoint, err := p.endpoint(opts.Env)
	if err != nil {
		return nil, err
	}
	path := Path(dataDir, p.ID)
	prev, err := ReadIfExists(path)
	if err != nil {
		return nil, fmt.Errorf("%s: previous snapshot: %w", p.ID, err)
	}
	c := newClient(p.ID, opts.HTTP)
	got, err := p.fetch(ctx, c, endpoint, skus[p.ID], opts.Env)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{
		Provider: p.ID, Name: p.Name, Endpoint: endpoint, Method: "api (dossier prices sync)",
		Fetched: opts.Now().UTC().Format(time.RFC3339), Scope: got.Scope,
	}
	res := &Result{Provider: p.ID, Path: path, Endpoint: endpoint, Warnings: got.Warnings}
	for _, o := range got.Offers {
		m, ok := skus.Lookup(p.ID, o.SKU)
		if !ok {
			res.Unmapped = append(res.Unmapped, o.SKU)
			continue
		}
		if err := checkOffer(p.ID, o); err != nil {
			return nil, err
		}
		pr := Price{SKU: o.SKU, Accelerator: m.Accelerator, GPUs: m.GPUs, Currency: o.Currency, Region: o.Region, Offers: o.Offers}
		if o.Offers != nil {
			// A marketplace is priced per GPU-hour; an instance of the
			// mapped size costs that many GPU-hours.
			pr.USDPerGPU = o.USDPerHour
			pr.USDPerHour = o.USDPerHour * float64(m.GPUs)
		} else {
			pr.USDPerHour = o.USDPerHour
			pr.USDPerGPU = o.USDPerHour / float64(m.GPUs)
		}
		snap.Prices = append(snap.Prices, pr)
	}
	sort.Strings(res.Unmapped)
	snap.Unmapped = res.Unmapped
	sort.Slice(snap.Prices, func(i, j int) bool { return snap.Prices[i].SKU < snap.Prices[j].SKU })
	res.Prices = len(snap.Prices)
	if len(snap.Prices) == 0 {
		return nil, fmt.Errorf("%s: no mapped SKU priced (%d unmapped): refusing to replace %s with an empty snapshot", p.ID, len(res.Unmapped), filepath.Base(path))
	}
	if err := snap.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", p.ID, err)
	}
	changes, err := compare(p.ID, prev, snap)
	if err != nil {
		return nil, err
	}
	res.Changes = changes
	if SamePrices(prev, snap) || opts.DryRun {
		return res, nil
	}
	b, err := snap.Encode()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("%s: %w", p.ID, err)
	}
	if err := snapshot.WriteFileAtomic(path, b); err != nil {
		return nil, fmt.Errorf("%s: write %s: %w", p.ID, path, err)
	}
	res.Wrote = true
	return res, nil
}

// checkOffer refuses what must never be published: a price not in USD, or
// one that is zero, negative or not a number.
func checkOffer(id string, o offer) error {
	if o.Currency != "USD" {
		return fmt.Errorf("%s: %s: price in %q, expected USD: refusing to publish a converted or foreign price", id, o.SKU, o.Currency)
	}
	if !(o.USDPerHour > 0) || math.IsInf(o.USDPerHour, 0) {
		return fmt.Errorf("%s: %s: price %v per hour: expected a positive number", id, o.SKU, o.USDPerHour)
	}
	return nil
}

// compare lists what changed since prev and refuses a price that moved by
// JumpFactor or more.
func compare(id string, prev, next *Snapshot) ([]string, error) {
	old := map[string]Price{}
	if prev != nil {
		for _, p := range prev.Prices {
			old[p.SKU] = p
		}
	}
	var changes []string
	for _, p := range next.Prices {
		o, ok := old[p.SKU]
		delete(old, p.SKU)
		switch {
		case !ok:
			changes = append(changes, fmt.Sprintf("%s: added at $%.4g/GPU-h (%s)", p.SKU, p.USDPerGPU, p.Accelerator))
		case o.USDPerGPU > 0 && (p.USDPerGPU/o.USDPerGPU >= JumpFactor || o.USDPerGPU/p.USDPerGPU >= JumpFactor):
			return nil, fmt.Errorf("%s: %s: $%.4g/GPU-h was $%.4g/GPU-h in the previous snapshot (%s), a move of %d× or more: refusing to publish; check the source, then delete the old entry by hand if the move is real",
				id, p.SKU, p.USDPerGPU, o.USDPerGPU, prev.AsOf(), JumpFactor)
		case o.USDPerGPU != p.USDPerGPU || o.GPUs != p.GPUs || o.Accelerator != p.Accelerator:
			changes = append(changes, fmt.Sprintf("%s: $%.4g → $%.4g/GPU-h", p.SKU, o.USDPerGPU, p.USDPerGPU))
		}
	}
	gone := make([]string, 0, len(old))
	for sku := range old {
		gone = append(gone, sku)
	}
	sort.Strings(gone)
	for _, sku := range gone {
		changes = append(changes, sku+": no longer priced")
	}
	return changes, nil
}
