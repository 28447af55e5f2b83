package modeltree

import "fmt"

// gpt-oss (transformers modeling_gpt_oss, quantizer_mxfp4): attention with
// biases and a learned per-head sink, a router with a bias (a parameter
// pair, not nn.Linear), and fused experts stored as 3-D tensors. The MXFP4
// release packs the expert matrices as <name>_blocks U8 [E, out, in/32, 16]
// (32 FP4 values per 16 bytes) with <name>_scales U8 [E, out, in/32] (E8M0
// exponents) and keeps the expert biases BF16.
func buildGptOss(top *reader, hfq []byte) (*Inventory, error) {
	b := newBuilder(storageDType(top), capHint(top))
	q, err := parseQuant(top.sub("quantization_config"), hfq, allScopes(""))
	if err != nil {
		return nil, err
	}
	b.setQuant(q)
	b.component(CompText)
	g := readGQA(top)
	g.qkvBias = top.boolOpt("attention_bias", true)
	g.oBias = g.qkvBias
	L := top.size("num_hidden_layers")
	I := top.size("intermediate_size")
	E := top.size("num_local_experts")
	k := top.size("num_experts_per_tok", "experts_per_token")
	if err := top.Err(); err != nil {
		return nil, err
	}
	if err := checkWork(L, 0); err != nil {
		return nil, fmt.Errorf("gpt_oss: %w", err)
	}
	mx := q != nil && q.method == "mxfp4"
	decoderEnds(top, b, g.H)
	for _, lp := range indexed("model.layers.", L) {
		b.param(lp+"input_layernorm.weight", 0, g.H)
		b.param(lp+"post_attention_layernorm.weight", 0, g.H)
		g.attention(b, lp+"self_attn.")
		b.param(lp+"self_attn.sinks", 0, g.heads)
		m := lp + "mlp."
		b.param(m+"router.weight", 0, E, g.H)
		b.param(m+"router.bias", 0, E)
		x := m + "experts."
		if mx {
			mxfp4Experts(b, x+"gate_up_proj", E, 2*I, g.H)
			mxfp4Experts(b, x+"down_proj", E, g.H, I)
		} else {
			b.param(x+"gate_up_proj", fExpert, E, g.H, 2*I)
			b.param(x+"down_proj", fExpert, E, I, g.H)
		}
		b.param(x+"gate_up_proj_bias", fExpert, E, 2*I)
		b.param(x+"down_proj_bias", fExpert, E, g.H)
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return nil, fmt.Errorf("gpt_oss: %w", err)
	}
	return finish(b, "gpt_oss", moeInfo{E, k},
		"OpenAI's active figure (3.61 B for 20b) = ActiveParams(false): counts the unembedding, not the embedding; experts incl. biases × k/E"), nil
}

// mxfp4Experts stores fused expert weights [E, out, in] as MXFP4.
func mxfp4Experts(b *builder, name string, E, out, in int64) {
	blocks := ceilDiv(in, 32)
	b.add(name+"_blocks", "U8", Payload, b.mul(E, out, in), fExpert, E, out, blocks, 16)
	b.add(name+"_scales", "U8", Scale, 0, fExpert, E, out, blocks)
}
