package modeltree

import "fmt"

// mamba2Dims are a Mamba-2 mixer's sizes: nheads heads of headDim values
// (inner = nheads·headDim), groups groups sharing B and C of state values,
// a depthwise conv of kernel taps over x, B and C.
type mamba2Dims struct {
	H, nheads, headDim, groups, state, kernel int64
	convBias, projBias                        bool
}

func (m mamba2Dims) inner() int64 { return m.nheads * m.headDim }

// convDim is the channel count of the conv over x, B and C.
func (m mamba2Dims) convDim() int64 { return m.inner() + 2*m.groups*m.state }

// mixer adds a Mamba-2 mixer under p, as transformers' Mamba2Mixer and
// NemotronHMamba2Mixer store it: in_proj to [z, x, B, C, dt]
// (2·inner + 2·groups·state + nheads), conv1d [convDim, 1, kernel] (+ bias),
// A_log, D and dt_bias per head, a gated RMSNorm over inner and out_proj.
func (m mamba2Dims) mixer(b *builder, p string) {
	b.linearBias(p+"in_proj", 0, 2*m.inner()+2*m.groups*m.state+m.nheads, m.H, m.projBias)
	b.param(p+"conv1d.weight", 0, m.convDim(), 1, m.kernel)
	if m.convBias {
		b.param(p+"conv1d.bias", 0, m.convDim())
	}
	b.param(p+"A_log", 0, m.nheads)
	b.param(p+"D", 0, m.nheads)
	b.param(p+"dt_bias", 0, m.nheads)
	b.param(p+"norm.weight", 0, m.inner())
	b.linearBias(p+"out_proj", 0, m.H, m.inner(), m.projBias)
}

func readMamba2(t *reader, H int64, heads, headDim string) mamba2Dims {
	return mamba2Dims{
		H: H, nheads: t.size(heads), headDim: t.size(headDim),
		groups: t.sizeOpt("n_groups", 1), state: t.size("ssm_state_size"), kernel: t.size("conv_kernel"),
		convBias: t.boolOpt("use_conv_bias", true), projBias: t.boolOpt("use_bias", false),
	}
}

// Nemotron-H (nemotron_h: Nemotron-H, Nemotron Nano 2, Nemotron 3 Nano):
// one mixer per layer, chosen by hybrid_override_pattern — M a Mamba-2
// mixer, * grouped-query attention, - a squared-ReLU MLP (up_proj,
// down_proj, no gate), E a mixture of squared-ReLU experts with a sigmoid
// router (gate.weight and an F32 e_score_correction_bias) and a shared
// expert — each behind one RMSNorm, under backbone.*.
func nemotronHFamily() Family {
	return Family{Name: "nemotron_h", ModelTypes: []string{"nemotron_h"}, Build: func(_ string, t *reader, h []byte) (*Inventory, error) { return buildNemotronH(t, h) },
		Checks: []Check{
			{Config: "nemotron_h/nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.config.json", Repo: "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
				Published: "31.6B", Params: 31_600_000_000, Tolerance: 50_000_000,
				Source: "https://replicate.com/nvidia/nemotron-3-nano-30b-a3b/readme (NVIDIA's card text, retrieved 2026-12-04: 31.6 billion total parameters, about 3.6 billion active); the Hub lists the repository at 32B"},
			{Config: "nemotron_h/nvidia__Nemotron-H-56B-Base-8K.config.json", Repo: "nvidia/Nemotron-H-56B-Base-8K",
				Published: "56B", Params: 56_000_000_000, Tolerance: 500_000_000,
				Source: "https://huggingface.co/nvidia/Nemotron-H-56B-Base-8K (model card: \"This model has 56B model parameters\"; 54 Mamba-2, 54 MLP and 10 attention layers per NVIDIA's Nemotron-H blog)"},
		}}
}

func buildNemotronH(top *reader, hfq []byte) (*Inventory, error) {
	b, err := newDecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	H := top.size("hidden_size")
	V := top.size("vocab_size")
	pattern := top.str("hybrid_override_pattern")
	if pattern == "" {
		// Newer releases list the layers by name; the letters are the same.
		letters := map[string]byte{"mamba": 'M', "attention": '*', "mlp": '-', "moe": 'E'}
		var bs []byte
		for i, t := range top.strs("layers_block_type") {
			c, ok := letters[t]
			if !ok {
				return nil, fmt.Errorf("nemotron_h: field %s[%d]: layer type %q is not one of mamba, attention, mlp, moe", top.field("layers_block_type"), i, t)
			}
			bs = append(bs, c)
		}
		pattern = string(bs)
	}
	L := int64(len(pattern))
	if top.has("num_hidden_layers") || L == 0 {
		L = top.size("num_hidden_layers")
	}
	tie := top.boolOpt("tie_word_embeddings", false)
	heads := top.size("num_attention_heads")
	kv := top.sizeOpt("num_key_value_heads", heads)
	headDim := top.intOpt("head_dim", top.intOpt("attention_head_dim", 0))
	if headDim == 0 && heads > 0 {
		headDim = H / heads
	}
	attnBias := top.boolOpt("attention_bias", false)
	mlpBias := top.boolOpt("mlp_bias", false)
	m := readMamba2(top, H, "mamba_num_heads", "mamba_head_dim")
	if err := top.Err(); err != nil {
		return nil, err
	}
	// Nemotron 3 Super routes its experts through a latent projection and
	// ships MTP layers of its own pattern: tensors this tree does not
	// enumerate, so it declines rather than undercount.
	for _, k := range []string{"moe_latent_size", "mtp_hybrid_override_pattern"} {
		if top.has(k) {
			return nil, fmt.Errorf("nemotron_h: field %s: latent MoE and MTP layers are not supported", top.field(k))
		}
	}
	if top.intOpt("num_nextn_predict_layers", 0) > 0 {
		return nil, fmt.Errorf("nemotron_h: field %s: MTP layers are not supported", top.field("num_nextn_predict_layers"))
	}
	if int64(len(pattern)) != L {
		return nil, fmt.Errorf("nemotron_h: field hybrid_override_pattern: %d letters for %d layers", len(pattern), L)
	}
	var I, E, k, moeI, sharedI int64
	for _, c := range pattern {
		switch c {
		case '-':
			I = top.size("intermediate_size")
		case 'E':
			E, k, moeI = top.size("n_routed_experts"), top.size("num_experts_per_tok"), top.size("moe_intermediate_size")
			sharedI = top.intOpt("moe_shared_expert_intermediate_size", 0) * top.intOpt("n_shared_experts", 1)
		case 'M', '*':
		default:
			return nil, fmt.Errorf("nemotron_h: field hybrid_override_pattern: layer kind %q is not one of M * - E", c)
		}
	}
	if err := top.Err(); err != nil {
		return nil, err
	}
	if err := checkWork(L, E); err != nil {
		return nil, fmt.Errorf("nemotron_h: %w", err)
	}
	b.param("backbone.embeddings.weight", embedFlags(tie), V, H)
	for i, lp := range indexed("backbone.layers.", L) {
		b.param(lp+"norm.weight", 0, H)
		p := lp + "mixer."
		switch pattern[i] {
		case 'M':
			m.mixer(b, p)
		case '*':
			b.linearBias(p+"q_proj", 0, heads*headDim, H, attnBias)
			b.linearBias(p+"k_proj", 0, kv*headDim, H, attnBias)
			b.linearBias(p+"v_proj", 0, kv*headDim, H, attnBias)
			b.linearBias(p+"o_proj", 0, H, heads*headDim, attnBias)
		case '-':
			b.linearBias(p+"up_proj", 0, I, H, mlpBias)
			b.linearBias(p+"down_proj", 0, H, I, mlpBias)
		case 'E':
			b.param(p+"gate.weight", 0, E, H)
			b.paramT(p+"gate.e_score_correction_bias", "F32", 0, E)
			b.experts(p+"experts.", E, func(x string) {
				b.linear(x+"up_proj", fExpert, moeI, H)
				b.linear(x+"down_proj", fExpert, H, moeI)
			})
			if sharedI > 0 {
				b.linear(p+"shared_experts.up_proj", 0, sharedI, H)
				b.linear(p+"shared_experts.down_proj", 0, H, sharedI)
			}
		}
	}
	b.param("backbone.norm_f.weight", 0, H)
	if !tie {
		b.linear("lm_head", fHead, V, H)
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return nil, fmt.Errorf("nemotron_h: %w", err)
	}
	return finish(b, "nemotron_h", moeInfo{E, k},
		"NVIDIA's \"3.6B active (including embeddings)\" ≈ ActiveParams(true): non-expert params incl. embedding, head and shared experts + routed experts × k/E"), nil
}
