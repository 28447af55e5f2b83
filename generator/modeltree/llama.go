package modeltree

import "fmt"

// Llama-style decoders (transformers modeling_llama / mistral / qwen2 /
// qwen3 / mixtral): embed_tokens, per layer two RMSNorms, q/k/v/o
// projections with grouped KV heads, a SwiGLU MLP (or Mixtral's
// block_sparse_moe), a final norm and an lm_head (none stored when
// tie_word_embeddings is set: the embedding is the head).

type gqa struct {
	H, heads, kvHeads, headDim int64
	qkvBias, oBias, qkNorm     bool
}

func readGQA(t *reader) gqa {
	g := gqa{H: t.size("hidden_size"), heads: t.size("num_attention_heads")}
	g.kvHeads = t.sizeOpt("num_key_value_heads", g.heads)
	g.headDim = t.intOpt("head_dim", 0)
	if g.headDim == 0 && g.heads > 0 {
		g.headDim = g.H / g.heads
	}
	return g
}

func (g gqa) attention(b *builder, a string) {
	b.linearBias(a+"q_proj", 0, g.heads*g.headDim, g.H, g.qkvBias)
	b.linearBias(a+"k_proj", 0, g.kvHeads*g.headDim, g.H, g.qkvBias)
	b.linearBias(a+"v_proj", 0, g.kvHeads*g.headDim, g.H, g.qkvBias)
	b.linearBias(a+"o_proj", 0, g.H, g.heads*g.headDim, g.oBias)
	if g.qkNorm {
		b.param(a+"q_norm.weight", 0, g.headDim)
		b.param(a+"k_norm.weight", 0, g.headDim)
	}
}

// decoderEnds adds the embedding, final norm and lm_head; a tied
// embedding doubles as the head.
func decoderEnds(t *reader, b *builder, H int64) { decoderEndsNorm(t, b, H, "model.norm.weight") }

// decoderEndsNorm is decoderEnds with the final norm under another name
// (Jamba's model.final_layernorm).
func decoderEndsNorm(t *reader, b *builder, H int64, norm string) {
	V := t.size("vocab_size")
	tie := t.boolOpt("tie_word_embeddings", false)
	if t.Err() != nil {
		return
	}
	b.param("model.embed_tokens.weight", embedFlags(tie), V, H)
	b.param(norm, 0, H)
	if !tie {
		b.linear("lm_head", fHead, V, H)
	}
}

// newGQADecoder starts a grouped-query-attention decoder: the builder
// with the config's quantization, the attention dims and the layer count.
func newGQADecoder(top *reader, hfq []byte) (*builder, gqa, int64, error) {
	b, err := newDecoder(top, hfq)
	if err != nil {
		return nil, gqa{}, 0, err
	}
	return b, readGQA(top), top.size("num_hidden_layers"), nil
}

// newDecoder prepares a builder with the config's quantization.
func newDecoder(top *reader, hfq []byte) (*builder, error) {
	b := newBuilder(storageDType(top), capHint(top))
	q, err := parseQuant(top.sub("quantization_config"), hfq, allScopes(""))
	if err != nil {
		return nil, err
	}
	if q != nil && q.method == "mxfp4" {
		return nil, fmt.Errorf("quantization_config: mxfp4 is only defined for gpt_oss")
	}
	b.setQuant(q)
	b.component(CompText)
	return b, nil
}

func buildMixtral(top *reader, hfq []byte) (*Inventory, error) {
	b, g, L, err := newGQADecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	I := top.size("intermediate_size")
	E := top.size("num_local_experts")
	k := top.size("num_experts_per_tok")
	if err := top.Err(); err != nil {
		return nil, err
	}
	if err := checkWork(L, E); err != nil {
		return nil, fmt.Errorf("mixtral: %w", err)
	}
	decoderEnds(top, b, g.H)
	for _, lp := range indexed("model.layers.", L) {
		b.param(lp+"input_layernorm.weight", 0, g.H)
		b.param(lp+"post_attention_layernorm.weight", 0, g.H)
		g.attention(b, lp+"self_attn.")
		m := lp + "block_sparse_moe."
		b.linear(m+"gate", 0, E, g.H) // router: an nn.Linear
		b.experts(m+"experts.", E, func(x string) {
			b.linear(x+"w1", fExpert, I, g.H)
			b.linear(x+"w2", fExpert, g.H, I)
			b.linear(x+"w3", fExpert, I, g.H)
		})
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return nil, fmt.Errorf("mixtral: %w", err)
	}
	return finish(b, "mixtral", moeInfo{E, k},
		"Mistral's \"12.9B active\" ≈ ActiveParams(true): non-expert params incl. embedding and lm_head + experts × 2/8"), nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
