package modeltree

import "fmt"

// Qwen3-VL (qwen3_vl, qwen3_vl_moe), after transformers' modeling_qwen3_vl
// and modeling_qwen3_vl_moe: a Qwen3 text decoder under
// model.language_model (q/k RMSNorm per head; the MoE variant routes with
// mlp.gate over experts stored fused, gate_up_proj [E, H, 2·I] and
// down_proj [E, I, H]), lm_head at the top, and a ViT under model.visual:
// a Conv3d patch embedding (temporal_patch_size × patch_size², with bias),
// a learned position embedding of num_position_embeddings, depth blocks of
// LayerNorm (with bias), fused qkv and proj attention and a GELU MLP
// (linear_fc1/linear_fc2, biased), then a patch merger (LayerNorm over one
// patch, two linears over spatial_merge_size² patches) and one
// "deepstack" merger per deepstack_visual_indexes entry (LayerNorm after
// the shuffle, over the merged width).
func qwen3VLFamily() Family {
	return Family{Name: "qwen3_vl", ModelTypes: []string{"qwen3_vl", "qwen3_vl_text", "qwen3_vl_moe", "qwen3_vl_moe_text"},
		Layout: Layout{Sliding: SlidingOptIn},
		Build:  buildQwen3VL,
		Checks: []Check{
			{Config: "qwen3_vl/Qwen__Qwen3-VL-8B-Instruct.config.json", Repo: "Qwen/Qwen3-VL-8B-Instruct",
				Published: "8.767B", Params: 8_767_000_000, Tolerance: 500_000,
				Source: "https://huggingface.co/OpenExplorer/Qwen3-VL-8B-Instruct (counted from the tensors of the upstream checkpoint: 8.767B total, ViT 576.4M, LM 8.191B; retrieved 2026-12-04); the Hub lists Qwen/Qwen3-VL-8B-Instruct at 9B"},
			{Config: "qwen3_vl/Qwen__Qwen3-VL-4B-Instruct.config.json", Repo: "Qwen/Qwen3-VL-4B-Instruct",
				Published: "4.438B", Params: 4_438_000_000, Tolerance: 500_000,
				Source: "https://huggingface.co/OpenExplorer/Qwen3-VL-4B-Instruct (counted from the upstream checkpoint's tensors: 4.438B total, ViT 415.3M, LM 4.022B; retrieved 2026-12-04)"},
			{Config: "qwen3_vl/Qwen__Qwen3-VL-2B-Instruct.config.json", Repo: "Qwen/Qwen3-VL-2B-Instruct",
				Published: "2.128B", Params: 2_128_000_000, Tolerance: 500_000,
				Source: "https://huggingface.co/OpenExplorer/Qwen3-VL-2B-Instruct (counted from the upstream checkpoint's tensors: 2.128B total, ViT 407.0M, LM 1.721B; retrieved 2026-12-04)"},
		}}
}

func buildQwen3VL(mt string, top *reader, hfq []byte) (*Inventory, error) {
	b, tc, vc, err := qwenVLDecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	g := readGQA(tc)
	g.qkvBias = tc.boolOpt("attention_bias", false)
	g.oBias = g.qkvBias
	g.qkNorm = true
	L := tc.size("num_hidden_layers")
	V := tc.size("vocab_size")
	tie := top.boolOpt("tie_word_embeddings", tc.boolOpt("tie_word_embeddings", false))
	var m qwenMoE
	moe := mt == "qwen3_vl_moe"
	if moe {
		m = readQwenMoE(tc)
	} else {
		m.denseI = tc.size("intermediate_size")
	}
	if err := top.Err(); err != nil {
		return nil, err
	}
	if err := checkWork(L, m.E); err != nil {
		return nil, fmt.Errorf("%s: %w", mt, err)
	}
	if vc != nil {
		if err := qwen3VLVision(b, vc); err != nil {
			return nil, fmt.Errorf("%s: %w", mt, err)
		}
	}
	b.component(CompText)
	p := "model.language_model."
	b.param(p+"embed_tokens.weight", embedFlags(tie), V, g.H)
	for i, lp := range indexed(p+"layers.", L) {
		b.param(lp+"input_layernorm.weight", 0, g.H)
		b.param(lp+"post_attention_layernorm.weight", 0, g.H)
		g.attention(b, lp+"self_attn.")
		if moe && !m.dense[int64(i)] && (int64(i)+1)%m.step == 0 {
			b.linear(lp+"mlp.gate", 0, m.E, g.H)
			b.param(lp+"mlp.experts.gate_up_proj", fExpert, m.E, g.H, 2*m.moeI)
			b.param(lp+"mlp.experts.down_proj", fExpert, m.E, m.moeI, g.H)
			continue
		}
		swiGLU(b, lp+"mlp.", g.H, m.denseI, 0)
	}
	b.param(p+"norm.weight", 0, g.H)
	if !tie {
		b.linear("lm_head", fHead, V, g.H)
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return nil, fmt.Errorf("%s: %w", mt, err)
	}
	conv := "dense: every text parameter is active; ActiveParams(false) drops the input embedding"
	if moe {
		conv = "Qwen's \"A3B\" ≈ ActiveParams(true): text non-expert params incl. embedding and lm_head + experts × k/E; the vision tower is excluded"
	}
	return finish(b, mt, moeInfo{m.E, m.k}, conv), nil
}

// qwen3VLVision adds model.visual: the tower (CompVision) and its mergers
// (CompProjector).
func qwen3VLVision(b *builder, vc *reader) error {
	h := vc.size("hidden_size")
	I := vc.size("intermediate_size")
	depth := vc.size("depth")
	out := vc.size("out_hidden_size")
	in := vc.sizeOpt("in_channels", 3)
	patch := vc.size("patch_size")
	tp := vc.sizeOpt("temporal_patch_size", 2)
	npos := vc.size("num_position_embeddings")
	merge := vc.sizeOpt("spatial_merge_size", 2)
	deep := vc.ints("deepstack_visual_indexes")
	if err := vc.Err(); err != nil {
		return err
	}
	if depth > 1024 || len(deep) > 1024 {
		return fmt.Errorf("vision_config: %d blocks, %d deepstack mergers: implausible", depth, len(deep))
	}
	v := "model.visual."
	b.component(CompVision)
	b.param(v+"patch_embed.proj.weight", 0, h, in, tp, patch, patch)
	b.param(v+"patch_embed.proj.bias", 0, h)
	b.param(v+"pos_embed.weight", 0, npos, h)
	for _, bp := range indexed(v+"blocks.", depth) {
		for _, n := range []string{"norm1", "norm2"} {
			b.param(bp+n+".weight", 0, h)
			b.param(bp+n+".bias", 0, h)
		}
		b.linearBias(bp+"attn.qkv", 0, 3*h, h, true)
		b.linearBias(bp+"attn.proj", 0, h, h, true)
		b.linearBias(bp+"mlp.linear_fc1", 0, I, h, true)
		b.linearBias(bp+"mlp.linear_fc2", 0, h, I, true)
	}
	b.component(CompProjector)
	c := h * merge * merge
	merger := func(p string, normWidth int64) {
		b.param(p+"norm.weight", 0, normWidth)
		b.param(p+"norm.bias", 0, normWidth)
		b.linearBias(p+"linear_fc1", 0, c, c, true)
		b.linearBias(p+"linear_fc2", 0, out, c, true)
	}
	merger(v+"merger.", h)
	for _, p := range indexed(v+"deepstack_merger_list.", int64(len(deep))) {
		merger(p, c)
	}
	return nil
}

// qwenVLDecoder reads the text_config and vision_config a Qwen
// vision-language config (Qwen3-VL, Qwen3.5) nests, and starts the decoder;
// vc is nil for a text-only release.
func qwenVLDecoder(top *reader, hfq []byte) (b *builder, tc, vc *reader, err error) {
	tc = top.sub("text_config")
	vc = top.sub("vision_config")
	if err := top.Err(); err != nil {
		return nil, nil, nil, err
	}
	if tc == nil {
		return nil, nil, nil, missing(top, "text_config")
	}
	if b, err = newDecoder(top, hfq); err != nil {
		return nil, nil, nil, err
	}
	return b, tc, vc, nil
}
