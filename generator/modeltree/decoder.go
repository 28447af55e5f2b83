package modeltree

import (
	"cmp"
	"fmt"
)

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
	tie         flag      // tie_word_embeddings (key and transformers default)
	normBias    bool      // LayerNorm with bias instead of RMSNorm (PhiMoE)
	headBias    flag      // lm_head carries a bias (PhiMoE)
	qkNames     [2]string // q/k norm module names, default q_norm / k_norm
	qkNormIf    flag      // when its key is set, q/k norms exist only if the config says so (use_qk_norm)
	moe         *moeSpec
	mtpKey      string // config key of the multi-token-prediction layer count
}

// moeSpec describes a family's sparse MLP: where the router and experts
// sit, how the expert matrices are named, the shared expert and which
// layers are sparse.
type moeSpec struct {
	block       string    // module of the sparse MLP: "mlp" or "block_sparse_moe"
	router      string    // router module under block: "gate" (default) or "gate.wg" (Hunyuan)
	routerParam bool      // the router is a bare parameter (DeepSeek-style TopkRouter), never quantized
	biasName    string    // module path of the routing bias under block (default "gate.e_score_correction_bias")
	biasRow     bool      // the bias is stored [1, E] (ERNIE's moe_statics)
	expertNames [3]string // gate, up, down: {"gate_proj","up_proj","down_proj"} or {"w1","w3","w2"}
	routerBias  string    // dtype of gate.e_score_correction_bias, "" for none
	shared      string    // shared expert module ("shared_expert", "shared_experts"), "" for none
	sharedGate  bool      // shared_expert_gate [1, H] (Qwen2-MoE)
	// Keys, in order of preference, of the expert counts and widths.
	expertsKeys, perTokKeys, widthKeys, sharedWidthKeys, sharedCountKeys []string
	firstDenseKey                                                        string // first_k_dense_replace / moe_layer_start_index
	stepKey                                                              string // decoder_sparse_step / moe_layer_interval: (i+1) % step == 0
	endKey                                                               string // moe_layer_end_index: last sparse layer (inclusive, -1 = last)
	convention                                                           string
}

type moeDims struct {
	E, k, I, sharedI, firstDense, step int64
	end                                int64 // last sparse layer; -1 for no limit
	dense                              map[int64]bool
}

func firstKey(t *reader, keys []string) string {
	for _, k := range keys {
		if t.has(k) {
			return k
		}
	}
	if len(keys) > 0 {
		return keys[0]
	}
	return ""
}

func (m *moeSpec) read(t *reader) moeDims {
	d := moeDims{
		E: t.size(m.expertsKeys...), k: t.size(m.perTokKeys...), I: t.size(m.widthKeys...),
		step: 1, end: -1, dense: map[int64]bool{},
	}
	if m.endKey != "" {
		// moe_layer_end_index may be -1: the last layer.
		if v, ok, err := t.o.Signed(t.prefix(), m.endKey); err != nil {
			t.keep(err)
		} else if ok && v >= 0 {
			d.end = v
		}
	}
	if len(m.sharedWidthKeys) > 0 {
		if t.has(firstKey(t, m.sharedWidthKeys)) {
			d.sharedI = t.size(m.sharedWidthKeys...)
		}
		if len(m.sharedCountKeys) > 0 {
			n := int64(0)
			if t.has(firstKey(t, m.sharedCountKeys)) {
				n = t.size(m.sharedCountKeys...)
			}
			d.sharedI *= n
		}
	}
	if m.firstDenseKey != "" {
		d.firstDense = t.intOpt(m.firstDenseKey, 0)
	}
	if m.stepKey != "" {
		d.step = t.sizeOpt(m.stepKey, 1)
	}
	for _, l := range t.ints("mlp_only_layers") {
		d.dense[l] = true
	}
	return d
}

func (d moeDims) sparse(i int64) bool {
	return !d.dense[i] && i >= d.firstDense && (i+1)%d.step == 0 && (d.end < 0 || i <= d.end)
}

// layer adds layer i's sparse MLP under lp; false when the layer is dense.
func (m *moeSpec) layer(b *builder, lp string, i, H int64, d moeDims) bool {
	if !d.sparse(i) {
		return false
	}
	p := lp + m.block + "."
	router := cmp.Or(m.router, "gate")
	if m.routerParam {
		b.param(p+router+".weight", 0, d.E, H)
	} else {
		b.linear(p+router, 0, d.E, H)
	}
	if m.routerBias != "" {
		name := p + cmp.Or(m.biasName, "gate.e_score_correction_bias")
		if m.biasRow {
			b.paramT(name, m.routerBias, 0, 1, d.E)
		} else {
			b.paramT(name, m.routerBias, 0, d.E)
		}
	}
	n := m.expertNames
	b.experts(p+"experts.", d.E, func(x string) {
		b.linear(x+n[0], fExpert, d.I, H)
		b.linear(x+n[1], fExpert, d.I, H)
		b.linear(x+n[2], fExpert, H, d.I)
	})
	if m.shared != "" && d.sharedI > 0 {
		swiGLU(b, p+m.shared+".", H, d.sharedI, 0)
		if m.sharedGate {
			b.linear(p+"shared_expert_gate", 0, 1, H)
		}
	}
	return true
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
	md, err := s.text(family, b, top, "")
	if err != nil {
		return nil, err
	}
	if s.moe != nil {
		return finish(b, family, moeInfo{md.E, md.k}, s.moe.convention), nil
	}
	return finish(b, family, moeInfo{}, "dense: every parameter is active; ActiveParams(false) drops the input embedding"), nil
}

// text adds the decoder described by config object top under prefix
// ("" or "language_model.") to b.
func (s decoderSpec) text(family string, b *builder, top *reader, prefix string) (moeDims, error) {
	g := readGQA(top)
	L := top.size("num_hidden_layers")
	I := top.size("intermediate_size")
	V := top.size("vocab_size")
	qkvBias, oBias, mlpBias := s.qkvBias.read(top), s.oBias.read(top), s.mlpBias.read(top)
	tie := s.tie.read(top)
	qkNorm := s.qkNorm
	if s.qkNormIf.key != "" && !s.qkNormIf.read(top) {
		qkNorm = qkNone
	}
	var mtp int64
	if s.mtpKey != "" {
		mtp = top.intOpt(s.mtpKey, 0)
	}
	var md moeDims
	if s.moe != nil {
		md = s.moe.read(top)
	}
	if err := top.Err(); err != nil {
		return md, err
	}
	if err := checkWork(L+mtp, md.E); err != nil {
		return md, fmt.Errorf("%s: %w", family, err)
	}
	b.param(prefix+"model.embed_tokens.weight", embedFlags(tie), V, g.H)
	layer := func(lp string, i int64) {
		for _, n := range s.norms {
			s.norm(b, lp+n, g.H)
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
		qn, kn := cmp.Or(s.qkNames[0], "q_norm"), cmp.Or(s.qkNames[1], "k_norm")
		switch qkNorm {
		case qkPerHead:
			b.param(a+qn+".weight", 0, g.headDim)
			b.param(a+kn+".weight", 0, g.headDim)
		case qkFull:
			b.param(a+qn+".weight", 0, q)
			b.param(a+kn+".weight", 0, kv)
		}
		if s.moe != nil && s.moe.layer(b, lp, i, g.H, md) {
			return
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
	lps := indexed(prefix+"model.layers.", L+mtp)
	for i, lp := range lps[:L] {
		layer(lp, int64(i))
	}
	for i, lp := range lps[L:] {
		// DeepSeek-style MTP modules stored as extra layers numbered from
		// num_hidden_layers: their own embedding, the two pre-projection
		// norms, eh_proj over [embedding; hidden], one decoder layer and a
		// shared head.
		b.component(CompMTP)
		b.param(lp+"embed_tokens.weight", fEmbed, V, g.H)
		b.param(lp+"enorm.weight", 0, g.H)
		b.param(lp+"hnorm.weight", 0, g.H)
		b.linear(lp+"eh_proj", 0, g.H, 2*g.H)
		b.param(lp+"shared_head.norm.weight", 0, g.H)
		b.linear(lp+"shared_head.head", fHead, V, g.H)
		layer(lp, L+int64(i))
		b.component(CompText)
	}
	s.norm(b, prefix+"model.norm", g.H)
	if !tie {
		b.linearBias(prefix+"lm_head", fHead, V, g.H, false)
		if s.headBias.read(top) {
			b.param(prefix+"lm_head.bias", fHead, V)
		}
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return md, fmt.Errorf("%s: %w", family, err)
	}
	return md, nil
}

func (s decoderSpec) norm(b *builder, name string, H int64) {
	b.param(name+".weight", 0, H)
	if s.normBias {
		b.param(name+".bias", 0, H)
	}
}

// denseFamily is a registry entry built from a decoderSpec.
func denseFamily(name string, types []string, lay Layout, s decoderSpec, checks ...Check) Family {
	return Family{Name: name, ModelTypes: types, Layout: lay, Checks: checks,
		Build: func(mt string, t *reader, h []byte) (*Inventory, error) { return s.build(mt, t, h) }}
}
