package cli

import (
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
