package modeltree

import "fmt"

// decoderSpec describes a dense decoder-only family declaratively: what
// differs between Llama, Qwen2/3, Gemma 2, Phi-3, Granite, OLMo 2,
// Seed-OSS, EXAONE 4 and GLM-4 is which norms a layer has, whether
// projections are fused, which biases exist and whether q/k are
// normalized. Everything else (embedding, GQA shapes, SwiGLU widths, final
// norm, tied head) is shared.
type decoderSpec struct {
	norms       []string // per-layer RMSNorm weights of width hidden_size
	fusedQKV    bool     // self_attn.qkv_proj [(heads+2·kv)·head_dim, H] (Phi-3)
	fusedGateUp bool     // mlp.gate_up_proj [2·I, H] (Phi-3, GLM-4)
	qkvBias     flag     // q/k/v_proj biases
	oBias       flag     // o_proj bias
	mlpBias     flag     // MLP biases
	qkNorm      qkNormKind
	tie         flag // tie_word_embeddings (key and transformers default)
}

// flag is a boolean a config may state under key, else def.
type flag struct {
	key string // "" = always def
	def bool
}

func (f flag) read(t *reader) bool {
	if f.key == "" {
		return f.def
	}
	return t.boolOpt(f.key, f.def)
}

type qkNormKind uint8

const (
	qkNone    qkNormKind = iota
	qkPerHead            // q_norm / k_norm over one head: [head_dim] (Qwen3, EXAONE 4)
	qkFull               // over all heads: [heads·head_dim], [kv·head_dim] (OLMo 2)
)

var llamaNorms = []string{"input_layernorm", "post_attention_layernorm"}

// build enumerates a dense decoder checkpoint: model.embed_tokens,
// model.layers.N.*, model.norm and lm_head unless tied.
func (s decoderSpec) build(family string, top *reader, hfq []byte) (*Inventory, error) {
	b, err := newDecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	g := readGQA(top)
	L := top.size("num_hidden_layers")
	I := top.size("intermediate_size")
	V := top.size("vocab_size")
	qkvBias, oBias, mlpBias := s.qkvBias.read(top), s.oBias.read(top), s.mlpBias.read(top)
	tie := s.tie.read(top)
	if err := top.Err(); err != nil {
		return nil, err
	}
	if err := checkWork(L, 0); err != nil {
		return nil, fmt.Errorf("%s: %w", family, err)
	}
	b.param("model.embed_tokens.weight", embedFlags(tie), V, g.H)
	for _, lp := range indexed("model.layers.", L) {
		for _, n := range s.norms {
			b.param(lp+n+".weight", 0, g.H)
		}
		a := lp + "self_attn."
		q, kv := g.heads*g.headDim, g.kvHeads*g.headDim
		if s.fusedQKV {
			b.linearBias(a+"qkv_proj", 0, q+2*kv, g.H, qkvBias)
		} else {
			b.linearBias(a+"q_proj", 0, q, g.H, qkvBias)
			b.linearBias(a+"k_proj", 0, kv, g.H, qkvBias)
			b.linearBias(a+"v_proj", 0, kv, g.H, qkvBias)
		}
		b.linearBias(a+"o_proj", 0, g.H, q, oBias)
		switch s.qkNorm {
		case qkPerHead:
			b.param(a+"q_norm.weight", 0, g.headDim)
			b.param(a+"k_norm.weight", 0, g.headDim)
		case qkFull:
			b.param(a+"q_norm.weight", 0, q)
			b.param(a+"k_norm.weight", 0, kv)
		}
		m := lp + "mlp."
		if s.fusedGateUp {
			b.linearBias(m+"gate_up_proj", 0, 2*I, g.H, mlpBias)
		} else {
			b.linearBias(m+"gate_proj", 0, I, g.H, mlpBias)
			b.linearBias(m+"up_proj", 0, I, g.H, mlpBias)
		}
		b.linearBias(m+"down_proj", 0, g.H, I, mlpBias)
	}
	b.param("model.norm.weight", 0, g.H)
	if !tie {
		b.linear("lm_head", fHead, V, g.H)
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return nil, fmt.Errorf("%s: %w", family, err)
	}
	return finish(b, family, moeInfo{}, "dense: every parameter is active; ActiveParams(false) drops the input embedding"), nil
}

// denseFamily is a registry entry built from a decoderSpec.
func denseFamily(name string, types []string, lay Layout, s decoderSpec, checks ...Check) Family {
	return Family{Name: name, ModelTypes: types, Layout: lay, Checks: checks,
		Build: func(mt string, t *reader, h []byte) (*Inventory, error) { return s.build(mt, t, h) }}
}
