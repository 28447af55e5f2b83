package sizing_test

import (
	"os"
	"path/filepath"
	"testing"

	"dossier/generator/sizing"
)

// familyConfig reads a real config among the family test inputs.
func familyConfig(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "modeltree", "testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStateSpaceStateByHand: Nemotron 3 Nano's 23 Mamba-2 layers each keep
// 64 heads × 64 × 128 SSM state in FP32 (mamba_ssm_cache_dtype) and a conv
// state of (4 − 1) × (4096 + 2 × 8 × 128) channels at 2 B; its 6
// attention layers cache 2 × 2 KV heads × 128 × 2 B per token.
func TestStateSpaceStateByHand(t *testing.T) {
	cfg := familyConfig(t, "nemotron_h/nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.config.json")
	s := compute(t, cfg, nil, nil)
	perLayer := int64(64*64*128*4 + 3*(4096+2*8*128)*2)
	if got := intOf(t, s, "state.bytes_per_sequence_per_ssm_layer"); got != perLayer {
		t.Errorf("SSM state per layer = %d, want %d", got, perLayer)
	}
	if got := intOf(t, s, "state.bytes_per_sequence"); got != 23*perLayer {
		t.Errorf("state per sequence = %d, want %d", got, 23*perLayer)
	}
	if got := intOf(t, s, "kv.bytes_per_token"); got != 6*2*2*128*2 {
		t.Errorf("KV per token = %d, want %d", got, 6*2*2*128*2)
	}
	if got := intOf(t, s, "arch.layers_state_space"); got != 23 {
		t.Errorf("state-space layers = %d", got)
	}
	if v, ok := s.Get("arch.hybrid").Bool(); !ok || !v {
		t.Error("Nemotron-H is a hybrid")
	}
	if got := s.Get("arch.layer_kinds").Value; got != "M-M-MF-M-M-MF-M-M-MF-M-M-MF-M-M-MF-M-M-M-MF-M-M-M-M-" {
		t.Errorf("layer kinds %v", got)
	}
	if r, ok := s.Get("arch.linear_to_full_ratio").Float(); !ok || r != 23.0/6 {
		t.Errorf("state-to-full ratio %v", r)
	}
	// 128K tokens of KV plus the state, for one sequence.
	if got := intOf(t, s, "memory.per_sequence_at.131072"); got != 6*2*2*128*2*131072+23*perLayer {
		t.Errorf("per sequence at 128K = %d", got)
	}

	// At TP 8 each rank holds 8 of the 64 heads and 1 of the 8 groups.
	sv := sizing.Compute(servingFamily(t, cfg, "8xH100"))
	perRank := int64(8*64*128*4 + 3*(8*64+2*1*128)*2)
	if got := intOf(t, sv, "serving.8xH100.state_bytes_per_gpu_per_sequence"); got != 23*perRank {
		t.Errorf("8xH100 state per GPU = %d, want %d", got, 23*perRank)
	}
}

// TestNemotronNASKVByHand: only the 49 layers with attention cache K and V,
// 8 KV heads (64 / n_heads_in_group 8) × 128 each.
func TestNemotronNASKVByHand(t *testing.T) {
	s := compute(t, familyConfig(t, "nemotron-nas/nvidia__Llama-3_3-Nemotron-Super-49B-v1.config.json"), nil, nil)
	if got := intOf(t, s, "kv.bytes_per_token_per_layer"); got != 2*8*128*2 {
		t.Errorf("KV per layer = %d, want %d", got, 2*8*128*2)
	}
	if got := intOf(t, s, "kv.bytes_per_token"); got != 49*2*8*128*2 {
		t.Errorf("KV per token = %d, want %d", got, 49*2*8*128*2)
	}
	if got := intOf(t, s, "state.bytes_per_sequence"); got != 0 {
		t.Errorf("state = %d", got)
	}
	if got := intOf(t, s, "params.total"); got != 49_867_145_216 {
		t.Errorf("params.total = %d", got)
	}
}

// TestGLM5KVByHand: GLM-5's 78 DSA layers each cache the MLA latent
// (kv_lora_rank 512 + qk_rope_head_dim 64) and the indexer's key
// (index_head_dim 128), 2 B each.
func TestGLM5KVByHand(t *testing.T) {
	s := compute(t, familyConfig(t, "glm_moe_dsa/zai-org__GLM-5.config.json"), nil, nil)
	if got := intOf(t, s, "kv.bytes_per_token_per_layer"); got != (512+64+128)*2 {
		t.Errorf("KV per layer = %d, want %d", got, (512+64+128)*2)
	}
	if got := intOf(t, s, "kv.bytes_per_token"); got != 78*(512+64+128)*2 {
		t.Errorf("KV per token = %d", got)
	}
	if got := intOf(t, s, "moe.layers"); got != 75 {
		t.Errorf("MoE layers = %d, want 75 (the report's table)", got)
	}
}

// TestJambaStateByHand: Jamba-1.5-Mini's 28 Mamba-1 layers keep
// inner (2 × 4096) × d_state 16 SSM values at 4 B and (4 − 1) × 8192 conv
// values at 2 B; its 4 attention layers cache 2 × 8 × 128 values at 2 B.
func TestJambaStateByHand(t *testing.T) {
	s := compute(t, familyConfig(t, "jamba/ai21labs__AI21-Jamba-1.5-Mini.config.json"), nil, nil)
	per := int64(8192*16*4 + 3*8192*2)
	if got := intOf(t, s, "state.bytes_per_sequence_per_ssm_layer"); got != per {
		t.Errorf("Mamba state per layer = %d, want %d", got, per)
	}
	if got := intOf(t, s, "state.bytes_per_sequence"); got != 28*per {
		t.Errorf("state per sequence = %d, want %d", got, 28*per)
	}
	if got := intOf(t, s, "kv.bytes_per_token"); got != 4*2*8*128*2 {
		t.Errorf("KV per token = %d, want %d", got, 4*2*8*128*2)
	}
	if got := intOf(t, s, "moe.layers"); got != 16 {
		t.Errorf("MoE layers = %d, want 16 (odd layers)", got)
	}
	if got := intOf(t, s, "params.total"); got != 51_570_323_328 {
		t.Errorf("params.total = %d", got)
	}
}

// TestQwen3VLKVByHand: the text decoder (text_config) sizes the cache: 36
// layers × 2 × 8 KV heads × 128 × 2 B; the vision tower caches nothing.
func TestQwen3VLKVByHand(t *testing.T) {
	s := compute(t, familyConfig(t, "qwen3_vl/Qwen__Qwen3-VL-8B-Instruct.config.json"), nil, nil)
	if got := intOf(t, s, "kv.bytes_per_token"); got != 36*2*8*128*2 {
		t.Errorf("KV per token = %d, want %d", got, 36*2*8*128*2)
	}
	if got := intOf(t, s, "params.total"); got != 8_767_123_696 {
		t.Errorf("params.total = %d", got)
	}
}

// TestLFM2StateByHand: LFM2-1.2B's 10 short-convolution layers keep the
// last conv_L_cache − 1 = 2 inputs of 2,048 channels at 2 B; its 6
// attention layers cache 2 × 8 KV heads × 64 values at 2 B per token.
func TestLFM2StateByHand(t *testing.T) {
	s := compute(t, familyConfig(t, "lfm2/LiquidAI__LFM2-1.2B.config.json"), nil, nil)
	if got := intOf(t, s, "state.bytes_per_sequence_per_conv_layer"); got != 2*2048*2 {
		t.Errorf("conv state per layer = %d, want %d", got, 2*2048*2)
	}
	if got := intOf(t, s, "state.bytes_per_sequence"); got != 10*2*2048*2 {
		t.Errorf("state per sequence = %d", got)
	}
	if got := intOf(t, s, "kv.bytes_per_token"); got != 6*2*8*64*2 {
		t.Errorf("KV per token = %d, want %d", got, 6*2*8*64*2)
	}
	if got := intOf(t, s, "arch.layers_convolution"); got != 10 {
		t.Errorf("conv layers = %d", got)
	}
	if got := intOf(t, s, "params.total"); got != 1_170_340_608 {
		t.Errorf("params.total = %d, the model card's 1,170,340,608", got)
	}
}

// TestSmolLM3KVByHand: 36 layers × 2 × 4 KV heads × 128 × 2 B.
func TestSmolLM3KVByHand(t *testing.T) {
	s := compute(t, familyConfig(t, "smollm3/HuggingFaceTB__SmolLM3-3B.config.json"), nil, nil)
	if got := intOf(t, s, "kv.bytes_per_token"); got != 36*2*4*128*2 {
		t.Errorf("KV per token = %d, want %d", got, 36*2*4*128*2)
	}
}

// TestQwen3_5StateByHand: Qwen3.5-35B-A3B's 30 Gated DeltaNet layers each
// keep 32 value heads × 128 × 128 recurrent state at 4 B and
// (4 − 1) × (2 × 16 × 128 + 32 × 128) conv values at 2 B; its 10 gated
// attention layers cache 2 × 2 KV heads × 256 at 2 B per token.
func TestQwen3_5StateByHand(t *testing.T) {
	s := compute(t, familyConfig(t, "qwen3_5/Qwen__Qwen3.5-35B-A3B.config.json"), nil, nil)
	per := int64(32*128*128*4 + 3*(2*16*128+32*128)*2)
	if got := intOf(t, s, "state.bytes_per_sequence_per_layer"); got != per {
		t.Errorf("DeltaNet state per layer = %d, want %d", got, per)
	}
	if got := intOf(t, s, "state.bytes_per_sequence"); got != 30*per {
		t.Errorf("state per sequence = %d, want %d", got, 30*per)
	}
	if got := intOf(t, s, "kv.bytes_per_token"); got != 10*2*2*256*2 {
		t.Errorf("KV per token = %d, want %d", got, 10*2*2*256*2)
	}
}

// TestNarrowValueHeads: a GQA layer whose value head is narrower than its
// key head (MiMo-V2-Flash's global layers: K 192, V 128, 4 KV heads)
// caches 4 × (192 + 128) values per token, not 2 × 4 × 192.
func TestNarrowValueHeads(t *testing.T) {
	s := compute(t, []byte(`{"model_type":"mimo_v2_flash","hidden_size":4096,"num_hidden_layers":2,"num_attention_heads":64,
		"num_key_value_heads":4,"head_dim":192,"v_head_dim":128,"vocab_size":8,"max_position_embeddings":8192,
		"hybrid_layer_pattern":[0,0],"moe_layer_freq":[0,0],"n_routed_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":8,"intermediate_size":8}`), nil, nil)
	if got := intOf(t, s, "kv.bytes_per_token_per_layer"); got != 4*(192+128)*2 {
		t.Errorf("KV per layer = %d, want %d", got, 4*(192+128)*2)
	}
}

// TestMiMoSlidingLayersOwnKV: MiMo-V2-Flash's 39 sliding layers cache
// their own shape (swa_num_key_value_heads 8, K 192, V 128), its 9 global
// layers 4 KV heads of K 192 and V 128, at 2 B a value.
func TestMiMoSlidingLayersOwnKV(t *testing.T) {
	m := compute(t, familyConfig(t, "mimo_v2_flash/XiaomiMiMo__MiMo-V2-Flash.config.json"), nil, nil)
	global, sliding := int64(4*(192+128)*2), int64(8*(192+128)*2)
	if got := intOf(t, m, "kv.bytes_per_token_per_layer"); got != global {
		t.Errorf("global layer %d, want %d", got, global)
	}
	if got := intOf(t, m, "kv.sliding_bytes_per_token_per_layer"); got != sliding {
		t.Errorf("sliding layer %d, want %d", got, sliding)
	}
	if got := intOf(t, m, "kv.bytes_per_token"); got != 9*global {
		t.Errorf("KV per token %d, want %d", got, 9*global)
	}
	if got := intOf(t, m, "kv.sliding_bytes_per_token"); got != 39*sliding {
		t.Errorf("sliding KV per token %d, want %d", got, 39*sliding)
	}
	if got := intOf(t, m, "kv.bytes_at_context.131072"); got != 9*global*131072+39*sliding*128 {
		t.Errorf("KV at 131072 tokens %d, want %d", got, 9*global*131072+39*sliding*128)
	}
}

// TestGemma4GlobalKVByHand: google/gemma-4-26B-A4B's 5 global layers
// cache K and V of num_global_key_value_heads 2 × global_head_dim 512 (K=V
// shares the projection, not the cache); its 25 sliding layers 8 × 256,
// up to the 1,024-token window; 2 B a value.
func TestGemma4GlobalKVByHand(t *testing.T) {
	s := compute(t, familyConfig(t, "gemma4/google__gemma-4-26B-A4B.config.json"), nil, nil)
	global, sliding := int64(2*2*512*2), int64(2*8*256*2)
	if got := intOf(t, s, "kv.bytes_per_token_per_layer"); got != global {
		t.Errorf("global layer %d, want %d", got, global)
	}
	if got := intOf(t, s, "kv.sliding_bytes_per_token_per_layer"); got != sliding {
		t.Errorf("sliding layer %d, want %d", got, sliding)
	}
	if got := intOf(t, s, "kv.bytes_per_token"); got != 5*global {
		t.Errorf("KV per token %d, want %d", got, 5*global)
	}
	if got := intOf(t, s, "kv.bytes_at_context.131072"); got != 5*global*131072+25*sliding*1024 {
		t.Errorf("KV at 131072 tokens %d, want %d", got, 5*global*131072+25*sliding*1024)
	}
}
