package sizing

import (
	"math"
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/deploy"
	"dossier/generator/facts"
)

// qwen3MoE is a Qwen3-MoE-shaped config: 48 layers, 4 KV heads of 128,
// hidden 2048, 128 routed experts with 8 per token.
func qwen3MoE(t *testing.T) *arch.Architecture {
	t.Helper()
	a, err := arch.Parse([]byte(`{"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
		"intermediate_size": 6144, "moe_intermediate_size": 768, "num_attention_heads": 32, "num_key_value_heads": 4,
		"head_dim": 128, "num_hidden_layers": 48, "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936,
		"max_position_embeddings": 40960, "torch_dtype": "bfloat16"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Under TP 8 a model with 4 KV heads keeps one head per rank, each head on
// two ranks: a step of B sequences reads B × one head per token on every
// GPU. With data-parallel attention a rank holds B ÷ 8 sequences with all
// four heads: half the bytes. By hand, 48 layers × 2 (K, V) × 128 × 2 B =
// 24,576 B per head per token.
func TestDataParallelAttentionReadsEachCacheOnce(t *testing.T) {
	a := qwen3MoE(t)
	c := newCalc(Input{Arch: a, Analytic: &Analytic{ExpertBytes: 80e9},
		Sizing: config.Sizing{KVDTypeBytes: 2, StateDTypeBytes: 4, GPUMemoryUtilization: 0.9, Speed: config.Speed{InterconnectEfficiency: 0.8}}})
	whole, _ := c.cacheOn(placement{n: 1, tp: 1, pp: 1}, 2)
	tp8, _ := c.cacheOn(placement{n: 8, tp: 8, pp: 1}, 2)
	const head, ctx = 48 * 2 * 128 * 2, 1000
	if whole.at(ctx) != 4*head*ctx || tp8.at(ctx) != head*ctx {
		t.Fatalf("cache per sequence: whole %d, TP 8 %d; want %d and %d", whole.at(ctx), tp8.at(ctx), 4*head*ctx, head*ctx)
	}
	acc := &catalog.Accelerator{ID: "X", Interconnect: &catalog.Spec{Value: 9e11}}
	in := speedIn{acc: acc, p: placement{n: 8, tp: 1, pp: 1}, cache: whole, dp: 8, ep: 8}
	w := c.dpaWork(in, 64, 20e9, 10e9, 1e9, 2e9, 5e6, ctx)
	attn := w.groups[2]
	if attn.bytes != 8*4*head*ctx || attn.bytes*2 != 64*float64(tp8.at(ctx)) {
		t.Errorf("attention bytes on the busiest rank = %g, want 8 sequences × 4 heads = %d, half of TP 8's %d", attn.bytes, 8*4*head*ctx, 64*tp8.at(ctx))
	}
	if attn.flops != 8*5e6 {
		t.Errorf("attention FLOPs = %g, want 8 sequences × 5e6", attn.flops)
	}
	// 65 sequences over 8 ranks: the busiest holds 9.
	if got := c.dpaWork(in, 65, 20e9, 10e9, 1e9, 2e9, 0, ctx).groups[2].bytes; got != 9*4*head*ctx {
		t.Errorf("65 sequences: busiest rank reads %g, want 9 sequences' caches", got)
	}
	// The rank's experts run on all 64 tokens: 2 × 2e9 × 64 ÷ 8 FLOPs, and
	// it reads its share of the distinct experts they hit.
	ex := w.groups[1]
	if ex.flops != 2*2e9*64/8 || math.Abs(ex.bytes-10e9*DistinctExperts(128, 8, 64)/128) > 1 {
		t.Errorf("experts = %+v", ex)
	}
	// Dense weights whole, on the rank's 8 sequences.
	if d := w.groups[0]; d.bytes != 20e9 || d.flops != 2*1e9*8 {
		t.Errorf("dense = %+v", d)
	}
	// A gather and a scatter per MoE layer: 48 × 2 × 64 tokens × 2048 × 2 B × 7/8.
	if w.collectives != 96 || w.commBytes != 48*2*64*2048*2*7.0/8 || w.layers != 48 {
		t.Errorf("collectives %g, comm bytes %g, layers %g", w.collectives, w.commBytes, w.layers)
	}
	if want := 7*2*1e9 + 63*2*2e9/8; w.extraFLOPs != want {
		t.Errorf("extra FLOPs = %g, want %g", w.extraFLOPs, want)
	}
}

// A deployment whose layout is data-parallel attention gets speed facts,
// and their derivation names the placement; at batch 1 the one sequence's
// rank reads the weights outside the experts whole, so it is slower than
// the same GPUs under tensor parallelism.
func TestDataParallelAttentionSpeedFacts(t *testing.T) {
	a := qwen3MoE(t)
	acc := &catalog.Accelerator{ID: "X", Class: "datacenter", MemoryBytes: 80e9, Bandwidth: catalog.Spec{Value: 3e12},
		PeakBF16: &catalog.Spec{Value: 1e15}, Interconnect: &catalog.Spec{Value: 9e11}}
	c := newCalc(Input{Arch: a, Analytic: &Analytic{ExpertBytes: 50e9},
		Sizing: config.Sizing{KVDTypeBytes: 2, StateDTypeBytes: 4, GPUMemoryUtilization: 0.9, ServingContext: 8192,
			Speed: config.Speed{MemoryEfficiency: 0.8, ComputeEfficiency: 0.4, InterconnectEfficiency: 0.8, PromptTokens: 1024}}})
	c.s.Add(facts.Fact{Key: "params.active", Value: int64(3e9), Unit: facts.UnitParams})
	w := weights{total: 60e9}
	c.speedOfDPAttention("8xX", acc, deploy.Layout{Accelerator: "X", GPUs: 8, TP: 8, PP: 1, DP: 8, EP: 8, DPAttention: true}, w)
	one := c.s.Get("speed.8xX.decode_tokens_per_second")
	agg := c.s.Get("speed.8xX.decode_tokens_per_second_at_max_concurrency")
	if !one.Known() || !agg.Known() || !strings.Contains(one.Derivation, "data-parallel attention over 8 ranks") {
		t.Fatalf("facts: %+v / %+v", one, agg)
	}
	c.speed(speedIn{cfg: "tp", acc: acc, p: placement{n: 8, tp: 8, pp: 1}, weightsGPU: 7.5e9, cache: gpuCache{full: 48 * 2 * 128 * 2}, maxConc: 10})
	v1, _ := one.Float()
	vtp, _ := c.s.Get("speed.tp.decode_tokens_per_second").Float()
	if !(v1 < vtp) {
		t.Errorf("batch 1: data-parallel attention %g tokens/s, TP 8 %g: the rank holding the sequence reads the non-expert weights whole and should be slower", v1, vtp)
	}
}
