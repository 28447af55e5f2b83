package pricing

import (
	"fmt"
	"path/filepath"

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
	var f struct {
		Providers SKUMap `yaml:"providers"`
	}
	if err := yamlx.Decode(path, b, &f); err != nil {
		return nil, err
	}
	for prov, skus := range f.Providers {
		seen := map[string]bool{}
		for i, s := range skus {
			field := func(n string) string { return fmt.Sprintf("providers.%s[%d].%s", prov, i, n) }
			switch {
			case s.SKU == "":
				return nil, fmt.Errorf("%s: field %s: missing", path, field("sku"))
			case seen[s.SKU]:
				return nil, fmt.Errorf("%s: field %s: duplicate SKU %q", path, field("sku"), s.SKU)
			case s.Accelerator == "":
				return nil, fmt.Errorf("%s: field %s: missing", path, field("accelerator"))
			case s.GPUs <= 0:
				return nil, fmt.Errorf("%s: field %s: expected a positive count", path, field("gpus"))
			case s.Source == "":
				return nil, fmt.Errorf("%s: field %s: name the provider page that states it", path, field("source"))
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
