package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShippedCatalog(t *testing.T) {
	c, err := Load(filepath.Join("..", "..", "data"))
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
	if q, ok := c.Cheapest("RTXPRO6000", 16); !ok || q.USDPerHour != 28 || !q.Approximate {
		t.Errorf("16 × RTXPRO6000 = %+v %v", q, ok)
	}
	if _, ok := c.Cheapest("RTXPRO6000", 12); ok {
		t.Error("a per-8-GPU price answered for 12 GPUs")
	}
	if _, ok := c.Cheapest("MI355X", 8); ok {
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

// testdata/snapshots holds three synced snapshots and a hand-written list
// the RunPod snapshot supersedes.
func TestSnapshotsQuotePerProvider(t *testing.T) {
	c, err := Load("testdata/snapshots")
	if err != nil {
		t.Fatal(err)
	}
	qs := c.Quotes("H100", 8)
	if len(qs) != 3 {
		t.Fatalf("quotes = %+v, want azure, runpod, vastai", qs)
	}
	want := []struct {
		id, asOf, deriv string
		usd             float64
	}{
		{"azure", "2026-12-02", "1 × $98.32 per 8-GPU hour (Azure: Standard_ND96isr_H100_v5, eastus)", 98.32},
		{"runpod", "2026-11-20", "8 × $2.69 per GPU-hour (RunPod: NVIDIA H100 80GB HBM3, Secure Cloud)", 8 * 2.69},
		{"vastai", "2026-12-02", "8 × $2.20 per GPU-hour, the median of 3 offers (Vast.ai: H100 SXM, all regions)", 8 * 2.2},
	}
	for i, w := range want {
		q := qs[i]
		if q.ProviderID != w.id || q.USDPerHour != w.usd || q.AsOf != w.asOf || q.Derivation != w.deriv {
			t.Errorf("quote %d = %+v, want %+v", i, q, w)
		}
	}
	if q, ok := c.Cheapest("H100", 8); !ok || q.ProviderID != "vastai" || q.Offers != 3 {
		t.Errorf("cheapest 8 × H100 = %+v", q)
	}
	if qs := c.Quotes("H100", 4); len(qs) != 2 {
		t.Errorf("4 × H100: an 8-GPU VM answered: %+v", qs)
	}
	// The snapshot's B200 price, not the superseded hand-written one.
	if q, ok := c.Cheapest("B200", 8); !ok || q.USDPerHour != 8*5.99 || q.SourceKey() != "pricing:RunPod 2026-12-01" {
		t.Errorf("8 × B200 = %+v", q)
	}
	notes := strings.Join(c.Notes, "\n")
	for _, w := range []string{"runpod.yaml: superseded by the runpod.json snapshot", "vastai.json: RTX4090 (RTX 4090) is not in hardware.yaml"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes %q lack %q", notes, w)
		}
	}
	var keys []string
	for _, s := range c.PriceSources() {
		keys = append(keys, s.Key)
	}
	if got := strings.Join(keys, ","); got != "pricing:Azure 2026-12-02,pricing:RunPod 2026-12-01,pricing:RunPod 2026-11-20,pricing:Vast.ai 2026-12-02" {
		t.Errorf("price sources = %s", got)
	}
}

func TestBadSnapshotNamesFileAndField(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "hardware.yaml", hw)
	write(t, dir, "pricing/x.json", `{"provider":"x","name":"X","fetched":"2026-12-02","endpoint":"e","method":"m","scope":"s","prices":[{"sku":"a","accelerator":"X1","gpus":1,"usd_per_hour":1,"usd_per_gpu_hour":1,"currency":"EUR"}]}`)
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "x.json") || !strings.Contains(err.Error(), "prices[0].currency") {
		t.Errorf("err = %v", err)
	}
}
