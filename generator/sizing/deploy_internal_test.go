package sizing

import (
	"testing"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/deploy"
)

// With data-parallel attention every rank holds the attention and dense
// weights whole and 1/EP of the routed experts, and caches its own
// sequences with every KV head; under TP × EP the same ranks split both.
// By hand, for 100 GB of weights of which 80 GB are routed experts, on 8
// ranks: 20 + 80 ÷ 8 = 30 GB against 100 ÷ 8 = 12.5 GB.
func TestDataParallelAttentionMemory(t *testing.T) {
	cfg := []byte(`{"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
		"intermediate_size": 6144, "moe_intermediate_size": 768, "num_attention_heads": 32, "num_key_value_heads": 4,
		"head_dim": 128, "num_hidden_layers": 48, "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936,
		"max_position_embeddings": 40960, "torch_dtype": "bfloat16"}`)
	a, err := arch.Parse(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newCalc(Input{Arch: a, Analytic: &Analytic{ExpertBytes: 80e9},
		Sizing: config.Sizing{KVDTypeBytes: 2, StateDTypeBytes: 4, GPUMemoryUtilization: 0.9}})
	w := weights{total: 100e9}
	m := memory{c, w}
	acc := &catalog.Accelerator{ID: "X", MemoryBytes: 80e9}
	dpa, err := m.OnGPU(acc, deploy.Layout{GPUs: 8, TP: 8, PP: 1, DP: 8, EP: 8, DPAttention: true}, 2)
	if err != nil {
		t.Fatal(err)
	}
	tpep, err := m.OnGPU(acc, deploy.Layout{GPUs: 8, TP: 8, PP: 1, DP: 1, EP: 8}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if dpa.Weights != 30e9 || tpep.Weights != 12.5e9 {
		t.Errorf("weights per GPU: data-parallel attention %d, TP × EP %d; want 30e9 and 12.5e9", dpa.Weights, tpep.Weights)
	}
	// 48 layers × 2 × 4 KV heads × 128 × 2 B per token on a whole-attention
	// rank; one head (48 × 2 × 128 × 2 B) on each of 8 TP ranks.
	if got, want := dpa.Seq(1000), int64(48*2*4*128*2*1000); got != want {
		t.Errorf("cache per sequence, data-parallel attention: %d, want %d", got, want)
	}
	if got, want := tpep.Seq(1000), int64(48*2*1*128*2*1000); got != want {
		t.Errorf("cache per sequence, TP 8: %d, want %d", got, want)
	}
	if dpa.Sequences != 8 || tpep.Sequences != 1 {
		t.Errorf("sequence copies: %d and %d, want 8 and 1", dpa.Sequences, tpep.Sequences)
	}
	// Without routed-expert bytes the layout cannot be placed.
	c.in.Analytic = nil
	if _, err := m.OnGPU(acc, deploy.Layout{GPUs: 8, TP: 8, PP: 1, DP: 8, EP: 8, DPAttention: true}, 2); err == nil {
		t.Error("data-parallel attention placed without routed-expert bytes")
	}
}
