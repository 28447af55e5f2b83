package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/gguf"
	"dossier/generator/gguf/gguftest"
	"dossier/generator/hub/hubtest"
)

// k3Quants are unsloth/Kimi-K3-GGUF's six quants as K3-shaped MoE files
// (93 layers, 896 experts of 3584 × 3072, MLA 512 + 64, 163,840 tokens),
// each with a type mix whose tensors come under the size seed 000 §7
// lists, and the listing's sizes (the last shard padded, as a file may
// be longer than its tensors) 0.2 GB over it: within the whole-GB
// rounding the course page printed.
var k3Quants = []struct {
	label                  string
	gateUp, down, matrices string
	published              int64
}{
	{"UD-Q1_0", "Q1_0", "Q1_0", "Q4_K", 466e9},
	{"UD-IQ1_S", "IQ1_S", "IQ1_S", "Q4_K", 594e9},
	{"UD-IQ2_XXS", "IQ2_XXS", "IQ1_S", "Q4_K", 711e9},
	{"UD-Q2_K_XL", "Q2_K", "IQ2_XXS", "Q3_K", 861e9},
	{"UD-Q4_K_XL", "Q4_K", "Q3_K", "Q6_K", 1509e9},
	{"UD-Q8_K_XL", "MXFP4", "MXFP4", "Q8_0", 1561e9},
}

func k3GGUFRepo(t *testing.T) *hubtest.Repo {
	ty := func(n string) gguf.Type {
		x, ok := gguf.TypeByName(n)
		if !ok {
			t.Fatal(n)
		}
		return x
	}
	repo := &hubtest.Repo{ID: "unsloth/Kimi-K3-GGUF", Files: []hubtest.File{{Path: "README.md", Content: []byte("# Kimi K3 GGUF\n")}}}
	for _, q := range k3Quants {
		m := gguftest.MoE{
			Layers: 93, DenseLayers: 1, Hidden: 7168, Vocab: 163840, Heads: 96,
			QLoraRank: 1536, KVLoraRnk: 512, RopeDim: 64, NopeDim: 128, VDim: 128, DenseFF: 18432,
			Experts: 896, ExpertsUsed: 16, ExpertIn: 3584, ExpertFF: 3072, SharedFF: 6144, Context: 1 << 20,
			ExpertType: ty(q.gateUp), DownType: ty(q.down), MatrixType: ty(q.matrices), EmbedType: ty("Q6_K"),
			Shards: 8, Name: q.label + "/Kimi-K3-" + q.label,
		}
		built := m.Build()
		var total int64
		for _, b := range built {
			total += b.Size
		}
		pad := q.published + 2e8 - total
		if pad < 0 {
			t.Fatalf("%s: tensors already %d bytes, over the published %d", q.label, total, q.published)
		}
		for i, b := range built {
			size := b.Size
			if i == len(built)-1 {
				size += pad
			}
			repo.Files = append(repo.Files, hubtest.File{Path: b.Path, Raw: b.Header, Size: size, LFS: true})
		}
	}
	return repo
}

// K3's quants synced from their headers agree with the sizes seed 000 §7
// published, and each gets a plan; plan answers from the synced store
// without a request.
func TestK3GGUFAgainstPublished(t *testing.T) {
	repo := k3GGUFRepo(t)
	srv := hubtest.New(t, repo)
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", syncToken)
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	root := newSite(t)
	if code, out, errs := run("--source", root, "sync", repo.ID); code != 0 {
		t.Fatalf("sync: exit %d\n%s%s", code, out, errs)
	}
	srv.ResetCounts()
	code, out, errs := run("--source", root, "plan", "--json", repo.ID, "--machine", "1xRTX4090@Desktop128,1xRTX4090@EPYC1536,M3Ultra512")
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, errs)
	}
	if n := srv.HostRequests("hub") + srv.HostRequests("cdn"); n != 0 {
		t.Errorf("plan made %d requests with the store synced", n)
	}
	doc := decodePlan(t, out)
	for _, q := range k3Quants {
		k := "gguf." + q.label + "."
		got, _ := doc.Facts.Get(k + "bytes").Int()
		if d := got - q.published; d < 0 || d > 5e8 {
			t.Errorf("%s: %d bytes, published %d", q.label, got, q.published)
		}
		if ok, _ := doc.Facts.Get(k + "published_agrees").Bool(); !ok {
			t.Errorf("%s: published_agrees %+v", q.label, doc.Facts.Get(k+"published_agrees"))
		}
		if tb, _ := doc.Facts.Get(k + "tensor_bytes").Int(); tb <= 0 || tb > got {
			t.Errorf("%s: tensor bytes %d of %d", q.label, tb, got)
		}
		// 1.5 TB of RAM and a 4090 run every quant from memory, experts
		// of the leading layers in RAM.
		f := doc.Facts.Get("local." + q.label + ".1xRTX4090@EPYC1536.fits")
		if f == nil || (f.Value != "offload" && q.published < 1500e9) {
			t.Errorf("%s on EPYC1536: %+v", q.label, f)
		}
		if f := doc.Facts.Get("local." + q.label + ".1xRTX4090@Desktop128.fits"); f == nil || f.Value != "mmap" {
			t.Errorf("%s on a 128 GB desktop: %+v", q.label, f)
		}
	}
	if c := doc.Facts.Get("local.UD-Q2_K_XL.1xRTX4090@EPYC1536.command"); c == nil || !strings.Contains(c.Display, "--n-cpu-moe") {
		t.Errorf("command %+v", c)
	}
	if b := doc.Facts.Get("local.smallest_vram.M3Ultra512"); b == nil || b.Value != "UD-Q1_0" {
		t.Errorf("smallest quant in a 512 GB Mac's memory: %+v", b)
	}
}

func decodePlan(t *testing.T, out string) planDocument {
	t.Helper()
	var doc planDocument
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return doc
}

// With unsloth/Kimi-K3-GGUF synced, K3's page runs it locally: a plan per
// machine class, every quant against the size the page publishes.
func TestK3PageRunItLocally(t *testing.T) {
	repo := k3GGUFRepo(t)
	srv := hubtest.New(t, repo)
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", syncToken)
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	root := newSite(t)
	withMachines(t, root)
	dest := filepath.Join(t.TempDir(), "public")
	if code, _, errs := run("--source", root, "build", "--destination", dest); code != 0 {
		t.Fatalf("build before sync: %s", errs)
	}
	before, _ := os.ReadFile(filepath.Join(dest, "models/kimi-k3/index.md"))
	if strings.Contains(string(before), "Run it locally") {
		t.Fatal("the section shows before any quant is synced")
	}
	if code, out, errs := run("--source", root, "sync", repo.ID); code != 0 {
		t.Fatalf("sync: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := run("--source", root, "build", "--destination", dest); code != 0 {
		t.Fatalf("build: %s", errs)
	}
	md, err := os.ReadFile(filepath.Join(dest, "models/kimi-k3/index.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(md)
	for _, want := range []string{"### Run it locally", "unsloth/Kimi-K3-GGUF at commit " + hubtest.SHAFor(repo.ID)[:7], "1xRTX4090@EPYC1536",
		"llama-server -m ", "--n-cpu-moe", "| UD-Q1_0 |", "466.2 GB", "466.0 GB (434.0 GiB) (agrees)", "| UD-Q8_K_XL |"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	fj, err := os.ReadFile(filepath.Join(dest, "models/kimi-k3/facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"gguf.UD-Q2_K_XL.published_agrees"`, `"local.UD-Q2_K_XL.1xRTX4090@EPYC1536.n_cpu_moe"`, `"local.best_offload.M3Ultra512"`} {
		if !strings.Contains(string(fj), k) {
			t.Errorf("facts.json lacks %s", k)
		}
	}
}

// A bad local.yaml fails the build with the file and field named, and
// writes nothing.
func TestBuildRefusesBadLocalYAML(t *testing.T) {
	root := newSite(t)
	b, err := os.ReadFile("../localrun/testdata/local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), "kind: desktop", "kind: laptop", 1)
	if err := os.WriteFile(filepath.Join(root, "data", "local.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "public")
	code, _, errs := run("--source", root, "build", "--destination", dest)
	if code != 1 || !strings.Contains(errs, "local.yaml") || !strings.Contains(errs, "hosts[0].kind") {
		t.Errorf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Errorf("a failed build wrote %s: %v", dest, err)
	}
}

// k3LocalClaims are quantizer-style statements about K3's quants, each
// with the verdict computed by hand from the fake Hub's headers (see
// TestK3LocalClaims).
const k3LocalClaims = `claims:
  - id: q2-861
    text: "UD-Q2_K_XL at 861 GB"
    by: "Unsloth"
    accessed: "2026-08-06"
    where: "https://huggingface.co/unsloth/Kimi-K3-GGUF"
    kind: size
    checks:
      - {fact: gguf.UD-Q2_K_XL.bytes, expect: 861e9, tolerance: 0.001}
    reason: "r"
  - id: q2-381
    text: "UD-Q2_K_XL is 381 GB"
    by: "Unsloth"
    accessed: "2026-08-06"
    where: "https://huggingface.co/unsloth/Kimi-K3-GGUF"
    kind: size
    checks:
      - {fact: gguf.UD-Q2_K_XL.bytes, expect: 381e9, tolerance: 0.002}
    reason: "r"
  - id: q1-256
    text: "UD-Q1_0 fits one RTX 4090 with the MoE layers in 256 GB of RAM, at about 5 tokens/s"
    by: "Unsloth"
    accessed: "2026-08-06"
    where: "https://huggingface.co/unsloth/Kimi-K3-GGUF"
    kind: performance
    checks:
      - {fact: local.UD-Q1_0.1xRTX4090@Workstation256.fits, one_of: [vram, offload]}
      - {fact: local.UD-Q1_0.1xRTX4090@Workstation256.decode_tokens_per_second, expect: 5, tolerance: 0.5}
    reason: "r"
  - id: q1-epyc-5
    text: "UD-Q1_0 fits one RTX 4090 with the MoE layers in a 1.5 TB EPYC's RAM, at about 5 tokens/s"
    by: "Unsloth"
    accessed: "2026-08-06"
    where: "https://huggingface.co/unsloth/Kimi-K3-GGUF"
    kind: performance
    checks:
      - {fact: local.UD-Q1_0.1xRTX4090@EPYC1536.fits, one_of: [vram, offload]}
      - {fact: local.UD-Q1_0.1xRTX4090@EPYC1536.decode_tokens_per_second, expect: 5, tolerance: 0.5}
    reason: "r"
  - id: q1-epyc-100
    text: "UD-Q1_0 decodes at 100 tokens/s on one RTX 4090 with a 1.5 TB EPYC"
    by: "Unsloth"
    accessed: "2026-08-06"
    where: "https://huggingface.co/unsloth/Kimi-K3-GGUF"
    kind: performance
    checks:
      - {fact: local.UD-Q1_0.1xRTX4090@EPYC1536.decode_tokens_per_second, expect: 100, tolerance: 0.1}
    reason: "r"
  - id: rule-of-thumb
    text: "VRAM + RAM combined = the size of the quant: UD-Q1_0 on one RTX 4090 and 512 GB"
    by: "Unsloth"
    accessed: "2026-08-06"
    where: "https://huggingface.co/unsloth/Kimi-K3-GGUF"
    kind: size
    checks:
      - {fact: local.UD-Q1_0.1xRTX4090@Workstation512.memory_headroom, min: 0}
      - {fact: local.UD-Q1_0.1xRTX4090@Workstation512.fits, one_of: [vram, offload]}
    reason: "r"
`

type claimVerdict struct {
	ID       string `json:"id"`
	Verdict  string `json:"verdict"`
	Computed bool   `json:"computed"`
	Evidence []struct {
		Gives string `json:"gives"`
	} `json:"evidence"`
}

func k3ClaimVerdicts(t *testing.T, dest string) map[string]claimVerdict {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dest, "models/kimi-k3/facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Claims []claimVerdict `json:"claims"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]claimVerdict{}
	for _, c := range doc.Claims {
		out[c.ID] = c
	}
	return out
}

// Claims on K3's quants are unverifiable, with the reason, until the
// quants are synced; then their verdicts are computed from the headers.
// By hand, from the fake Hub's files: UD-Q2_K_XL's listing sums to
// 861.2 GB, 0.02 % from 861 GB and 126 % above 381 GB. UD-Q1_0's tensors
// are 401.8 GB, 382.9 GB of them routed experts; a 4090 (25.76 GB less
// 1 GiB) holds 21.5 GB of the rest, so 383.8 GB stay in host RAM: more
// than 256 GiB less the OS's 8 GiB (266.3 GB) leaves, so on that machine
// it runs only mapped from disk (refuted, and no speed); within a 1.5 TiB
// EPYC's 1,640.7 GB (offload), with the GPU side (21.5 GB) almost all
// dense weights and cache. Timed by the shipped speed fit: each token
// reads those 21.5 GB at 1,008 GB/s × 0.86 (24.8 ms), the used 16 of 896
// experts in host RAM, 6.84 GB, at 460.8 GB/s × 0.42 (35.3 ms), and pays
// 93 layers × 89 µs (8.3 ms): 68.4 ms, ≈ 14.6 tokens/s, whose cpu-offload
// p90 band (±18.27 %) is 12.4–17.3. So 5 (± 50 %, 2.5–7.5) is refuted
// beside the fit that holds (misleading), and 100 (± 10 %) refuted.
// On a 4090 with 512 GiB the rule of thumb's margin is 25.76 + 549.76 −
// 466.2 = 109.3 GB and the plan runs it from RAM and VRAM: supported.
func TestK3LocalClaims(t *testing.T) {
	repo := k3GGUFRepo(t)
	srv := hubtest.New(t, repo)
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", syncToken)
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	root := newSite(t)
	withMachines(t, root)
	// A frozen copy of the shipped speed model, so decode is timed by the fit.
	for _, f := range []string{"speed.yaml", "speed_fit.yaml"} {
		b, err := os.ReadFile("testdata/speed/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "data", f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(t, filepath.Join(root, "content/models/kimi-k3.md"), "claims:\n", k3LocalClaims)
	dest := filepath.Join(t.TempDir(), "public")
	if code, _, errs := run("--source", root, "build", "--destination", dest); code != 0 {
		t.Fatalf("build before sync: %s", errs)
	}
	before := k3ClaimVerdicts(t, dest)
	for _, id := range []string{"q2-861", "q2-381", "q1-256", "q1-epyc-5", "q1-epyc-100", "rule-of-thumb"} {
		c := before[id]
		if c.Verdict != "unverifiable" || !c.Computed || len(c.Evidence) == 0 || !strings.Contains(c.Evidence[0].Gives, "unsloth/Kimi-K3-GGUF are not synced") {
			t.Errorf("before sync, %s: %+v", id, c)
		}
	}
	if code, out, errs := run("--source", root, "sync", repo.ID); code != 0 {
		t.Fatalf("sync: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := run("--source", root, "build", "--destination", dest); code != 0 {
		t.Fatalf("build: %s", errs)
	}
	after := k3ClaimVerdicts(t, dest)
	for id, want := range map[string]string{
		"q2-861": "supported", "q2-381": "refuted", "q1-256": "refuted",
		"q1-epyc-5": "misleading", "q1-epyc-100": "refuted", "rule-of-thumb": "supported",
	} {
		if c := after[id]; c.Verdict != want || !c.Computed {
			t.Errorf("%s: %+v, want %s", id, c, want)
		}
	}
	if g := after["q1-epyc-5"].Evidence[1].Gives; !strings.Contains(g, "≈ 14.6 tokens/s (typically within ±9 %, n = 8)") {
		t.Errorf("the calibrated speed is not the one derived by hand, with its error: %s", g)
	}
	// A machine only a claim names is planned too, and shown.
	md, err := os.ReadFile(filepath.Join(dest, "models/kimi-k3/index.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "1xRTX4090@Workstation256") {
		t.Error("the page does not show the machine the claim names")
	}
}

// A claim naming a local fact no plan adds, or a machine the grammar
// refuses, fails the build with the file, line and claim.
func TestLocalClaimKeysChecked(t *testing.T) {
	for bad, want := range map[string]string{
		"local.UD-Q1_0.1xRTX4090@Workstation256.fit": "expected local.QUANT.MACHINE.FIELD",
		"local.UD-Q1_0.3xRTX4090@Desktop64.fits":     "at most 2 GPUs",
		"gguf.UD-Q1_0.census.Q5_X":                   "not a ggml type",
	} {
		root := newSite(t)
		withMachines(t, root)
		claims := strings.Replace(k3LocalClaims, "local.UD-Q1_0.1xRTX4090@Workstation256.fits", bad, 1)
		edit(t, filepath.Join(root, "content/models/kimi-k3.md"), "claims:\n", claims)
		dest := filepath.Join(t.TempDir(), "public")
		code, _, errs := run("--source", root, "build", "--destination", dest)
		if code != 1 || !strings.Contains(errs, "kimi-k3.md:") || !strings.Contains(errs, "claim q1-256") || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d: %s", bad, code, errs)
		}
		if _, err := os.Stat(dest); err == nil {
			t.Errorf("%s: the build wrote %s", bad, dest)
		}
	}
}

// withMachines gives the site at root the machine classes frozen in
// generator/localrun/testdata/local.yaml (a copy of data/local.yaml whose
// Macs are described in place, as the fixture catalog lacks some).
func withMachines(t *testing.T, root string) {
	t.Helper()
	local, err := os.ReadFile("../localrun/testdata/local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "data", "local.yaml"), local, 0o644); err != nil {
		t.Fatal(err)
	}
}
