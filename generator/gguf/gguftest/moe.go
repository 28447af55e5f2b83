package gguftest

import (
	"fmt"

	"dossier/generator/gguf"
)

// MoE describes a DeepSeek-style MLA + mixture-of-experts model in
// llama.cpp's tensor naming (blk.N.ffn_gate_exps.weight and so on), the
// shape of Kimi K2/K3 and DeepSeek V3.
type MoE struct {
	Arch                 string // general.architecture, "deepseek2" when empty
	Layers, DenseLayers  int    // DenseLayers lead with a plain MLP
	Hidden, Vocab        int64
	Heads                int64
	QLoraRank, KVLoraRnk int64
	RopeDim, NopeDim     int64
	VDim                 int64
	DenseFF              int64
	Experts, ExpertsUsed int64
	// ExpertIn is the width the routed experts run at (K3's latent
	// routed_expert_hidden_size; Hidden when 0), ExpertFF their
	// intermediate size, SharedFF the shared experts'.
	ExpertIn, ExpertFF, SharedFF int64
	Context                      int64
	// Types: routed experts; other matrices; token embedding and output.
	ExpertType, MatrixType, EmbedType gguf.Type
	// DownType overrides ExpertType for the down projection (0, which is
	// F32, means ExpertType)
	// (llama-quantize's _M recipes keep it a step higher).
	DownType gguf.Type
	Shards   int    // 1 when 0
	Name     string // file name stem, e.g. "Kimi-K3-UD-Q2_K_XL"
}

// Built is one file of a built model: its header and full length.
type Built struct {
	Path   string
	Header []byte
	Size   int64
	Tensor []Tensor
}

// Tensors lists the model's tensors in llama.cpp's order.
func (m MoE) Tensors() []Tensor {
	f32, _ := gguf.TypeByName("F32")
	in := m.ExpertIn
	if in == 0 {
		in = m.Hidden
	}
	down := m.DownType
	if down == 0 {
		down = m.ExpertType
	}
	ts := []Tensor{{"token_embd.weight", m.EmbedType, []int64{m.Hidden, m.Vocab}}}
	for l := 0; l < m.Layers; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		ts = append(ts,
			Tensor{p + "attn_norm.weight", f32, []int64{m.Hidden}},
			Tensor{p + "attn_q_a.weight", m.MatrixType, []int64{m.Hidden, m.QLoraRank}},
			Tensor{p + "attn_q_a_norm.weight", f32, []int64{m.QLoraRank}},
			Tensor{p + "attn_q_b.weight", m.MatrixType, []int64{m.QLoraRank, m.Heads * (m.NopeDim + m.RopeDim)}},
			Tensor{p + "attn_kv_a_mqa.weight", m.MatrixType, []int64{m.Hidden, m.KVLoraRnk + m.RopeDim}},
			Tensor{p + "attn_kv_a_norm.weight", f32, []int64{m.KVLoraRnk}},
			Tensor{p + "attn_kv_b.weight", m.MatrixType, []int64{m.KVLoraRnk, m.Heads * (m.NopeDim + m.VDim)}},
			Tensor{p + "attn_output.weight", m.MatrixType, []int64{m.Heads * m.VDim, m.Hidden}},
			Tensor{p + "ffn_norm.weight", f32, []int64{m.Hidden}},
		)
		if l < m.DenseLayers {
			ts = append(ts,
				Tensor{p + "ffn_gate.weight", m.MatrixType, []int64{m.Hidden, m.DenseFF}},
				Tensor{p + "ffn_up.weight", m.MatrixType, []int64{m.Hidden, m.DenseFF}},
				Tensor{p + "ffn_down.weight", m.MatrixType, []int64{m.DenseFF, m.Hidden}},
			)
			continue
		}
		ts = append(ts,
			Tensor{p + "ffn_gate_inp.weight", f32, []int64{m.Hidden, m.Experts}},
			Tensor{p + "exp_probs_b.bias", f32, []int64{m.Experts}},
			Tensor{p + "ffn_gate_exps.weight", m.ExpertType, []int64{in, m.ExpertFF, m.Experts}},
			Tensor{p + "ffn_up_exps.weight", m.ExpertType, []int64{in, m.ExpertFF, m.Experts}},
			Tensor{p + "ffn_down_exps.weight", down, []int64{m.ExpertFF, in, m.Experts}},
			Tensor{p + "ffn_gate_shexp.weight", m.MatrixType, []int64{m.Hidden, m.SharedFF}},
			Tensor{p + "ffn_up_shexp.weight", m.MatrixType, []int64{m.Hidden, m.SharedFF}},
			Tensor{p + "ffn_down_shexp.weight", m.MatrixType, []int64{m.SharedFF, m.Hidden}},
		)
	}
	return append(ts,
		Tensor{"output_norm.weight", f32, []int64{m.Hidden}},
		Tensor{"output.weight", m.EmbedType, []int64{m.Hidden, m.Vocab}},
	)
}

// Metadata is the first shard's model keys.
func (m MoE) Metadata() []KV {
	a := m.Arch
	if a == "" {
		a = "deepseek2"
	}
	// A tokenizer as long as the vocabulary, as real first shards carry:
	// it is what makes their headers megabytes long.
	tokens := make([]string, m.Vocab)
	types := make([]int32, m.Vocab)
	for i := range tokens {
		tokens[i] = fmt.Sprintf("tok%d", i)
		types[i] = 1
	}
	return []KV{
		{"general.architecture", a},
		{"general.name", m.Name},
		{a + ".block_count", uint32(m.Layers)},
		{a + ".context_length", uint32(m.Context)},
		{a + ".embedding_length", uint32(m.Hidden)},
		{a + ".feed_forward_length", uint32(m.DenseFF)},
		{a + ".attention.head_count", uint32(m.Heads)},
		{a + ".attention.head_count_kv", uint32(1)},
		{a + ".attention.key_length", uint32(m.KVLoraRnk + m.RopeDim)},
		{a + ".attention.value_length", uint32(m.KVLoraRnk)},
		{a + ".attention.q_lora_rank", uint32(m.QLoraRank)},
		{a + ".attention.kv_lora_rank", uint32(m.KVLoraRnk)},
		{a + ".rope.dimension_count", uint32(m.RopeDim)},
		{a + ".expert_count", uint32(m.Experts)},
		{a + ".expert_used_count", uint32(m.ExpertsUsed)},
		{a + ".expert_feed_forward_length", uint32(m.ExpertFF)},
		{a + ".leading_dense_block_count", uint32(m.DenseLayers)},
		{"tokenizer.ggml.model", "gpt2"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.token_type", types},
	}
}

// Build encodes the model into files named as llama.cpp's gguf-split
// names them (<Name>-00001-of-00003.gguf), tensors dealt evenly.
func (m MoE) Build() []Built {
	ts := m.Tensors()
	n := max(m.Shards, 1)
	per := (len(ts) + n - 1) / n
	var out []Built
	for i := range n {
		part := ts[min(i*per, len(ts)):min((i+1)*per, len(ts))]
		var kv []KV
		if i == 0 {
			kv = m.Metadata()
		}
		path := m.Name + ".gguf"
		if n > 1 {
			kv = append(kv, KV{"split.no", uint16(i)}, KV{"split.count", uint16(n)}, KV{"split.tensors.count", int32(len(ts))})
			path = fmt.Sprintf("%s-%05d-of-%05d.gguf", m.Name, i+1, n)
		}
		h, size := Encode(File{KV: kv, Tensors: part})
		out = append(out, Built{Path: path, Header: h, Size: size, Tensor: part})
	}
	return out
}
