package modeltree

import (
	"encoding/json"
	"fmt"
	"strconv"

	"dossier/generator/internal/hfconfig"
)

// Gemma 3 (transformers modeling_gemma3, modeling_siglip): Gemma 2's
// decoder with q/k RMSNorm per head, five sliding layers to one global
// (sliding_window_pattern 6), and for gemma3 (Gemma3ForConditionalGeneration)
// a SigLIP vision tower and a projector: an RMSNorm over the vision width
// (mm_soft_emb_norm) and a bare [vision, text] projection matrix
// (mm_input_projection_weight). gemma3_text is the text-only model (1B).

var gemma3Text = decoderSpec{norms: gemmaNorms, qkvBias: flag{key: "attention_bias"}, oBias: flag{key: "attention_bias"},
	qkNorm: qkPerHead, tie: flag{key: "tie_word_embeddings", def: true}}

// gemma3Defaults are Gemma3TextConfig's defaults: the 4B release's
// text_config states none of them.
var gemma3Defaults = map[string]int64{"vocab_size": 262208, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "max_position_embeddings": 131072, "sliding_window_pattern": 6}

func gemma3Family() Family {
	return Family{Name: "gemma3", ModelTypes: []string{"gemma3", "gemma3_text"},
		Layout:   Layout{SlidingPattern: 6, SlidingPatternKey: "sliding_window_pattern"},
		Defaults: gemma3Defaults, Build: buildGemma3,
		Checks: []Check{{Config: "gemma3/google__gemma-3-4b-it.config.json", Repo: "google/gemma-3-4b-it",
			Published: "4.3B", Params: 4_300_000_000, Tolerance: 50_000_000, Source: "https://huggingface.co/google/gemma-3-4b-it (Hub safetensors: 4.3B params)"}}}
}

// withDefaults is r with absent keys read as the family's defaults.
func withDefaults(r *reader, defs map[string]int64) *reader {
	o := make(hfconfig.Object, len(r.o)+len(defs))
	for k, v := range defs {
		o[k] = json.RawMessage(strconv.FormatInt(v, 10))
	}
	for k, v := range r.o {
		if r.o.Has(k) {
			o[k] = v
		}
	}
	return &reader{o: o, path: r.path, err: r.err}
}

func buildGemma3(mt string, top *reader, hfq []byte) (*Inventory, error) {
	if mt == "gemma3_text" {
		return gemma3Text.build(mt, withDefaults(top, gemma3Defaults), hfq)
	}
	tc := top.sub("text_config")
	if tc == nil {
		return nil, missing(top, "text_config")
	}
	tc = withDefaults(tc, gemma3Defaults)
	b, err := newDecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	if _, err := gemma3Text.text(mt, b, tc, "language_model."); err != nil {
		return nil, err
	}
	if vc := top.sub("vision_config"); vc != nil {
		D, err := siglip(b, vc, "vision_tower.vision_model.")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mt, err)
		}
		b.component(CompProjector)
		b.param("multi_modal_projector.mm_input_projection_weight", 0, D, tc.size("hidden_size"))
		b.param("multi_modal_projector.mm_soft_emb_norm.weight", 0, D)
		b.component(CompText)
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return nil, fmt.Errorf("%s: %w", mt, err)
	}
	return finish(b, mt, moeInfo{}, "dense: every text parameter is active; the vision tower runs on image tokens only"), nil
}

// siglip adds a SigLIP vision transformer under p: a patch Conv2d with
// bias, learned position embeddings for (image/patch)² patches, pre-norm
// encoder layers with biased q/k/v/out projections and a GELU MLP, and a
// final LayerNorm. It returns the vision width.
func siglip(b *builder, vc *reader, p string) (int64, error) {
	D := vc.size("hidden_size")
	I := vc.size("intermediate_size")
	L := vc.size("num_hidden_layers")
	P := vc.size("patch_size")
	img := vc.size("image_size")
	C := vc.sizeOpt("num_channels", 3)
	if err := vc.Err(); err != nil {
		return 0, err
	}
	if L > 4096 || img/P > 1<<12 {
		return 0, fmt.Errorf("%s: implausible vision tower size", vc.path)
	}
	b.component(CompVision)
	ln := func(name string) {
		b.param(name+".weight", 0, D)
		b.param(name+".bias", 0, D)
	}
	b.param(p+"embeddings.patch_embedding.weight", 0, D, C, P, P)
	b.param(p+"embeddings.patch_embedding.bias", 0, D)
	b.param(p+"embeddings.position_embedding.weight", 0, (img/P)*(img/P), D)
	for _, lp := range indexed(p+"encoder.layers.", L) {
		ln(lp + "layer_norm1")
		for _, proj := range []string{"q_proj", "k_proj", "v_proj", "out_proj"} {
			b.linearBias(lp+"self_attn."+proj, 0, D, D, true)
		}
		ln(lp + "layer_norm2")
		b.linearBias(lp+"mlp.fc1", 0, I, D, true)
		b.linearBias(lp+"mlp.fc2", 0, D, I, true)
	}
	ln(p + "post_layernorm")
	b.component(CompText)
	return D, nil
}
