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
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

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

var providerRe = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

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
// errors with the line of the field), for readers of other file systems
// (the catalogs embedded in the binary). The provider is the file's name:
// a snapshot cannot relabel another provider's prices.
func Decode(path string, b []byte) (*Snapshot, error) {
	if err := jsoncheck.Check(b, ""); err != nil {
		return nil, Locate(path, b, err)
	}
	var s Snapshot
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, Locate(path, b, err)
	}
	if err := s.Validate(); err != nil {
		return nil, Locate(path, b, err)
	}
	if want := strings.TrimSuffix(filepath.Base(path), ".json"); s.Provider != want {
		return nil, Locate(path, b, &FieldError{"provider", fmt.Sprintf("%q differs from the file name %s: a snapshot is data/pricing/<provider>.json", s.Provider, filepath.Base(path))})
	}
	return &s, nil
}

// FieldError names the field of a snapshot (a JSON path) that is wrong.
type FieldError struct{ Field, Msg string }

func (e *FieldError) Error() string { return "field " + e.Field + ": " + e.Msg }

// Locate puts path and the line of what err names before err: a field
// (FieldError, jsoncheck.Error), a decoding or a syntax error.
func Locate(path string, b []byte, err error) error {
	line := 0
	var fe *FieldError
	var je *jsoncheck.Error
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &fe):
		line = jsoncheck.Line(b, fe.Field)
	case errors.As(err, &je):
		line = jsoncheck.Line(b, je.Field)
	case errors.As(err, &syn):
		line = jsoncheck.LineAt(b, syn.Offset)
	case errors.As(err, &typ):
		line = jsoncheck.LineAt(b, typ.Offset)
	}
	if line > 0 {
		return fmt.Errorf("%s:%d: %w", path, line, err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// ReadIfExists is Read, with (nil, nil) when there is no snapshot yet.
func ReadIfExists(path string) (*Snapshot, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return Read(path)
}

// centTolerance is how far usd_per_gpu_hour may be from usd_per_hour /
// gpus: a provider quotes the GPU price rounded to the cent (an 8-GPU
// instance at $73.74/h is $9.22 per GPU-hour), plus a hair for float64.
const centTolerance = 0.01 + 1e-9

// Validate checks what every reader relies on. Errors are *FieldError.
func (s *Snapshot) Validate() error {
	bad := func(field, format string, a ...any) error {
		return &FieldError{field, fmt.Sprintf(format, a...)}
	}
	switch {
	case !providerRe.MatchString(s.Provider):
		return bad("provider", "expected a lower-case id such as azure, found %q", s.Provider)
	case s.Name == "":
		return bad("name", "missing")
	case !validFetched(s.Fetched):
		return bad("fetched", "expected a calendar date YYYY-MM-DD or an RFC 3339 time, found %q", s.Fetched)
	case s.Endpoint == "":
		return bad("endpoint", "missing")
	case s.Method == "":
		return bad("method", "missing (api, or how the prices were captured)")
	}
	price := func(v float64) bool { return v > 0 && v <= checked.MaxUSDPerHour } // NaN and +Inf fail
	for i, p := range s.Prices {
		field := func(f string) string { return fmt.Sprintf("prices[%d].%s", i, f) }
		switch {
		case p.SKU == "":
			return bad(field("sku"), "missing")
		case p.Accelerator == "":
			return bad(field("accelerator"), "missing")
		case p.GPUs <= 0 || p.GPUs > checked.MaxGPUs:
			return bad(field("gpus"), "%s", checked.Range(1, checked.MaxGPUs, "GPUs", p.GPUs))
		case p.Currency != "USD":
			return bad(field("currency"), "expected USD, found %q", p.Currency)
		case !price(p.USDPerHour):
			return bad(field("usd_per_hour"), "expected a price from 0 to %v US dollars per hour (above 0), found %v", float64(checked.MaxUSDPerHour), p.USDPerHour)
		case !price(p.USDPerGPU):
			return bad(field("usd_per_gpu_hour"), "expected a price from 0 to %v US dollars per GPU-hour (above 0), found %v", float64(checked.MaxUSDPerHour), p.USDPerGPU)
		case math.Abs(p.USDPerHour/float64(p.GPUs)-p.USDPerGPU) > centTolerance:
			return bad(field("usd_per_hour"), "%v is not gpus × usd_per_gpu_hour = %d × %v = %v (the GPU price within a cent of %v / %d)", p.USDPerHour, p.GPUs, p.USDPerGPU, float64(p.GPUs)*p.USDPerGPU, p.USDPerHour, p.GPUs)
		case p.AsOf != "" && !validDate(p.AsOf):
			return bad(field("as_of"), "expected a calendar date YYYY-MM-DD, found %q", p.AsOf)
		}
		if p.Offers != nil {
			if err := p.Offers.validate(p.USDPerGPU, price, func(f string) string { return field("offers." + f) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// validate checks a marketplace summary: a count, a median that is the
// price quoted, and min ≤ median ≤ max where they are given.
func (o *Offers) validate(quoted float64, price func(float64) bool, field func(string) string) error {
	bad := func(f, format string, a ...any) error { return &FieldError{field(f), fmt.Sprintf(format, a...)} }
	switch {
	case o.Count <= 0:
		return bad("count", "a marketplace price needs the count of offers, found %d", o.Count)
	case !price(o.Median):
		return bad("median_usd_per_gpu_hour", "expected a price from 0 to %v US dollars per GPU-hour (above 0), found %v", float64(checked.MaxUSDPerHour), o.Median)
	case math.Abs(o.Median-quoted) > centTolerance:
		return bad("median_usd_per_gpu_hour", "%v is not the usd_per_gpu_hour quoted, %v (a marketplace quotes its median)", o.Median, quoted)
	case o.Min != 0 && !price(o.Min):
		return bad("min_usd_per_gpu_hour", "expected a price above 0, found %v", o.Min)
	case o.Max != 0 && !price(o.Max):
		return bad("max_usd_per_gpu_hour", "expected a price above 0, found %v", o.Max)
	case o.Min != 0 && o.Max != 0 && o.Min > o.Max:
		return bad("min_usd_per_gpu_hour", "%v is above max_usd_per_gpu_hour %v", o.Min, o.Max)
	case o.Min != 0 && o.Min > o.Median:
		return bad("min_usd_per_gpu_hour", "%v is above the median %v", o.Min, o.Median)
	case o.Max != 0 && o.Max < o.Median:
		return bad("max_usd_per_gpu_hour", "%v is below the median %v", o.Max, o.Median)
	}
	return nil
}

// CheckSKUs checks the accelerator and GPU count of every price whose SKU
// the map has for this provider: the map, not the snapshot, says what a
// SKU rents.
func (s *Snapshot) CheckSKUs(m SKUMap) error {
	for i, p := range s.Prices {
		sku, ok := m.Lookup(s.Provider, p.SKU)
		if !ok {
			continue
		}
		field := func(f string) string { return fmt.Sprintf("prices[%d].%s", i, f) }
		switch {
		case p.Accelerator != sku.Accelerator:
			return &FieldError{field("accelerator"), fmt.Sprintf("%q, but skus.yaml maps %s SKU %q to %s", p.Accelerator, s.Provider, p.SKU, sku.Accelerator)}
		case p.GPUs != sku.GPUs:
			return &FieldError{field("gpus"), fmt.Sprintf("%d, but skus.yaml maps %s SKU %q to %d GPUs", p.GPUs, s.Provider, p.SKU, sku.GPUs)}
		}
	}
	return nil
}

func validDate(d string) bool {
	_, ok := checked.Date(d)
	return ok
}

// validFetched accepts a calendar date or an RFC 3339 time.
func validFetched(f string) bool {
	if len(f) == len(time.DateOnly) {
		return validDate(f)
	}
	_, err := time.Parse(time.RFC3339, f)
	return err == nil
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
