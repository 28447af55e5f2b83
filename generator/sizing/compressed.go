package sizing

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"dossier/generator/arch"
	"dossier/generator/facts"
	"dossier/generator/internal/checked"
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

// ppStages is how vLLM's get_pp_indices (vllm/distributed/utils.py)
// splits layers over pp stages: layers ÷ pp each, the remainder one more
// each to the stages before the last, counting back from the one before
// it. It returns each stage's [start, end).
func ppStages(layers, pp int64) [][2]int64 {
	parts := make([]int64, pp)
	for i := range parts {
		parts[i] = layers / pp
	}
	for i := int64(2); i < layers%pp+2; i++ {
		parts[pp-i]++
	}
	out := make([][2]int64, pp)
	var start int64
	for i, n := range parts {
		out[i] = [2]int64{start, start + n}
		start += n
	}
	return out
}

// compressedGPU is DeepSeek-V4's cache on the GPUs of one placement. vLLM
// keeps one shared K=V row per token (num_kv_heads 1) and replicates it,
// the indexer's keys and the compressors' state on every tensor-parallel
// rank (only the query heads split), as for MLA's latent; a pipeline
// stage holds its own layers. The tightest GPU is the stage whose layers
// hold the most at the context asked.
type compressedGPU struct {
	kv       *arch.CompressedKV
	stages   [][2]int64 // layers of each pipeline stage
	row, key int64      // bytes per cached row and per indexer key
	state    []int64    // per stage: compressors' F32 state per sequence
	limit    int64      // the longest context searched
}

// stageAt is what stage s holds for one sequence of n tokens.
func (g *compressedGPU) stageAt(s int, n int64) int64 {
	total := g.state[s]
	for i := g.stages[s][0]; i < g.stages[s][1]; i++ {
		w, cr, ix := g.kv.RowsAt(int(i), n)
		total += (w+cr)*g.row + ix*g.key
	}
	return total
}

func (g *compressedGPU) at(n int64) int64 {
	var most int64
	for s := range g.stages {
		most = max(most, g.stageAt(s, n))
	}
	return most
}

// readAt is what the busiest stage reads of one sequence's cache to decode
// a token at context n (arch.CompressedKV.ReadAt).
func (g *compressedGPU) readAt(n int64) int64 {
	var most int64
	for s := range g.stages {
		var total int64
		for i := g.stages[s][0]; i < g.stages[s][1]; i++ {
			w, cr, ix := g.kv.ReadAt(int(i), n)
			total += (w+cr)*g.row + ix*g.key
		}
		most = max(most, total)
	}
	return most
}

// maxContext is the longest sequence whose cache fits usable bytes on
// every stage: at grows with n in steps, so a binary search up to limit.
func (g *compressedGPU) maxContext(usable int64) (int64, bool) {
	if g.at(0) > usable {
		return 0, true
	}
	lo, hi := int64(0), g.limit
	if g.at(hi) <= usable {
		return hi, true
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if g.at(mid) <= usable {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, true
}

// maxCompressedContext bounds the search for a longest context, far beyond
// any model's own (serving caps it there).
const maxCompressedContext = 1 << 36

// compressedPerGPU sizes DeepSeek-V4's cache on the tightest GPU of
// placement p at b bytes per cached value: only b = 1, vLLM's fp8_ds_mla
// layout, exists.
func (c *calc) compressedPerGPU(p placement, b int64) (gpuCache, string) {
	kv := c.in.Arch.Compressed
	if b != 1 {
		return gpuCache{}, "vLLM serves DeepSeek-V4's compressed cache only in its FP8 layout (fp8_ds_mla; deepseek_v4_attention.py asserts an fp8 kv-cache dtype): there is no " + dtypeName(b) + " cache to size"
	}
	switch {
	case kv.RopeValues <= 0 || kv.RopeValues >= kv.RowValues:
		return gpuCache{}, "field qk_rope_head_dim: absent or not below head_dim, and it sets which part of a cached row the engine keeps in BF16"
	case kv.TopK <= 0 && slices.Contains(kv.Ratios, arch.IndexRatio):
		return gpuCache{}, "field index_topk: absent, and it is how many compressed rows a ratio-4 layer attends"
	}
	layers := int64(len(kv.Ratios))
	if p.pp > layers {
		return gpuCache{}, fmt.Sprintf("%d pipeline stages for %d layers", p.pp, layers)
	}
	g := &compressedGPU{kv: kv, stages: ppStages(layers, p.pp), row: kv.EngineRowBytes(), key: kv.EngineIndexBytes(), limit: maxCompressedContext}
	// A stage holds at most n·(2 rows + 1 key) per layer at n ≥ 1 tokens,
	// plus its state: the search stops where that could leave int64.
	perToken, ok := checked.Product(layers, 2*g.row+g.key)
	if !ok || perToken <= 0 {
		return gpuCache{}, "overflow: cached bytes per token of DeepSeek-V4's layers"
	}
	g.limit = min(g.limit, math.MaxInt64/2/perToken)
	ctx, _ := c.servingContext()
	if need := max(c.in.Arch.Context, ctx, slices.Max(answerContexts())); g.limit < need {
		return gpuCache{}, fmt.Sprintf("overflow: DeepSeek-V4's cache of %s tokens at %d-byte rows", facts.Int(need), g.row)
	}
	most := int64(0)
	for _, st := range g.stages {
		var state int64
		for i := st[0]; i < st[1]; i++ {
			row, index := kv.StateFactors(int(i))
			r, ok1 := checked.Product(row, kv.RowValues, 4)
			x, ok2 := checked.Product(index, kv.IndexValues, 4)
			v, ok3 := checked.Sum(state, r, x)
			if !ok1 || !ok2 || !ok3 || v > math.MaxInt64/2 {
				return gpuCache{}, "overflow: compressor state of DeepSeek-V4's layers"
			}
			state = v
		}
		g.state = append(g.state, state)
		most = max(most, state)
	}
	// The stage the derivation describes: the one holding the most at the
	// serving context.
	tight := 0
	for s := range g.stages {
		if g.stageAt(s, ctx) > g.stageAt(tight, ctx) {
			tight = s
		}
	}
	counts := map[int64]int64{}
	for i := g.stages[tight][0]; i < g.stages[tight][1]; i++ {
		counts[kv.Ratios[i]]++
	}
	how := fmt.Sprintf("DeepSeek-V4's cache, whole on every tensor-parallel rank (one K=V row per token, replicated like MLA's latent); per pipeline stage its own layers (vLLM's get_pp_indices: %s), the tightest stage holding the most at the context asked; %d-byte rows (fp8_ds_mla: %d FP8 + %d BF16 RoPE values + %d scale bytes + 1 pad) and %d-byte indexer keys (%d FP8 + F32 scales); at the serving context the tightest is stage %d: %d window-only, %d ratio-4 and %d ratio-128 layers; plus the compressors' F32 window state",
		stageText(g.stages), g.row, kv.RowValues-kv.RopeValues, kv.RopeValues, (kv.RowValues-kv.RopeValues)/64, g.key, kv.IndexValues, tight, counts[0], counts[arch.IndexRatio], counts[128])
	return gpuCache{comp: g, state: most, how: how}, ""
}

// stageText lists the stages' layer ranges: "layers 0–21 | 22–42".
func stageText(stages [][2]int64) string {
	parts := make([]string, len(stages))
	for i, s := range stages {
		parts[i] = fmt.Sprintf("%d–%d", s[0], s[1]-1)
	}
	return "layers " + strings.Join(parts, " | ")
}

// compressedAttentionFLOPs is one decoded token's attention at context n
// on DeepSeek-V4's layers: its query heads over the rows they attend
// (arch.CompressedKV.ReadAt; QKᵀ and AV over one shared head_dim row),
// which split over tensor-parallel ranks, and the indexers scoring every
// key (index_n_heads × index_head_dim multiply-adds per key), which vLLM
// replicates on every rank (DeepseekV4Indexer's ReplicatedLinear).
func (c *calc) compressedAttentionFLOPs(n int64) (split, replicated float64) {
	a := c.in.Arch
	kv := a.Compressed
	per := 2 * float64(a.Heads) * 2 * float64(kv.RowValues)
	for i := range kv.Ratios {
		w, cr, ix := kv.ReadAt(i, n)
		split += float64(w+cr) * per
		replicated += float64(ix) * 2 * float64(a.IndexHeads) * float64(kv.IndexValues)
	}
	return split, replicated
}

// compressedPrefillFLOPs is a p-token prompt's causal attention on
// DeepSeek-V4's layers: token t attends what decoding at context t reads
// (compressedAttentionFLOPs summed over t = 1…p). Layers of one compress
// ratio read alike, so each ratio is summed once, in a fixed order.
func (c *calc) compressedPrefillFLOPs(p int64) (split, replicated float64) {
	a := c.in.Arch
	kv := a.Compressed
	first := map[int64]int{} // ratio → its first layer
	layers := map[int64]int64{}
	for i, r := range kv.Ratios {
		if _, ok := first[r]; !ok {
			first[r] = i
		}
		layers[r]++
	}
	per := 2 * float64(a.Heads) * 2 * float64(kv.RowValues)
	perKey := 2 * float64(a.IndexHeads) * float64(kv.IndexValues)
	for _, r := range slices.Sorted(maps.Keys(first)) {
		var rows, keys int64
		for t := int64(1); t <= p; t++ {
			w, cr, ix := kv.ReadAt(first[r], t)
			rows += w + cr
			keys += ix
		}
		split += float64(layers[r]*rows) * per
		replicated += float64(layers[r]*keys) * perKey
	}
	return split, replicated
}
