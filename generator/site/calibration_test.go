package site

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"dossier/generator/facts"
)

// TestSpreadByHand: minimum, median (the mean of the middle two for an even
// count) and maximum.
func TestSpreadByHand(t *testing.T) {
	for _, c := range []struct {
		in          []float64
		lo, med, hi float64
		ok          bool
	}{
		{[]float64{1.79, 0.53, 1.16}, 0.53, 1.16, 1.79, true},
		{[]float64{2, 0.5, 1, 4}, 0.5, 1.5, 4, true},
		{nil, 0, 0, 0, false},
	} {
		lo, med, hi, ok := Spread(c.in)
		if lo != c.lo || med != c.med || hi != c.hi || ok != c.ok {
			t.Errorf("Spread(%v) = %v, %v, %v, %v; want %v, %v, %v, %v", c.in, lo, med, hi, ok, c.lo, c.med, c.hi, c.ok)
		}
	}
}

// TestCalibrationPage builds the fixture site, whose Mixtral page carries
// gpt-fast's three tensor-parallel measurements on A100s, whose gpt-oss-20b
// page three single-GPU ones and whose K3 page AirLLM's streamed 292 s per
// token: the calibration page lists the seven pairs with each model's own predicted ÷ measured (read back from its
// facts.json), the spread of those seven ratios, K3's measurements that
// cannot be compared with their reasons, and the index links to it.
func TestCalibrationPage(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, copySite(t), dest); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dest, "calibration", "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	measured := map[string]struct {
		slug  string
		value float64
	}{
		"gpt-fast-tp2": {"mixtral-8x7b-v0-1", 78.75}, "gpt-fast-tp4": {"mixtral-8x7b-v0-1", 118.23}, "gpt-fast-tp8": {"mixtral-8x7b-v0-1", 203.69},
		"runaihome-4090": {"gpt-oss-20b", 225}, "smeltcore-4090": {"gpt-oss-20b", 190.6}, "smeltcore-3090": {"gpt-oss-20b", 147.5},
		"airllm-per-token": {"kimi-k3", 1.0 / 292}, // 292 s per token, streamed from disk
	}
	var ratios []float64
	for id, m := range measured {
		ff := readFacts(t, filepath.Join(dest, "models", m.slug, "facts.json"))
		pred, ok := ff.Facts.Get("calibration." + id + ".predicted").Float()
		if !ok {
			t.Fatalf("%s: calibration.%s.predicted unknown", m.slug, id)
		}
		ratio, ok := ff.Facts.Get("calibration." + id + ".ratio").Float()
		if !ok || abs(ratio-pred/m.value) > 1e-9 {
			t.Errorf("%s: ratio %v, want predicted %v ÷ measured %v", id, ratio, pred, m.value)
		}
		ratios = append(ratios, ratio)
		row := rowOf(md, "`"+id+"`")
		if row == "" || !strings.Contains(row, facts.Fixed(ratio, 2)+"×") {
			t.Errorf("calibration page row of %s = %q, want the ratio %s×", id, row, facts.Fixed(ratio, 2))
		}
	}
	sort.Float64s(ratios)
	lo, hi, med := ratios[0], ratios[6], ratios[3]
	want := fmt.Sprintf("**Spread:** 7 pairs from 3 models; predicted ÷ measured runs from %s× to %s×, median %s×.",
		facts.Fixed(lo, 2), facts.Fixed(hi, 2), facts.Fixed(med, 2))
	if !strings.Contains(md, want) {
		t.Errorf("calibration page lacks %q:\n%s", want, md)
	}
	if row := rowOf(md, "`aa-speed`"); !strings.Contains(row, "hosted API") {
		t.Errorf("K3's hosted-API speed should be listed as not compared, with the reason: %q", row)
	}
	idx, err := os.ReadFile(filepath.Join(dest, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(idx), `href="calibration/index.html"`) {
		t.Error("the index does not link the calibration page")
	}
	if _, err := os.Stat(filepath.Join(dest, "calibration", "index.html")); err != nil {
		t.Error(err)
	}
}

func rowOf(md, cell string) string {
	for _, l := range strings.Split(md, "\n") {
		if strings.Contains(l, "| "+cell+" |") {
			return l
		}
	}
	return ""
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// speedModelFiles is a small fitted speed model for the fixture site: one
// calibration pair, a fit whose one-GPU regime is quoted on 6 pairs and
// whose tensor-parallel regime has 2 (uncalibrated).
var speedModelFiles = map[string]string{
	"speed.yaml": `classes:
  - {class: datacenter, engine: "vLLM", compute_efficiency: 0.5, compute_source: "stated", max_batch: 1024, max_batch_source: "vLLM defaults"}
`,
	"calibration.yaml": `pairs:
  - {id: p1, model: M, quant: BF16, hardware: H100, gpus: 1, engine: vLLM, engine_version: "0.1", batch: 1, prompt_tokens: 5, output_tokens: 100,
     metric: decode_tokens_per_second, value: 100, source: "https://example.org/p1", date: "2026-12-04", layers: 32, hidden: 4096,
     active_params: 8e9, bytes_per_gpu: 16e9, bytes_how: "index total_size"}
`,
	"speed_fit.yaml": `method: "a grid"
pairs: 8
memory_efficiency: 0.75
layer_seconds: 4.0e-05
collective_seconds: 8.0e-06
regimes:
  - {regime: single-gpu, pairs: 6, median_ratio: 1.02, within_1_25x: 0.8333, within_1_5x: 1, within_2x: 1, error_p50: 0.12, error_p90: 0.3, ids: [a, b, c, d, e, f]}
  - {regime: tensor-parallel, pairs: 2, median_ratio: 0.9, within_1_25x: 0.5, within_1_5x: 1, within_2x: 1, error_p50: 0.2, error_p90: 0.25, ids: [g, h]}
`,
}

// TestCalibrationPageQuotesCrossValidatedError: with a fitted speed model
// in data/, the page prints the fit and each regime's leave-one-out error
// (a regime under 5 pairs as uncalibrated, one with none too), lists the
// calibration set, and a dossier's one-GPU decode figure prints its
// regime's typical error.
func TestCalibrationPageQuotesCrossValidatedError(t *testing.T) {
	root := copySite(t)
	for name, body := range speedModelFiles {
		if err := os.WriteFile(filepath.Join(root, "data", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, root, dest); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dest, "calibration", "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{
		"Fitted on 8 public measurements (data/calibration.yaml): 75.0% of the catalog bandwidth, 40 µs per layer, 8 µs per collective.",
		"| one GPU, one sequence | 6 | 1.02× | 83.3% | 100.0% | 100.0% | ±12 % | ±30 % |",
		"| tensor parallel, one sequence | 2 | 0.90× | 50.0% | 100.0% | 100.0% | uncalibrated | ±25 % |",
		"| prefill (time to first token) | 0 | — | — | — | — | uncalibrated | — |",
		"| `p1` | M | BF16 | 1 × H100 | vLLM 0.1 | 1 | 5 / 100 | 100.00 tokens/s | 16.0 GB | https://example.org/p1 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("calibration page lacks %q:\n%s", want, md)
		}
	}
	var found bool
	for _, slug := range []string{"llama-3-1-8b", "qwen3-30b-a3b", "mixtral-8x7b-v0-1", "gpt-oss-20b"} {
		ff := readFacts(t, filepath.Join(dest, "models", slug, "facts.json"))
		for f := range ff.Facts.All() {
			if !strings.HasPrefix(f.Key, "speed.1x") || !strings.HasSuffix(f.Key, ".decode_tokens_per_second") || !f.Known() {
				continue
			}
			// Apple machines and CPU hosts are regimes of their own, with no
			// pairs in this fit.
			want := "(typically within ±12 %, n = 6)"
			if id := strings.TrimSuffix(strings.TrimPrefix(f.Key, "speed.1x"), ".decode_tokens_per_second"); id == "CPUHost" || strings.HasPrefix(id, "M3Ultra") || strings.HasPrefix(id, "M4Max") {
				want = "(uncalibrated: n = 0 < 5)"
			} else {
				found = true
			}
			if !strings.HasSuffix(f.Display, want) {
				t.Errorf("%s %s = %q, want %q", slug, f.Key, f.Display, want)
			}
		}
	}
	if !found {
		t.Fatal("no one-GPU decode figure in the fixture's models")
	}
}
