package site

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"dossier/generator/config"
	"dossier/generator/facts"
	"dossier/generator/internal/sitetest"
	"dossier/generator/render"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// copySite copies the frozen fixture site (testdata/site at the repository
// root, with the repository's templates) into a temporary root, so a test
// can build it, break it or publish it without touching the repository.
// Tests assert numbers on this copy, never on the live content/ and data/.
func copySite(t testing.TB) string { return sitetest.Fixture(t, nil) }

// loadSite loads the site at root with opts, failing the test on error.
func loadSite(t testing.TB, root string, opts Options) *Site {
	t.Helper()
	cfg, err := config.Load(root, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func build(t *testing.T, root, dest string) (*Report, error) {
	t.Helper()
	cfg, err := config.Load(root, nil, nil)
	if err != nil {
		return nil, err
	}
	s, err := Load(cfg, Options{})
	if err != nil {
		return nil, err
	}
	return Build(s, Options{Destination: dest})
}

type factsFile struct {
	Model    string    `json:"model"`
	Revision string    `json:"revision"`
	Facts    facts.Set `json:"facts"`
}

func readFacts(t *testing.T, path string) *factsFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ff factsFile
	if err := json.Unmarshal(b, &ff); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &ff
}

// k3Facts builds the fixture site once and returns K3's facts.json.
func k3Facts(t *testing.T) *factsFile {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, copySite(t), dest); err != nil {
		t.Fatal(err)
	}
	return readFacts(t, filepath.Join(dest, "models", "kimi-k3", "facts.json"))
}

// TestKimiK3Facts checks every figure the K3 dossier must reproduce
// (testdata/k3-figures.md at the repository root), as values in facts.json.
func TestKimiK3Facts(t *testing.T) {
	ff := k3Facts(t)
	if ff.Model != "moonshotai/Kimi-K3" || ff.Revision != "9f62e4e9fffbd0a83ddd60e1c209d828994b3569" {
		t.Errorf("model %q revision %q", ff.Model, ff.Revision)
	}
	exact := map[string]int64{
		"params.total":                 2779931837184,
		"params.census.U8":             2722740830208,
		"params.census.BF16":           57179884544,
		"params.census.F32":            11122432,
		"bytes.checkpoint":             1560936091448,
		"bytes.tensors":                1560860324864,
		"bytes.headers":                75766584,
		"bytes.naive_headline":         1400000000000,
		"bytes.naive_exact":            1389965918592,
		"bytes.quant_scales":           85085650944,
		"params.experts":               2722740830208,
		"arch.layers":                  93,
		"arch.layers_full_attention":   24,
		"arch.layers_linear_attention": 69,
		"arch.full_attention_cadence":  4,
		"moe.experts_routed":           896,
		"moe.experts_active":           16,
		"moe.experts_shared":           2,
		"kv.bytes_per_token":           27648,
		"kv.bytes_at_context.1048576":  28991029248,
		"state.bytes_per_sequence":     449372160,
		"fit.min_gpus.B200":            9,
		"fit.deployable_gpus.B200":     16,
		"shards.count":                 96,
	}
	for key, want := range exact {
		got, ok := ff.Facts.Get(key).Int()
		if !ok || got != want {
			t.Errorf("%s = %v (%v), want %d", key, got, ok, want)
		}
	}
	near := []struct {
		key       string
		want, tol float64
	}{
		{"bytes.unquantized", 114.4e9, 0.05e9},
		{"bytes.extra_precision", 85.8e9, 0.05e9},
		{"bytes.overshoot", 170.9e9, 0.05e9},
		{"bits_per_param", 4.49, 0.005},
		{"share.experts", 0.979, 0.0005},
		{"arch.linear_to_full_ratio", 2.875, 1e-9},
		{"sparsity.expert_count", 16.0 / 896, 1e-12},
		{"sparsity.param_activation", 0.037, 0.0005},
		// 8 × 183,359 MiB as nvidia-smi reports each B200, not the spec
		// sheet's 1,440 GB (seed 001's 120.9 GB): 22.7 GB short.
		{"fit.8xB200.margin_bytes", -22.7e9, 0.05e9},
		{"download.seconds", 12359, 1},
		{"cost.8xB200.usd_per_hour", 47.84, 1e-9},
		{"download.idle_usd.8xB200", 164, 0.5},
		{"download.window_bytes", 227e9, 0.5e9},
		{"quant.params_per_byte", 1.88, 0.005},
		// Seed 000 §7-8: UD-Q2_K_XL fits 8 × B200 (579 GB to spare on the
		// spec sheet's 1,440 GB, 677.1 GB on the 1,538.1 GB the devices
		// report) and downloads in 1.9 h; UD-IQ2_XXS fits 8 × RTX PRO 6000
		// (57 GB spare on 768 GB, 110.1 GB on 8 × 97,887 MiB); the NVFP4
		// conversion, larger than the release, does not fit 8 × B200.
		{"variant.UD-Q2_K_XL.fit.8xB200.margin_bytes", 677.1e9, 0.5e9},
		{"variant.UD-Q2_K_XL.download_seconds", 1.9 * 3600, 0.05 * 3600},
		{"variant.UD-IQ2_XXS.fit.8xRTXPRO6000.margin_bytes", 110.1e9, 0.5e9},
		{"variant.Kimi-K3-NVFP4.fit.8xB200.margin_bytes", -71.9e9, 0.5e9},
		{"memory.per_sequence_at.8192", 0.63 * (1 << 30), 0.005 * (1 << 30)},
		{"memory.per_sequence_at.131072", 3.79 * (1 << 30), 0.005 * (1 << 30)},
		{"memory.per_sequence_at.1048576", 27.42 * (1 << 30), 0.005 * (1 << 30)},
	}
	for _, n := range near {
		got, ok := ff.Facts.Get(n.key).Float()
		if !ok || math.Abs(got-n.want) > n.tol {
			t.Errorf("%s = %v (%v), want %v ± %v", n.key, got, ok, n.want, n.tol)
		}
	}
	if got := ff.Facts.Get("software.transformers.first_failing"); got == nil || got.Value != "5.2.0" {
		t.Errorf("software.transformers.first_failing = %+v, want 5.2.0 (seed 000 §6c)", got)
	}
	bools := map[string]bool{"arch.hybrid": true, "fit.8xB200.at_rest": false, "download.exceeds_window": true, "fit.8xB300.at_rest": true}
	for key, want := range bools {
		if got, ok := ff.Facts.Get(key).Bool(); !ok || got != want {
			t.Errorf("%s = %v (%v), want %v", key, got, ok, want)
		}
	}
	// The displays a reader sees for the properties seed 000 got wrong once.
	for key, want := range map[string]string{
		"arch.linear_to_full_ratio":   "2.9:1",
		"arch.full_attention_cadence": "every 4th layer",
		"bytes.checkpoint":            "1,560.9 GB (1,453.7 GiB)",
		"fit.8xB200.margin_bytes":     "22.7 GB short",
		"fit.8xB200.at_rest":          "does not fit at rest: 22.7 GB short of 8 × 183,359 MiB",
	} {
		if got := ff.Facts.Get(key).Display; got != want {
			t.Errorf("%s displays %q, want %q", key, got, want)
		}
	}
	for _, k := range ff.Facts.Keys() {
		f := ff.Facts.Get(k)
		if f.Known() && len(f.Sources) == 0 {
			t.Errorf("fact %s has a value but no source", k)
		}
		if !f.Known() && f.Reason == "" {
			t.Errorf("unknown fact %s has no reason", k)
		}
	}
}

func TestGoldenIndexMarkdown(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, copySite(t), dest); err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct{ out, golden string }{
		{"models/kimi-k3/index.md", "kimi-k3.index.md"},
		{"index.md", "site.index.md"},
	} {
		got, err := os.ReadFile(filepath.Join(dest, g.out))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", g.golden)
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test ./generator/site -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s; run with -update if the change is intended.\n%s", g.out, golden, sitetest.FirstDiff(string(want), string(got)))
		}
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	root := copySite(t)
	ra, err := build(t, root, a)
	if err != nil {
		t.Fatal(err)
	}
	// The second build computes everything again.
	if _, err := Build(loadSite(t, root, Options{Full: true}), Options{Destination: b}); err != nil {
		t.Fatal(err)
	}
	for _, f := range ra.Files {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, err := os.ReadFile(filepath.Join(b, f))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two builds of the same inputs", f)
		}
	}
}

// snapshotDir returns the output tree as path → content.
// sameOutput fails t for each file dir and full, a full build's output,
// do not hold alike, with where they first differ.
func sameOutput(t *testing.T, what, dir, full string) {
	t.Helper()
	sameFiles(t, what, snapshotDir(t, dir), snapshotDir(t, full))
}

// sameFiles is sameOutput of two snapshotDir results.
func sameFiles(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s is not in the full build", what, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if b, ok := got[name]; !ok {
			t.Errorf("%s: %s of the full build is missing", what, name)
		} else if b != want[name] {
			t.Errorf("%s: differs from the full build at %s", what, firstDifference(name, []byte(b), []byte(want[name])))
		}
	}
}

func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBadInputLeavesOutputUntouched breaks each kind of input in turn: the
// build must fail with one error naming the file and the field, and the
// previous public/ must stay byte for byte as it was.
func TestBadInputLeavesOutputUntouched(t *testing.T) {
	cases := []struct {
		name, file, old, new string
		want                 []string
	}{
		{"config unknown key", "hugo-like.yaml", "publishDir: public", "publishDir: public\npublishDri: oops", []string{"hugo-like.yaml", "publishdri"}},
		{"config bad value", "hugo-like.yaml", "concurrency: 1 ", "concurrency: 0 ", []string{"hugo-like.yaml", "sizing.concurrency"}},
		{"config unknown hardware", "hugo-like.yaml", "- 8xB200", "- 8xZ999", []string{"hugo-like.yaml", "hardware[0]", "Z999"}},
		{"config overflowing count", "hugo-like.yaml", "- 8xB200", "- 99999999999999999999xB200", []string{"hugo-like.yaml", "hardware[0]", "COUNT from 1 to"}},
		{"hardware catalog zero memory", "data/hardware.yaml", "memory_bytes: 192265846784", "memory_bytes: 0", []string{"hardware.yaml", "accelerators[0].memory_bytes"}},
		{"front matter unknown field", "content/models/kimi-k3.md", "org: Moonshot AI", "org: Moonshot AI\norgg: typo", []string{"kimi-k3.md", "line 5", "orgg"}},
		{"front matter wrong type", "content/models/kimi-k3.md", "    value: 104e9", "    value: lots", []string{"kimi-k3.md", "expected a number"}},
		{"front matter unclosed", "content/models/kimi-k3.md", "\n---\nThe repository", "\nThe repository", []string{"kimi-k3.md", "never closed"}},
		{"fact reference", "content/models/kimi-k3.md", "{{< fact shards.count >}}", "{{< fact shards.cuont >}}", []string{"kimi-k3.md:", "shards.cuont"}},
		{"snapshot wrong type", "data/hub/moonshotai/Kimi-K3/snapshot.json", `"BF16": 57179884544`, `"BF16": "many"`, []string{"snapshot.json", "census.BF16"}},
		{"snapshot inconsistent", "data/hub/moonshotai/Kimi-K3/snapshot.json", `"count": 96`, `"count": 95`, []string{"snapshot.json", "shards.count"}},
		{"snapshot bad config", "data/hub/moonshotai/Kimi-K3/snapshot.json", `"num_hidden_layers": 93`, `"num_hidden_layers": "93"`, []string{"snapshot.json", "text_config.num_hidden_layers"}},
		{"hardware catalog", "data/hardware.yaml", "memory_bytes: 192265846784", "memory_bytes: 192 GB", []string{"hardware.yaml", "line", "expected an integer"}},
		{"price list", "data/pricing/runpod.yaml", "accelerator: B200", "accelerator: B201", []string{"runpod.yaml", "prices[0].accelerator", "B201"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := copySite(t)
			dest := filepath.Join(root, "public")
			if _, err := build(t, root, dest); err != nil {
				t.Fatal(err)
			}
			before := snapshotDir(t, dest)
			path := filepath.Join(root, tc.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(tc.old)) {
				t.Fatalf("%s does not contain %q", tc.file, tc.old)
			}
			if err := os.WriteFile(path, bytes.Replace(b, []byte(tc.old), []byte(tc.new), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = build(t, root, dest)
			if err == nil {
				t.Fatal("build succeeded on bad input")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			after := snapshotDir(t, dest)
			if len(after) != len(before) {
				t.Fatalf("public/ changed: %d files before, %d after", len(before), len(after))
			}
			for f, c := range before {
				if after[f] != c {
					t.Errorf("public/%s changed after a failed build", f)
				}
			}
			entries, _ := os.ReadDir(root)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".public.new-") {
					t.Errorf("staging directory %s left behind", e.Name())
				}
			}
		})
	}
}

func TestPublishRefusesInputDirectories(t *testing.T) {
	root := copySite(t)
	for _, dest := range []string{root, filepath.Join(root, "content"), filepath.Join(root, "data")} {
		if _, err := build(t, root, dest); err == nil || !strings.Contains(err.Error(), "would replace the input directory") {
			t.Errorf("build into %s: %v", dest, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "content", "models", "kimi-k3.md")); err != nil {
		t.Fatal("content was removed")
	}
}

// TestCommittedOutputsAreCurrent keeps the review surface honest: the
// Markdown and facts.json committed under public/ must be what a
// build of the committed inputs produces. Run `go run . build` and commit.
func TestCommittedOutputsAreCurrent(t *testing.T) {
	live := sitetest.RepoRoot(t)
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, live, dest); err != nil {
		t.Fatal(err)
	}
	for _, line := range sitetest.StaleOutputs(t, dest, filepath.Join(live, "public")) {
		t.Error(line)
	}
}

// TestIncrementalBuild changes one model's snapshot: the next build must
// recompute that model only (the build's own report says so) and publish
// exactly what a full build of the same inputs publishes.
func TestIncrementalBuild(t *testing.T) {
	root := copySite(t)
	dest := filepath.Join(root, "public")
	load := func(full bool) *Site { t.Helper(); return loadSite(t, root, Options{Full: full}) }
	first, err := Build(load(false), Options{Destination: dest})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Reused) != 0 || len(first.Rebuilt) < 2 {
		t.Fatalf("first build: rebuilt %v reused %v", first.Rebuilt, first.Reused)
	}
	again, err := Build(load(false), Options{Destination: dest})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Rebuilt) != 0 || !again.Unchanged {
		t.Errorf("unchanged inputs recomputed %v (unchanged %v)", again.Rebuilt, again.Unchanged)
	}

	// A page replaced by hand in the output (an editor saves a new file)
	// is published again from the cache.
	md := filepath.Join(dest, "models/llama-3-1-8b/index.md")
	orig, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	sitetest.Edit(t, md, "\n", "\nhand edit\n")
	healed, err := Build(load(false), Options{Destination: dest})
	if err != nil {
		t.Fatal(err)
	}
	if len(healed.Rebuilt) != 0 || healed.Unchanged {
		t.Errorf("after a hand edit of llama's page: rebuilt %v, unchanged %v", healed.Rebuilt, healed.Unchanged)
	}
	if b, _ := os.ReadFile(md); !bytes.Equal(b, orig) {
		t.Error("the hand-edited page was kept")
	}

	snap := filepath.Join(root, "data/hub/moonshotai/Kimi-K3/snapshot.json")
	b, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte(`"fetched": "2026-08-06"`), []byte(`"fetched": "2026-08-07"`), 1)
	if err := os.WriteFile(snap, b, 0o644); err != nil {
		t.Fatal(err)
	}
	inc, err := Build(load(false), Options{Destination: dest})
	if err != nil {
		t.Fatal(err)
	}
	if len(inc.Rebuilt) != 1 || inc.Rebuilt[0] != "kimi-k3" || len(inc.Reused) != len(first.Rebuilt)-1 {
		t.Fatalf("after changing K3's snapshot: rebuilt %v, reused %v", inc.Rebuilt, inc.Reused)
	}
	full := filepath.Join(t.TempDir(), "full")
	if _, err := Build(load(true), Options{Destination: full}); err != nil {
		t.Fatal(err)
	}
	sameOutput(t, "after changing K3's snapshot", dest, full)
	if !strings.Contains(snapshotDir(t, dest)["models/kimi-k3/facts.json"], `"generated":"2026-08-07"`) {
		t.Error("K3's facts were not recomputed from the new snapshot")
	}
}

func TestPagesFlagStaleData(t *testing.T) {
	root := copySite(t)
	cfgPath := filepath.Join(root, "hugo-like.yaml")
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte("maxAgeDays: 0 "), []byte("maxAgeDays: 30\n  today: \"2026-12-02\" "), 1)
	if err := os.WriteFile(cfgPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(root, "public")
	if _, err := build(t, root, dest); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dest, "models/kimi-k3/index.md"))
	if !strings.Contains(string(md), "2026-08-06 — stale: 118 days old, limit 30") {
		t.Error("the K3 page does not flag its 2026-08-06 data as stale on 2026-12-02")
	}
	// The shared inputs are flagged on the inputs page, and counted on
	// the dossier's row that names them.
	inputs, _ := os.ReadFile(filepath.Join(dest, InputsPath, "index.md"))
	if !strings.Contains(string(inputs), "2026-08-06 — stale: 118 days old, limit 30") {
		t.Error("the inputs page does not flag an input of 2026-08-06 as stale on 2026-12-02")
	}
	if !regexp.MustCompile(`\| the site's shared inputs \| [^|]+ \| 2026-08-06 to 2026-12-02 — [1-9][0-9]* stale \|`).Match(md) {
		t.Error("K3's row for the shared inputs does not count the stale ones")
	}
	// The shipped configuration sets no limit: nothing is flagged.
	shipped := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, copySite(t), shipped); err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(shipped, "models/kimi-k3/index.md"))
	if strings.Contains(string(md), "stale") {
		t.Error("stale flag without a freshness limit")
	}
}

// A destination that exists, is not empty and was not written by a build
// must never be replaced: a mistyped --destination would delete it.
func TestPublishRefusesForeignDirectory(t *testing.T) {
	dest := t.TempDir()
	notes := filepath.Join(dest, "important", "notes.txt")
	if err := os.MkdirAll(filepath.Dir(notes), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notes, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := copySite(t)
	_, err := build(t, root, dest)
	if err == nil || !strings.Contains(err.Error(), "not written by dossier") {
		t.Fatalf("build into a foreign directory: %v", err)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "keep me" {
		t.Fatal("the foreign directory's file was touched")
	}
	// An empty directory, or one a build wrote, is fine.
	empty := t.TempDir()
	if _, err := build(t, root, empty); err != nil {
		t.Fatalf("empty destination: %v", err)
	}
	if _, err := build(t, root, empty); err != nil {
		t.Fatalf("rebuilding over a build's own output: %v", err)
	}
}

// TestK3BytesSplitCloses checks the split the K3 prose states: against the
// exact multiplication (parameters × half a byte), extra precision and
// scales make the tensors' overshoot to the byte, and the headers close the
// gap to the file listing.
func TestK3BytesSplitCloses(t *testing.T) {
	ff := k3Facts(t)
	get := func(k string) int64 {
		v, ok := ff.Facts.Get(k).Int()
		if !ok {
			t.Fatalf("%s unknown", k)
		}
		return v
	}
	extra, scales, headers := get("bytes.extra_precision"), get("bytes.quant_scales"), get("bytes.headers")
	if got, want := extra+scales, get("bytes.tensors")-get("bytes.naive_exact"); got != want {
		t.Errorf("extra precision + scales = %d, tensors − exact multiplication = %d", got, want)
	}
	if got, want := extra+scales+headers, get("bytes.checkpoint")-get("bytes.naive_exact"); got != want {
		t.Errorf("the three terms sum to %d, the listing exceeds the multiplication by %d", got, want)
	}
	// 171.0 GB, not the 199.6 GB that unquantized bytes + scales + headers gave.
	if gap := float64(get("bytes.checkpoint") - get("bytes.naive_exact")); math.Abs(gap-171.0e9) > 0.05e9 {
		t.Errorf("gap %v, want 171.0 GB", gap)
	}
}

// TestK3QLoRAByHand: 2,777,583,026,944 Linear parameters at NF4 with double
// quantization (4 + 8/64 + 32/16,384 = 4.126953125 bits) plus the
// embedding and output head, 2 × 163,840 × 7,168 = 2,348,810,240
// parameters at 2 bytes: 1,437,566,989,604 B.
func TestK3QLoRAByHand(t *testing.T) {
	got, ok := k3Facts(t).Facts.Get("train.qlora_frozen_bytes").Int()
	if !ok || got != 1437566989604 {
		t.Errorf("train.qlora_frozen_bytes = %d (%v), want 1,437,566,989,604", got, ok)
	}
}

// fixtureModels computes every model of the fixture site.
func fixtureModels(t *testing.T) []*Model {
	t.Helper()
	s := loadSite(t, copySite(t), Options{})
	if len(s.entries) < 3 {
		t.Fatalf("fixture has %d models", len(s.entries))
	}
	var out []*Model
	for _, e := range s.entries {
		m, _, err := s.computeModel(e.page)
		if err != nil {
			t.Fatal(err)
		}
		if m.Content.Partial || m.Content.Body == nil {
			t.Fatalf("%s: computed from a stub of its page", e.slug)
		}
		out = append(out, m)
	}
	return out
}

// TestFactsJSONIsTheDocument holds FactsJSON's hand-assembled file to what
// encoding/json writes for the documented shape, field by field, and its
// schema-2 facts, read back, to the model's facts, on every fixture model.
func TestFactsJSONIsTheDocument(t *testing.T) {
	for _, m := range fixtureModels(t) {
		got, err := FactsJSON(m)
		if err != nil {
			t.Fatal(err)
		}
		doc := factsDoc{Schema: facts.Schema, Model: m.Snapshot.Model, Revision: m.Snapshot.Revision, Generated: m.Snapshot.Fetched, Facts: m.Facts,
			Claims: claimsJSON(m.Reviews), Measurements: measurementsJSON(m.Content)}
		want, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		var gotFields, wantFields map[string]json.RawMessage
		if err := json.Unmarshal(got, &gotFields); err != nil {
			t.Fatalf("%s: %v", m.Page.Slug, err)
		}
		if err := json.Unmarshal(want, &wantFields); err != nil {
			t.Fatal(err)
		}
		if len(gotFields) != len(factsDocFields) {
			t.Errorf("%s: %d fields, want %d", m.Page.Slug, len(gotFields), len(factsDocFields))
		}
		for _, name := range factsDocFields {
			if name == "facts" {
				continue
			}
			var g, w bytes.Buffer
			if json.Compact(&g, gotFields[name]) != nil || json.Compact(&w, wantFields[name]) != nil || g.String() != w.String() {
				t.Errorf("%s: field %s: %s", m.Page.Slug, name, sitetest.FirstDiff(w.String(), g.String()))
			}
		}
		var back facts.Set
		if err := json.Unmarshal(gotFields["facts"], &back); err != nil {
			t.Fatalf("%s: %v", m.Page.Slug, err)
		}
		if d := facts.FirstDifference(m.Facts, &back); d != "" {
			t.Errorf("%s: the facts read back differ: %s", m.Page.Slug, d)
		}
		if !bytes.HasPrefix(got, []byte("{\n\"schema\":2,\n")) || !bytes.HasSuffix(got, []byte("\n}\n")) {
			t.Errorf("%s: the file does not open with its schema or end with a newline", m.Page.Slug)
		}
	}
}

// TestFactsAppendixHTMLIsGoldmarks holds the facts page's table, written
// straight to HTML, to goldmark's conversion of its Markdown, on every
// fixture model's facts: addresses, units and unknowns as they really are.
func TestFactsAppendixHTMLIsGoldmarks(t *testing.T) {
	for _, m := range fixtureModels(t) {
		tb, _ := m.Page.FactsAppendix(m.Facts.Tabulate())
		want, err := render.ToHTML(render.NewMarkdown(nil), []byte(tb.Markdown()))
		if err != nil {
			t.Fatal(err)
		}
		if got := tb.HTML(); got != string(want) {
			t.Errorf("%s: %s", m.Page.Slug, sitetest.FirstDiff(string(want), got))
		}
	}
}

// TestDossierTablesAreGoldmarks holds each fixture dossier's HTML, whose
// tables are written straight to HTML, to goldmark's conversion of the
// whole page: answer box, fit table, fact links, claims, references.
func TestDossierTablesAreGoldmarks(t *testing.T) {
	s := loadSite(t, copySite(t), Options{})
	for _, e := range s.entries {
		m, _, err := s.computeModel(e.page)
		if err != nil {
			t.Fatal(err)
		}
		md, tables, err := s.Templates.Markdown("dossier.md", m.Page, render.PageFuncs{Tables: m.Page.Tables, Fact: m.Page.Fact, Charts: m.Page.Charts})
		if err != nil {
			t.Fatal(err)
		}
		if len(tables) < 10 {
			t.Fatalf("%s: the page printed %d tables", e.slug, len(tables))
		}
		p := render.HTMLPage{PageTitle: m.Page.Title, SiteTitle: "test", Root: "../../", FactsPage: "facts.html"}
		want, err := s.Templates.HTML(md, p, m.Page.Charts)
		if err != nil {
			t.Fatal(err)
		}
		p.Tables = tables
		got, err := s.Templates.HTML(md, p, m.Page.Charts)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %s", e.slug, sitetest.FirstDiff(string(want), string(got)))
		}
	}
}
