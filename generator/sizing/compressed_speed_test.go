package sizing_test

import (
	"math"
	"path/filepath"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/sizing"
)

// servingFamily is the input sizing.Compute takes for a family config
// without a snapshot: its architecture and module tree, the serving
// fixture's catalog, the test assumptions with a 2 GiB reserve per GPU
// and the given layouts.
func servingFamily(t *testing.T, cfg []byte, hardware ...string) sizing.Input {
	t.Helper()
	a, err := arch.Parse(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	an, anErr := sizing.AnalyticOf(cfg, nil)
	cat, err := catalog.Load(filepath.Join(servingDir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	sz := assumptions()
	sz.ReservePerGPUBytes = 2 << 30
	return sizing.Input{Model: "family", Arch: a, Analytic: an, AnalyticErr: anErr, Sizing: sz, Hardware: hardware, Catalog: cat}
}

// TestCompressedDecodeReadsByHand: a DeepSeek-V4-Flash decode step reads
// only what its attention attends. On 8 × H200 (TP 8, the cache whole on
// each rank) at batch 1, moving the context from 131,072 to 1,048,576
// tokens changes only the attention group, memory-bound at 4.8 TB/s × 0.6
// (its FLOPs, ≤ 0.1 ms at 1.979 PFLOP/s × 0.5, stay under its bytes'
// time), so the step grows by the difference of the reads ÷ 2.88 TB/s:
//   - 43 windows of 128 rows of 584 B, at either context;
//   - 21 ratio-4 layers: 512 selected rows + every indexer key (32,768,
//     then 262,144, of 132 B);
//   - 20 ratio-128 layers: every row (1,024, then 8,192).
//
// Reading the whole cache instead (every ratio-4 row, and the compressor
// state) makes the difference 1.23 ms rather than 0.25 ms.
func TestCompressedDecodeReadsByHand(t *testing.T) {
	in := servingFamily(t, familyConfig(t, "deepseek_v4/deepseek-ai__DeepSeek-V4-Flash.config.json"), "8xH200")
	step := func(ctx int64) float64 {
		in.Sizing.Speed = config.Speed{MemoryEfficiency: 0.6, ComputeEfficiency: 0.5, InterconnectEfficiency: 0.8, PromptTokens: ctx}
		s := sizing.Compute(in)
		if p := s.Get("serving.8xH200.placement"); p == nil || p.Value != "TP 8" {
			t.Fatalf("placement %+v, want TP 8", p)
		}
		return 1 / floatOf(t, s.Get("speed.8xH200.decode_tokens_per_second"), "decode")
	}
	read := func(compressed4, keys, compressed128 int64) float64 {
		return float64(43*128*584 + 21*(compressed4*584+keys*132) + 20*compressed128*584)
	}
	want := (read(512, 262144, 8192) - read(512, 32768, 1024)) / (4.8e12 * 0.6)
	if got := step(1048576) - step(131072); math.Abs(got-want) > 1e-6*want {
		t.Errorf("step at 1,048,576 − step at 131,072 = %g s, want %g s", got, want)
	}
}

// TestCompressedPrefillByHand: a DeepSeek-V4-Flash prompt's attention is
// what decoding each of its tokens reads, summed (it was left out). The
// prefill time is c·(2·M·p + A(p)) for an unknown constant c and matmul
// parameters M, so time(2p) − 2·time(p) is c·(A(2p) − 2·A(p)), and the
// ratio of two such differences depends on the attention alone. By hand
// at p = 256, 512, 1,024 (past the 128-row window, short of the 512 rows
// the indexer selects): per token t, every layer reads min(t, window)
// rows, a ratio-4 layer ⌊t/4⌋ more and scores ⌊t/4⌋ indexer keys (whole
// on each of the 8 ranks), a ratio-128 layer ⌊t/128⌋ more.
func TestCompressedPrefillByHand(t *testing.T) {
	in := servingFamily(t, familyConfig(t, "deepseek_v4/deepseek-ai__DeepSeek-V4-Flash.config.json"), "8xH200")
	prefill := func(p int64) float64 {
		in.Sizing.Speed = config.Speed{MemoryEfficiency: 0.6, ComputeEfficiency: 0.5, InterconnectEfficiency: 0.8, PromptTokens: p}
		return floatOf(t, sizing.Compute(in).Get("speed.8xH200.prefill_seconds"), "prefill")
	}
	a, kv := in.Arch, in.Arch.Compressed
	var n4, n128 int64
	for _, r := range kv.Ratios {
		switch r {
		case 4:
			n4++
		case 128:
			n128++
		}
	}
	layers := int64(len(kv.Ratios))
	windowSum := func(p int64) int64 { return kv.Window*(kv.Window+1)/2 + (p-kv.Window)*kv.Window }
	floorSum := func(p, r int64) int64 { q, m := p/r, p%r; return r*q*(q-1)/2 + q*(m+1) }
	attention := func(p int64) float64 {
		rows := layers*windowSum(p) + n4*floorSum(p, 4) + n128*floorSum(p, 128)
		keys := n4 * floorSum(p, 4)
		return float64(rows)*2*float64(a.Heads)*2*float64(kv.RowValues) + 8*float64(keys)*2*float64(a.IndexHeads)*float64(kv.IndexValues)
	}
	if kv.Window != 128 || kv.TopK != 512 || n4 == 0 || n128 == 0 {
		t.Fatalf("fixture changed: window %d, top-k %d, %d ratio-4 and %d ratio-128 layers", kv.Window, kv.TopK, n4, n128)
	}
	d1 := prefill(512) - 2*prefill(256)
	d2 := prefill(1024) - 2*prefill(512)
	want := (attention(1024) - 2*attention(512)) / (attention(512) - 2*attention(256))
	if d1 <= 0 || math.Abs(d2/d1-want) > 1e-6*want {
		t.Errorf("prefill differences %g s and %g s: ratio %g, want %g", d1, d2, d2/d1, want)
	}
}
