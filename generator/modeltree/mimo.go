package modeltree

import "fmt"

// MiMo-V2-Flash (mimo_v2_flash): hybrid_layer_pattern marks each layer
// global (0) or sliding-window (1) attention, each kind with its own head
// counts and dims (q/k head_dim and v_head_dim differ; the swa_ keys size
// the sliding layers), a learned per-head attention-sink bias where
// add_{swa,full}_attention_sink_bias says; moe_layer_freq lists per layer
// whether the MLP is dense (intermediate_size) or routed experts with a
// sigmoid router and an F32 e_score_correction_bias (noaux_tc).
func mimoV2FlashFamily() Family {
	return Family{Name: "mimo_v2_flash", ModelTypes: []string{"mimo_v2_flash"}, Build: func(_ string, t *reader, h []byte) (*Inventory, error) { return buildMimoV2Flash(t, h) },
		Checks: []Check{{Config: "mimo_v2_flash/XiaomiMiMo__MiMo-V2-Flash.config.json", Repo: "XiaomiMiMo/MiMo-V2-Flash",
			Published: "309B", Params: 309_000_000_000, Tolerance: 500_000_000,
			Source: "https://huggingface.co/XiaomiMiMo/MiMo-V2-Flash (model card: 309B total parameters, 15B active)"}}}
}

type mimoAttn struct{ heads, kv, qk, v int64 }

func buildMimoV2Flash(top *reader, hfq []byte) (*Inventory, error) {
	b, err := newDecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	H := top.size("hidden_size")
	L := top.size("num_hidden_layers")
	I := top.size("intermediate_size")
	full := mimoAttn{top.size("num_attention_heads"), top.size("num_key_value_heads"), top.size("head_dim"), top.size("v_head_dim")}
	swa := mimoAttn{top.sizeOpt("swa_num_attention_heads", full.heads), top.sizeOpt("swa_num_key_value_heads", full.kv), top.sizeOpt("swa_head_dim", full.qk), top.sizeOpt("swa_v_head_dim", full.v)}
	sinkFull, sinkSWA := top.boolOpt("add_full_attention_sink_bias", false), top.boolOpt("add_swa_attention_sink_bias", false)
	pattern := top.ints("hybrid_layer_pattern")
	moeFlags := top.ints("moe_layer_freq")
	E, k, moeI := top.size("n_routed_experts"), top.size("num_experts_per_tok"), top.size("moe_intermediate_size")
	bias := top.boolOpt("attention_bias", false)
	if err := top.Err(); err != nil {
		return nil, err
	}
	if int64(len(pattern)) != L || int64(len(moeFlags)) != L {
		return nil, fmt.Errorf("mimo_v2_flash: hybrid_layer_pattern (%d) and moe_layer_freq (%d) must list all %d layers", len(pattern), len(moeFlags), L)
	}
	if top.has("n_shared_experts") && top.intOpt("n_shared_experts", 0) > 0 {
		return nil, fmt.Errorf("mimo_v2_flash: field %s: shared experts are not supported", top.field("n_shared_experts"))
	}
	if err := checkWork(L, E); err != nil {
		return nil, fmt.Errorf("mimo_v2_flash: %w", err)
	}
	decoderEnds(top, b, H)
	for i, lp := range indexed("model.layers.", L) {
		b.param(lp+"input_layernorm.weight", 0, H)
		b.param(lp+"post_attention_layernorm.weight", 0, H)
		at, sink := full, sinkFull
		if pattern[i] != 0 {
			at, sink = swa, sinkSWA
		}
		a := lp + "self_attn."
		b.linearBias(a+"q_proj", 0, at.heads*at.qk, H, bias)
		b.linearBias(a+"k_proj", 0, at.kv*at.qk, H, bias)
		b.linearBias(a+"v_proj", 0, at.kv*at.v, H, bias)
		b.linearBias(a+"o_proj", 0, H, at.heads*at.v, false)
		if sink {
			b.param(a+"attention_sink_bias", 0, at.heads)
		}
		if moeFlags[i] == 0 {
			swiGLU(b, lp+"mlp.", H, I, 0)
			continue
		}
		b.param(lp+"mlp.gate.weight", 0, E, H)
		b.paramT(lp+"mlp.gate.e_score_correction_bias", "F32", 0, E)
		b.experts(lp+"mlp.experts.", E, func(x string) { swiGLU(b, x, H, moeI, fExpert) })
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return nil, fmt.Errorf("mimo_v2_flash: %w", err)
	}
	return finish(b, "mimo_v2_flash", moeInfo{E, k},
		"Xiaomi's \"15B active\" ≈ ActiveParams(true): non-expert params incl. embedding and lm_head + routed experts × k/E"), nil
}
