package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShippedCatalog reads the fixture site's catalogs (testdata/site/data
// at the repository root), a frozen copy of the shipped ones.
func TestShippedCatalog(t *testing.T) {
	c, err := Load(filepath.Join("..", "..", "testdata", "site", "data"))
	if err != nil {
		t.Fatal(err)
	}
	if b := c.Accelerators["B200"]; b == nil || b.MemoryBytes != 180e9 || b.GPUsPerNode != 8 {
		t.Fatalf("B200 = %+v", b)
	}
	// Per-GPU prices scale to any count: 8 × $5.98.
	if q, ok := c.Cheapest("B200", 8); !ok || q.USDPerHour != 8*5.98 || q.Approximate {
		t.Errorf("8 × B200 = %+v %v", q, ok)
	}
	// A price for a configuration of 8 answers 8 and 16, not 12.
	if q, ok := c.Cheapest("H200", 16); !ok || q.USDPerHour != 58 || !q.Approximate {
		t.Errorf("16 × H200 = %+v %v", q, ok)
	}
	if _, ok := c.Cheapest("H200", 12); ok {
		t.Error("a per-8-GPU price answered for 12 GPUs")
	}
	if _, ok := c.Cheapest("MI300X", 8); ok {
		t.Error("a price appeared for an accelerator no list prices")
	}
	if ws := c.WindowsFor("moonshotai/Kimi-K3"); len(ws) == 0 || ws[0].Fails[0] != "5.2.0" {
		t.Errorf("K3 software windows = %+v", ws)
	}
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

const hw = "accelerators:\n  - {id: X1, name: X, vendor: V, memory_bytes: 1000, gpus_per_node: 8, source: s, as_of: \"2026-01-01\"}\n"

func TestBadCatalogNamesFileAndField(t *testing.T) {
	for _, tc := range []struct{ file, body, want string }{
		{"hardware.yaml", "accelerators:\n  - {id: X1, memory_bytes: 0, gpus_per_node: 8, source: s, as_of: \"2026-01-01\"}\n", "accelerators[0].memory_bytes"},
		{"hardware.yaml", "accelerators:\n  - {id: X1, memory_bytes: 10, gpus_per_node: 8, source: s, as_of: soon}\n", "accelerators[0].as_of"},
		{"hardware.yaml", "accelerators:\n  - {id: X1, memory: 10}\n", "unknown field memory"},
		{"pricing/p.yaml", "provider: P\nsource: s\nas_of: \"2026-01-01\"\nprices:\n  - {accelerator: X9, usd_per_gpu_hour: 1}\n", "prices[0].accelerator"},
		{"pricing/p.yaml", "provider: P\nsource: s\nas_of: \"2026-01-01\"\nprices:\n  - {accelerator: X1, usd_per_hour: 10}\n", "prices[0].gpus"},
		{"pricing/p.yaml", "provider: P\nsource: s\nas_of: \"2026-01-01\"\nprices:\n  - {accelerator: X1, usd_per_hour: 10, usd_per_gpu_hour: 1, gpus: 8}\n", "exactly one"},
		{"software.yaml", "windows:\n  - {model: a/b, package: p, source: s, as_of: \"2026-01-01\"}\n", "windows[0].works"},
	} {
		dir := t.TempDir()
		write(t, dir, "hardware.yaml", hw)
		write(t, dir, tc.file, tc.body)
		_, err := Load(dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), filepath.Base(tc.file)) {
			t.Errorf("%s %q: error %v, want one naming the file and %q", tc.file, tc.body, err, tc.want)
		}
	}
}
