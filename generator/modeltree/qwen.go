package modeltree

import "fmt"

// Qwen3 MoE and Qwen3-Next (transformers modeling_qwen3_moe /
// modeling_qwen3_next). Both route with mlp.gate, an nn.Linear router (the
// FP8 release lists it in modules_to_not_convert), over experts with
// gate/up/down projections.

// qwenMoE reads the MoE fields shared by both families.
type qwenMoE struct {
	E, k, moeI, denseI, step int64
	dense                    map[int64]bool // mlp_only_layers
}

func readQwenMoE(t *reader) qwenMoE {
	m := qwenMoE{
		E:      t.size("num_experts"),
		k:      t.size("num_experts_per_tok"),
		moeI:   t.size("moe_intermediate_size"),
		denseI: t.sizeOpt("intermediate_size", 0),
		step:   t.sizeOpt("decoder_sparse_step", 1),
		dense:  map[int64]bool{},
	}
	for _, l := range t.ints("mlp_only_layers") {
		m.dense[l] = true
	}
	return m
}

// mlp adds layer i's MLP under p ("...mlp.").
func (m qwenMoE) mlp(b *builder, p string, i, H int64) (isMoE bool) {
	if m.dense[i] || (i+1)%m.step != 0 {
		swiGLU(b, p, H, m.denseI, 0)
		return false
	}
	b.linear(p+"gate", 0, m.E, H)
	b.experts(p+"experts.", m.E, func(x string) { swiGLU(b, x, H, m.moeI, fExpert) })
	return true
}

func buildQwen3Moe(top *reader, hfq []byte) (*Inventory, error) {
	b, g, L, err := newGQADecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	g.qkvBias = top.boolOpt("attention_bias", false)
	g.oBias = g.qkvBias
	g.qkNorm = true
	m := readQwenMoE(top)
	if err := top.Err(); err != nil {
		return nil, err
	}
	if err := checkWork(L, m.E); err != nil {
		return nil, fmt.Errorf("qwen3_moe: %w", err)
	}
	decoderEnds(top, b, g.H)
	for i, lp := range indexed("model.layers.", L) {
		b.param(lp+"input_layernorm.weight", 0, g.H)
		b.param(lp+"post_attention_layernorm.weight", 0, g.H)
		g.attention(b, lp+"self_attn.")
		m.mlp(b, lp+"mlp.", int64(i), g.H)
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return nil, fmt.Errorf("qwen3_moe: %w", err)
	}
	return finish(b, "qwen3_moe", moeInfo{m.E, m.k},
		"Qwen's \"3.3B activated\" ≈ ActiveParams(true): non-expert params incl. embedding and lm_head + experts × k/E"), nil
}

// Qwen3-Next: every full_attention_interval-th layer is gated full attention
// (q_proj doubled to carry a sigmoid output gate, q/k RMSNorm); the others
// are Gated DeltaNet: in_proj_qkvz [2·Kd+2·Vd, H], in_proj_ba [2·nv, H], a
// depthwise conv1d over q,k,v [2·Kd+Vd, 1, kernel], A_log and dt_bias [nv],
// a gated RMSNorm over one value head and out_proj. The MoE adds one shared
// expert with a scalar sigmoid gate (shared_expert_gate [1, H]).
func buildQwen3Next(top *reader, hfq []byte) (*Inventory, error) {
	b, err := newDecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	// The released Qwen3-Next checkpoints ship one MTP layer (mtp.*,
	// 1,650,471,424 parameters for the 80B-A3B) that config.json does not
	// declare: the Hub's 81.3 B counts it. A config that states the count wins.
	mtp := top.intOpt("num_nextn_predict_layers", top.intOpt("mtp_num_hidden_layers", 1))
	moe, err := qwenNextText(b, top, top, "model.", mtp, false)
	if err != nil {
		return nil, fmt.Errorf("qwen3_next: %w", err)
	}
	inv := finish(b, "qwen3_next", moe,
		"Qwen's \"A3B\" ≈ ActiveParams(true): non-expert params incl. embedding and lm_head + routed experts × k/E; MTP excluded")
	if !top.has("num_nextn_predict_layers") && !top.has("mtp_num_hidden_layers") && mtp > 0 {
		inv.Extras = "mtp.* (one multi-token-prediction layer)"
	}
	return inv, nil
}

// qwenNextText adds a Qwen3-Next-style text model read from t: the
// embedding, layers and final norm under prefix ("model." or
// "model.language_model."), lm_head (tie_word_embeddings read from top)
// and mtp MTP layers under mtp.*. Every full_attention_interval-th layer
// (or layer_types' full_attention) is gated full attention, the others
// Gated DeltaNet; the MLP is a SwiGLU of intermediate_size when dense, else
// Qwen's MoE with a gated shared expert.
func qwenNextText(b *builder, top, t *reader, prefix string, mtp int64, dense bool) (moeInfo, error) {
	g := readGQA(t)
	g.qkNorm = true
	L := t.size("num_hidden_layers")
	V := t.size("vocab_size")
	var m qwenMoE
	var sharedI int64
	if dense {
		m.denseI = t.size("intermediate_size")
	} else {
		m = readQwenMoE(t)
		sharedI = t.intOpt("shared_expert_intermediate_size", 0)
	}
	interval := t.sizeOpt("full_attention_interval", 4)
	types := t.strs("layer_types")
	nk := t.size("linear_num_key_heads")
	nv := t.size("linear_num_value_heads")
	dk := t.size("linear_key_head_dim")
	dv := t.size("linear_value_head_dim")
	kernel := t.size("linear_conv_kernel_dim")
	tie := top.boolOpt("tie_word_embeddings", t.boolOpt("tie_word_embeddings", false))
	if err := firstErr(top.Err(), t.Err()); err != nil {
		return moeInfo{}, err
	}
	if err := checkWork(L+mtp, m.E); err != nil {
		return moeInfo{}, err
	}
	full := func(i int64) bool {
		if int(i) < len(types) {
			return types[i] == "full_attention"
		}
		return (i+1)%interval == 0
	}
	// gated full attention: q_proj carries query and gate per head.
	attn := func(a string) {
		b.linear(a+"q_proj", 0, 2*g.heads*g.headDim, g.H)
		b.linear(a+"k_proj", 0, g.kvHeads*g.headDim, g.H)
		b.linear(a+"v_proj", 0, g.kvHeads*g.headDim, g.H)
		b.linear(a+"o_proj", 0, g.H, g.heads*g.headDim)
		b.param(a+"q_norm.weight", 0, g.headDim)
		b.param(a+"k_norm.weight", 0, g.headDim)
	}
	mlp := func(lp string, i int64) {
		if dense {
			swiGLU(b, lp+"mlp.", g.H, m.denseI, 0)
			return
		}
		if m.mlp(b, lp+"mlp.", i, g.H) && sharedI > 0 {
			swiGLU(b, lp+"mlp.shared_expert.", g.H, sharedI, 0)
			b.linear(lp+"mlp.shared_expert_gate", 0, 1, g.H)
		}
	}
	b.component(CompText)
	b.param(prefix+"embed_tokens.weight", embedFlags(tie), V, g.H)
	b.param(prefix+"norm.weight", 0, g.H)
	if !tie {
		b.linear("lm_head", fHead, V, g.H)
	}
	kd, vd := nk*dk, nv*dv
	for i, lp := range indexed(prefix+"layers.", L) {
		i := int64(i)
		b.param(lp+"input_layernorm.weight", 0, g.H)
		b.param(lp+"post_attention_layernorm.weight", 0, g.H)
		if full(i) {
			attn(lp + "self_attn.")
		} else {
			a := lp + "linear_attn."
			b.linear(a+"in_proj_qkvz", 0, 2*kd+2*vd, g.H)
			b.linear(a+"in_proj_ba", 0, 2*nv, g.H)
			b.param(a+"conv1d.weight", 0, 2*kd+vd, 1, kernel)
			b.param(a+"A_log", 0, nv)
			b.param(a+"dt_bias", 0, nv)
			b.param(a+"norm.weight", 0, dv)
			b.linear(a+"out_proj", 0, g.H, vd)
		}
		mlp(lp, i)
	}
	if mtp > 0 {
		// MTP as vLLM's qwen3_next_mtp loads it: fc over [embedding; hidden],
		// two pre-fc norms, full-attention layers and a final norm.
		b.component(CompMTP)
		b.linear("mtp.fc", 0, g.H, 2*g.H)
		b.param("mtp.pre_fc_norm_embedding.weight", 0, g.H)
		b.param("mtp.pre_fc_norm_hidden.weight", 0, g.H)
		for i, lp := range indexed("mtp.layers.", mtp) {
			b.param(lp+"input_layernorm.weight", 0, g.H)
			b.param(lp+"post_attention_layernorm.weight", 0, g.H)
			attn(lp + "self_attn.")
			mlp(lp, int64(i))
		}
		b.param("mtp.norm.weight", 0, g.H)
		b.component(CompText)
	}
	return moeInfo{m.E, m.k}, firstErr(top.Err(), b.err)
}
