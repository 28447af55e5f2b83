package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/hub/hubtest"
	"dossier/generator/mlx/mlxtest"
)

// toyMLX is a Qwen3-MoE-shaped mlx_lm.convert -q output: 4-bit groups of
// 64, 8-bit routers; generator/mlx's TestSizeByHand computes its sizes.
var toyMLX = mlxtest.MoE{Layers: 2, Hidden: 256, Heads: 4, KVHeads: 2, HeadDim: 64, Vocab: 1024,
	Experts: 4, ExpertsUsed: 2, ExpertFF: 128, Bits: 4, GroupSize: 64, GateBits: 8, Context: 32768, Shards: 2}

// plan on an mlx-community repository reads its config and each shard's
// header by Range (at most two requests a file), sizes it as the mlx
// package computes by hand, and plans mlx_lm.server on the Mac asked for.
func TestPlanMLXRepository(t *testing.T) {
	files, err := toyMLX.Files()
	if err != nil {
		t.Fatal(err)
	}
	repo := &hubtest.Repo{ID: "mlx-community/Toy-MoE-4bit", Files: []hubtest.File{
		{Path: "config.json", Content: toyMLX.Config()}, {Path: "README.md", Content: []byte("# toy\n")}}}
	var total int64
	for _, f := range files {
		repo.Files = append(repo.Files, hubtest.File{Path: f.Path, Raw: f.Header, Size: f.Size, LFS: true})
		total += f.Size
	}
	srv := hubtest.New(t, repo)
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", syncToken)
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	t.Setenv("DOSSIER_CACHE", t.TempDir())
	code, out, errs := run("plan", "--json", repo.ID, "--machine", "M4Max128")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc := decodePlan(t, out)
	for k, want := range map[string]int64{
		"mlx.4bit-g64.bytes": total, "mlx.4bit-g64.tensor_bytes": 963_712, "mlx.4bit-g64.params": 1_707_520,
		"mlx.4bit-g64.census.affine-4bit-g64": 1_703_936, "mlx.4bit-g64.census.BF16": 1536, "mlx.4bit-g64.M4Max128.max_context": 32768,
	} {
		if v, ok := doc.Facts.Get(k).Int(); !ok || v != want {
			t.Errorf("%s = %+v, want %d", k, doc.Facts.Get(k), want)
		}
	}
	// Two full-attention layers of 2 × (64 + 64) values at 2 B: 1,024 B a
	// token, 33,554,432 at 32,768 tokens.
	if c := doc.Facts.Get("mlx.4bit-g64.M4Max128.command"); c == nil || c.Display != "mlx_lm.server --model mlx-community/Toy-MoE-4bit --prompt-cache-bytes 33554432" {
		t.Errorf("command %+v", c)
	}
	for _, f := range files {
		if r, c := srv.FileRequests(repo.ID, f.Path); r+c == 0 || r+c > 2 {
			t.Errorf("%s: %d requests", f.Path, r+c)
		}
	}
	if code, out, errs := run("plan", repo.ID, "--machine", "M4Max128,M3Ultra512"); code != 0 || !strings.Contains(out, "M3Ultra512  vram") || !strings.Contains(out, "mlx_lm.server --model") {
		t.Errorf("text: exit %d\n%s%s", code, out, errs)
	}
	// A desktop is refused as a usage error.
	if code, _, errs := run("plan", repo.ID, "--machine", "1xRTX4090@Desktop128"); code != 2 || !strings.Contains(errs, "not a Mac") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// An MLX repository a page lists under variants: is synced by sync --all
// --gguf into data/hub/ORG/NAME/mlx.json, and the page then plans it on
// the Macs: the section, the facts, the command.
func TestMLXVariantOnThePage(t *testing.T) {
	files, err := toyMLX.Files()
	if err != nil {
		t.Fatal(err)
	}
	repo := &hubtest.Repo{ID: "mlx-community/Toy-MoE-4bit", Files: []hubtest.File{{Path: "config.json", Content: toyMLX.Config()}}}
	for _, f := range files {
		repo.Files = append(repo.Files, hubtest.File{Path: f.Path, Raw: f.Header, Size: f.Size, LFS: true})
	}
	srv := hubtest.New(t, repo)
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", syncToken)
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	root := newSite(t)
	withMachines(t, root)
	page := filepath.Join(root, "content/models/qwen3-30b-a3b.md")
	edit(t, page, "---\ntitle:", "---\nvariants:\n  - {name: 4bit, repo: mlx-community/Toy-MoE-4bit, format: MLX, bytes: 1e6, source: \"a test listing\"}\ntitle:")
	dest := filepath.Join(t.TempDir(), "public")
	if code, _, errs := run("--source", root, "build", "--destination", dest); code != 0 {
		t.Fatalf("build before sync: %s", errs)
	}
	before, _ := os.ReadFile(filepath.Join(dest, "models/qwen3-30b-a3b/index.md"))
	if strings.Contains(string(before), "Run it on a Mac") {
		t.Fatal("the section shows before the checkpoint is synced")
	}
	// The page's model snapshot is in the fixture; only the variant is read.
	if code, out, errs := run("--source", root, "sync", repo.ID); code != 0 || !strings.Contains(out, "wrote") {
		t.Fatalf("sync: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(root, "data/hub/mlx-community/Toy-MoE-4bit/mlx.json")); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run("--source", root, "build", "--destination", dest); code != 0 {
		t.Fatalf("build: %s", errs)
	}
	md, err := os.ReadFile(filepath.Join(dest, "models/qwen3-30b-a3b/index.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Run it on a Mac (MLX)", "mlx-community/Toy-MoE-4bit at commit " + hubtest.SHAFor(repo.ID)[:7] + " (4bit-g64)",
		"M4Max128", "M3Ultra512", "mlx_lm.server --model mlx-community/Toy-MoE-4bit --prompt-cache-bytes 33554432"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	fj, _ := os.ReadFile(filepath.Join(dest, "models/qwen3-30b-a3b/facts.json"))
	for _, k := range []string{`"mlx.4bit-g64.params"`, `"mlx.4bit-g64.M4Max128.decode_tokens_per_second"`} {
		if !strings.Contains(string(fj), k) {
			t.Errorf("facts.json lacks %s", k)
		}
	}
	// A corrupt store fails the build with the file named.
	if err := os.WriteFile(filepath.Join(root, "data/hub/mlx-community/Toy-MoE-4bit/mlx.json"), []byte(`{"repo": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run("--source", root, "build", "--destination", filepath.Join(t.TempDir(), "p")); code != 1 || !strings.Contains(errs, "mlx.json") {
		t.Errorf("corrupt store: exit %d: %s", code, errs)
	}
}
