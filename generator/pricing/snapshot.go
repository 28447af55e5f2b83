// Package pricing pulls rental prices from providers' public price APIs
// into dated snapshots under data/pricing/, the way package hub pulls Hub
// metadata into data/hub/: one client per provider (azure.go, runpod.go,
// vastai.go), retries that honour Retry-After, endpoints overridable by
// DOSSIER_PRICING_<PROVIDER>_ENDPOINT, and atomic writes that leave the old
// snapshot in place when anything fails. Which accelerator a provider's SKU
// is comes from data/pricing/skus.yaml, never from the SKU's name.
package pricing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"dossier/generator/internal/checked"
	"dossier/generator/internal/jsoncheck"
	"dossier/generator/internal/safefile"
)

// Snapshot is one provider's prices as one fetch saw them:
// data/pricing/<provider>.json.
type Snapshot struct {
	Provider string `json:"provider"` // id: azure, runpod, vastai
	Name     string `json:"name"`     // as printed: "Azure", "RunPod", "Vast.ai"
	// Fetched is when the prices were read (RFC 3339), or the date a
	// hand-captured page stated them (YYYY-MM-DD).
	Fetched string `json:"fetched"`
	// Endpoint is the API the prices came from, or the page they were
	// copied from for a hand capture.
	Endpoint string `json:"endpoint"`
	// Method says how: "api" for `dossier prices sync`, or how a person
	// captured them ("captured_from: URL, accessed DATE").
	Method string `json:"method"`
	// Scope says what was kept: the region, the meter kinds, the
	// reliability filter.
	Scope  string  `json:"scope"`
	Prices []Price `json:"prices"`
	// Unmapped lists SKUs the provider priced that skus.yaml does not map.
	Unmapped []string `json:"unmapped,omitempty"`
}

// Price is one SKU's on-demand price.
type Price struct {
	SKU         string  `json:"sku"`         // the provider's raw id
	Accelerator string  `json:"accelerator"` // from skus.yaml
	GPUs        int     `json:"gpus"`        // per instance
	USDPerHour  float64 `json:"usd_per_hour"`
	USDPerGPU   float64 `json:"usd_per_gpu_hour"`
	Currency    string  `json:"currency"`
	Region      string  `json:"region,omitempty"`
	// Offers is set for a marketplace: the price above is then the median
	// per GPU-hour of these offers.
	Offers *Offers `json:"offers,omitempty"`
	// Approximate marks a price its source rounds ("~$29/h").
	Approximate bool `json:"approximate,omitempty"`
	// Source and AsOf override the snapshot's for a hand capture that
	// combines pages.
	Source string `json:"source,omitempty"`
	AsOf   string `json:"as_of,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Offers summarises a marketplace's on-demand offers for one GPU type,
// per GPU-hour, after the snapshot's reliability filter. A hand capture
// of a page that states only the count and the median leaves Min and Max
// out.
type Offers struct {
	Count  int     `json:"count"`
	Min    float64 `json:"min_usd_per_gpu_hour,omitempty"`
	Median float64 `json:"median_usd_per_gpu_hour"`
	Max    float64 `json:"max_usd_per_gpu_hour,omitempty"`
}

// Path is where a provider's snapshot lives under dataDir.
func Path(dataDir, provider string) string {
	return filepath.Join(dataDir, "pricing", provider+".json")
}

var (
	providerRe = regexp.MustCompile(`^[a-z][a-z0-9]*$`)
	dateRe     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)
)

// AsOf is the date the snapshot describes (YYYY-MM-DD).
func (s *Snapshot) AsOf() string {
	if len(s.Fetched) >= 10 {
		return s.Fetched[:10]
	}
	return s.Fetched
}

// Read loads and validates one snapshot file.
func Read(path string) (*Snapshot, error) {
	b, err := safefile.Read(path, filepath.Dir(path), safefile.Catalog)
	if err != nil {
		return nil, fmt.Errorf("read price snapshot: %w", err)
	}
	return Decode(path, b)
}

// Decode parses and validates the snapshot b read from path (named in
// errors), for readers of other file systems (the catalogs embedded in
// the binary).
func Decode(path string, b []byte) (*Snapshot, error) {
	if err := jsoncheck.Check(b, ""); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var s Snapshot
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// ReadIfExists is Read, with (nil, nil) when there is no snapshot yet.
func ReadIfExists(path string) (*Snapshot, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return Read(path)
}

// Validate checks what every reader relies on. Errors name the field.
func (s *Snapshot) Validate() error {
	switch {
	case !providerRe.MatchString(s.Provider):
		return fmt.Errorf("field provider: expected a lower-case id such as azure, found %q", s.Provider)
	case s.Name == "":
		return errors.New("field name: missing")
	case !dateRe.MatchString(s.Fetched):
		return fmt.Errorf("field fetched: expected a date or RFC 3339 time, found %q", s.Fetched)
	case s.Endpoint == "":
		return errors.New("field endpoint: missing")
	case s.Method == "":
		return errors.New("field method: missing (api, or how the prices were captured)")
	}
	for i, p := range s.Prices {
		field := func(f string) string { return fmt.Sprintf("prices[%d].%s", i, f) }
		switch {
		case p.SKU == "":
			return fmt.Errorf("field %s: missing", field("sku"))
		case p.Accelerator == "":
			return fmt.Errorf("field %s: missing", field("accelerator"))
		case p.GPUs <= 0:
			return fmt.Errorf("field %s: expected a positive count", field("gpus"))
		case p.Currency != "USD":
			return fmt.Errorf("field %s: expected USD, found %q", field("currency"), p.Currency)
		case !(p.USDPerHour > 0) || !(p.USDPerGPU > 0):
			return fmt.Errorf("field %s: expected a positive price", field("usd_per_hour"))
		case p.GPUs > checked.MaxGPUs:
			return fmt.Errorf("field %s: %s", field("gpus"), checked.Range(1, checked.MaxGPUs, "GPUs", p.GPUs))
		case p.USDPerHour > checked.MaxUSDPerHour || p.USDPerGPU > checked.MaxUSDPerHour: // +Inf too
			return fmt.Errorf("field %s: expected a price from 0 to %v US dollars per hour, found %v (per GPU %v)", field("usd_per_hour"), float64(checked.MaxUSDPerHour), p.USDPerHour, p.USDPerGPU)
		case p.Offers != nil && (p.Offers.Count <= 0 || !(p.Offers.Median > 0)):
			return fmt.Errorf("field %s: a marketplace price needs the count of offers and their median", field("offers"))
		case p.AsOf != "" && !dateRe.MatchString(p.AsOf):
			return fmt.Errorf("field %s: expected YYYY-MM-DD, found %q", field("as_of"), p.AsOf)
		}
	}
	return nil
}

// Encode is the snapshot's canonical bytes: indented JSON, one trailing
// newline, so the same prices always give the same file.
func (s *Snapshot) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// SamePrices says whether a and b hold the same prices, whenever they were
// fetched: an unchanged sync writes nothing.
func SamePrices(a, b *Snapshot) bool {
	if a == nil || b == nil {
		return false
	}
	x, y := *a, *b
	x.Fetched, y.Fetched = "", ""
	bx, err1 := x.Encode()
	by, err2 := y.Encode()
	return err1 == nil && err2 == nil && bytes.Equal(bx, by)
}
