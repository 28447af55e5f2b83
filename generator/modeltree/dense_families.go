package modeltree

// Dense decoder families described by a decoderSpec (decoder.go). Shapes
// follow transformers' modeling_<family>.py; each Check is a real
// config.json in testdata/ and the total the Hub or the model card
// publishes for it.

func qwen2Family() Family {
	return denseFamily("qwen2", []string{"qwen2"}, Layout{Sliding: SlidingOptIn},
		decoderSpec{norms: llamaNorms, qkvBias: flag{def: true}, tie: flag{key: "tie_word_embeddings"}},
		Check{Config: "qwen2/Qwen__Qwen2-7B-Instruct.config.json", Repo: "Qwen/Qwen2-7B-Instruct",
			Published: "7.62B", Params: 7_620_000_000, Tolerance: 5_000_000, Source: "https://huggingface.co/Qwen/Qwen2-7B-Instruct (Hub safetensors: 7.62B params)"})
}

func qwen3Family() Family {
	return denseFamily("qwen3", []string{"qwen3"}, Layout{Sliding: SlidingOptIn},
		decoderSpec{norms: llamaNorms, qkvBias: flag{key: "attention_bias"}, oBias: flag{key: "attention_bias"}, qkNorm: qkPerHead, tie: flag{key: "tie_word_embeddings"}},
		Check{Config: "qwen3/Qwen__Qwen3-8B.config.json", Repo: "Qwen/Qwen3-8B",
			Published: "8.2B", Params: 8_200_000_000, Tolerance: 50_000_000, Source: "https://huggingface.co/Qwen/Qwen3-8B (model card: Number of Parameters 8.2B; Hub safetensors 8.19B)"})
}

// Gemma 2: four RMSNorms per layer (pre/post attention, pre/post MLP),
// the embedding tied to the head by default, sliding and global attention
// alternating (layer 0 sliding).
func gemma2Family() Family {
	return denseFamily("gemma2", []string{"gemma2"}, Layout{SlidingPattern: 2},
		decoderSpec{norms: gemmaNorms, qkvBias: flag{key: "attention_bias"}, oBias: flag{key: "attention_bias"}, tie: flag{key: "tie_word_embeddings", def: true}},
		Check{Config: "gemma2/google__gemma-2-9b.config.json", Repo: "google/gemma-2-9b",
			Published: "9.24B", Params: 9_240_000_000, Tolerance: 5_000_000, Source: "https://huggingface.co/google/gemma-2-9b (Hub safetensors: 9.24B params)"})
}

var gemmaNorms = []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"}

// Phi-3: fused qkv_proj and gate_up_proj, no biases.
func phi3Family() Family {
	return denseFamily("phi3", []string{"phi3"}, Layout{},
		decoderSpec{norms: llamaNorms, fusedQKV: true, fusedGateUp: true, tie: flag{key: "tie_word_embeddings"}},
		Check{Config: "phi3/microsoft__Phi-3-mini-4k-instruct.config.json", Repo: "microsoft/Phi-3-mini-4k-instruct",
			Published: "3.82B", Params: 3_820_000_000, Tolerance: 5_000_000, Source: "https://huggingface.co/microsoft/Phi-3-mini-4k-instruct (Hub safetensors: 3.82B params)"})
}

// Granite 3: Llama's tensors (the multipliers are scalars in config.json).
func graniteFamily() Family {
	return denseFamily("granite", []string{"granite"}, Layout{},
		decoderSpec{norms: llamaNorms, qkvBias: flag{key: "attention_bias"}, oBias: flag{key: "attention_bias"}, mlpBias: flag{key: "mlp_bias"}, tie: flag{key: "tie_word_embeddings"}},
		Check{Config: "granite/ibm-granite__granite-3.1-8b-instruct.config.json", Repo: "ibm-granite/granite-3.1-8b-instruct",
			Published: "8.17B", Params: 8_170_000_000, Tolerance: 5_000_000, Source: "https://huggingface.co/ibm-granite/granite-3.1-8b-instruct (Hub safetensors: 8.17B params)"})
}

// OLMo 2: norms after attention and after the MLP only, q/k RMSNorm over
// all heads.
func olmo2Family() Family {
	return denseFamily("olmo2", []string{"olmo2"}, Layout{},
		decoderSpec{norms: postNorms, qkvBias: flag{key: "attention_bias"}, oBias: flag{key: "attention_bias"}, qkNorm: qkFull, tie: flag{key: "tie_word_embeddings"}},
		Check{Config: "olmo2/allenai__OLMo-2-1124-7B.config.json", Repo: "allenai/OLMo-2-1124-7B",
			Published: "7.3B", Params: 7_300_000_000, Tolerance: 50_000_000, Source: "https://huggingface.co/allenai/OLMo-2-1124-7B (Hub safetensors: 7.3B params)"})
}

var postNorms = []string{"post_attention_layernorm", "post_feedforward_layernorm"}

// Seed-OSS: q/k/v biases (attention_bias), o_proj bias only with
// attention_out_bias.
func seedOssFamily() Family {
	return denseFamily("seed_oss", []string{"seed_oss"}, Layout{},
		decoderSpec{norms: llamaNorms, qkvBias: flag{key: "attention_bias"}, oBias: flag{key: "attention_out_bias"}, mlpBias: flag{key: "mlp_bias"}, tie: flag{key: "tie_word_embeddings"}},
		Check{Config: "seed_oss/ByteDance-Seed__Seed-OSS-36B-Instruct.config.json", Repo: "ByteDance-Seed/Seed-OSS-36B-Instruct",
			Published: "36.2B", Params: 36_200_000_000, Tolerance: 50_000_000, Source: "https://huggingface.co/ByteDance-Seed/Seed-OSS-36B-Instruct (Hub safetensors: 36.2B params)"})
}

// EXAONE 4: post-norms like OLMo 2, q/k RMSNorm per head; three sliding
// layers to one global ("LLLG").
func exaone4Family() Family {
	return denseFamily("exaone4", []string{"exaone4"}, Layout{SlidingPattern: 4},
		decoderSpec{norms: postNorms, qkNorm: qkPerHead, tie: flag{key: "tie_word_embeddings"}},
		Check{Config: "exaone4/LGAI-EXAONE__EXAONE-4.0-32B.config.json", Repo: "LGAI-EXAONE/EXAONE-4.0-32B", NonEmbedding: true,
			Published: "30.95B without embeddings", Params: 30_950_000_000, Tolerance: 5_000_000, Source: "https://huggingface.co/LGAI-EXAONE/EXAONE-4.0-32B (model card: Number of Parameters (without embeddings) 30.95B)"})
}

// GLM-4 (0414): four norms (input, post_self_attn, post_attention,
// post_mlp), fused gate_up_proj, q/k/v biases.
func glm4Family() Family {
	return denseFamily("glm4", []string{"glm4"}, Layout{},
		decoderSpec{norms: []string{"input_layernorm", "post_self_attn_layernorm", "post_attention_layernorm", "post_mlp_layernorm"},
			fusedGateUp: true, qkvBias: flag{key: "attention_bias"}, tie: flag{key: "tie_word_embeddings"}},
		Check{Config: "glm4/zai-org__GLM-4-9B-0414.config.json", Repo: "zai-org/GLM-4-9B-0414",
			Published: "9.4B", Params: 9_400_000_000, Tolerance: 50_000_000, Source: "https://huggingface.co/zai-org/GLM-4-9B-0414 (Hub safetensors: 9.4B params)"})
}

// Qwen2-MoE: Qwen2 attention; MoE layers route over experts with
// gate/up/down_proj plus one shared expert with a scalar sigmoid gate.
func qwen2MoeFamily() Family {
	return denseFamily("qwen2_moe", []string{"qwen2_moe"}, Layout{Sliding: SlidingOptIn},
		decoderSpec{norms: llamaNorms, qkvBias: flag{def: true}, tie: flag{key: "tie_word_embeddings"},
			moe: &moeSpec{block: "mlp", expertNames: swiGLUNames, shared: "shared_expert", sharedGate: true,
				expertsKeys: []string{"num_experts"}, perTokKeys: []string{"num_experts_per_tok"}, widthKeys: []string{"moe_intermediate_size"},
				sharedWidthKeys: []string{"shared_expert_intermediate_size"}, stepKey: "decoder_sparse_step",
				convention: "Qwen's \"A2.7B\" ≈ ActiveParams(true): non-expert params incl. embedding, head and shared expert + routed experts × k/E"}},
		Check{Config: "qwen2_moe/Qwen__Qwen1.5-MoE-A2.7B.config.json", Repo: "Qwen/Qwen1.5-MoE-A2.7B",
			Published: "14.3B", Params: 14_300_000_000, Tolerance: 50_000_000, Source: "https://huggingface.co/Qwen/Qwen1.5-MoE-A2.7B (Hub safetensors: 14.3B params; card: 14.3B total, 2.7B activated)"})
}

var swiGLUNames = [3]string{"gate_proj", "up_proj", "down_proj"}

// OLMoE: OLMo-style q/k norm over all heads, Llama norms, 64 experts.
func olmoeFamily() Family {
	return denseFamily("olmoe", []string{"olmoe"}, Layout{},
		decoderSpec{norms: llamaNorms, qkNorm: qkFull, tie: flag{key: "tie_word_embeddings"},
			moe: &moeSpec{block: "mlp", expertNames: swiGLUNames,
				expertsKeys: []string{"num_experts"}, perTokKeys: []string{"num_experts_per_tok"}, widthKeys: []string{"intermediate_size"},
				convention: "OLMoE's \"1B active\" ≈ ActiveParams(false): non-expert params excl. the input embedding + experts × k/E"}},
		Check{Config: "olmoe/allenai__OLMoE-1B-7B-0924.config.json", Repo: "allenai/OLMoE-1B-7B-0924",
			Published: "6.92B", Params: 6_920_000_000, Tolerance: 5_000_000, Source: "https://huggingface.co/allenai/OLMoE-1B-7B-0924 (Hub safetensors: 6.92B params)"})
}

// PhiMoE: LayerNorms with bias, biased attention projections and lm_head,
// Mixtral-style block_sparse_moe.
func phimoeFamily() Family {
	return denseFamily("phimoe", []string{"phimoe"}, Layout{},
		decoderSpec{norms: llamaNorms, normBias: true, qkvBias: flag{key: "attention_bias"}, oBias: flag{key: "attention_bias"},
			headBias: flag{key: "lm_head_bias"}, tie: flag{key: "tie_word_embeddings"},
			moe: &moeSpec{block: "block_sparse_moe", expertNames: [3]string{"w1", "w3", "w2"},
				expertsKeys: []string{"num_local_experts"}, perTokKeys: []string{"num_experts_per_tok"}, widthKeys: []string{"intermediate_size"},
				convention: "Microsoft's \"6.6B active\" ≈ ActiveParams(true): non-expert params incl. embedding and head + experts × 2/16"}},
		Check{Config: "phimoe/microsoft__Phi-3.5-MoE-instruct.config.json", Repo: "microsoft/Phi-3.5-MoE-instruct",
			Published: "41.9B", Params: 41_900_000_000, Tolerance: 50_000_000, Source: "https://huggingface.co/microsoft/Phi-3.5-MoE-instruct (Hub safetensors: 41.9B params)"})
}

// DeepSeek-V2: DeepSeek-V3's layout (deepseek.go) with a softmax router
// (no e_score_correction_bias) and no MTP layer.
func deepseekV2Family() Family {
	return Family{Name: "deepseek_v2", ModelTypes: []string{"deepseek_v2"},
		Build: func(mt string, t *reader, h []byte) (*Inventory, error) { return buildDeepseek(mt)(t, h) },
		Checks: []Check{{Config: "deepseek_v2/deepseek-ai__DeepSeek-V2-Lite.config.json", Repo: "deepseek-ai/DeepSeek-V2-Lite",
			Published: "15.7B", Params: 15_700_000_000, Tolerance: 50_000_000, Source: "https://huggingface.co/deepseek-ai/DeepSeek-V2-Lite (Hub safetensors: 15.7B params; card: 16B total, 2.4B activated)"}}}
}

// SmolLM3: Llama's tensors (NoPE on every fourth layer changes no
// weight); transformers' SmolLM3Config ties the head by default, and the
// release's config.json does not state it.
func smollm3Family() Family {
	return denseFamily("smollm3", []string{"smollm3"}, Layout{Sliding: SlidingOptIn},
		decoderSpec{norms: llamaNorms, qkvBias: flag{key: "attention_bias"}, oBias: flag{key: "attention_bias"}, mlpBias: flag{key: "mlp_bias"}, tie: flag{key: "tie_word_embeddings", def: true}},
		Check{Config: "smollm3/HuggingFaceTB__SmolLM3-3B.config.json", Repo: "HuggingFaceTB/SmolLM3-3B",
			Published: "3.1B", Params: 3_100_000_000, Tolerance: 50_000_000,
			Source: "https://github.com/docker/model-cards/blob/82c194becf72d24b63887386f32cae80d63f401b/ai/smollm3.md (\"a compact 3.1B parameter language model\"); the shard sizes pin it closer (TestSmolLM3Shards)"})
}
