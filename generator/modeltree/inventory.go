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
//
// Every family is one entry of the registry (registry.go): its model_types,
// the layout defaults package arch reads, its builder (mostly a declarative
// decoderSpec) and the published totals its test reproduces. The tree is
// kept as groups of identical tensors (a layer's routed experts are one
// group per matrix); aggregates are sums over groups and names are spelled
// out only by Inventory.All.
package modeltree

import (
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"

	"dossier/generator/safetensors"
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

// Tensor is one entry of the checkpoint's safetensors headers, as All
// yields it.
type Tensor struct {
	Name      string  // as in the checkpoint
	Shape     []int64 // stored shape (shared with its group: do not modify)
	DType     string  // safetensors dtype as stored: "BF16", "F32", "U8", "I32", "F8_E4M3", ...
	Params    int64   // logical parameters, Hub style: 0 for scales and aux; packed payload counts unpacked values
	Role      Role
	Component string // CompText, CompVision, CompProjector or CompMTP
	Expert    bool   // belongs to a routed (not shared) expert
	Embedding bool   // input token embedding
	Head      bool   // lm_head / unembedding; with tied embeddings the embedding matrix is both
}

// Numel is the number of stored elements.
func (t *Tensor) Numel() int64 { return numel(t.Shape) }

// Bytes is the stored size of the tensor's data (sub-byte dtypes rounded up).
func (t *Tensor) Bytes() int64 { return dataBytes(t.DType, t.Shape) }

func numel(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

func dataBytes(dtype string, shape []int64) int64 {
	bits, ok := safetensors.BitSize(dtype)
	if !ok {
		return 0
	}
	return (numel(shape)*int64(bits) + 7) / 8
}

// Group is Count tensors that differ only in an index: the routed experts
// of one layer are one group per matrix, named with the placeholder {E}.
// Aggregates are sums of Count × (per-tensor figure) over the groups, so
// nothing needs the names; All spells them out on demand.
type Group struct {
	Pattern   string  // tensor name; "{E}" stands for the index when block > 0
	Count     int64   // tensors in the group
	Shape     []int64 // stored shape of each
	DType     string
	Params    int64 // logical parameters of each
	Role      Role
	Component string
	Expert    bool
	Embedding bool
	Head      bool

	// block ties the groups built by one builder.experts call: All yields
	// them index-major (expert 0's w1, w2, w3, then expert 1's ...), the
	// order save_pretrained writes. 0: a single tensor.
	block int32
}

// Numel is the number of stored elements of one tensor of the group.
func (g *Group) Numel() int64 { return numel(g.Shape) }

// Bytes is the stored size of one tensor of the group.
func (g *Group) Bytes() int64 { return dataBytes(g.DType, g.Shape) }

func (g *Group) tensor(i int64) Tensor {
	name := g.Pattern
	if g.block != 0 {
		name = strings.Replace(g.Pattern, "{E}", strconv.FormatInt(i, 10), 1)
	}
	return Tensor{Name: name, Shape: g.Shape, DType: g.DType, Params: g.Params, Role: g.Role,
		Component: g.Component, Expert: g.Expert, Embedding: g.Embedding, Head: g.Head}
}

// Inventory is the analytic tensor list of one checkpoint, as groups.
type Inventory struct {
	Family string // registry name: "kimi_k3", "kimi_linear", "deepseek_v3", "gpt_oss", ...
	Groups []Group

	// Linears is the checkpoint's nn.Linear modules in checkpoint order,
	// for what targets Linear layers (LoRA); see Linear.
	Linears []Linear

	ExpertsPerToken int // routed experts per token; 0 for dense models
	RoutedExperts   int // routed experts per MoE layer; 0 for dense models

	// Convention states in one line what the model's published active
	// parameter figure counts, in terms of ActiveParams.
	Convention string

	// Quantization describes the checkpoint's weight quantization in one
	// line; empty for an unquantized checkpoint.
	Quantization string

	// Extras names weights the checkpoint ships that config.json does not
	// declare (family knowledge, e.g. Qwen3-Next's mtp.*); empty for none.
	Extras string
}

// ErrUnsupportedFamily is returned (wrapped, naming the model_type) for a
// config whose model_type this package cannot enumerate.
var ErrUnsupportedFamily = errors.New("unsupported family")

// All yields every tensor, names spelled out, in checkpoint order.
func (inv *Inventory) All() iter.Seq[Tensor] {
	return func(yield func(Tensor) bool) {
		gs := inv.Groups
		for i := 0; i < len(gs); {
			j := i + 1
			if gs[i].block == 0 {
				for k := range gs[i].Count {
					if !yield(gs[i].tensor(k)) {
						return
					}
				}
				i = j
				continue
			}
			for j < len(gs) && gs[j].block == gs[i].block {
				j++
			}
			for k := range gs[i].Count {
				for g := i; g < j; g++ {
					if !yield(gs[g].tensor(k)) {
						return
					}
				}
			}
			i = j
		}
	}
}

// Census is logical parameters per stored dtype, as the Hub reports them:
// scales and aux tensors are left out, packed payload counts unpacked values.
func (inv *Inventory) Census() map[string]int64 {
	m := map[string]int64{}
	for i := range inv.Groups {
		g := &inv.Groups[i]
		if g.Params > 0 {
			m[g.DType] += g.Count * g.Params
		}
	}
	return m
}

// StoredElements is the number of stored elements per dtype, what a naive
// sum over safetensors headers reports (packed bytes, not parameters).
func (inv *Inventory) StoredElements() map[string]int64 {
	m := map[string]int64{}
	for i := range inv.Groups {
		g := &inv.Groups[i]
		m[g.DType] += g.Count * g.Numel()
	}
	return m
}

// Bytes is the stored data size per dtype.
func (inv *Inventory) Bytes() map[string]int64 {
	m := map[string]int64{}
	for i := range inv.Groups {
		g := &inv.Groups[i]
		m[g.DType] += g.Count * g.Bytes()
	}
	return m
}

// TensorBytes is the total data size, i.e. the index's metadata.total_size
// (shard files are larger by their JSON headers).
func (inv *Inventory) TensorBytes() int64 {
	var n int64
	for i := range inv.Groups {
		n += inv.Groups[i].Count * inv.Groups[i].Bytes()
	}
	return n
}

// Count is the number of tensors.
func (inv *Inventory) Count() int {
	var n int64
	for i := range inv.Groups {
		n += inv.Groups[i].Count
	}
	return int(n)
}

// TotalParams is the Hub parameter count: the sum of the census.
func (inv *Inventory) TotalParams() int64 {
	var n int64
	for i := range inv.Groups {
		n += inv.Groups[i].Count * inv.Groups[i].Params
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
	for i := range inv.Groups {
		g := &inv.Groups[i]
		if g.Component != CompText || (g.Embedding && !g.Head && !withEmbedding) {
			continue
		}
		if g.Expert {
			experts += g.Count * g.Params
		} else {
			dense += g.Count * g.Params
		}
	}
	if e := int64(inv.RoutedExperts); e > 0 {
		k := int64(inv.ExpertsPerToken)
		// Divide first so k×experts cannot overflow; the remainder keeps it exact.
		experts = experts/e*k + experts%e*k/e
	}
	return dense + experts
}

// ExpertParams and ExpertBytes are the routed experts of the text model.
func (inv *Inventory) ExpertParams() (params, bytes int64) {
	for i := range inv.Groups {
		if g := &inv.Groups[i]; g.Expert && g.Component == CompText {
			params += g.Count * g.Params
			bytes += g.Count * g.Bytes()
		}
	}
	return params, bytes
}

// ParamsByRole is logical parameters per role.
func (inv *Inventory) ParamsByRole() map[Role]int64 {
	m := map[Role]int64{}
	for i := range inv.Groups {
		m[inv.Groups[i].Role] += inv.Groups[i].Count * inv.Groups[i].Params
	}
	return m
}

// BytesByRole is stored bytes per role.
func (inv *Inventory) BytesByRole() map[Role]int64 {
	m := map[Role]int64{}
	for i := range inv.Groups {
		m[inv.Groups[i].Role] += inv.Groups[i].Count * inv.Groups[i].Bytes()
	}
	return m
}

// ParamsByComponent is logical parameters per component.
func (inv *Inventory) ParamsByComponent() map[string]int64 {
	m := map[string]int64{}
	for i := range inv.Groups {
		m[inv.Groups[i].Component] += inv.Groups[i].Count * inv.Groups[i].Params
	}
	return m
}
