// Package mlxtest writes MLX checkpoints' config.json and safetensors
// headers the way mlx-lm's convert lays them out, for tests and the fake
// Hub: no weights, only shapes.
package mlxtest

import (
	"encoding/json"
	"fmt"

	"dossier/generator/safetensors"
)

// MoE is a Qwen3-MoE-shaped model converted by mlx_lm.convert -q: every
// Linear at Bits with group GroupSize (affine: U32 words, BF16 scales and
// biases), the routers (mlp.gate) at GateBits as mlx-lm's MoE predicate
// writes them, norms in BF16.
type MoE struct {
	Layers, Hidden, Heads, KVHeads, HeadDim, Vocab int64
	Experts, ExpertsUsed, ExpertFF                 int64
	Bits, GroupSize, GateBits                      int
	Context                                        int64
	Shards                                         int
}

// Config is config.json with its quantization block (and the
// quantization_config copy mlx-lm writes beside it).
func (m MoE) Config() []byte {
	q := map[string]any{"group_size": m.GroupSize, "bits": m.Bits, "mode": "affine"}
	for l := range m.Layers {
		q[fmt.Sprintf("model.layers.%d.mlp.gate", l)] = map[string]any{"group_size": m.GroupSize, "bits": m.GateBits}
	}
	cfg := map[string]any{
		"model_type": "qwen3_moe", "architectures": []string{"Qwen3MoeForCausalLM"},
		"hidden_size": m.Hidden, "num_hidden_layers": m.Layers, "num_attention_heads": m.Heads,
		"num_key_value_heads": m.KVHeads, "head_dim": m.HeadDim, "vocab_size": m.Vocab,
		"num_experts": m.Experts, "num_experts_per_tok": m.ExpertsUsed, "moe_intermediate_size": m.ExpertFF,
		"intermediate_size": m.ExpertFF * 4, "max_position_embeddings": m.Context, "tie_word_embeddings": false,
		"rms_norm_eps": 1e-6, "rope_theta": 1e6, "torch_dtype": "bfloat16",
		"quantization": q, "quantization_config": q,
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		panic(err)
	}
	return b
}

// Tensors are the checkpoint's tensors in name order.
func (m MoE) Tensors() []safetensors.TensorInfo {
	var ts []safetensors.TensorInfo
	quant := func(name string, bits int, lead []int64, out, in int64) {
		g := int64(m.GroupSize)
		shape := func(last int64) []int64 { return append(append([]int64{}, lead...), out, last) }
		ts = append(ts,
			safetensors.TensorInfo{Name: name + ".weight", DType: "U32", Shape: shape(in * int64(bits) / 32)},
			safetensors.TensorInfo{Name: name + ".scales", DType: "BF16", Shape: shape(in / g)},
			safetensors.TensorInfo{Name: name + ".biases", DType: "BF16", Shape: shape(in / g)})
	}
	norm := func(name string, n int64) {
		ts = append(ts, safetensors.TensorInfo{Name: name + ".weight", DType: "BF16", Shape: []int64{n}})
	}
	quant("model.embed_tokens", m.Bits, nil, m.Vocab, m.Hidden)
	for l := range m.Layers {
		p := fmt.Sprintf("model.layers.%d.", l)
		quant(p+"self_attn.q_proj", m.Bits, nil, m.Heads*m.HeadDim, m.Hidden)
		quant(p+"self_attn.k_proj", m.Bits, nil, m.KVHeads*m.HeadDim, m.Hidden)
		quant(p+"self_attn.v_proj", m.Bits, nil, m.KVHeads*m.HeadDim, m.Hidden)
		quant(p+"self_attn.o_proj", m.Bits, nil, m.Hidden, m.Heads*m.HeadDim)
		norm(p+"self_attn.q_norm", m.HeadDim)
		norm(p+"self_attn.k_norm", m.HeadDim)
		quant(p+"mlp.gate", m.GateBits, nil, m.Experts, m.Hidden)
		quant(p+"mlp.switch_mlp.gate_proj", m.Bits, []int64{m.Experts}, m.ExpertFF, m.Hidden)
		quant(p+"mlp.switch_mlp.up_proj", m.Bits, []int64{m.Experts}, m.ExpertFF, m.Hidden)
		quant(p+"mlp.switch_mlp.down_proj", m.Bits, []int64{m.Experts}, m.Hidden, m.ExpertFF)
		norm(p+"input_layernorm", m.Hidden)
		norm(p+"post_attention_layernorm", m.Hidden)
	}
	norm("model.norm", m.Hidden)
	quant("lm_head", m.Bits, nil, m.Vocab, m.Hidden)
	return ts
}

// File is one shard: its name, encoded header and whole size.
type File struct {
	Path   string
	Header []byte
	Size   int64
}

// Files splits the tensors into Shards safetensors files named as
// mlx-lm saves them (model-0000i-of-0000n.safetensors).
func (m MoE) Files() ([]File, error) {
	ts := m.Tensors()
	n := max(m.Shards, 1)
	per := (len(ts) + n - 1) / n
	var out []File
	for i := 0; i < n; i++ {
		part := ts[min(i*per, len(ts)):min((i+1)*per, len(ts))]
		h, err := safetensors.Build(part, map[string]string{"format": "mlx"})
		if err != nil {
			return nil, err
		}
		b, err := h.Encode()
		if err != nil {
			return nil, err
		}
		out = append(out, File{Path: fmt.Sprintf("model-%05d-of-%05d.safetensors", i+1, n), Header: b, Size: int64(len(b)) + h.DataLen()})
	}
	return out, nil
}
