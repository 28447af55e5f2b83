package gguf

import "fmt"

// Cache is the KV cache a quant's metadata implies, in values (elements)
// per token so that any cache type's bytes per value can scale it.
type Cache struct {
	Layers int
	// LayerValues[l] is K plus V values per token of layer l: 0 for a
	// recurrent layer. Sliding[l] marks a layer whose cache stops
	// growing at Window tokens.
	LayerValues []int64
	Sliding     []bool
	Window      int64
	// Recurrent layers keep a fixed state per sequence instead:
	// LayerState[l] values (F32) for each, StateKnown false when the file
	// has no ssm.* keys to size it by.
	RecurrentLayers int
	LayerState      []int64
	StateKnown      bool
	ContextLength   int64 // the model's trained context, 0 when absent
	Derivation      string
}

// StateValueBytes is llama.cpp's recurrent state type, F32.
const StateValueBytes = 4

// StateBytes is the recurrent state of one sequence, all layers.
func (c Cache) StateBytes() int64 {
	var n int64
	for _, v := range c.LayerState {
		n += v
	}
	return n * StateValueBytes
}

// Cache types' bytes per value: F16, and llama.cpp's q8_0 and q4_0
// blocks of 32 values (34 and 18 bytes).
const (
	F16ValueBytes  = 2.0
	Q8_0ValueBytes = 34.0 / 32
	Q4_0ValueBytes = 18.0 / 32
)

// FullValues and SlidingValues sum LayerValues over full and sliding
// layers.
func (c Cache) FullValues() (full, sliding int64) {
	for l, v := range c.LayerValues {
		if c.Sliding[l] {
			sliding += v
		} else {
			full += v
		}
	}
	return full, sliding
}

// Bytes is the cache for one sequence of ctx tokens at valueBytes per
// value.
func (c Cache) Bytes(ctx int64, valueBytes float64) float64 {
	full, sliding := c.FullValues()
	return valueBytes * (float64(full)*float64(ctx) + float64(sliding)*float64(min(ctx, c.Window)))
}

// perLayer reads key as a scalar or a per-layer array.
func (q *Quant) perLayer(key string, n int, def int64) ([]int64, bool, error) {
	out := make([]int64, n)
	v, ok := q.Headers[0].Lookup(q.Arch() + "." + key)
	if !ok {
		for i := range out {
			out[i] = def
		}
		return out, false, nil
	}
	switch {
	case v.Type == Array && v.Ints != nil && len(v.Ints) == n:
		copy(out, v.Ints)
	case v.Type != Array && v.Type.integer() && v.Type != Bool:
		for i := range out {
			out[i] = v.Int
		}
	default:
		return nil, true, fmt.Errorf("%s.%s is neither an integer nor %d integers", q.Arch(), key, n)
	}
	return out, true, nil
}

// Cache reads the attention shape from the first shard's metadata the
// way llama.cpp sizes its cache (llama-hparams.cpp n_embd_k_gqa,
// n_embd_v_gqa): per layer head_count_kv × (key_length + value_length);
// for MLA (kv_lora_rank set) the compressed latent kv_lora_rank +
// rope.dimension_count as K and kv_lora_rank as V, one head; layers with
// head_count_kv 0 recurrent; sliding layers from
// attention.sliding_window_pattern (a period n: layer l slides unless
// l % n == n-1; or one bool per layer).
func (q *Quant) Cache() (Cache, error) {
	arch := q.Arch()
	if arch == "" {
		return Cache{}, fmt.Errorf("quant %s: no general.architecture", q.Label)
	}
	nl, ok := q.archInt("block_count")
	if !ok || nl <= 0 || nl > 1<<12 {
		return Cache{}, fmt.Errorf("quant %s: %s.block_count missing or out of range", q.Label, arch)
	}
	n := int(nl)
	c := Cache{Layers: n, LayerValues: make([]int64, n), Sliding: make([]bool, n)}
	c.ContextLength, _ = q.archInt("context_length")
	embd, _ := q.archInt("embedding_length")
	heads, _, err := q.perLayer("attention.head_count", n, 0)
	if err != nil {
		return c, err
	}
	kvHeads, _, err := q.perLayer("attention.head_count_kv", n, -1)
	if err != nil {
		return c, err
	}
	if rank, ok := q.archInt("attention.kv_lora_rank"); ok && rank > 0 {
		rope, ok := q.archInt("rope.dimension_count")
		if !ok {
			return c, fmt.Errorf("quant %s: MLA (%s.attention.kv_lora_rank) without %s.rope.dimension_count", q.Label, arch, arch)
		}
		for l := range c.LayerValues {
			if kvHeads[l] == 0 {
				c.RecurrentLayers++
				continue
			}
			c.LayerValues[l] = 2*rank + rope
		}
		c.Derivation = fmt.Sprintf("MLA: %d layers × (kv_lora_rank %d + rope %d + kv_lora_rank %d) values per token", n-c.RecurrentLayers, rank, rope, rank)
		q.state(&c)
		return c, q.sliding(&c)
	}
	for l := range c.LayerValues {
		h := heads[l]
		kv := kvHeads[l]
		if kv < 0 {
			kv = h
		}
		if kv == 0 {
			c.RecurrentLayers++
			continue
		}
		if h <= 0 {
			return c, fmt.Errorf("quant %s: layer %d has %s.attention.head_count %d", q.Label, l, arch, h)
		}
		kl, ok1 := q.archInt("attention.key_length")
		vl, ok2 := q.archInt("attention.value_length")
		if !ok1 {
			kl = embd / h
		}
		if !ok2 {
			vl = embd / h
		}
		if kl <= 0 || vl <= 0 {
			return c, fmt.Errorf("quant %s: no %s.attention.key_length and no embedding_length to derive it", q.Label, arch)
		}
		c.LayerValues[l] = kv * (kl + vl)
	}
	c.Derivation = fmt.Sprintf("GQA: per layer head_count_kv × (key_length + value_length) over %d attention layers", n-c.RecurrentLayers)
	q.state(&c)
	return c, q.sliding(&c)
}

// state sizes the recurrent layers' state as llama.cpp does for Mamba
// and gated delta nets (src/llama-hparams.cpp n_embd_r, n_embd_s at
// 8b1d44b): (ssm.conv_kernel − 1) × (ssm.inner_size + 2 × ssm.group_count
// × ssm.state_size) convolution values plus ssm.state_size ×
// ssm.inner_size, per layer and sequence.
func (q *Quant) state(c *Cache) {
	c.LayerState = make([]int64, c.Layers)
	if c.RecurrentLayers == 0 {
		c.StateKnown = true
		return
	}
	conv, ok1 := q.archInt("ssm.conv_kernel")
	inner, ok2 := q.archInt("ssm.inner_size")
	st, ok3 := q.archInt("ssm.state_size")
	groups, _ := q.archInt("ssm.group_count")
	if !ok1 || !ok2 || !ok3 || conv < 1 || inner < 0 || st < 0 || groups < 0 || inner > 1<<24 || st > 1<<16 || groups > 1<<16 || conv > 1<<8 {
		c.Derivation += fmt.Sprintf("; %d recurrent layers whose state the file gives no ssm.* keys to size", c.RecurrentLayers)
		return
	}
	per := (conv-1)*(inner+2*groups*st) + st*inner
	for l, v := range c.LayerValues {
		if v == 0 {
			c.LayerState[l] = per
		}
	}
	c.StateKnown = true
	c.Derivation += fmt.Sprintf("; %d recurrent layers of %d F32 state values per sequence ((conv %d − 1) × (inner %d + 2 × %d groups × state %d) + state × inner)", c.RecurrentLayers, per, conv, inner, groups, st)
}

func (q *Quant) sliding(c *Cache) error {
	w, ok := q.archInt("attention.sliding_window")
	if !ok || w <= 0 {
		return nil
	}
	c.Window = w
	v, ok := q.Headers[0].Lookup(q.Arch() + ".attention.sliding_window_pattern")
	switch {
	case !ok:
		// llama.cpp hard-codes some patterns per architecture; without
		// one in the file, count every layer as full: never less cache
		// than the model needs.
		c.Derivation += fmt.Sprintf("; sliding window %d with no pattern in the file: every layer counted full", w)
		return nil
	case v.Type == Array && v.Elem == Bool && len(v.Ints) == c.Layers:
		for l, s := range v.Ints {
			c.Sliding[l] = s == 1
		}
	case v.Type != Array && v.Type.integer() && v.Int > 0:
		for l := range c.Sliding {
			c.Sliding[l] = int64(l)%v.Int < v.Int-1
		}
	default:
		return fmt.Errorf("quant %s: %s.attention.sliding_window_pattern is neither a period nor one bool per layer", q.Label, q.Arch())
	}
	c.Derivation += fmt.Sprintf("; sliding layers capped at %d tokens", w)
	return nil
}
