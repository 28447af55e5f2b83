package catalog

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFixtureCatalog(t *testing.T) {
	c, err := Load(filepath.Join("testdata", "data"))
	if err != nil {
		t.Fatal(err)
	}
	// nvidia-smi's 183,359 MiB × 2^20, not the spec sheet's 180 GB.
	if b := c.Accelerators["B200"]; b == nil || b.MemoryBytes != 183359<<20 || b.GPUsPerNode != 8 || !b.MemoryVerified || b.Capacity() != b.MemoryBytes {
		t.Fatalf("B200 = %+v", b)
	}
	if m := c.Accelerators["MI300X"]; m == nil || m.MemoryBytes != 205822885888 || m.Bandwidth.Value != 5.3e12 {
		t.Fatalf("MI300X = %+v", m)
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

// TestShippedCatalogCitesEveryFigure: every capacity in data/hardware.yaml
// cites the capture it came from (or says none was found and is flagged
// unverified), and every figure has a source and a date. Structure only:
// the values change with the data.
func TestShippedCatalogCitesEveryFigure(t *testing.T) {
	c, err := Load(filepath.Join("..", "..", "data"))
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]int{}
	for id, a := range c.Accelerators {
		classes[a.Class]++
		if a.Source == "" || a.AsOf == "" || a.MemorySource == "" || a.MemoryAsOf == "" || a.MemoryMarketing == "" {
			t.Errorf("%s: a figure without source or date: %+v", id, a)
		}
		if a.MemoryVerified != strings.HasPrefix(a.MemorySource, "https://") {
			t.Errorf("%s: verified=%v but memory_source %q", id, a.MemoryVerified, a.MemorySource)
		}
		if !a.MemoryVerified && !strings.HasPrefix(a.MemorySource, "unverified") && a.Class != "cpu" {
			t.Errorf("%s: an unverified capacity must say so: %q", id, a.MemorySource)
		}
		for name, s := range map[string]*Spec{"bandwidth": &a.Bandwidth, "bf16": a.PeakBF16, "fp16acc16": a.PeakFP16Acc16, "fp8": a.PeakFP8, "fp4": a.PeakFP4, "interconnect": a.Interconnect} {
			if s != nil && (s.Source == "" || s.AsOf == "") {
				t.Errorf("%s %s: no source or date", id, name)
			}
		}
		if a.Class != "cpu" && a.PeakBF16 == nil {
			t.Errorf("%s: every GPU has a 16-bit matrix rate; without peak_bf16_flops it gets no prefill or compute term", id)
		}
		// A GeForce part runs FP16 with FP16 accumulation at twice its
		// FP32-accumulate rate, and llama.cpp's F16 GEMMs use it.
		if a.Vendor == "NVIDIA" && a.Class == "consumer" && (a.PeakFP16Acc16 == nil || a.PeakBF16 == nil || math.Abs(a.PeakFP16Acc16.Value/a.PeakBF16.Value-2) > 0.01) {
			t.Errorf("%s: a GeForce part lists its FP16-accumulate peak at twice the FP32-accumulate one", id)
		}
		if a.Class == "unified" && (a.GPUWiredShare == 0 || !strings.Contains(a.GPUWiredNote, "iogpu.wired_limit_mb")) {
			t.Errorf("%s: unified memory must state the GPU's default wired share and how to raise it", id)
		}
	}
	for _, cl := range Classes {
		if classes[cl] == 0 {
			t.Errorf("no accelerator of class %s", cl)
		}
	}
	for _, id := range []string{"B200", "B300", "GB300NVL72", "GB200NVL72", "H200", "H100", "A100", "L40S", "MI300X", "MI325X", "MI355X", "RTXPRO6000", "RTX6000Ada", "RTX5090", "RTX4090", "RTX3090", "M3Ultra512", "M4Max128", "CPUHost", "H100PCIe", "A100PCIe", "M1Max32", "M1Ultra64", "M2Max96", "M3Max64", "M4Max64", "M4Pro24"} {
		if c.Accelerators[id] == nil {
			t.Errorf("accelerator %s missing", id)
		}
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

const hwEntry = "id: X1, name: X, vendor: V, class: consumer, memory_marketing: 1 kB, memory_source: \"https://x\", memory_quote: q, memory_verified: true, memory_as_of: \"2026-01-01\", gpus_per_node: 8, source: s, as_of: \"2026-01-01\""

const hw = "accelerators:\n  - {" + hwEntry + ", memory_bytes: 1000, memory_bandwidth: {value: 1e12, source: s, as_of: \"2026-01-01\"}}\n"

// bad returns a one-entry hardware.yaml with the fields given after the
// valid ones (a later key wins in the flow mapping only if not repeated, so
// tests pass the fields a valid entry does not set).
func bad(fields string) string {
	return "accelerators:\n  - {id: X1, name: X, vendor: V, memory_marketing: 1 kB, memory_source: \"https://x\", memory_quote: q, memory_verified: true, memory_as_of: \"2026-01-01\", source: s, as_of: \"2026-01-01\", " + fields + "}\n"
}

func TestBadCatalogNamesFileAndField(t *testing.T) {
	for _, tc := range []struct{ file, body, want string }{
		{"hardware.yaml", bad("class: consumer, memory_bytes: 0, gpus_per_node: 8, memory_bandwidth: {value: 1e12, source: s, as_of: \"2026-01-01\"}"), "accelerators[0].memory_bytes"},
		{"hardware.yaml", bad("class: consumer, memory_bytes: 1000000000000001, gpus_per_node: 8, memory_bandwidth: {value: 1e12, source: s, as_of: \"2026-01-01\"}"), "accelerators[0].memory_bytes"},
		{"hardware.yaml", bad("class: consumer, memory_bytes: 1000, gpus_per_node: 8"), "accelerators[0].memory_bandwidth"},
		{"hardware.yaml", bad("class: consumer, memory_bytes: 1000, gpus_per_node: 8, memory_bandwidth: {value: 1e12, source: s, as_of: later}"), "accelerators[0].memory_bandwidth.as_of"},
		{"hardware.yaml", bad("class: consumer, memory_bytes: 1000, gpus_per_node: 99999999999999999999, memory_bandwidth: {value: 1e12, source: s, as_of: \"2026-01-01\"}"), "line 2"},
		{"hardware.yaml", bad("class: consumer, memory_bytes: 1000, gpus_per_node: 100000, memory_bandwidth: {value: 1e12, source: s, as_of: \"2026-01-01\"}"), "accelerators[0].gpus_per_node"},
		{"hardware.yaml", bad("class: mainframe, memory_bytes: 1000, gpus_per_node: 8, memory_bandwidth: {value: 1e12, source: s, as_of: \"2026-01-01\"}"), "accelerators[0].class"},
		{"hardware.yaml", bad("class: consumer, memory_bytes: 1000, gpus_per_node: 8, peak_fp8_flops: {value: 1e15, as_of: \"2026-01-01\"}, memory_bandwidth: {value: 1e12, source: s, as_of: \"2026-01-01\"}"), "accelerators[0].peak_fp8_flops.source"},
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

// TestLoadSizingSkipsSoftware: the sizing catalogs are the full ones but
// the software windows, and a broken software.yaml does not stop them.
func TestLoadSizingSkipsSoftware(t *testing.T) {
	full, err := Load(filepath.Join("testdata", "data"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "data"))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "software.yaml"), []byte("windows: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil {
		t.Fatal("Load accepted a broken software.yaml")
	}
	sizing, err := LoadSizing(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sizing.Software) != 0 {
		t.Errorf("LoadSizing read %d software windows", len(sizing.Software))
	}
	if len(sizing.Accelerators) != len(full.Accelerators) || len(sizing.PriceLists) != len(full.PriceLists) || len(sizing.PriceLists) == 0 || len(sizing.References) != len(full.References) {
		t.Errorf("LoadSizing: %d accelerators, %d price lists; Load: %d, %d", len(sizing.Accelerators), len(sizing.PriceLists), len(full.Accelerators), len(full.PriceLists))
	}
}
