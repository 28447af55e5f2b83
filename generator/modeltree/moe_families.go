package modeltree

// MoE decoder families described by a decoderSpec with a moeSpec
// (decoder.go), after transformers' and vLLM's modeling code.

// GLM-4.5 (glm4_moe): GLM attention with q/k/v biases (q/k RMSNorm only
// with use_qk_norm), a DeepSeek-style TopkRouter (a parameter plus an F32
// e_score_correction_bias), one shared expert block, the first
// first_k_dense_replace layers dense, and num_nextn_predict_layers MTP
// layers stored DeepSeek-style as extra layers.
func glm4MoeFamily() Family {
	return denseFamily("glm4_moe", []string{"glm4_moe"}, Layout{},
		decoderSpec{norms: llamaNorms, qkvBias: flag{key: "attention_bias"}, qkNorm: qkPerHead, qkNormIf: flag{key: "use_qk_norm"}, tie: flag{key: "tie_word_embeddings"}, mtpKey: "num_nextn_predict_layers",
			moe: &moeSpec{block: "mlp", expertNames: swiGLUNames, routerParam: true, routerBias: "F32", shared: "shared_experts",
				expertsKeys: []string{"n_routed_experts"}, perTokKeys: []string{"num_experts_per_tok"}, widthKeys: []string{"moe_intermediate_size"},
				sharedWidthKeys: []string{"moe_intermediate_size"}, sharedCountKeys: []string{"n_shared_experts"}, firstDenseKey: "first_k_dense_replace",
				convention: "Z.ai's \"12B active\" ≈ ActiveParams(true): main-model non-expert params incl. embedding and head + routed experts × k/E; MTP excluded"}},
		Check{Config: "glm4_moe/zai-org__GLM-4.5-Air.config.json", Repo: "zai-org/GLM-4.5-Air",
			Published: "110B", Params: 110_000_000_000, Tolerance: 500_000_000, Source: "https://huggingface.co/zai-org/GLM-4.5-Air (Hub safetensors: 110B params, the MTP layer included; card: 106B total)"})
}

// ERNIE 4.5 MoE: Llama attention, experts from moe_layer_start_index to
// moe_layer_end_index, shared experts of width moe_intermediate_size ×
// moe_num_shared_experts, and the routing bias in moe_statics as [1, E].
func ernie45MoeFamily() Family {
	return denseFamily("ernie4_5_moe", []string{"ernie4_5_moe"}, Layout{},
		decoderSpec{norms: llamaNorms, qkvBias: flag{key: "use_bias"}, oBias: flag{key: "use_bias"}, mlpBias: flag{key: "use_bias"}, tie: flag{key: "tie_word_embeddings", def: true},
			moe: &moeSpec{block: "mlp", expertNames: swiGLUNames, routerBias: "F32", biasName: "moe_statics.e_score_correction_bias", biasRow: true, shared: "shared_experts",
				expertsKeys: []string{"moe_num_experts"}, perTokKeys: []string{"moe_k"}, widthKeys: []string{"moe_intermediate_size"},
				sharedWidthKeys: []string{"moe_intermediate_size"}, sharedCountKeys: []string{"moe_num_shared_experts"},
				firstDenseKey: "moe_layer_start_index", stepKey: "moe_layer_interval", endKey: "moe_layer_end_index",
				convention: "Baidu's \"A3B\" ≈ ActiveParams(true): non-expert params incl. embedding, head and shared experts + routed experts × k/E"}},
		Check{Config: "ernie4_5_moe/baidu__ERNIE-4.5-21B-A3B-PT.config.json", Repo: "baidu/ERNIE-4.5-21B-A3B-PT",
			Published: "21.8B", Params: 21_800_000_000, Tolerance: 50_000_000, Source: "https://huggingface.co/baidu/ERNIE-4.5-21B-A3B-PT (Hub safetensors: 21.8B params)"})
}

// MiniMax-M2: q/k RMSNorm over all heads (qk_norm_type per_layer), a
// sigmoid router with e_score_correction_bias beside it, experts w1/w3/w2
// in block_sparse_moe; released in FP8 (128×128 blocks). The MTP modules
// config.json describes (use_mtp) are not in the released checkpoint.
func minimaxM2Family() Family {
	return denseFamily("minimax_m2", []string{"minimax_m2"}, Layout{},
		decoderSpec{norms: llamaNorms, qkNorm: qkFull, tie: flag{key: "tie_word_embeddings"},
			moe: &moeSpec{block: "block_sparse_moe", expertNames: [3]string{"w1", "w3", "w2"}, routerBias: "F32", biasName: "e_score_correction_bias",
				expertsKeys: []string{"num_local_experts"}, perTokKeys: []string{"num_experts_per_tok"}, widthKeys: []string{"intermediate_size"},
				convention: "MiniMax's \"10B active\" ≈ ActiveParams(false): non-expert params excl. the input embedding + experts × 8/256"}},
		Check{Config: "minimax_m2/MiniMaxAI__MiniMax-M2.config.json", Repo: "MiniMaxAI/MiniMax-M2",
			Published: "229B", Params: 229_000_000_000, Tolerance: 500_000_000, Source: "https://huggingface.co/MiniMaxAI/MiniMax-M2 (Hub safetensors: 229B params)"})
}

// Hunyuan-A13B (hunyuan_v1_moe): per-head q/k RMSNorms named
// query_layernorm / key_layernorm, a router at mlp.gate.wg, one shared
// expert (mlp.shared_mlp) of moe_intermediate_size; the MoE sizes are
// per-layer lists in config.json.
func hunyuanMoeFamily() Family {
	return denseFamily("hunyuan_v1_moe", []string{"hunyuan_v1_moe"}, Layout{},
		decoderSpec{norms: llamaNorms, qkvBias: flag{key: "attention_bias"}, oBias: flag{key: "attention_bias"}, mlpBias: flag{key: "mlp_bias"},
			qkNorm: qkPerHead, qkNormIf: flag{key: "use_qk_norm"}, qkNames: [2]string{"query_layernorm", "key_layernorm"}, tie: flag{key: "tie_word_embeddings", def: true},
			moe: &moeSpec{block: "mlp", router: "gate.wg", expertNames: swiGLUNames, shared: "shared_mlp",
				expertsKeys: []string{"num_experts"}, perTokKeys: []string{"moe_topk"}, widthKeys: []string{"moe_intermediate_size"},
				sharedWidthKeys: []string{"moe_intermediate_size"}, sharedCountKeys: []string{"num_shared_expert"},
				convention: "Tencent's \"A13B\" ≈ ActiveParams(true): non-expert params incl. embedding and shared expert + routed experts × k/E"}},
		Check{Config: "hunyuan_v1_moe/tencent__Hunyuan-A13B-Instruct.config.json", Repo: "tencent/Hunyuan-A13B-Instruct",
			Published: "80.4B", Params: 80_400_000_000, Tolerance: 50_000_000, Source: "https://huggingface.co/tencent/Hunyuan-A13B-Instruct (Hub safetensors: 80.4B params; card: 80B total, 13B active)"})
}
