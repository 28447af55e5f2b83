package modeltree

import "fmt"

// Gemma 4 (gemma4, transformers' modeling_gemma4): under
// model.language_model a decoder whose layer_types mark sliding and full
// attention layers. A full layer attends with global_head_dim and, with
// attention_k_eq_v, num_global_key_value_heads and no v_proj (V is taken
// from k_proj); each layer has q/k RMSNorm per head (v_norm has no
// weight), Gemma's four block norms and a stored layer_scalar. With
// enable_moe_block the dense GeGLU MLP is joined by a router (proj, scale,
// per_expert_scale) and fused experts (gate_up_proj [E, 2·moe_I, H],
// down_proj [E, H, moe_I]) with three more norms. The vision tower
// (gemma4_vision) is a patch projection, a two-axis position table and
// encoder layers of the same shape built from ClippableLinears, with
// std_bias/std_scale when it standardizes; embed_vision projects it into
// the text width. The audio tower, per-layer input embeddings and KV-shared
// layers of the small releases (E2B, E4B) are declined with the field named.
func gemma4Family() Family {
	return Family{Name: "gemma4", ModelTypes: []string{"gemma4", "gemma4_text"}, Build: buildGemma4,
		Checks: []Check{{Config: "gemma4/google__gemma-4-26B-A4B.config.json", Repo: "google/gemma-4-26B-A4B", TextOnly: true,
			Published: "25.2B", Params: 25_200_000_000, Tolerance: 50_000_000,
			Source: "https://huggingface.co/google/gemma-4-26B-A4B-it (model card: 25.2B total parameters, 3.8B active, the ~550M vision encoder listed apart; as quoted by featherless.ai and vast.ai, retrieved 2026-12-04)"}}}
}

func buildGemma4(mt string, top *reader, hfq []byte) (*Inventory, error) {
	tc := top
	if mt == "gemma4" {
		if tc = top.sub("text_config"); tc == nil {
			return nil, missing(top, "text_config")
		}
	}
	for _, k := range []string{"hidden_size_per_layer_input", "num_kv_shared_layers"} {
		if tc.intOpt(k, 0) > 0 {
			return nil, fmt.Errorf("%s: field %s: per-layer input embeddings and KV-shared layers are not supported", mt, tc.field(k))
		}
	}
	if top.sub("audio_config") != nil {
		return nil, fmt.Errorf("%s: field %s: the audio tower is not supported", mt, top.field("audio_config"))
	}
	b, err := newDecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	H := tc.size("hidden_size")
	V := tc.size("vocab_size")
	L := tc.size("num_hidden_layers")
	I := tc.size("intermediate_size")
	heads := tc.size("num_attention_heads")
	kv := tc.size("num_key_value_heads")
	hd := tc.size("head_dim")
	ghd := tc.sizeOpt("global_head_dim", hd)
	keqv := tc.boolOpt("attention_k_eq_v", false)
	gkv := kv
	if keqv {
		gkv = tc.size("num_global_key_value_heads")
	}
	kinds := tc.strs("layer_types")
	bias := tc.boolOpt("attention_bias", false)
	tie := top.boolOpt("tie_word_embeddings", tc.boolOpt("tie_word_embeddings", true))
	moe := tc.boolOpt("enable_moe_block", false)
	var E, k, moeI int64
	if moe {
		E, k, moeI = tc.size("num_experts"), tc.size("top_k_experts"), tc.size("moe_intermediate_size")
	}
	if err := firstErr(top.Err(), tc.Err()); err != nil {
		return nil, err
	}
	if int64(len(kinds)) != L {
		return nil, fmt.Errorf("%s: field %s lists %d layers, num_hidden_layers %d", mt, tc.field("layer_types"), len(kinds), L)
	}
	if err := checkWork(L, E); err != nil {
		return nil, fmt.Errorf("%s: %w", mt, err)
	}
	var vision int64
	if vc := top.sub("vision_config"); vc != nil && mt == "gemma4" {
		if vision, err = gemma4Vision(b, vc); err != nil {
			return nil, fmt.Errorf("%s: %w", mt, err)
		}
		b.component(CompProjector)
		b.linear("model.embed_vision.embedding_projection", 0, H, vision)
	}
	b.component(CompText)
	p := "model.language_model."
	if mt == "gemma4_text" {
		p = "model."
	}
	b.param(p+"embed_tokens.weight", embedFlags(tie), V, H)
	for i, lp := range indexed(p+"layers.", L) {
		for _, n := range []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"} {
			b.param(lp+n+".weight", 0, H)
		}
		b.param(lp+"layer_scalar", 0, 1)
		d, n := hd, kv
		global := kinds[i] != "sliding_attention"
		if global {
			d, n = ghd, gkv
		}
		a := lp + "self_attn."
		b.linearBias(a+"q_proj", 0, heads*d, H, bias)
		b.linearBias(a+"k_proj", 0, n*d, H, bias)
		if !global || !keqv {
			b.linearBias(a+"v_proj", 0, n*d, H, bias)
		}
		b.linearBias(a+"o_proj", 0, H, heads*d, bias)
		b.param(a+"q_norm.weight", 0, d)
		b.param(a+"k_norm.weight", 0, d)
		swiGLU(b, lp+"mlp.", H, I, 0)
		if moe {
			b.linear(lp+"router.proj", 0, E, H)
			b.param(lp+"router.scale", 0, H)
			b.param(lp+"router.per_expert_scale", 0, E)
			b.param(lp+"experts.gate_up_proj", fExpert, E, 2*moeI, H)
			b.param(lp+"experts.down_proj", fExpert, E, H, moeI)
			for _, n := range []string{"post_feedforward_layernorm_1", "post_feedforward_layernorm_2", "pre_feedforward_layernorm_2"} {
				b.param(lp+n+".weight", 0, H)
			}
		}
	}
	b.param(p+"norm.weight", 0, H)
	if !tie {
		b.linear("lm_head", fHead, V, H)
	}
	if err := firstErr(top.Err(), tc.Err(), b.err); err != nil {
		return nil, fmt.Errorf("%s: %w", mt, err)
	}
	conv := "dense: every text parameter is active; the vision tower runs on image tokens only"
	if moe {
		conv = "Google's \"3.8B active\" ≈ ActiveParams(true) of the text model: non-expert params incl. the tied embedding + experts × k/E; the vision tower is excluded"
	}
	return finish(b, mt, moeInfo{E, k}, conv), nil
}

// gemma4Vision adds model.vision_tower (CompVision) and returns its width.
func gemma4Vision(b *builder, vc *reader) (int64, error) {
	D := vc.size("hidden_size")
	I := vc.size("intermediate_size")
	L := vc.size("num_hidden_layers")
	heads := vc.size("num_attention_heads")
	kv := vc.sizeOpt("num_key_value_heads", heads)
	hd := vc.sizeOpt("head_dim", 0)
	P := vc.size("patch_size")
	pos := vc.size("position_embedding_size")
	clipped := vc.boolOpt("use_clipped_linears", false)
	std := vc.boolOpt("standardize", false)
	if err := vc.Err(); err != nil {
		return 0, err
	}
	if hd == 0 && heads > 0 {
		hd = D / heads
	}
	if L > 4096 || P > 1<<10 || pos > 1<<20 {
		return 0, fmt.Errorf("%s: implausible vision tower size", vc.path)
	}
	b.component(CompVision)
	v := "model.vision_tower."
	// A ClippableLinear wraps nn.Linear as .linear; with clipping on it
	// also stores its four clamp bounds as buffers.
	lin := func(m string, out, in int64) {
		b.linear(m+".linear", 0, out, in)
		if clipped {
			for _, n := range []string{"input_min", "input_max", "output_min", "output_max"} {
				b.param(m+"."+n, 0)
			}
		}
	}
	b.linear(v+"patch_embedder.input_proj", 0, D, 3*P*P)
	b.param(v+"patch_embedder.position_embedding_table", 0, 2, pos, D)
	for _, lp := range indexed(v+"encoder.layers.", L) {
		for _, n := range []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"} {
			b.param(lp+n+".weight", 0, D)
		}
		a := lp + "self_attn."
		lin(a+"q_proj", heads*hd, D)
		lin(a+"k_proj", kv*hd, D)
		lin(a+"v_proj", kv*hd, D)
		lin(a+"o_proj", D, heads*hd)
		b.param(a+"q_norm.weight", 0, hd)
		b.param(a+"k_norm.weight", 0, hd)
		lin(lp+"mlp.gate_proj", I, D)
		lin(lp+"mlp.up_proj", I, D)
		lin(lp+"mlp.down_proj", D, I)
	}
	if std {
		b.param(v+"std_bias", 0, D)
		b.param(v+"std_scale", 0, D)
	}
	return D, nil
}
