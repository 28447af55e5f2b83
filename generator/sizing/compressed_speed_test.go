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
	cfg := familyConfig(t, "deepseek_v4/deepseek-ai__DeepSeek-V4-Flash.config.json")
	a, err := arch.Parse(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	an, anErr := sizing.AnalyticOf(cfg, nil)
	cat, err := catalog.Load(filepath.Join(servingDir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	step := func(ctx int64) float64 {
		sz := assumptions()
		sz.ReservePerGPUBytes = 2 << 30
		sz.Speed = config.Speed{MemoryEfficiency: 0.6, ComputeEfficiency: 0.5, InterconnectEfficiency: 0.8, PromptTokens: ctx}
		s := sizing.Compute(sizing.Input{Model: "v4", Arch: a, Analytic: an, AnalyticErr: anErr, Sizing: sz, Hardware: []string{"8xH200"}, Catalog: cat})
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
