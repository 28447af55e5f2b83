package sizing

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/deploy"
)

// get_pp_indices splits layers ÷ pp and gives the remainder to the stages
// before the last, counting back from the one before it.
func TestPPStages(t *testing.T) {
	for _, tc := range []struct {
		layers, pp int64
		want       string
	}{
		{43, 2, "layers 0–21 | 22–42"},
		{10, 4, "layers 0–1 | 2–4 | 5–7 | 8–9"},
		{43, 1, "layers 0–42"},
		{12, 3, "layers 0–3 | 4–7 | 8–11"},
		{7, 3, "layers 0–1 | 2–4 | 5–6"},
	} {
		if got := stageText(ppStages(tc.layers, tc.pp)); got != tc.want {
			t.Errorf("ppStages(%d, %d) = %s, want %s", tc.layers, tc.pp, got, tc.want)
		}
	}
}

// TestCompressedServingByHand: DeepSeek-V4-Flash (frozen config) on the
// GPUs of a layout, with vLLM's row widths: 584 B per row (448 FP8 + 64 ×
// 2 B RoPE + 7 scale bytes + 1 pad) and 132 B per indexer key (128 FP8 +
// one 4-byte scale). Layers 0–1 are window-only, the even layers 2–42 of
// ratio 4 (21), the odd layers 3–41 of ratio 128 (20). Per sequence at
// 131,072 tokens a layer holds 128 window rows; a ratio-4 layer 32,768
// rows and 32,768 keys and 81,920 B of compressor state ((2·4·2·2·512 +
// 2·4·2·2·128) × 4 B); a ratio-128 layer 1,024 rows and 524,288 B of state
// (128·2·512 × 4 B).
func TestCompressedServingByHand(t *testing.T) {
	cfg, err := os.ReadFile(filepath.Join("..", "modeltree", "testdata", "deepseek_v4", "deepseek-ai__DeepSeek-V4-Flash.config.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := arch.Parse(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Compressed == nil {
		t.Fatalf("no compressed cache: %v", a.Missing["layer_kinds"])
	}
	if got := a.Compressed.EngineRowBytes(); got != 584 {
		t.Errorf("row bytes %d, want 584", got)
	}
	if got := a.Compressed.EngineIndexBytes(); got != 132 {
		t.Errorf("indexer key bytes %d, want 132", got)
	}
	c := newCalc(Input{Arch: a, Analytic: &Analytic{ExpertBytes: 80e9}, Sizing: config.Sizing{KVDTypeBytes: 2, StateDTypeBytes: 4, GPUMemoryUtilization: 0.9}})
	m := memory{c, weights{total: 100e9}}
	acc := &catalog.Accelerator{ID: "X", MemoryBytes: 141e9}
	const (
		row, key          = 584, 132
		n                 = 131072
		window            = 128 * row
		state4, state128  = (2*4*2*2*512 + 2*4*2*2*128) * 4, 128 * 2 * 512 * 4
		ratio4, ratio128  = window + n/4*(row+key) + state4, window + n/128*row + state128
		windowOnly        = window
		perSequenceWhole  = 2*windowOnly + 21*ratio4 + 20*ratio128
		perSequenceStage1 = 11*ratio4 + 10*ratio128 // layers 22–42
	)
	// TP 8: every rank holds the whole cache (one K=V row, replicated).
	tp8, err := m.OnGPU(acc, deploy.Layout{GPUs: 8, TP: 8, PP: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := tp8.Seq(n); got != perSequenceWhole {
		t.Errorf("TP 8: %d B per sequence at %d tokens, want %d", got, n, perSequenceWhole)
	}
	// Data-parallel attention caches the same per rank.
	dpa, err := m.OnGPU(acc, deploy.Layout{GPUs: 8, TP: 8, PP: 1, DP: 8, EP: 8, DPAttention: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if dpa.Seq(n) != perSequenceWhole {
		t.Errorf("data-parallel attention: %d B per sequence, want %d", dpa.Seq(n), perSequenceWhole)
	}
	// PP 2 (TP 4): stage 0 holds layers 0–21 (2 window-only, 10 + 10),
	// stage 1 layers 22–42 (11 ratio-4, 10 ratio-128), the tighter one.
	// Counting the most layers of each ratio on any stage would add a
	// window-only layer stage 1 does not have.
	pp2, err := m.OnGPU(acc, deploy.Layout{GPUs: 8, TP: 4, PP: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := pp2.Seq(n); got != perSequenceStage1 {
		t.Errorf("PP 2: %d B per sequence at %d tokens, want %d (stage 1's layers)", got, n, perSequenceStage1)
	}
	stage0 := 2*windowOnly + 10*ratio4 + 10*ratio128
	if stage0 >= perSequenceStage1 {
		t.Fatalf("by hand, stage 0 (%d) should hold less than stage 1", stage0)
	}
	// Max context: the cache grows in steps (one row per 4 and per 128
	// tokens), so with exactly 131,072 tokens' room a sequence can run on
	// to 131,075, where the next ratio-4 row would not fit.
	if mc, grows := pp2.MaxContext(perSequenceStage1); mc != 131075 || !grows {
		t.Errorf("PP 2 max context with %d B: %d (grows %v), want 131,075", perSequenceStage1, mc, grows)
	}
	// With room to spare the search ends at its bound; serving caps it at
	// the model's own context.
	if mc, _ := tp8.MaxContext(1 << 50); mc != maxCompressedContext {
		t.Errorf("max context with room to spare: %d, want the search's bound %d", mc, int64(maxCompressedContext))
	}
	if mc, _ := tp8.MaxContext(100); mc != 0 {
		t.Errorf("max context when the state alone does not fit: %d, want 0", mc)
	}
	// Decode reads the window, index_topk = 512 selected rows and every
	// indexer key on a ratio-4 layer, every compressed row on a ratio-128 one.
	g, missing := c.cacheOn(placement{n: 8, tp: 8, pp: 1}, 1)
	if missing != "" {
		t.Fatal(missing)
	}
	read := int64(43*window + 21*(512*row+n/4*key) + 20*(n/128)*row)
	if got := g.readAt(n); got != read {
		t.Errorf("decode reads %d B at %d tokens, want %d", got, n, read)
	}
	// Below index_topk compressed rows the ratio-4 layers read them all.
	if got, want := g.readAt(1024), int64(43*window+21*(256*row+256*key)+20*8*row); got != want {
		t.Errorf("decode reads %d B at 1,024 tokens, want %d", got, want)
	}
	// Attention FLOPs of a decoded token at 131,072 tokens: 64 heads ×
	// 2 × (QKᵀ + AV) over 512 values for each attended row (43 windows of
	// 128, 21 × 512 selected, 20 × 1,024), split over TP; the indexers'
	// 64 heads × 128 multiply-adds on each of 21 × 32,768 keys, replicated.
	split, replicated := c.compressedAttentionFLOPs(n)
	if want := float64(43*128+21*512+20*1024) * 2 * 64 * 2 * 512; split != want {
		t.Errorf("attention FLOPs split over TP: %g, want %g", split, want)
	}
	if want := float64(21*n/4) * 2 * 64 * 128; replicated != want {
		t.Errorf("indexer FLOPs: %g, want %g", replicated, want)
	}
	// vLLM has no BF16 cache for V4: the other width is unknown, named.
	if _, err := m.OnGPU(acc, deploy.Layout{GPUs: 8, TP: 8, PP: 1}, 2); err == nil || !strings.Contains(err.Error(), "fp8_ds_mla") {
		t.Errorf("BF16 cache: err %v, want one naming fp8_ds_mla", err)
	}
	if p, _, why := c.kvDTypes(); p != 1 || !strings.Contains(why, "fp8_ds_mla") {
		t.Errorf("primary cache width %d (%s), want 1 naming fp8_ds_mla", p, why)
	}
}

// A config whose cache is too large to count at its context (65,536
// layers of 2^32-value rows) gets the serving cache unknown, not a wrapped
// figure or a panic; the real width counts.
func TestCompressedServingOverflow(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "modeltree", "testdata", "deepseek_v4", "deepseek-ai__DeepSeek-V4-Flash.config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	ratios := make([]int, 1<<16)
	for i := range ratios {
		ratios[i] = []int{4, 128}[i%2]
	}
	cfg["num_hidden_layers"], cfg["head_dim"], cfg["compress_ratios"] = 1<<16, int64(1)<<32, ratios
	big, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := arch.Parse(big, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Compressed == nil {
		t.Fatalf("no compressed cache: %s", a.Missing["layer_kinds"])
	}
	c := newCalc(Input{Arch: a, Sizing: config.Sizing{KVDTypeBytes: 2, ServingContext: 131072}})
	if _, missing := c.cacheOn(placement{n: 2, tp: 1, pp: 2}, 1); !strings.Contains(missing, "overflow") {
		t.Errorf("missing %q, want an overflow", missing)
	}
}
