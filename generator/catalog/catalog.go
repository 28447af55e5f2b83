// Package catalog reads what the site knows besides the Hub: accelerators
// (data/hardware.yaml) and rental prices (data/pricing/*.yaml). Every entry
// carries its source and the date it was read.
package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"

	"dossier/generator/yamlx"
)

// Accelerator is one GPU model.
type Accelerator struct {
	ID          string `yaml:"id"`
	Name        string `yaml:"name"`
	Vendor      string `yaml:"vendor"`
	MemoryBytes int64  `yaml:"memory_bytes"`
	MemoryNote  string `yaml:"memory_note,omitempty"`
	GPUsPerNode int    `yaml:"gpus_per_node"`
	NodeName    string `yaml:"node_name,omitempty"`
	Source      string `yaml:"source"`
	AsOf        string `yaml:"as_of"`
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
}

// PriceList is one data/pricing/*.yaml file.
type PriceList struct {
	Provider string  `yaml:"provider"`
	Source   string  `yaml:"source"`
	AsOf     string  `yaml:"as_of"`
	Prices   []Price `yaml:"prices"`
	File     string  `yaml:"-"`
}

// Catalog is all of data/ except the Hub snapshots.
type Catalog struct {
	Accelerators map[string]*Accelerator
	PriceLists   []*PriceList
	Software     []*Window
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

var dateRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// Load reads data/hardware.yaml and data/pricing/*.yaml under dataDir.
func Load(dataDir string) (*Catalog, error) {
	return LoadFS(os.DirFS(dataDir), dataDir)
}

// LoadFS reads hardware.yaml, software.yaml and pricing/*.yaml from fsys
// (a data directory, or the catalogs embedded in the binary); label is
// what errors and PriceList.File call its root.
func LoadFS(fsys fs.FS, label string) (*Catalog, error) {
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
	for i, a := range hf.Accelerators {
		field := func(f string) string { return fmt.Sprintf("accelerators[%d].%s", i, f) }
		switch {
		case a.ID == "":
			return nil, fmt.Errorf("%s: field %s: missing", hwPath, field("id"))
		case c.Accelerators[a.ID] != nil:
			return nil, fmt.Errorf("%s: field %s: duplicate id %q", hwPath, field("id"), a.ID)
		case a.MemoryBytes <= 0:
			return nil, fmt.Errorf("%s: field %s: expected a positive byte count", hwPath, field("memory_bytes"))
		case a.GPUsPerNode <= 0:
			return nil, fmt.Errorf("%s: field %s: expected a positive count", hwPath, field("gpus_per_node"))
		case a.Source == "":
			return nil, fmt.Errorf("%s: field %s: missing", hwPath, field("source"))
		case !dateRe.MatchString(a.AsOf):
			return nil, fmt.Errorf("%s: field %s: expected YYYY-MM-DD, found %q", hwPath, field("as_of"), a.AsOf)
		}
		c.Accelerators[a.ID] = a
	}
	if err := loadSoftware(fsys, label, "software.yaml", c); err != nil {
		return nil, err
	}
	files, err := fs.Glob(fsys, path.Join("pricing", "*.yaml"))
	if err != nil {
		return nil, fmt.Errorf("list pricing: %w", err)
	}
	sort.Strings(files)
	for _, f := range files {
		pl, err := loadPrices(fsys, label, f, c)
		if err != nil {
			return nil, err
		}
		c.PriceLists = append(c.PriceLists, pl)
	}
	return c, nil
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
	switch {
	case pl.Provider == "":
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
	Provider    string
	Source      string
	AsOf        string
	Approximate bool
	Derivation  string
}

// Cheapest returns the lowest quote for n GPUs of accelerator id. A per-GPU
// price scales to any n; a configuration price only answers for its own
// GPU count or a whole multiple of it.
func (c *Catalog) Cheapest(id string, n int) (Quote, bool) {
	var best Quote
	found := false
	for _, pl := range c.PriceLists {
		for _, p := range pl.Prices {
			if p.Accelerator != id {
				continue
			}
			var q Quote
			switch {
			case p.USDPerGPUHr > 0:
				q.USDPerHour = p.USDPerGPUHr * float64(n)
				q.Derivation = fmt.Sprintf("%d × $%.2f per GPU-hour (%s)", n, p.USDPerGPUHr, pl.Provider)
			case n%p.GPUs == 0:
				q.USDPerHour = p.USDPerHour * float64(n/p.GPUs)
				q.Derivation = fmt.Sprintf("%d × $%.2f per %d-GPU hour (%s)", n/p.GPUs, p.USDPerHour, p.GPUs, pl.Provider)
			default:
				continue
			}
			q.Provider, q.Source, q.AsOf, q.Approximate = pl.Provider, pl.Source, pl.AsOf, p.Approximate
			if !found || q.USDPerHour < best.USDPerHour {
				best, found = q, true
			}
		}
	}
	return best, found
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
