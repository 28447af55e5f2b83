package modeltree

import "fmt"

// Mistral 3 (transformers modeling_mistral3, modeling_pixtral): a Mistral
// decoder under language_model., a Pixtral vision tower (bias-free patch
// Conv2d, RMSNorms, SwiGLU feed-forward, RoPE so no position table) and a
// projector: RMSNorm, a patch merger folding spatial_merge_size² patches
// into one (merging_layer [D, D·s²]) and a two-layer MLP to the text width
// (biases with multimodal_projector_bias).

var mistralText = decoderSpec{norms: llamaNorms, tie: flag{key: "tie_word_embeddings"}}

func mistral3Family() Family {
	return Family{Name: "mistral3", ModelTypes: []string{"mistral3"}, Build: buildMistral3,
		Checks: []Check{{Config: "mistral3/mistralai__Mistral-Small-3.1-24B-Instruct-2503.config.json", Repo: "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
			Published: "24B", Params: 24_000_000_000, Tolerance: 50_000_000, Source: "https://huggingface.co/mistralai/Mistral-Small-3.1-24B-Instruct-2503 (Hub safetensors: 24B params)"}}}
}

func buildMistral3(mt string, top *reader, hfq []byte) (*Inventory, error) {
	tc := top.sub("text_config")
	if tc == nil {
		return nil, missing(top, "text_config")
	}
	b, err := newDecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	if _, err := mistralText.text(mt, b, tc, "language_model."); err != nil {
		return nil, err
	}
	if vc := top.sub("vision_config"); vc != nil {
		D, err := pixtral(b, vc, "vision_tower.")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mt, err)
		}
		s := top.sizeOpt("spatial_merge_size", 2)
		bias := top.boolOpt("multimodal_projector_bias", true)
		T := tc.size("hidden_size")
		if err := top.Err(); err != nil {
			return nil, err
		}
		b.component(CompProjector)
		p := "multi_modal_projector."
		b.param(p+"norm.weight", 0, D)
		b.linear(p+"patch_merger.merging_layer", 0, D, D*s*s)
		b.linearBias(p+"linear_1", 0, T, D, bias)
		b.linearBias(p+"linear_2", 0, T, T, bias)
		b.component(CompText)
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return nil, fmt.Errorf("%s: %w", mt, err)
	}
	return finish(b, mt, moeInfo{}, "dense: every text parameter is active; the vision tower runs on image tokens only"), nil
}

// pixtral adds a Pixtral vision encoder under p and returns its width.
func pixtral(b *builder, vc *reader, p string) (int64, error) {
	D := vc.size("hidden_size")
	I := vc.size("intermediate_size")
	L := vc.size("num_hidden_layers")
	P := vc.size("patch_size")
	C := vc.sizeOpt("num_channels", 3)
	if err := vc.Err(); err != nil {
		return 0, err
	}
	if L > 4096 {
		return 0, fmt.Errorf("%s: implausible vision tower size", vc.path)
	}
	b.component(CompVision)
	b.param(p+"patch_conv.weight", 0, D, C, P, P)
	b.param(p+"ln_pre.weight", 0, D)
	for _, lp := range indexed(p+"transformer.layers.", L) {
		b.param(lp+"attention_norm.weight", 0, D)
		for _, proj := range []string{"q_proj", "k_proj", "v_proj", "o_proj"} {
			b.linear(lp+"attention."+proj, 0, D, D)
		}
		b.param(lp+"ffn_norm.weight", 0, D)
		swiGLU(b, lp+"feed_forward.", D, I, 0)
	}
	b.component(CompText)
	return D, nil
}
