package modeltree

import "fmt"

// Llama 4 (transformers modeling_llama4): a Llama decoder whose MoE
// layers (every interleave_moe_layer_step-th) route over fused 3-D experts
// (experts.gate_up_proj [E, H, 2·I], experts.down_proj [E, I, H]) beside
// one shared expert; dense layers use intermediate_size_mlp. The q/k norm
// of use_qk_norm is a weightless L2 norm: nothing stored. The vision model
// is a ViT with a class token, learned positions for (image/patch)² + 1
// patches, LayerNorms and biased projections, then a pixel-shuffle adapter
// MLP (bias-free) and a bias-free projector to the text width.
func llama4Family() Family {
	// Three chunked-attention layers (attention_chunk_size) to one global
	// NoPE layer: the chunked ones cache at most one chunk.
	return Family{Name: "llama4", ModelTypes: []string{"llama4", "llama4_text"}, Build: buildLlama4,
		Layout: Layout{SlidingPattern: 4, WindowKey: "attention_chunk_size"},
		Checks: []Check{{Config: "llama4/meta-llama__Llama-4-Scout-17B-16E-Instruct.config.json", Repo: "meta-llama/Llama-4-Scout-17B-16E-Instruct",
			Published: "109B", Params: 109_000_000_000, Tolerance: 500_000_000, Source: "https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct (Hub safetensors: 109B params; card: 17B active, 109B total)"}}}
}

func buildLlama4(mt string, top *reader, hfq []byte) (*Inventory, error) {
	tc, prefix := top, ""
	if mt == "llama4" {
		if tc = top.sub("text_config"); tc == nil {
			return nil, missing(top, "text_config")
		}
		prefix = "language_model."
	}
	b, err := newDecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	g := readGQA(tc)
	L := tc.size("num_hidden_layers")
	V := tc.size("vocab_size")
	I := tc.size("intermediate_size")
	denseI := tc.sizeOpt("intermediate_size_mlp", I)
	E := tc.size("num_local_experts")
	k := tc.size("num_experts_per_tok")
	step := tc.sizeOpt("interleave_moe_layer_step", 1)
	bias := tc.boolOpt("attention_bias", false)
	tie := tc.boolOpt("tie_word_embeddings", top.boolOpt("tie_word_embeddings", false))
	moeLayers := map[int64]bool{}
	listed := tc.ints("moe_layers")
	for _, l := range listed {
		moeLayers[l] = true
	}
	if err := firstErr(tc.Err(), top.Err()); err != nil {
		return nil, err
	}
	if err := checkWork(L, 0); err != nil {
		return nil, fmt.Errorf("%s: %w", mt, err)
	}
	m := prefix + "model."
	b.param(m+"embed_tokens.weight", embedFlags(tie), V, g.H)
	for i, lp := range indexed(m+"layers.", L) {
		i := int64(i)
		b.param(lp+"input_layernorm.weight", 0, g.H)
		b.param(lp+"post_attention_layernorm.weight", 0, g.H)
		a := lp + "self_attn."
		b.linearBias(a+"q_proj", 0, g.heads*g.headDim, g.H, bias)
		b.linearBias(a+"k_proj", 0, g.kvHeads*g.headDim, g.H, bias)
		b.linearBias(a+"v_proj", 0, g.kvHeads*g.headDim, g.H, bias)
		b.linearBias(a+"o_proj", 0, g.H, g.heads*g.headDim, bias)
		f := lp + "feed_forward."
		sparse := (i+1)%step == 0
		if len(listed) > 0 {
			sparse = moeLayers[i]
		}
		if !sparse {
			swiGLU(b, f, g.H, denseI, 0)
			continue
		}
		b.linear(f+"router", 0, E, g.H)
		b.param(f+"experts.gate_up_proj", fExpert, E, g.H, 2*I)
		b.param(f+"experts.down_proj", fExpert, E, I, g.H)
		swiGLU(b, f+"shared_expert.", g.H, I, 0)
	}
	b.param(m+"norm.weight", 0, g.H)
	if !tie {
		b.linear(prefix+"lm_head", fHead, V, g.H)
	}
	if vc := top.sub("vision_config"); vc != nil && mt == "llama4" {
		if err := llama4Vision(b, vc, g.H); err != nil {
			return nil, fmt.Errorf("%s: %w", mt, err)
		}
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return nil, fmt.Errorf("%s: %w", mt, err)
	}
	return finish(b, mt, moeInfo{E, k},
		"Meta's \"17B active\" ≈ ActiveParams(true): text non-expert params incl. embedding, head and shared experts + routed experts × k/E; vision excluded"), nil
}

func llama4Vision(b *builder, vc *reader, T int64) error {
	D := vc.size("hidden_size")
	I := vc.size("intermediate_size")
	L := vc.size("num_hidden_layers")
	P := vc.size("patch_size")
	img := vc.size("image_size")
	C := vc.sizeOpt("num_channels", 3)
	pin := vc.size("projector_input_dim")
	pout := vc.size("projector_output_dim")
	vout := vc.sizeOpt("vision_output_dim", pout)
	if err := vc.Err(); err != nil {
		return err
	}
	if L > 4096 || img/P > 1<<12 {
		return fmt.Errorf("%s: implausible vision tower size", vc.path)
	}
	ln := func(name string) {
		b.param(name+".weight", 0, D)
		b.param(name+".bias", 0, D)
	}
	b.component(CompVision)
	v := "vision_model."
	b.linear(v+"patch_embedding.linear", 0, D, C*P*P)
	b.param(v+"class_embedding", 0, D)
	n := img / P
	b.param(v+"positional_embedding_vlm", 0, n*n+1, D)
	ln(v + "layernorm_pre")
	ln(v + "layernorm_post")
	for _, lp := range indexed(v+"model.layers.", L) {
		ln(lp + "input_layernorm")
		for _, proj := range []string{"q_proj", "k_proj", "v_proj", "o_proj"} {
			b.linearBias(lp+"self_attn."+proj, 0, D, D, true)
		}
		ln(lp + "post_attention_layernorm")
		b.linearBias(lp+"mlp.fc1", 0, I, D, true)
		b.linearBias(lp+"mlp.fc2", 0, D, I, true)
	}
	// The pixel-shuffle adapter takes intermediate_size features (the
	// shuffled patches) to projector_input_dim, then to projector_output_dim.
	b.linear(v+"vision_adapter.mlp.fc1", 0, pin, I)
	b.linear(v+"vision_adapter.mlp.fc2", 0, pout, pin)
	b.component(CompProjector)
	b.linear("multi_modal_projector.linear_1", 0, T, vout)
	b.component(CompText)
	return nil
}
