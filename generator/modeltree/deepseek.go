package modeltree

import "fmt"

// DeepSeek-V3 (deepseek_v3) and Kimi K2 (kimi_k2), after DeepSeek's
// modeling_deepseek.py: MLA attention (q LoRA optional), the first
// first_k_dense_replace layers dense, then MoE layers with a router that is
// a bare parameter (MoEGate, not nn.Linear, so never quantized) plus an F32
// e_score_correction_bias under noaux_tc, routed experts and one block of
// shared experts. Multi-token-prediction modules are stored as extra layers
// numbered from num_hidden_layers.

type deepseekDims struct {
	H, V, heads, qLora, kvLora, nope, rope, vHead int64
	denseI, moeI, E, k, shared, firstDense, freq  int64
	idxHeads, idxDim                              int64 // DeepSeek-V3.2 lightning indexer
	noaux                                         bool
}

func readDeepseek(t *reader) (deepseekDims, int64, int64) {
	d := deepseekDims{
		H:      t.size("hidden_size"),
		V:      t.size("vocab_size"),
		heads:  t.size("num_attention_heads"),
		qLora:  t.intOpt("q_lora_rank", 0),
		kvLora: t.size("kv_lora_rank"),
		nope:   t.size("qk_nope_head_dim"),
		rope:   t.intOpt("qk_rope_head_dim", 0),
		vHead:  t.size("v_head_dim"),
		denseI: t.size("intermediate_size"),
		E:      t.intOpt("n_routed_experts", 0),
	}
	d.idxHeads, d.idxDim = t.intOpt("index_n_heads", 0), t.intOpt("index_head_dim", 0)
	if d.E > 0 {
		d.k = t.size("num_experts_per_tok")
		d.moeI = t.size("moe_intermediate_size")
		d.shared = t.intOpt("n_shared_experts", 0)
		d.firstDense = t.intOpt("first_k_dense_replace", 0)
		d.freq = t.sizeOpt("moe_layer_freq", 1)
		d.noaux = t.str("topk_method") == "noaux_tc"
	}
	return d, t.size("num_hidden_layers"), t.intOpt("num_nextn_predict_layers", 0)
}

// deepseekText adds a DeepSeek-V3-style text model under prefix, with its
// MTP layers in component CompMTP.
func deepseekText(t *reader, b *builder, prefix string) (moeInfo, error) {
	d, L, mtp := readDeepseek(t)
	tie := t.boolOpt("tie_word_embeddings", false)
	if err := t.Err(); err != nil {
		return moeInfo{}, err
	}
	if err := checkWork(L+mtp, d.E); err != nil {
		return moeInfo{}, err
	}
	b.component(CompText)
	m := prefix + "model."
	b.param(m+"embed_tokens.weight", embedFlags(tie), d.V, d.H)
	b.param(m+"norm.weight", 0, d.H)
	if !tie {
		b.linear(prefix+"lm_head", fHead, d.V, d.H)
	}
	lps := indexed(m+"layers.", L+mtp)
	for i, lp := range lps {
		i := int64(i)
		if i >= L {
			// DeepSeek-V3's released checkpoint keeps the MTP module's own
			// embedding, projections and head in BF16: with eh_proj in FP8
			// the analytic bytes would fall 102.8 MB short of the file sum,
			// leaving a ~114 MB residual for 163 JSON headers (~1.2 KB per
			// tensor entry) instead of the ~12 MB (~130 B per entry) observed.
			b.component(CompMTP)
			b.param(lp+"embed_tokens.weight", fEmbed, d.V, d.H)
			b.param(lp+"enorm.weight", 0, d.H)
			b.param(lp+"hnorm.weight", 0, d.H)
			b.keep(lp+"eh_proj", 0, d.H, 2*d.H)
			b.param(lp+"shared_head.norm.weight", 0, d.H)
			b.keep(lp+"shared_head.head", fHead, d.V, d.H)
		}
		deepseekLayer(b, lp, i, d)
	}
	b.component(CompText)
	return moeInfo{experts: d.E, perToken: d.k}, b.err
}

func deepseekLayer(b *builder, lp string, i int64, d deepseekDims) {
	b.param(lp+"input_layernorm.weight", 0, d.H)
	b.param(lp+"post_attention_layernorm.weight", 0, d.H)
	mla(b, lp+"self_attn.", d.H, d.heads, d.qLora, d.kvLora, d.nope, d.rope, d.vHead)
	if d.idxHeads > 0 && d.idxDim > 0 {
		// DeepSeek-V3.2's lightning indexer (inference/model.py of
		// DeepSeek-V3.2-Exp): queries from the q LoRA latent, one shared
		// key per token with a LayerNorm, and per-head weights. weights_proj
		// is built in the default dtype, so it stays BF16 in the FP8 release.
		x := lp + "self_attn.indexer."
		b.linear(x+"wq_b", 0, d.idxHeads*d.idxDim, d.qLora)
		b.linear(x+"wk", 0, d.idxDim, d.H)
		b.param(x+"k_norm.weight", 0, d.idxDim)
		b.param(x+"k_norm.bias", 0, d.idxDim)
		b.keep(x+"weights_proj", 0, d.idxHeads, d.H)
	}
	if d.E == 0 || i < d.firstDense || i%d.freq != 0 {
		swiGLU(b, lp+"mlp.", d.H, d.denseI, 0)
		return
	}
	p := lp + "mlp."
	b.param(p+"gate.weight", 0, d.E, d.H)
	if d.noaux {
		b.paramT(p+"gate.e_score_correction_bias", "F32", 0, d.E)
	}
	b.experts(p+"experts.", d.E, func(x string) { swiGLU(b, x, d.H, d.moeI, fExpert) })
	if d.shared > 0 {
		swiGLU(b, p+"shared_experts.", d.H, d.moeI*d.shared, 0)
	}
}

func buildDeepseek(family string) func(*reader, []byte) (*Inventory, error) {
	return func(top *reader, hfq []byte) (*Inventory, error) {
		b := newBuilder(storageDType(top), capHint(top))
		q, err := parseQuant(top.sub("quantization_config"), hfq, allScopes(""))
		if err != nil {
			return nil, err
		}
		b.setQuant(q)
		moe, err := deepseekText(top, b, "")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", family, err)
		}
		return finish(b, family, moe,
			"DeepSeek convention (\"37B activated\") ≈ ActiveParams(true): main-model non-expert params incl. embedding and lm_head + routed experts × k/E; MTP module excluded"), nil
	}
}
