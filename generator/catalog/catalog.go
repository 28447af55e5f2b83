// Package catalog reads what the site knows besides the Hub: accelerators
// (data/hardware.yaml) and rental prices (data/pricing/*.yaml). Every entry
// carries its source and the date it was read.
package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"dossier/generator/internal/checked"
	"dossier/generator/internal/safefile"
	"dossier/generator/pricing"
	"dossier/generator/yamlx"
)

// Accelerator is one GPU model (or a unified-memory machine, or a CPU host
// used for offload). MemoryBytes is what the device itself reports
// (nvidia-smi memory.total MiB × 2^20, rocm-smi VRAM bytes, sysctl
// hw.memsize), with the capture it came from; MemoryMarketing is the spec
// sheet's figure as printed, kept only to check claims against.
type Accelerator struct {
	ID     string `yaml:"id"`
	Name   string `yaml:"name"`
	Vendor string `yaml:"vendor"`
	// Class is one of Classes: consumer, workstation, datacenter, unified, cpu.
	Class           string `yaml:"class"`
	MemoryBytes     int64  `yaml:"memory_bytes"`
	MemoryMarketing string `yaml:"memory_marketing"`
	// MemorySource is the public capture (URL) the figure was read from;
	// MemoryQuote the line quoted from it. MemoryVerified is false when no
	// capture could be found: the figure then is the best available
	// reading and pages mark it unverified.
	MemorySource   string `yaml:"memory_source"`
	MemoryQuote    string `yaml:"memory_quote,omitempty"`
	MemoryAsOf     string `yaml:"memory_as_of"`
	MemoryVerified bool   `yaml:"memory_verified"`
	MemoryNote     string `yaml:"memory_note,omitempty"`
	// GPUWiredShare is, for unified memory, the share of MemoryBytes the
	// OS lets the GPU wire by default; GPUWiredNote says how to raise it.
	GPUWiredShare float64 `yaml:"gpu_wired_share,omitempty"`
	GPUWiredNote  string  `yaml:"gpu_wired_note,omitempty"`
	// Bandwidth is memory bandwidth in bytes/s; the peaks are dense
	// (no sparsity) FLOP/s, absent where the part has no such unit or the
	// vendor publishes none; Interconnect is scale-up bandwidth per GPU in
	// bytes/s (NVLink, xGMI/Infinity Fabric, PCIe). PeakBF16 accumulates in
	// FP32; PeakFP16Acc16 is the FP16 rate with FP16 accumulation, set only
	// where it differs (GeForce parts run it at twice their FP32-accumulate
	// rate, and llama.cpp's F16 GEMMs use it).
	Bandwidth        Spec   `yaml:"memory_bandwidth"`
	PeakBF16         *Spec  `yaml:"peak_bf16_flops,omitempty"`
	PeakFP16Acc16    *Spec  `yaml:"peak_fp16_acc16_flops,omitempty"`
	PeakFP8          *Spec  `yaml:"peak_fp8_flops,omitempty"`
	PeakFP4          *Spec  `yaml:"peak_fp4_flops,omitempty"`
	Interconnect     *Spec  `yaml:"interconnect_bytes_per_second,omitempty"`
	InterconnectKind string `yaml:"interconnect_kind,omitempty"`
	GPUsPerNode      int    `yaml:"gpus_per_node"`
	NodeName         string `yaml:"node_name,omitempty"`
	Source           string `yaml:"source"`
	AsOf             string `yaml:"as_of"`

	// Host is how the part is installed (host.go); nil when not stated.
	Host *Host `yaml:"host,omitempty"`
}

// Spec is one figure of an accelerator with where it was read and when.
type Spec struct {
	Value  float64 `yaml:"value"`
	Source string  `yaml:"source"`
	AsOf   string  `yaml:"as_of"`
	Note   string  `yaml:"note,omitempty"`
}

// Classes are the kinds of hardware a reader owns or rents, in the order
// a page lists them.
var Classes = []string{"consumer", "workstation", "datacenter", "unified", "cpu"}

// Capacity is the memory a model can be placed in: the driver-reported
// total, or for unified memory the share the GPU may wire by default.
func (a *Accelerator) Capacity() int64 {
	if a.GPUWiredShare > 0 {
		return int64(float64(a.MemoryBytes) * a.GPUWiredShare)
	}
	return a.MemoryBytes
}

// Price is one rental price. Either per GPU-hour, or for a whole
// configuration of GPUs per hour when that is all the source states.
type Price struct {
	Accelerator string  `yaml:"accelerator"`
	GPUs        int     `yaml:"gpus,omitempty"`         // set when the price is for a configuration
	USDPerHour  float64 `yaml:"usd_per_hour,omitempty"` // for GPUs accelerators together
	USDPerGPUHr float64 `yaml:"usd_per_gpu_hour,omitempty"`
	Approximate bool    `yaml:"approximate,omitempty"`
	Note        string  `yaml:"note,omitempty"`
	// From a synced snapshot (data/pricing/*.json): the provider's SKU,
	// the region quoted, the number of marketplace offers whose median
	// the per-GPU price is (0 for a fixed price), and the entry's own
	// source and date when it differs from the list's.
	SKU    string `yaml:"-"`
	Region string `yaml:"-"`
	Offers int    `yaml:"-"`
	Source string `yaml:"-"`
	AsOf   string `yaml:"-"`
}

// PriceList is one provider's prices: a hand-written data/pricing/*.yaml
// file, or a snapshot data/pricing/*.json that `dossier prices sync`
// writes (or a person captured from a public page in the same format).
type PriceList struct {
	Provider string  `yaml:"provider"`
	Source   string  `yaml:"source"`
	AsOf     string  `yaml:"as_of"`
	Prices   []Price `yaml:"prices"`
	File     string  `yaml:"-"`
	// ID names the provider in fact keys (cost.<CFG>.usd_per_hour.<ID>):
	// the snapshot's provider id, or the hand-written provider name in
	// lower case without spaces or dots.
	ID string `yaml:"-"`
	// Scope says what the snapshot kept (region, meters, filters).
	Scope string `yaml:"-"`
}

// Catalog is all of data/ except the Hub snapshots.
type Catalog struct {
	Accelerators map[string]*Accelerator
	PriceLists   []*PriceList
	Software     []*Window
	References   []*Reference // documents inputs cite by a short id
	Speed        *SpeedModel  // speed.yaml, calibration.yaml, speed_fit.yaml; nil without speed.yaml
	citations    *citations   // of References, compiled once by Load
	// Notes says what was read but not used: snapshot prices for
	// accelerators hardware.yaml does not have, hand-written lists a
	// snapshot of the same provider supersedes.
	Notes []string
}

// Window is the range of a library's versions a model's code was found to
// run on, by trying them.
type Window struct {
	Model   string   `yaml:"model"`
	Package string   `yaml:"package"`
	What    string   `yaml:"what"`
	Works   []string `yaml:"works"`
	Fails   []string `yaml:"fails"`
	Source  string   `yaml:"source"`
	AsOf    string   `yaml:"as_of"`
}

// WindowsFor returns the software windows recorded for model.
func (c *Catalog) WindowsFor(model string) []*Window {
	var out []*Window
	for _, w := range c.Software {
		if w.Model == model {
			out = append(out, w)
		}
	}
	return out
}

type hardwareFile struct {
	Accelerators []*Accelerator `yaml:"accelerators"`
}

// dateRe accepts a calendar date YYYY-MM-DD (see checked.Date).
var dateRe calendarDate

// Load reads the catalogs under dataDir (see LoadFS).
func Load(dataDir string) (*Catalog, error) {
	return LoadFS(safefile.FS{Dir: dataDir, Limit: safefile.Catalog}, dataDir)
}

// LoadSizing reads the catalogs under dataDir that size a model:
// everything but software.yaml, which only the pages use (Software is
// empty). A site of a thousand models has a software window or more per
// model, and parsing them was a sixth of sizing one from its config.
func LoadSizing(dataDir string) (*Catalog, error) {
	return load(safefile.FS{Dir: dataDir, Limit: safefile.Catalog}, dataDir, false)
}

// LoadFS reads hardware.yaml, software.yaml, references.yaml and
// pricing/*.{json,yaml} from fsys (a data directory, or the catalogs
// embedded in the binary); label is what errors and PriceList.File call
// its root.
func LoadFS(fsys fs.FS, label string) (*Catalog, error) {
	return load(fsys, label, true)
}

func load(fsys fs.FS, label string, software bool) (*Catalog, error) {
	hwPath := filepath.Join(label, "hardware.yaml")
	b, err := fs.ReadFile(fsys, "hardware.yaml")
	if err != nil {
		return nil, fmt.Errorf("read hardware catalog %s: %w", hwPath, err)
	}
	var hf hardwareFile
	if err := yamlx.Decode(hwPath, b, &hf); err != nil {
		return nil, err
	}
	c := &Catalog{Accelerators: map[string]*Accelerator{}}
	if err := checkAccelerators(hwPath, b, hf.Accelerators); err != nil {
		return nil, err
	}
	for i, a := range hf.Accelerators {
		field := func(f string) string { return fmt.Sprintf("accelerators[%d].%s", i, f) }
		if err := validAccelerator(a, c, field); err != nil {
			return nil, fmt.Errorf("%s: %w", hwPath, err)
		}
		c.Accelerators[a.ID] = a
	}
	if software {
		if err := loadSoftware(fsys, label, "software.yaml", c); err != nil {
			return nil, err
		}
	}
	if err := loadReferences(fsys, label, "references.yaml", c); err != nil {
		return nil, err
	}
	if err := loadPricing(fsys, label, c); err != nil {
		return nil, err
	}
	if err := loadSpeed(fsys, label, c); err != nil {
		return nil, err
	}
	return c, nil
}

// loadPricing reads the snapshots (*.json) and the hand-written lists
// (*.yaml, except the SKU map). A snapshot supersedes a hand-written list
// of the same provider: it is the newer, machine-read source.
func loadPricing(fsys fs.FS, label string, c *Catalog) error {
	snaps, err := fs.Glob(fsys, path.Join("pricing", "*.json"))
	if err != nil {
		return fmt.Errorf("list pricing: %w", err)
	}
	sort.Strings(snaps)
	skus, err := loadSKUs(fsys, label)
	if err != nil {
		return err
	}
	synced := map[string]bool{}
	for _, f := range snaps {
		file := filepath.Join(label, filepath.FromSlash(f))
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return fmt.Errorf("read price snapshot %s: %w", file, err)
		}
		s, err := pricing.Decode(file, b)
		if err != nil {
			return err
		}
		if err := s.CheckSKUs(skus); err != nil {
			return pricing.Locate(file, b, err)
		}
		c.PriceLists = append(c.PriceLists, fromSnapshot(s, file, c))
		synced[s.Provider] = true
	}
	files, err := fs.Glob(fsys, path.Join("pricing", "*.yaml"))
	if err != nil {
		return fmt.Errorf("list pricing: %w", err)
	}
	sort.Strings(files)
	listed := map[string]string{} // provider id → its hand-written list
	for _, f := range files {
		if f == filepath.ToSlash(pricing.SKUPath("")) {
			continue
		}
		pl, err := loadPrices(fsys, label, f, c)
		if err != nil {
			return err
		}
		if synced[pl.ID] {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: superseded by the %s.json snapshot of the same provider", path.Base(f), pl.ID))
			continue
		}
		if first, dup := listed[pl.ID]; dup {
			b, _ := fs.ReadFile(fsys, f) // read once already: only for the line
			return fmt.Errorf("%s:%d: field provider: %s already has a price list in %s (one file per provider)", pl.File, max(1, yamlx.Line(b, "provider")), pl.Provider, first)
		}
		listed[pl.ID] = pl.File
		c.PriceLists = append(c.PriceLists, pl)
	}
	sort.SliceStable(c.PriceLists, func(i, j int) bool { return c.PriceLists[i].ID < c.PriceLists[j].ID })
	return nil
}

// loadSKUs reads pricing/skus.yaml, the map of what each provider SKU
// rents, if the site has one: build and check validate it and the
// snapshots against it, not only prices sync.
func loadSKUs(fsys fs.FS, label string) (pricing.SKUMap, error) {
	name := filepath.ToSlash(pricing.SKUPath(""))
	file := filepath.Join(label, filepath.FromSlash(name))
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read SKU map %s: %w", file, err)
	}
	return pricing.DecodeSKUs(file, b)
}

// fromSnapshot turns a snapshot into a price list. A price for an
// accelerator hardware.yaml does not describe is kept out, with a note:
// without the accelerator's memory there is no fit to price.
func fromSnapshot(s *pricing.Snapshot, file string, c *Catalog) *PriceList {
	pl := &PriceList{Provider: s.Name, ID: s.Provider, Source: s.Endpoint + " (" + s.Method + ")", AsOf: s.AsOf(), File: file, Scope: s.Scope}
	for _, p := range s.Prices {
		if c.Accelerators[p.Accelerator] == nil {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: %s (%s) is not in hardware.yaml: no cost facts from it", filepath.Base(file), p.Accelerator, p.SKU))
			continue
		}
		q := Price{Accelerator: p.Accelerator, SKU: p.SKU, Region: p.Region, Approximate: p.Approximate, Note: p.Note, Source: p.Source, AsOf: p.AsOf}
		switch {
		case p.Offers != nil:
			q.USDPerGPUHr, q.Offers = p.USDPerGPU, p.Offers.Count
		case p.GPUs == 1:
			q.USDPerGPUHr = p.USDPerGPU
		default:
			q.GPUs, q.USDPerHour = p.GPUs, p.USDPerHour
		}
		pl.Prices = append(pl.Prices, q)
	}
	return pl
}

// providerID is a hand-written provider name as a fact-key segment.
func providerID(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// MinSpec and MaxSpec bound a bandwidth or peak rate (bytes or FLOP per
// second): 1e-300 B/s would make every time derived from it infinite, and
// the slowest real figure (a PCIe link) is above 10^9.
const (
	MinSpec = 1e6
	MaxSpec = 1e20
)

// validAccelerator checks one hardware entry; the error names the field.
// The ranges of its numbers are checkAccelerators' (ranges.go).
func validAccelerator(a *Accelerator, c *Catalog, field func(string) string) error {
	switch {
	case a.ID == "":
		return fmt.Errorf("field %s: missing", field("id"))
	case c.Accelerators[a.ID] != nil:
		return fmt.Errorf("field %s: duplicate id %q", field("id"), a.ID)
	case !slices.Contains(Classes, a.Class):
		return fmt.Errorf("field %s: expected one of %v, found %q", field("class"), Classes, a.Class)
	case a.MemoryMarketing == "":
		return fmt.Errorf("field %s: missing (the spec sheet's figure as printed)", field("memory_marketing"))
	case a.MemorySource == "":
		return fmt.Errorf("field %s: missing (the capture the figure was read from, or why none was found)", field("memory_source"))
	case a.MemoryVerified && a.MemoryQuote == "":
		return fmt.Errorf("field %s: a verified capacity quotes the line it was read from", field("memory_quote"))
	case !dateRe.MatchString(a.MemoryAsOf):
		return fmt.Errorf("field %s: expected YYYY-MM-DD, found %q", field("memory_as_of"), a.MemoryAsOf)
	case !(a.GPUWiredShare >= 0 && a.GPUWiredShare <= 1):
		return fmt.Errorf("field %s: expected a fraction in [0, 1], found %v", field("gpu_wired_share"), a.GPUWiredShare)
	case a.Source == "":
		return fmt.Errorf("field %s: missing", field("source"))
	case !dateRe.MatchString(a.AsOf):
		return fmt.Errorf("field %s: expected YYYY-MM-DD, found %q", field("as_of"), a.AsOf)
	}
	if err := validHost(a.Host, field); err != nil {
		return err
	}
	if a.Bandwidth.Value == 0 && a.Bandwidth.Source == "" {
		return fmt.Errorf("field %s: missing", field("memory_bandwidth"))
	}
	specs := []struct {
		name string
		s    *Spec
	}{{"memory_bandwidth", &a.Bandwidth}, {"peak_bf16_flops", a.PeakBF16}, {"peak_fp16_acc16_flops", a.PeakFP16Acc16}, {"peak_fp8_flops", a.PeakFP8}, {"peak_fp4_flops", a.PeakFP4}, {"interconnect_bytes_per_second", a.Interconnect}}
	for _, sp := range specs {
		if sp.s == nil {
			continue
		}
		switch {
		case !(sp.s.Value >= MinSpec && sp.s.Value <= MaxSpec): // NaN too
			return fmt.Errorf("field %s: %s", field(sp.name+".value"), checked.Range(MinSpec, MaxSpec, "per second", sp.s.Value))
		case sp.s.Source == "":
			return fmt.Errorf("field %s: missing", field(sp.name+".source"))
		case !dateRe.MatchString(sp.s.AsOf):
			return fmt.Errorf("field %s: expected YYYY-MM-DD, found %q", field(sp.name+".as_of"), sp.s.AsOf)
		}
	}
	return nil
}

func loadPrices(fsys fs.FS, label, name string, c *Catalog) (*PriceList, error) {
	path := filepath.Join(label, filepath.FromSlash(name))
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("read price list %s: %w", path, err)
	}
	var pl PriceList
	if err := yamlx.Decode(path, b, &pl); err != nil {
		return nil, err
	}
	pl.File = path
	pl.ID = providerID(pl.Provider)
	if err := checkPrices(path, b, &pl); err != nil {
		return nil, err
	}
	switch {
	case pl.ID == "":
		return nil, fmt.Errorf("%s: field provider: missing", path)
	case pl.Source == "":
		return nil, fmt.Errorf("%s: field source: missing", path)
	case !dateRe.MatchString(pl.AsOf):
		return nil, fmt.Errorf("%s: field as_of: expected YYYY-MM-DD, found %q", path, pl.AsOf)
	}
	for i, p := range pl.Prices {
		field := func(f string) string { return fmt.Sprintf("prices[%d].%s", i, f) }
		if c.Accelerators[p.Accelerator] == nil {
			return nil, fmt.Errorf("%s: field %s: unknown accelerator %q (not in hardware.yaml)", path, field("accelerator"), p.Accelerator)
		}
		perGPU, perConf := p.USDPerGPUHr > 0, p.USDPerHour > 0
		if perGPU == perConf {
			return nil, fmt.Errorf("%s: field %s: give exactly one of usd_per_gpu_hour or usd_per_hour (with gpus)", path, field("usd_per_gpu_hour"))
		}
		if perConf && p.GPUs <= 0 {
			return nil, fmt.Errorf("%s: field %s: a price per hour needs the number of GPUs it buys", path, field("gpus"))
		}
	}
	return &pl, nil
}

// Quote is the price of n accelerators for an hour, with where it came from.
type Quote struct {
	USDPerHour  float64
	Provider    string // as printed
	ProviderID  string // in fact keys
	Source      string
	AsOf        string
	Approximate bool
	Derivation  string
	Offers      int // marketplace offers whose median this is; 0 for a fixed price
}

// PriceSourcePrefix begins every source that cites a price list.
const PriceSourcePrefix = "pricing:"

// HardwareSourcePrefix begins every source that cites a part of the
// hardware catalog: "catalog:hardware.yaml#H100".
const HardwareSourcePrefix = "catalog:hardware.yaml#"

// SourceKey is how facts cite the quote: "pricing:<Provider> <as of>".
func (q Quote) SourceKey() string { return PriceSourcePrefix + q.Provider + " " + q.AsOf }

// Quotes returns, per provider that prices n GPUs of accelerator id, its
// lowest quote, ordered by provider id. A per-GPU price scales to any n; a
// configuration price only answers for its own GPU count or a whole
// multiple of it.
func (c *Catalog) Quotes(id string, n int) []Quote {
	best := map[string]Quote{}
	var order []string
	for _, pl := range c.PriceLists {
		for _, p := range pl.Prices {
			if p.Accelerator != id {
				continue
			}
			var q Quote
			switch {
			case p.USDPerGPUHr > 0 && p.Offers > 0:
				q.USDPerHour = p.USDPerGPUHr * float64(n)
				q.Derivation = fmt.Sprintf("%d × $%.2f per GPU-hour, the median of %d offers (%s)", n, p.USDPerGPUHr, p.Offers, pl.Provider)
			case p.USDPerGPUHr > 0:
				q.USDPerHour = p.USDPerGPUHr * float64(n)
				q.Derivation = fmt.Sprintf("%d × $%.2f per GPU-hour (%s)", n, p.USDPerGPUHr, pl.Provider)
			case n%p.GPUs == 0:
				q.USDPerHour = p.USDPerHour * float64(n/p.GPUs)
				q.Derivation = fmt.Sprintf("%d × $%.2f per %d-GPU hour (%s)", n/p.GPUs, p.USDPerHour, p.GPUs, pl.Provider)
			default:
				continue
			}
			if p.SKU != "" {
				where := p.SKU
				if p.Region != "" {
					where += ", " + p.Region
				}
				q.Derivation = strings.TrimSuffix(q.Derivation, ")") + ": " + where + ")"
			}
			q.Provider, q.ProviderID, q.Source, q.AsOf, q.Approximate, q.Offers = pl.Provider, pl.ID, pl.Source, pl.AsOf, p.Approximate, p.Offers
			if p.Source != "" {
				q.Source = p.Source
			}
			if p.AsOf != "" {
				q.AsOf = p.AsOf
			}
			old, seen := best[pl.ID]
			if !seen {
				order = append(order, pl.ID)
			}
			if !seen || q.USDPerHour < old.USDPerHour {
				best[pl.ID] = q
			}
		}
	}
	sort.Strings(order)
	out := make([]Quote, 0, len(order))
	for _, p := range order {
		out = append(out, best[p])
	}
	return out
}

// Cheapest returns the lowest quote for n GPUs of accelerator id across
// providers (the first provider by id on a tie).
func (c *Catalog) Cheapest(id string, n int) (Quote, bool) { return CheapestOf(c.Quotes(id, n)) }

// CheapestOf returns the lowest of quotes as Quotes orders them (the first
// on a tie).
func CheapestOf(qs []Quote) (Quote, bool) {
	if len(qs) == 0 {
		return Quote{}, false
	}
	best := qs[0]
	for _, q := range qs[1:] {
		if q.USDPerHour < best.USDPerHour {
			best = q
		}
	}
	return best, true
}

// PriceSource is one price source a page cites.
type PriceSource struct{ Key, Source, AsOf string }

// PriceSources lists every source the price lists cite, once each: the
// list's own, and those of entries a hand capture took from other pages.
func (c *Catalog) PriceSources() []PriceSource {
	var out []PriceSource
	seen := map[string]bool{}
	add := func(provider, source, asOf string) {
		k := PriceSourcePrefix + provider + " " + asOf
		if !seen[k] {
			seen[k] = true
			out = append(out, PriceSource{k, source, asOf})
		}
	}
	for _, pl := range c.PriceLists {
		add(pl.Provider, pl.Source, pl.AsOf)
		for _, p := range pl.Prices {
			if p.Source != "" || p.AsOf != "" {
				src, at := pl.Source, pl.AsOf
				if p.Source != "" {
					src = p.Source
				}
				if p.AsOf != "" {
					at = p.AsOf
				}
				add(pl.Provider, src, at)
			}
		}
	}
	return out
}

// loadSoftware reads data/software.yaml if the site has one.
func loadSoftware(fsys fs.FS, label, name string, c *Catalog) error {
	path := filepath.Join(label, name)
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read software windows %s: %w", path, err)
	}
	var f struct {
		Windows []*Window `yaml:"windows"`
	}
	if err := yamlx.Decode(path, b, &f); err != nil {
		return err
	}
	for i, w := range f.Windows {
		field := func(n string) string { return fmt.Sprintf("windows[%d].%s", i, n) }
		switch {
		case w.Model == "" || w.Package == "":
			return fmt.Errorf("%s: field %s: needs model and package", path, field("model"))
		case len(w.Works)+len(w.Fails) == 0:
			return fmt.Errorf("%s: field %s: list the versions tried (works and/or fails)", path, field("works"))
		case w.Source == "":
			return fmt.Errorf("%s: field %s: missing", path, field("source"))
		case !dateRe.MatchString(w.AsOf):
			return fmt.Errorf("%s: field %s: expected YYYY-MM-DD, found %q", path, field("as_of"), w.AsOf)
		}
	}
	c.Software = f.Windows
	return nil
}
