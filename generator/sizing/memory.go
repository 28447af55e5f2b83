package sizing

import (
	"fmt"
	"strconv"

	"dossier/generator/arch"
	"dossier/generator/facts"
)

// kvPerLayer is the cache one attention layer of kind k holds per token,
// in bytes, with the formula used, at the site's cache dtype on one GPU.
func (c *calc) kvPerLayer(k arch.LayerKind) (int64, string, string) {
	return c.kvPerLayerRank(k, c.in.Sizing.KVDTypeBytes, 1)
}

// kvPerLayerRank is the cache one attention layer of kind k holds per
// token on one of tp tensor-parallel ranks, at b bytes per value. MLA
// caches one latent of kv_lora_rank + qk_rope_head_dim values (as vLLM and
// SGLang serve it) and every rank holds it whole; the head count does not
// appear. Other attention caches K and V per KV head in the kind's own
// shape (arch.KVShapeOf), the heads split across ranks down to one per
// rank (replicated beyond, as vLLM's QKVParallelLinear does).
func (c *calc) kvPerLayerRank(k arch.LayerKind, b, tp int64) (int64, string, string) {
	a := c.in.Arch
	switch a.Attention {
	case arch.MLA:
		if a.KVLoraRank == 0 || a.QKRopeDim == 0 {
			return 0, "", "MLA config lacks kv_lora_rank or qk_rope_head_dim"
		}
		per := a.KVLoraRank + a.QKRopeDim
		how := fmt.Sprintf("MLA latent (kv_lora_rank %d + qk_rope_head_dim %d) × %d B", a.KVLoraRank, a.QKRopeDim, b)
		if a.IndexHeadDim > 0 {
			// DeepSeek-V3.2: the lightning indexer keeps its own key cache.
			per += a.IndexHeadDim
			how = fmt.Sprintf("MLA latent (kv_lora_rank %d + qk_rope_head_dim %d) + indexer key (index_head_dim %d) × %d B", a.KVLoraRank, a.QKRopeDim, a.IndexHeadDim, b)
		}
		if tp > 1 {
			how += fmt.Sprintf(", whole on each of %d ranks", tp)
		}
		return per * b, how, ""
	case arch.GQA:
		if r := a.Missing["kv_shape"]; r != "" {
			return 0, "", r
		}
		s := a.KVShapeOf(k)
		if s.Heads == 0 || s.KDim == 0 {
			return 0, "", reasonOr(a.Missing["num_key_value_heads"], reasonOr(a.Missing["head_dim"], "config lacks num_key_value_heads or head_dim"))
		}
		heads := max(ceilDiv(s.Heads, tp), 1)
		_, own := a.KindKV[k]
		if s.VDim != s.KDim {
			// K at head_dim, V at v_head_dim (MiMo-V2-Flash: 192 and 128).
			per, ok := c.product("KV cache per layer and token", term{"KV heads per rank", heads}, term{"head_dim + v_head_dim", s.KDim + s.VDim}, term{"sizing.kvDtypeBytes", b})
			if !ok {
				return 0, "", "overflow"
			}
			how := fmt.Sprintf("max(%d KV heads ÷ TP %d, 1) = %d head(s) × (K head_dim %d + V v_head_dim %d) × %d B", s.Heads, tp, heads, s.KDim, s.VDim, b)
			if own {
				how += fmt.Sprintf(" (the %s layers' own shape: %s)", k, s.Src)
			}
			return per, how, ""
		}
		per, ok := c.product("KV cache per layer and token", term{"2 (K and V)", 2}, term{"KV heads per rank", heads}, term{"head_dim", s.KDim}, term{"sizing.kvDtypeBytes", b})
		if !ok {
			return 0, "", "overflow"
		}
		how := fmt.Sprintf("2 (K and V) × %d KV heads × head_dim %d (%s) × %d B", s.Heads, s.KDim, a.HeadDimSrc, b)
		if own {
			how = fmt.Sprintf("2 (K and V) × %d KV heads × head_dim %d (the %s layers' own shape: %s) × %d B", s.Heads, s.KDim, k, s.Src, b)
		}
		if tp > 1 {
			how = fmt.Sprintf("2 (K and V) × max(%d KV heads ÷ TP %d, 1) = %d head(s) per rank × head_dim %d × %d B", s.Heads, tp, heads, s.KDim, b)
			if own {
				how += fmt.Sprintf(" (the %s layers' own shape: %s)", k, s.Src)
			}
		}
		return per, how, ""
	}
	return 0, "", "unknown attention kind"
}

// statePerLayerRank is the fixed state one linear-attention layer holds per
// sequence on one of tp ranks: the recurrent state in the state dtype plus
// the short-conv states (kernel − 1 positions of q, k and v) in the model
// dtype, both split by heads across ranks (down to one head per rank).
func (c *calc) statePerLayerRank(tp int64) (int64, string, string) {
	a := c.in.Arch
	if a.LinearKHeads == 0 || a.LinearKHeadDim == 0 || a.LinearVHeadDim == 0 {
		return 0, "", "config lacks the linear-attention head count or head dims"
	}
	sb, cb := c.in.Sizing.StateDTypeBytes, c.in.Sizing.KVDTypeBytes
	vHeads := a.LinearVHeads
	if vHeads == 0 {
		vHeads = a.LinearKHeads
	}
	kHeads := max(ceilDiv(a.LinearKHeads, tp), 1)
	vHeads = max(ceilDiv(vHeads, tp), 1)
	rec, ok := c.product("linear-attention state per layer", term{"value heads per rank", vHeads}, term{"key head dim", a.LinearKHeadDim}, term{"value head dim", a.LinearVHeadDim}, term{"sizing.stateDtypeBytes", sb})
	if !ok {
		return 0, "", "overflow"
	}
	conv := int64(0)
	convDesc := "no short convolution in config"
	if a.LinearConvKernel > 1 {
		ch := 2*kHeads*a.LinearKHeadDim + vHeads*a.LinearVHeadDim
		if conv, ok = c.product("short-convolution state per layer", term{"kernel − 1", a.LinearConvKernel - 1}, term{"q/k/v channels", ch}, term{"sizing.kvDtypeBytes", cb}); !ok {
			return 0, "", "overflow"
		}
		convDesc = fmt.Sprintf("(kernel %d − 1) × %d q/k/v channels × %d B", a.LinearConvKernel, ch, cb)
	}
	how := fmt.Sprintf("%s: %d heads × %d × %d recurrent state × %d B + %s",
		a.LinearKind, vHeads, a.LinearKHeadDim, a.LinearVHeadDim, sb, convDesc)
	if tp > 1 {
		how += fmt.Sprintf(" (heads split across TP %d)", tp)
	}
	return rec + conv, how, ""
}

// servingContext is the context the serving verdict assumes: the site's,
// capped at the model's own context when config.json states a shorter one.
func (c *calc) servingContext() (n int64, capped bool) {
	n = c.in.Sizing.ServingContext
	if ctx := c.in.Arch.Context; ctx > 0 && ctx < n {
		return ctx, true
	}
	return n, false
}

// cacheAt is KV plus linear state for one sequence of n tokens.
type cacheAt func(n int64) (int64, bool)

// cacheBytes is full × perFull × n + sliding × perSl × window + state: the
// cache of one sequence of n tokens, checked for overflow.
func (c *calc) cacheBytes(full, sl, perFull, perSl, n, window, state int64) (int64, bool) {
	what := fmt.Sprintf("KV cache at %d tokens", n)
	f, ok1 := c.product(what, term{"full-attention layers", full}, term{"bytes per layer and token", perFull}, term{"tokens (sizing.contexts / sizing.servingContext)", n})
	s, ok2 := c.product(what, term{"sliding layers", sl}, term{"bytes per sliding layer and token", perSl}, term{"window", window})
	if !ok1 || !ok2 {
		return 0, false
	}
	return c.sum(what, term{"full-attention cache", f}, term{"sliding cache", s}, term{"linear state", state})
}

// memory sizes KV cache and linear state and sets c.cache for fit.
func (c *calc) memory() {
	a := c.in.Arch
	if a.Compressed != nil {
		c.compressedMemory()
		return
	}
	if len(a.LayerKinds) == 0 {
		// Without layer kinds neither the per-token cache nor the
		// per-sequence state can be sized: an SSM layer holds a state, an
		// attention layer a cache, and the config does not say which is which.
		why := reasonOr(a.Missing["layer_kinds"], reasonOr(a.Missing["num_hidden_layers"], "layer kinds unknown"))
		c.s.Unknown("kv.bytes_per_token", facts.UnitBytes, why)
		c.s.Unknown("state.bytes_per_sequence", facts.UnitBytes, why)
		for _, n := range c.in.Sizing.Contexts {
			c.s.Unknown("kv.bytes_at_context."+strconv.FormatInt(n, 10), facts.UnitBytes, why)
		}
		c.cache = func(int64) (int64, bool) { return 0, false }
		return
	}
	full, sl, lin := int64(a.Count(arch.Full)), int64(a.Count(arch.Sliding)), int64(a.StateLayers())
	per, deriv, why := c.kvPerLayer(arch.Full)
	perSl, slDeriv := per, deriv
	if sl > 0 && why == "" {
		perSl, slDeriv, why = c.kvPerLayer(arch.Sliding)
	}
	kvOK := why == "" || full+sl == 0
	if sl > 0 && a.SlidingWindow <= 0 {
		why, kvOK = "sliding-window layers without a sliding_window size in config", false
	}
	if full+sl > 0 && !kvOK {
		c.s.Unknown("kv.bytes_per_token", facts.UnitBytes, why)
	} else {
		c.add("kv.bytes_per_token_per_layer", per, facts.UnitBytes, deriv, srcConfig)
		if perSl != per {
			c.add("kv.sliding_bytes_per_token_per_layer", perSl, facts.UnitBytes, slDeriv, srcConfig)
		}
		how := fmt.Sprintf("%d full-attention layers × %s; linear-attention, state-space and convolution layers hold no per-token cache", full, facts.Int(per))
		switch {
		case sl > 0:
			how = fmt.Sprintf("%d full-attention layers × %s; the %d sliding-window layers stop growing at %s tokens (kv.sliding_bytes_per_token)", full, facts.Int(per), sl, facts.Int(a.SlidingWindow))
		case lin == 0 && int64(len(a.LayerKinds)) == full:
			how = fmt.Sprintf("%d full-attention layers × %s (every layer attends to the whole context)", full, facts.Int(per))
		case lin == 0:
			how = fmt.Sprintf("%d full-attention layers × %s; the other %d layers have no token mixer", full, facts.Int(per), int64(len(a.LayerKinds))-full)
		}
		perToken, ok1 := c.product("KV cache per token", term{"full-attention layers", full}, term{"bytes per layer and token", per})
		slPerToken, ok2 := c.product("sliding KV cache per token", term{"sliding layers", sl}, term{"bytes per sliding layer and token", perSl})
		if !ok1 || !ok2 {
			c.s.Unknown("kv.bytes_per_token", facts.UnitBytes, "overflow")
			kvOK = false
		} else {
			c.add("kv.bytes_per_token", perToken, facts.UnitBytes, how, layoutSources(a)...)
		}
		if sl > 0 && kvOK {
			c.add("kv.sliding_bytes_per_token", slPerToken, facts.UnitBytes,
				fmt.Sprintf("%d sliding layers × %s, only up to the %s-token window", sl, facts.Int(perSl), facts.Int(a.SlidingWindow)), srcConfig)
		}
	}
	var state int64
	stateOK := true
	if lin > 0 {
		var swhy, how string
		state, how, swhy = c.stateLayers(1, 1, func(k arch.LayerKind, per int64, deriv string) {
			c.add(stateFacts[k], per, facts.UnitBytes, deriv, srcConfig)
		})
		if swhy != "" {
			c.s.Unknown("state.bytes_per_sequence", facts.UnitBytes, swhy)
			stateOK = false
		} else {
			c.add("state.bytes_per_sequence", state, facts.UnitBytes, how+", independent of context", srcConfig)
		}
	} else {
		c.add("state.bytes_per_sequence", int64(0), facts.UnitBytes, "no linear-attention, state-space or convolution layers", srcConfig)
	}
	at := func(n int64) (int64, bool) {
		if !kvOK || !stateOK {
			return 0, false
		}
		window := n
		if a.SlidingWindow > 0 && a.SlidingWindow < n {
			window = a.SlidingWindow
		}
		return c.cacheBytes(full, sl, per, perSl, n, window, state)
	}
	for _, n := range c.in.Sizing.Contexts {
		ns := strconv.FormatInt(n, 10)
		if !kvOK {
			c.s.Unknown("kv.bytes_at_context."+ns, facts.UnitBytes, why)
			continue
		}
		if a.Context > 0 && n > a.Context {
			c.s.Unknown("kv.bytes_at_context."+ns, facts.UnitBytes,
				fmt.Sprintf("%s tokens exceed the model's context of %s tokens (%s)", facts.Int(n), facts.Int(a.Context), reasonOr(a.ContextSrc, "max_position_embeddings")))
			continue
		}
		window := n
		if a.SlidingWindow > 0 && a.SlidingWindow < n {
			window = a.SlidingWindow
		}
		kv, ok := c.cacheBytes(full, sl, per, perSl, n, window, 0)
		if !ok {
			c.s.Unknown("kv.bytes_at_context."+ns, facts.UnitBytes, "overflow")
			continue
		}
		how := fmt.Sprintf("one sequence of %s tokens at %d-byte cache entries", facts.Int(n), c.in.Sizing.KVDTypeBytes)
		if sl > 0 {
			how += fmt.Sprintf("; sliding layers hold %s tokens", facts.Int(window))
		}
		c.add("kv.bytes_at_context."+ns, kv, facts.UnitBytes, how, srcConfig)
		if tot, ok := at(n); ok {
			c.add("memory.per_sequence_at."+ns, tot, facts.UnitBytes, "KV cache + per-sequence state for one sequence", srcConfig)
		}
	}
	c.cache = at
}
