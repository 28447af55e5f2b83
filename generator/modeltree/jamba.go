package modeltree

import "fmt"

// Jamba (jamba), after transformers' modeling_jamba: every layer has an
// input_layernorm and a pre_ff_layernorm; layer i attends when
// i % attn_layer_period == attn_layer_offset (GQA, no biases) and is a
// Mamba-1 mixer otherwise — in_proj to x and z [2·inner, H], a depthwise
// conv1d over inner channels, x_proj to dt, B and C [dt_rank + 2·N, inner],
// dt_proj [inner, dt_rank] with bias, A_log [inner, N], D [inner], the
// RMSNorms Jamba adds on dt, B and C, and out_proj. Its FFN is a mixture
// of experts (router + experts) when i % expert_layer_period ==
// expert_layer_offset, a SwiGLU MLP otherwise.
func jambaFamily() Family {
	return Family{Name: "jamba", ModelTypes: []string{"jamba"}, Build: func(_ string, t *reader, h []byte) (*Inventory, error) { return buildJamba(t, h) },
		Checks: []Check{{Config: "jamba/ai21labs__AI21-Jamba-1.5-Mini.config.json", Repo: "ai21labs/AI21-Jamba-1.5-Mini",
			Published: "52B", Params: 52_000_000_000, Tolerance: 500_000_000,
			Source: "Jamba-1.5 technical report, https://arxiv.org/abs/2408.12570 (Jamba-1.5-Mini: 12B active of 52B total parameters)"}}}
}

func buildJamba(top *reader, hfq []byte) (*Inventory, error) {
	b, g, L, err := newGQADecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	I := top.size("intermediate_size")
	attnPeriod, attnOffset := top.size("attn_layer_period"), top.intOpt("attn_layer_offset", 0)
	expPeriod, expOffset := top.sizeOpt("expert_layer_period", 1), top.intOpt("expert_layer_offset", 0)
	E := top.intOpt("num_experts", 1)
	k := top.intOpt("num_experts_per_tok", 1)
	N := top.size("mamba_d_state")
	K := top.size("mamba_d_conv")
	inner := top.size("mamba_expand") * g.H
	dtRank := top.intOpt("mamba_dt_rank", ceilDiv(g.H, 16))
	convBias := top.boolOpt("mamba_conv_bias", true)
	projBias := top.boolOpt("mamba_proj_bias", false)
	if err := top.Err(); err != nil {
		return nil, err
	}
	if err := checkWork(L, E); err != nil {
		return nil, fmt.Errorf("jamba: %w", err)
	}
	decoderEndsNorm(top, b, g.H, "model.final_layernorm.weight")
	for i, lp := range indexed("model.layers.", L) {
		i := int64(i)
		b.param(lp+"input_layernorm.weight", 0, g.H)
		b.param(lp+"pre_ff_layernorm.weight", 0, g.H)
		if i%attnPeriod == attnOffset {
			g.attention(b, lp+"self_attn.")
		} else {
			m := lp + "mamba."
			b.linearBias(m+"in_proj", 0, 2*inner, g.H, projBias)
			b.param(m+"conv1d.weight", 0, inner, 1, K)
			if convBias {
				b.param(m+"conv1d.bias", 0, inner)
			}
			b.linear(m+"x_proj", 0, dtRank+2*N, inner)
			b.linearBias(m+"dt_proj", 0, inner, dtRank, true)
			b.param(m+"A_log", 0, inner, N)
			b.param(m+"D", 0, inner)
			b.param(m+"dt_layernorm.weight", 0, dtRank)
			b.param(m+"b_layernorm.weight", 0, N)
			b.param(m+"c_layernorm.weight", 0, N)
			b.linearBias(m+"out_proj", 0, g.H, inner, projBias)
		}
		f := lp + "feed_forward."
		if E > 1 && i%expPeriod == expOffset {
			b.linear(f+"router", 0, E, g.H)
			b.experts(f+"experts.", E, func(x string) { swiGLU(b, x, g.H, I, fExpert) })
		} else {
			swiGLU(b, f, g.H, I, 0)
		}
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return nil, fmt.Errorf("jamba: %w", err)
	}
	moe := moeInfo{E, k}
	if E <= 1 {
		moe = moeInfo{}
	}
	return finish(b, "jamba", moe,
		"AI21's \"12B active\" ≈ ActiveParams(true): every non-expert parameter incl. embedding and head + experts × k/E"), nil
}
