package modeltree

import "fmt"

// LFM2 (lfm2), after transformers' modeling_lfm2: each layer is either a
// gated short convolution (conv.in_proj to B, C and x [3·H, H], a
// depthwise conv.conv [H, 1, conv_L_cache], conv.out_proj) or GQA
// attention with per-head q_layernorm/k_layernorm and out_proj; every
// layer has operator_norm and ffn_norm and a SwiGLU feed_forward
// (w1, w3, w2). The final norm is model.embedding_norm; the head is tied.
func lfm2Family() Family {
	return Family{Name: "lfm2", ModelTypes: []string{"lfm2"}, Build: func(_ string, t *reader, h []byte) (*Inventory, error) { return buildLFM2(t, h) },
		Checks: []Check{{Config: "lfm2/LiquidAI__LFM2-1.2B.config.json", Repo: "LiquidAI/LFM2-1.2B",
			Published: "1,170,340,608", Params: 1_170_340_608,
			Source: "https://huggingface.co/LiquidAI/LFM2-1.2B (model card: Parameters 1,170,340,608; 16 layers, 10 conv + 6 attn), mirrored in github.com/fetchwiki/LiquidAI-LFM2-1.2B README.md at 60dc8602e06e43aec0e5cd5bb54fe7a7fedcdc81"}}}
}

// lfm2FFWidth is Lfm2MLP's width: with block_auto_adjust_ff_dim, 2/3 of
// the stated size, times block_ffn_dim_multiplier, rounded up to
// block_multiple_of.
func lfm2FFWidth(t *reader) int64 {
	ff := t.intOpt("intermediate_size", 0)
	if ff == 0 {
		ff = t.size("block_ff_dim")
	}
	if !t.boolOpt("block_auto_adjust_ff_dim", false) {
		return ff
	}
	ff = 2 * ff / 3
	if mult, ok, err := t.o.Float(t.prefix(), "block_ffn_dim_multiplier"); err != nil {
		t.keep(err)
	} else if ok {
		if mult <= 0 || mult > 1<<10 {
			t.fail("field %s: expected a positive multiplier", t.field("block_ffn_dim_multiplier"))
			return 0
		}
		ff = int64(mult * float64(ff))
	}
	m := t.sizeOpt("block_multiple_of", 256)
	return ceilDiv(ff, m) * m
}

func buildLFM2(top *reader, hfq []byte) (*Inventory, error) {
	b, g, L, err := newGQADecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	V := top.size("vocab_size")
	convL := top.size("conv_L_cache")
	convBias := top.boolOpt("conv_bias", false)
	tie := top.boolOpt("tie_word_embeddings", top.boolOpt("tie_embedding", true))
	ff := lfm2FFWidth(top)
	attn := map[int64]bool{}
	if types := top.strs("layer_types"); len(types) > 0 {
		if int64(len(types)) != L {
			return nil, fmt.Errorf("lfm2: field %s: %d entries for %d layers", top.field("layer_types"), len(types), L)
		}
		for i, s := range types {
			switch s {
			case "full_attention":
				attn[int64(i)] = true
			case "conv", "short_conv":
			default:
				return nil, fmt.Errorf("lfm2: field %s[%d]: layer type %q is not supported", top.field("layer_types"), i, s)
			}
		}
	} else {
		for _, i := range top.ints("full_attn_idxs") {
			attn[i] = true
		}
	}
	if err := top.Err(); err != nil {
		return nil, err
	}
	if err := checkWork(L, 0); err != nil {
		return nil, fmt.Errorf("lfm2: %w", err)
	}
	H := g.H
	b.param("model.embed_tokens.weight", embedFlags(tie), V, H)
	b.param("model.embedding_norm.weight", 0, H)
	for i, lp := range indexed("model.layers.", L) {
		b.param(lp+"operator_norm.weight", 0, H)
		b.param(lp+"ffn_norm.weight", 0, H)
		if attn[int64(i)] {
			a := lp + "self_attn."
			b.linear(a+"q_proj", 0, g.heads*g.headDim, H)
			b.linear(a+"k_proj", 0, g.kvHeads*g.headDim, H)
			b.linear(a+"v_proj", 0, g.kvHeads*g.headDim, H)
			b.linear(a+"out_proj", 0, H, g.heads*g.headDim)
			b.param(a+"q_layernorm.weight", 0, g.headDim)
			b.param(a+"k_layernorm.weight", 0, g.headDim)
		} else {
			c := lp + "conv."
			b.linearBias(c+"in_proj", 0, 3*H, H, convBias)
			b.param(c+"conv.weight", 0, H, 1, convL)
			if convBias {
				b.param(c+"conv.bias", 0, H)
			}
			b.linearBias(c+"out_proj", 0, H, H, convBias)
		}
		f := lp + "feed_forward."
		b.linear(f+"w1", 0, ff, H)
		b.linear(f+"w3", 0, ff, H)
		b.linear(f+"w2", 0, H, ff)
	}
	if !tie {
		b.linear("lm_head", fHead, V, H)
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return nil, fmt.Errorf("lfm2: %w", err)
	}
	return finish(b, "lfm2", moeInfo{}, "dense: every parameter is active; ActiveParams(false) drops the input embedding"), nil
}
