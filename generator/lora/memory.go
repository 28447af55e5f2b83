package lora

import (
	"fmt"
	"strings"
)

// Optimizer is the optimizer whose states the memory estimate holds.
type Optimizer string

// Optimizers with known per-parameter state.
const (
	AdamW     Optimizer = "adamw"      // two FP32 moments
	AdamW8bit Optimizer = "adamw_8bit" // bitsandbytes 8-bit Adam: two 8-bit moments
	SGD       Optimizer = "sgd"        // plain SGD, no state
)

// stateBytes is the optimizer state per trainable parameter.
func (o Optimizer) stateBytes() (int64, string, error) {
	switch o {
	case AdamW:
		return 8, "two FP32 moments (4 + 4 B)", nil
	case AdamW8bit:
		return 2, "two 8-bit moments (1 + 1 B; block-wise scales left out)", nil
	case SGD:
		return 0, "no optimizer state", nil
	}
	return 0, "", fmt.Errorf("optimizer %q: want %s, %s or %s", string(o), AdamW, AdamW8bit, SGD)
}

// ParseOptimizer reads an optimizer name.
func ParseOptimizer(s string) (Optimizer, error) {
	o := Optimizer(strings.ToLower(strings.TrimSpace(s)))
	_, _, err := o.stateBytes()
	return o, err
}

// Setup is what a training-memory estimate is stated at.
type Setup struct {
	Batch     int64 // sequences per step on one replica
	SeqLen    int64 // tokens per sequence
	Optimizer Optimizer
	// AdapterBytes is the bytes per adapter parameter: 4 by default, since
	// PEFT's autocast_adapter_dtype (default True) keeps adapter weights
	// of a BF16/FP16 model in FP32.
	AdapterBytes int64
}

// Shape is what the activation rule reads from the architecture.
type Shape struct {
	Layers, Hidden, Vocab int64
}

// Term is one addend of a training-memory estimate with its derivation.
type Term struct {
	Key        string // fact key under lora.memory.
	Bytes      int64
	Derivation string
}

// Memory is the memory a LoRA run holds besides the frozen base weights:
// adapter weights, their gradients, the optimizer state, and activations
// with and without gradient checkpointing.
type Memory struct {
	Adapter, Gradients, Optimizer Term
	Activations, Checkpointed     Term
}

// bytes per element of 16-bit activations.
const actBytes = 2

// activationPerLayer is the 16-bit activation bytes one transformer layer
// stores per token per unit of hidden size: 34 (Korthikanti et al.,
// arXiv 2205.05198, §4.1: s·b·h·(34 + 5·a·s/h) bytes per layer, whose
// 5·a·s/h term is the attention score matrix, which FlashAttention-style
// kernels do not keep).
const activationPerLayer = 34

// Estimate states the memory terms of training the adapters of r at s.
func Estimate(r *Resolution, sh Shape, s Setup) (*Memory, error) {
	if s.Batch <= 0 || s.SeqLen <= 0 {
		return nil, fmt.Errorf("batch %d, sequence length %d: both must be positive", s.Batch, s.SeqLen)
	}
	if s.Batch > 1<<20 || s.SeqLen > 1<<24 {
		return nil, fmt.Errorf("batch %d × sequence length %d: implausible", s.Batch, s.SeqLen)
	}
	if s.AdapterBytes <= 0 {
		s.AdapterBytes = 4
	}
	opt, optWhat, err := s.Optimizer.stateBytes()
	if err != nil {
		return nil, err
	}
	if sh.Layers <= 0 || sh.Hidden <= 0 || sh.Vocab <= 0 {
		return nil, fmt.Errorf("config lacks num_hidden_layers, hidden_size or vocab_size: activations cannot be stated")
	}
	p := r.AdapterParams
	m := &Memory{}
	m.Adapter = Term{"adapter_weights_bytes", p * s.AdapterBytes,
		fmt.Sprintf("lora.adapter_params × %d B (adapter weights in FP32: PEFT's autocast_adapter_dtype)", s.AdapterBytes)}
	m.Gradients = Term{"gradients_bytes", p * s.AdapterBytes,
		fmt.Sprintf("one gradient per adapter parameter at %d B; the frozen base has none", s.AdapterBytes)}
	m.Optimizer = Term{"optimizer_bytes", p * opt,
		fmt.Sprintf("%s: %s per adapter parameter", s.Optimizer, optWhat)}
	tokens := s.Batch * s.SeqLen
	perLayer := activationPerLayer * tokens * sh.Hidden
	logits := tokens * sh.Vocab * 4
	m.Activations = Term{"activations_bytes", sh.Layers*perLayer + logits,
		fmt.Sprintf("%d layers × 34·s·b·h B (16-bit activations of one transformer layer, Korthikanti et al. arXiv 2205.05198 §4.1, attention scores not kept) + FP32 logits s·b·V·4 B; s=%d, b=%d, h=%d, V=%d. The dense-layer rule applied to every layer: MoE and linear-attention layers keep different intermediates, and the rank-r adapter activations (s·b·r per module) are left out",
			sh.Layers, s.SeqLen, s.Batch, sh.Hidden, sh.Vocab)}
	m.Checkpointed = Term{"activations_checkpointed_bytes", sh.Layers*actBytes*tokens*sh.Hidden + perLayer + logits,
		fmt.Sprintf("gradient checkpointing: each of %d layers keeps its 16-bit input (2·s·b·h B), one layer's activations (34·s·b·h B) are live during its recomputation, + FP32 logits s·b·V·4 B", sh.Layers)}
	return m, nil
}

// Terms are the four addends of a run with or without checkpointing.
func (m *Memory) Terms(checkpointed bool) []Term {
	act := m.Activations
	if checkpointed {
		act = m.Checkpointed
	}
	return []Term{m.Adapter, m.Gradients, m.Optimizer, act}
}
