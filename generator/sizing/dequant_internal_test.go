package sizing

import (
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/facts"
)

// Weight-only formats on parts without matrix units for them say at batch
// > 1 that the dequantization is not charged; native formats and 16-bit
// weights say nothing.
func TestDequantizationIsStatedWhereThePartLacksTheFormat(t *testing.T) {
	spec := &catalog.Spec{Value: 1}
	h100 := &catalog.Accelerator{ID: "H100", PeakFP8: spec}
	a100 := &catalog.Accelerator{ID: "A100"}
	b200 := &catalog.Accelerator{ID: "B200", PeakFP8: spec, PeakFP4: spec}
	mxfp4 := arch.Quantization{Method: "mxfp4", Bits: 4, Type: "float"}
	fp8 := arch.Quantization{Method: "fp8", Bits: 8, Type: "float"}
	int4 := arch.Quantization{Method: "compressed-tensors", Format: "pack-quantized", Bits: 4, Type: "int"}
	int8 := arch.Quantization{Method: "compressed-tensors", Format: "int-quantized", Bits: 8, Type: "int"}
	for _, tc := range []struct {
		q    arch.Quantization
		acc  *catalog.Accelerator
		want string // "" for no statement
	}{
		{mxfp4, h100, "FP4 weights (MXFP4; no FP4 units) on H100"},
		{mxfp4, b200, ""},
		{fp8, a100, "FP8 weights (no FP8 units) on A100"},
		{fp8, h100, ""},
		{int4, b200, "4-bit integer weights (weight-only: no 4-bit GEMM) on B200"},
		{int8, a100, ""},
		{arch.Quantization{}, a100, ""},
	} {
		got := dequantText(tc.q, tc.acc)
		if tc.want == "" && got != "" || tc.want != "" && !(strings.HasPrefix(got, tc.want) && strings.Contains(got, "not charged")) {
			t.Errorf("%s %s on %s: %q, want %q…", tc.q.Method, tc.q.Format, tc.acc.ID, got, tc.want)
		}
	}
}

// The statement reaches the max-concurrency figure's derivation, not the
// batch-1 one (a step bound by the packed bytes hides the dequantization).
func TestDequantizationStatementOnTheManySequencesFigure(t *testing.T) {
	a := qwen3MoE(t)
	a.Quant = arch.Quantization{Method: "mxfp4", Bits: 4, Type: "float"}
	acc := &catalog.Accelerator{ID: "X", Class: "datacenter", MemoryBytes: 80e9, Bandwidth: catalog.Spec{Value: 3e12},
		PeakBF16: &catalog.Spec{Value: 1e15}}
	c := newCalc(Input{Arch: a, Sizing: config.Sizing{KVDTypeBytes: 2, ServingContext: 8192,
		Speed: config.Speed{MemoryEfficiency: 0.8, ComputeEfficiency: 0.4, InterconnectEfficiency: 0.8, PromptTokens: 1024}}})
	c.s.Add(facts.Fact{Key: "params.active", Value: int64(3e9), Unit: facts.UnitParams})
	c.speed(speedIn{cfg: "1xX", acc: acc, p: placement{n: 1, tp: 1, pp: 1}, weightsGPU: 30e9, cache: gpuCache{full: 1000}, maxConc: 64})
	one, many := c.s.Get("speed.1xX.decode_tokens_per_second"), c.s.Get("speed.1xX.decode_tokens_per_second_at_max_concurrency")
	if strings.Contains(one.Derivation, "dequantized") || !strings.Contains(many.Derivation, "FP4 weights (MXFP4; no FP4 units) on X are dequantized") {
		t.Errorf("batch 1: %q\nmany: %q", one.Derivation, many.Derivation)
	}
}
