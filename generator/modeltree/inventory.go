// Package modeltree builds, from a Hugging Face config.json (and an optional
// NVIDIA ModelOpt hf_quant_config.json), the exact list of tensors a released
// safetensors checkpoint stores: names, stored shapes and stored dtypes. From
// that list it derives per-dtype logical parameters (Hub census semantics),
// stored elements, bytes and tensor counts, so that a dossier can check a
// published parameter count or file size against the architecture itself.
//
// Shapes follow the public modeling code of each family. Where no public
// source pins a detail, the family file says so and shows how published
// artifact numbers (Hub census, index total_size) prove the chosen layout.
package modeltree

import (
	"errors"
	"fmt"
)

// Role says what a stored tensor is for.
type Role uint8

const (
	// Plain is any tensor of a checkpoint that carries no quantization.
	Plain Role = iota
	// Payload is a quantized weight (packed 4-bit, int4-in-int32, fp8, ...).
	Payload
	// Scale is a group, block or global scale (or zero point) of a quantized
	// weight; it holds no parameters.
	Scale
	// Unquantized is a tensor of a quantized checkpoint stored at full
	// precision: Linear layers kept by an ignore / modules_to_not_convert rule
	// and everything quantization does not target (norms, embeddings,
	// routers, biases, vision tower).
	Unquantized
	// Aux is bookkeeping such as compressed-tensors weight_shape.
	Aux
)

func (r Role) String() string {
	switch r {
	case Plain:
		return "plain"
	case Payload:
		return "payload"
	case Scale:
		return "scale"
	case Unquantized:
		return "unquantized"
	case Aux:
		return "aux"
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}

// Components of a model.
const (
	CompText      = "text"
	CompVision    = "vision"
	CompProjector = "projector"
	CompMTP       = "mtp"
)

// Tensor is one entry of the checkpoint's safetensors headers.
type Tensor struct {
	Name      string  // as in the checkpoint
	Shape     []int64 // stored shape
	DType     string  // safetensors dtype as stored: "BF16", "F32", "U8", "I32", "F8_E4M3", ...
	Params    int64   // logical parameters, Hub style: 0 for scales and aux; packed payload counts unpacked values
	Role      Role
	Component string // CompText, CompVision, CompProjector or CompMTP
	Expert    bool   // belongs to a routed (not shared) expert
	Embedding bool   // input token embedding
	Head      bool   // lm_head / unembedding; with tied embeddings the embedding matrix is both
}

// Numel is the number of stored elements.
func (t *Tensor) Numel() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Bytes is the stored size of the tensor's data (sub-byte dtypes rounded up).
func (t *Tensor) Bytes() int64 {
	bits, ok := dtypeBits[t.DType]
	if !ok {
		return 0
	}
	return (t.Numel()*bits + 7) / 8
}

// dtypeBits is the element width of each safetensors dtype (safetensors'
// Dtype::bitsize), plus the non-standard names huggingface.js accepts.
var dtypeBits = map[string]int64{
	"BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
	"U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8,
	"F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8, "E8M0": 8, "UE8": 8, "FP4": 4,
	"I16": 16, "U16": 16, "F16": 16, "BF16": 16,
	"I32": 32, "U32": 32, "F32": 32,
	"C64": 64, "F64": 64, "I64": 64, "U64": 64,
}

// Inventory is the analytic tensor list of one checkpoint.
type Inventory struct {
	Family  string // "kimi_k3", "kimi_linear", "deepseek_v3", "gpt_oss", ...
	Tensors []Tensor

	ExpertsPerToken int // routed experts per token; 0 for dense models
	RoutedExperts   int // routed experts per MoE layer; 0 for dense models

	// Convention states in one line what the model's published active
	// parameter figure counts, in terms of ActiveParams.
	Convention string

	// Quantization describes the checkpoint's weight quantization in one
	// line; empty for an unquantized checkpoint.
	Quantization string
}

// ErrUnsupportedFamily is returned (wrapped, naming the model_type) for a
// config whose model_type this package cannot enumerate.
var ErrUnsupportedFamily = errors.New("unsupported family")

// Census is logical parameters per stored dtype, as the Hub reports them:
// scales and aux tensors are left out, packed payload counts unpacked values.
func (inv *Inventory) Census() map[string]int64 {
	m := map[string]int64{}
	for i := range inv.Tensors {
		t := &inv.Tensors[i]
		if t.Params > 0 {
			m[t.DType] += t.Params
		}
	}
	return m
}

// StoredElements is the number of stored elements per dtype, what a naive
// sum over safetensors headers reports (packed bytes, not parameters).
func (inv *Inventory) StoredElements() map[string]int64 {
	m := map[string]int64{}
	for i := range inv.Tensors {
		t := &inv.Tensors[i]
		m[t.DType] += t.Numel()
	}
	return m
}

// Bytes is the stored data size per dtype.
func (inv *Inventory) Bytes() map[string]int64 {
	m := map[string]int64{}
	for i := range inv.Tensors {
		t := &inv.Tensors[i]
		m[t.DType] += t.Bytes()
	}
	return m
}

// TensorBytes is the total data size, i.e. the index's metadata.total_size
// (shard files are larger by their JSON headers).
func (inv *Inventory) TensorBytes() int64 {
	var n int64
	for i := range inv.Tensors {
		n += inv.Tensors[i].Bytes()
	}
	return n
}

// Count is the number of tensors.
func (inv *Inventory) Count() int { return len(inv.Tensors) }

// TotalParams is the Hub parameter count: the sum of the census.
func (inv *Inventory) TotalParams() int64 {
	var n int64
	for i := range inv.Tensors {
		n += inv.Tensors[i].Params
	}
	return n
}

// ActiveParams is the parameters one text token passes through: every
// non-expert parameter of the text model plus the routed experts scaled by
// ExpertsPerToken/RoutedExperts. The output head is always counted; the
// input embedding only when withEmbedding is set (it is a lookup, and model
// cards disagree on it). With tie_word_embeddings the embedding matrix is
// the output head too: it is counted once either way, as the head when
// withEmbedding is false, so a tied model's two figures are equal. The
// vision tower and projector never count (they run on image tokens only),
// nor do multi-token-prediction modules (a speculative add-on, not part of
// next-token decoding).
func (inv *Inventory) ActiveParams(withEmbedding bool) int64 {
	var dense, experts int64
	for i := range inv.Tensors {
		t := &inv.Tensors[i]
		if t.Component != CompText || (t.Embedding && !t.Head && !withEmbedding) {
			continue
		}
		if t.Expert {
			experts += t.Params
		} else {
			dense += t.Params
		}
	}
	if e := int64(inv.RoutedExperts); e > 0 {
		k := int64(inv.ExpertsPerToken)
		// Divide first so k×experts cannot overflow; the remainder keeps it exact.
		experts = experts/e*k + experts%e*k/e
	}
	return dense + experts
}

// ParamsByRole is logical parameters per role.
func (inv *Inventory) ParamsByRole() map[Role]int64 {
	m := map[Role]int64{}
	for i := range inv.Tensors {
		m[inv.Tensors[i].Role] += inv.Tensors[i].Params
	}
	return m
}

// BytesByRole is stored bytes per role.
func (inv *Inventory) BytesByRole() map[Role]int64 {
	m := map[Role]int64{}
	for i := range inv.Tensors {
		m[inv.Tensors[i].Role] += inv.Tensors[i].Bytes()
	}
	return m
}

// ParamsByComponent is logical parameters per component.
func (inv *Inventory) ParamsByComponent() map[string]int64 {
	m := map[string]int64{}
	for i := range inv.Tensors {
		m[inv.Tensors[i].Component] += inv.Tensors[i].Params
	}
	return m
}
