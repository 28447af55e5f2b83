package pricing

import (
	"fmt"
	"path/filepath"
	"sort"

	"dossier/generator/internal/checked"
	"dossier/generator/internal/safefile"
	"dossier/generator/yamlx"
)

// SKU maps one provider SKU to the accelerator it rents and how many.
type SKU struct {
	SKU         string `yaml:"sku"`
	Accelerator string `yaml:"accelerator"`
	GPUs        int    `yaml:"gpus"`
	Source      string `yaml:"source"` // the provider page that states it
}

// SKUMap is data/pricing/skus.yaml: per provider id, the SKUs it maps.
type SKUMap map[string][]SKU

// SKUPath is where the map lives under dataDir.
func SKUPath(dataDir string) string { return filepath.Join(dataDir, "pricing", "skus.yaml") }

// LoadSKUs reads and checks the SKU map.
func LoadSKUs(path string) (SKUMap, error) {
	b, err := safefile.Read(path, filepath.Dir(path), safefile.Catalog)
	if err != nil {
		return nil, fmt.Errorf("read SKU map: %w", err)
	}
	return DecodeSKUs(path, b)
}

// DecodeSKUs parses and checks the SKU map b read from path (named in
// errors, with the line of the field).
func DecodeSKUs(path string, b []byte) (SKUMap, error) {
	var f struct {
		Providers SKUMap `yaml:"providers"`
	}
	if err := yamlx.Decode(path, b, &f); err != nil {
		return nil, err
	}
	if f.Providers == nil {
		return nil, fmt.Errorf("%s: field providers: missing (per provider id, the SKUs it maps)", path)
	}
	provs := make([]string, 0, len(f.Providers))
	for prov := range f.Providers {
		provs = append(provs, prov)
	}
	sort.Strings(provs) // the first error is the same on every run
	for _, prov := range provs {
		if !providerRe.MatchString(prov) {
			return nil, fmt.Errorf("%s:%d: field providers.%s: expected a lower-case provider id such as azure", path, yamlx.Line(b, "providers."+prov), prov)
		}
		seen := map[string]bool{}
		for i, s := range f.Providers[prov] {
			field := fmt.Sprintf("providers.%s[%d]", prov, i)
			bad := func(name, format string, a ...any) error {
				return fmt.Errorf("%s:%d: field %s.%s: %s", path, max(1, yamlx.Line(b, field)), field, name, fmt.Sprintf(format, a...))
			}
			switch {
			case s.SKU == "":
				return nil, bad("sku", "missing")
			case seen[s.SKU]:
				return nil, bad("sku", "duplicate SKU %q", s.SKU)
			case s.Accelerator == "":
				return nil, bad("accelerator", "missing")
			case s.GPUs <= 0 || s.GPUs > checked.MaxGPUs:
				return nil, bad("gpus", "%s", checked.Range(1, checked.MaxGPUs, "GPUs", s.GPUs))
			case s.Source == "":
				return nil, bad("source", "name the provider page that states it")
			}
			seen[s.SKU] = true
		}
	}
	return f.Providers, nil
}

// Lookup finds a provider's SKU.
func (m SKUMap) Lookup(provider, sku string) (SKU, bool) {
	for _, s := range m[provider] {
		if s.SKU == sku {
			return s, true
		}
	}
	return SKU{}, false
}
