package modeltree

import (
	"fmt"
	"math"
)

// Llama-Nemotron Super/Ultra (nemotron-nas, DeciLM): Llama's tensors with
// one block config per layer. A block's attention is GQA with
// num_attention_heads / n_heads_in_group KV heads, or a no-op (no
// self_attn, no input_layernorm); its FFN is SwiGLU of width
// ffn_mult · 2/3 · hidden_size rounded up to a multiple of 256, or a no-op
// (no mlp, no post_attention_layernorm).
func nemotronNASFamily() Family {
	return Family{Name: "nemotron-nas", ModelTypes: []string{"nemotron-nas"}, Build: func(_ string, t *reader, h []byte) (*Inventory, error) { return buildNemotronNAS(t, h) },
		Checks: []Check{{Config: "nemotron-nas/nvidia__Llama-3_3-Nemotron-Super-49B-v1.config.json", Repo: "nvidia/Llama-3_3-Nemotron-Super-49B-v1",
			Published: "49.9B", Params: 49_900_000_000, Tolerance: 50_000_000,
			Source: "https://raw.githubusercontent.com/jakemanger/whatmodel/main/pages/model/llama-3-3-nemotron-super-49b-v1.md (49.9B params, the Hub's safetensors figure; retrieved 2026-12-04); the Hub lists copies of the checkpoint at 50B"}}}
}

// nasFFNWidth is DeciLM's _ffn_mult_to_intermediate_size: int(2·mult·H/3)
// rounded up to a multiple of 256.
func nasFFNWidth(mult float64, H int64) int64 {
	w := int64(2 * mult * float64(H) / 3)
	return ceilDiv(w, 256) * 256
}

type nasBlock struct {
	attn   bool  // false: a no-op attention
	kv     int64 // KV heads when attn
	ffn    bool  // false: a no-op FFN
	ffnDim int64
}

func readNASBlocks(t *reader, L, H, heads int64) ([]nasBlock, error) {
	blocks, err := t.o.Objects(t.prefix(), "block_configs")
	if err != nil {
		return nil, err
	}
	if int64(len(blocks)) != L {
		return nil, fmt.Errorf("field %s: %d blocks for %d layers", t.field("block_configs"), len(blocks), L)
	}
	out := make([]nasBlock, L)
	for i, o := range blocks {
		r := &reader{o: o, path: fmt.Sprintf("%s[%d]", t.field("block_configs"), i), err: t.err}
		att, ffn := r.sub("attention"), r.sub("ffn")
		if t.Err() != nil {
			return nil, t.Err()
		}
		if att == nil || ffn == nil {
			return nil, fmt.Errorf("config: missing required field %s", r.field("attention|ffn"))
		}
		for _, x := range []*reader{att, ffn} {
			if x.boolOpt("replace_with_linear", false) {
				return nil, fmt.Errorf("%s: a linear replacement block is not supported", x.field("replace_with_linear"))
			}
		}
		b := &out[i]
		if b.attn = !att.boolOpt("no_op", false); b.attn {
			g := att.size("n_heads_in_group")
			if g > 0 && heads%g != 0 {
				return nil, fmt.Errorf("field %s: %d does not divide the %d attention heads", att.field("n_heads_in_group"), g, heads)
			}
			if g > 0 {
				b.kv = heads / g
			}
		}
		if b.ffn = !ffn.boolOpt("no_op", false); b.ffn {
			mult, ok, err := ffn.o.Float(ffn.prefix(), "ffn_mult")
			switch {
			case err != nil:
				return nil, err
			case !ok || mult <= 0 || math.IsInf(mult, 0) || mult > 1<<10:
				return nil, fmt.Errorf("field %s: expected a positive multiplier", ffn.field("ffn_mult"))
			}
			b.ffnDim = nasFFNWidth(mult, H)
		}
		if err := t.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func buildNemotronNAS(top *reader, hfq []byte) (*Inventory, error) {
	b, err := newDecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	H := top.size("hidden_size")
	L := top.size("num_hidden_layers")
	heads := top.size("num_attention_heads")
	headDim := top.intOpt("head_dim", 0)
	if headDim == 0 && heads > 0 {
		headDim = H / heads
	}
	attnBias, mlpBias := top.boolOpt("attention_bias", false), top.boolOpt("mlp_bias", false)
	if err := top.Err(); err != nil {
		return nil, err
	}
	if err := checkWork(L, 0); err != nil {
		return nil, fmt.Errorf("nemotron-nas: %w", err)
	}
	blocks, err := readNASBlocks(top, L, H, heads)
	if err != nil {
		return nil, fmt.Errorf("nemotron-nas: %w", err)
	}
	decoderEnds(top, b, H)
	for i, lp := range indexed("model.layers.", L) {
		bl := blocks[i]
		if bl.attn {
			b.param(lp+"input_layernorm.weight", 0, H)
			g := gqa{H: H, heads: heads, kvHeads: bl.kv, headDim: headDim, qkvBias: attnBias, oBias: attnBias}
			g.attention(b, lp+"self_attn.")
		}
		if bl.ffn {
			b.param(lp+"post_attention_layernorm.weight", 0, H)
			m := lp + "mlp."
			b.linearBias(m+"gate_proj", 0, bl.ffnDim, H, mlpBias)
			b.linearBias(m+"up_proj", 0, bl.ffnDim, H, mlpBias)
			b.linearBias(m+"down_proj", 0, H, bl.ffnDim, mlpBias)
		}
	}
	if err := firstErr(top.Err(), b.err); err != nil {
		return nil, fmt.Errorf("nemotron-nas: %w", err)
	}
	return finish(b, "nemotron-nas", moeInfo{}, "dense: every parameter is active; ActiveParams(false) drops the input embedding"), nil
}
