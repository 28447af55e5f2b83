package sizing

import (
	"fmt"
	"strconv"

	"dossier/generator/facts"
)

// compressedMemory sizes DeepSeek-V4's cache (arch.CompressedKV) for one
// sequence: exact at each stated context, but not per token, since a
// ratio-r layer grows by one row every r tokens. Rows are counted at the
// site's cache-entry width like every other cache here; the compressors'
// window state is F32 (vLLM's CompressorStateCache asserts it).
func (c *calc) compressedMemory() {
	a := c.in.Arch
	kv := a.Compressed
	b := c.in.Sizing.KVDTypeBytes
	c.s.Unknown("kv.bytes_per_token", facts.UnitBytes, fmt.Sprintf(
		"compressed attention (compress_ratios): each layer holds a %s-token raw window and a layer of ratio r one more row every r tokens, which is no whole number of bytes per token; kv.bytes_at_context.N are exact", facts.Int(kv.Window)))
	counts := map[int64]int64{}
	var state int64
	for i, r := range kv.Ratios {
		counts[r]++
		row, index := kv.StateFactors(i)
		s1, ok1 := c.product("compressor state per sequence", term{"positions × (key + score) × overlap", row}, term{"head_dim", kv.RowValues}, term{"4 B (F32)", 4})
		s2, ok2 := c.product("indexer compressor state per sequence", term{"positions × (key + score) × overlap", index}, term{"index_head_dim", kv.IndexValues}, term{"4 B (F32)", 4})
		s, ok := c.sum("compressor state per sequence", term{"attention", s1}, term{"indexer", s2}, term{"so far", state})
		if !ok1 || !ok2 || !ok {
			c.s.Unknown("state.bytes_per_sequence", facts.UnitBytes, "overflow")
			c.cache = func(int64) (int64, bool) { return 0, false }
			return
		}
		state = s
	}
	c.add("state.bytes_per_sequence", state, facts.UnitBytes, fmt.Sprintf(
		"compressor window state, F32: %d ratio-4 layers × 2·4 positions × (key + score) of 2·%d values, plus their indexers' at 2·%d; %d ratio-128 layers × 128 positions × (key + score) of %d values; independent of context",
		counts[4], kv.RowValues, kv.IndexValues, counts[128], kv.RowValues), srcConfig)
	layout := fmt.Sprintf("%d window-only layers × min(n, %d) rows; %d ratio-4 layers × (min(n, %d) + ⌊n/4⌋ rows + ⌊n/4⌋ indexer keys of %d values); %d ratio-128 layers × (min(n, %d) + ⌊n/128⌋ rows); rows of head_dim %d values",
		counts[0], kv.Window, counts[4], kv.Window, kv.IndexValues, counts[128], kv.Window, kv.RowValues)
	at := func(n int64) (int64, bool) {
		var total int64
		for i := range kv.Ratios {
			w, cr, ix := kv.RowsAt(i, n)
			rows, ok1 := c.product("compressed KV rows", term{"rows", w + cr}, term{"head_dim", kv.RowValues}, term{"sizing.kvDtypeBytes", b})
			keys, ok2 := c.product("indexer keys", term{"keys", ix}, term{"index_head_dim", kv.IndexValues}, term{"sizing.kvDtypeBytes", b})
			if !ok1 || !ok2 {
				return 0, false
			}
			var ok bool
			if total, ok = c.sum("compressed KV cache", term{"so far", total}, term{"rows", rows}, term{"indexer keys", keys}); !ok {
				return 0, false
			}
		}
		return total, true
	}
	for _, n := range c.in.Sizing.Contexts {
		ns := strconv.FormatInt(n, 10)
		if a.Context > 0 && n > a.Context {
			c.s.Unknown("kv.bytes_at_context."+ns, facts.UnitBytes,
				fmt.Sprintf("%s tokens exceed the model's context of %s tokens (%s)", facts.Int(n), facts.Int(a.Context), reasonOr(a.ContextSrc, "max_position_embeddings")))
			continue
		}
		v, ok := at(n)
		if !ok {
			c.s.Unknown("kv.bytes_at_context."+ns, facts.UnitBytes, "overflow")
			continue
		}
		c.add("kv.bytes_at_context."+ns, v, facts.UnitBytes,
			fmt.Sprintf("one sequence of n = %s tokens: %s, at %d-byte cache entries", facts.Int(n), layout, b), srcConfig)
		if tot, ok := c.sum("KV + state per sequence", term{"KV", v}, term{"state", state}); ok {
			c.add("memory.per_sequence_at."+ns, tot, facts.UnitBytes, "KV cache + per-sequence state for one sequence", srcConfig)
		}
	}
	c.cache = func(n int64) (int64, bool) {
		v, ok := at(n)
		if !ok {
			return 0, false
		}
		return c.sum("KV + state per sequence", term{"KV", v}, term{"state", state})
	}
}
