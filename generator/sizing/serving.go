package sizing

import (
	"fmt"
	"math"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/facts"
)

// placement is how n GPUs hold one model: tensor parallel across tp GPUs
// within a node (the largest of sizing.tensorParallelSizes that fits the
// node and divides n), pipeline stages of whole layers beyond.
type placement struct{ n, tp, pp int64 }

func placementFor(n int64, tpSizes []int64, perNode int64) placement {
	tp := int64(1)
	for _, s := range tpSizes {
		if s > tp && s <= perNode && s <= n && n%s == 0 {
			tp = s
		}
	}
	return placement{n: n, tp: tp, pp: n / tp}
}

func (p placement) String() string {
	if p.pp > 1 {
		return fmt.Sprintf("TP %d × PP %d", p.tp, p.pp)
	}
	return fmt.Sprintf("TP %d", p.tp)
}

// weights is the model's tensor bytes split by how ranks hold them.
type weights struct {
	total, replicated, kvProj, mtp int64
	src, how                       string
}

// weightSplit splits tensor bytes using the module tree's placement; without
// a tree every byte counts as sharded and the derivation says the figure is
// a lower bound.
func (c *calc) weightSplit(tb int64, tsrc string) weights {
	w := weights{total: tb, src: tsrc}
	an := c.in.Analytic
	if an == nil {
		w.how = "no module tree: every tensor counted as sharded, so weights per GPU are a lower bound"
		return w
	}
	w.replicated, w.kvProj, w.mtp = an.ReplicatedBytes, an.KVProjBytes, an.MTPBytes
	if w.replicated+w.kvProj+w.mtp > tb {
		// The tree does not describe these files; fall back rather than
		// report a negative sharded part.
		w.replicated, w.kvProj, w.mtp = 0, 0, 0
		w.how = "the module tree's split exceeds the tensor bytes: every tensor counted as sharded (a lower bound)"
		return w
	}
	w.how = an.ReplicatedWhat + "; GQA K/V projections split down to one KV head per rank; the rest sharded ÷ TP (embedding and head vocab-parallel; routed experts ÷ ranks, TP or EP alike); layers ÷ PP"
	return w
}

// perGPU is the weights the tightest GPU holds, without and with the MTP
// modules (loaded only when speculative decoding is on; the stage that
// holds them gets them whole ÷ TP).
func (c *calc) perGPU(w weights, p placement) (main, withMTP int64) {
	sharded := w.total - w.replicated - w.kvProj - w.mtp
	kvRanks := p.tp
	if h := c.in.Arch.KVHeads; c.in.Arch.Attention == arch.GQA && h > 0 && h < kvRanks {
		kvRanks = h
	}
	stage := ceilDiv(sharded, p.tp) + w.replicated + ceilDiv(w.kvProj, kvRanks)
	main = ceilDiv(stage, p.pp)
	return main, main + ceilDiv(w.mtp, p.tp)
}

// gpuCache is what one GPU caches per token and per sequence.
type gpuCache struct {
	full, sliding int64 // bytes per token of the full and the sliding layers on the GPU
	window        int64
	state         int64 // linear-attention state per sequence
	how           string
	comp          *compressedGPU // DeepSeek-V4's cache, which no per-token rate describes
}

func (g gpuCache) at(n int64) int64 {
	if g.comp != nil {
		return g.comp.at(n)
	}
	return g.full*n + g.sliding*min(n, g.window) + g.state
}

// readAt is what a decode step reads of one sequence's cache at context n:
// all of it, but for a sparse cache only what the step attends.
func (g gpuCache) readAt(n int64) int64 {
	if g.comp != nil {
		return g.comp.readAt(n)
	}
	return g.at(n)
}

// maxContext is the longest single sequence whose cache fits in usable
// bytes; ok is false when the cache does not grow with context.
func (g gpuCache) maxContext(usable int64) (int64, bool) {
	if g.comp != nil {
		return g.comp.maxContext(usable)
	}
	room := usable - g.state
	if room < 0 {
		return 0, true
	}
	if g.full+g.sliding == 0 {
		return 0, false
	}
	if n := room / (g.full + g.sliding); g.sliding == 0 || n <= g.window {
		return n, g.full > 0 || n < g.window
	}
	if g.full == 0 {
		return 0, false
	}
	return (room - g.sliding*g.window) / g.full, true
}

// cacheOn sizes the cache of the tightest GPU of placement p at b bytes per
// cached value: the stage with the most layers of each kind.
func (c *calc) cacheOn(p placement, b int64) (gpuCache, string) {
	k := cacheKey{p.tp, p.pp, b}
	r, ok := c.cached[k]
	if !ok {
		r.g, r.missing = c.cachePerGPU(p, b)
		if c.cached == nil {
			c.cached = map[cacheKey]cacheResult{}
		}
		c.cached[k] = r
	}
	return r.g, r.missing
}

// cacheKey is what cachePerGPU reads of its arguments.
type cacheKey struct{ tp, pp, b int64 }

type cacheResult struct {
	g       gpuCache
	missing string
}

// cachePerGPU is cacheOn without the memo.
func (c *calc) cachePerGPU(p placement, b int64) (gpuCache, string) {
	a := c.in.Arch
	if a.Compressed != nil {
		return c.compressedPerGPU(p, b)
	}
	if len(a.LayerKinds) == 0 {
		return gpuCache{}, reasonOr(a.Missing["layer_kinds"], "layer kinds unknown")
	}
	full := ceilDiv(int64(a.Count(arch.Full)), p.pp)
	sl := ceilDiv(int64(a.Count(arch.Sliding)), p.pp)
	lin := ceilDiv(int64(a.StateLayers()), p.pp)
	g := gpuCache{window: a.SlidingWindow}
	if full+sl > 0 {
		per, how, why := c.kvPerLayerRank(arch.Full, b, p.tp)
		if why != "" {
			return g, why
		}
		perSl, slHow := per, how
		if sl > 0 {
			if perSl, slHow, why = c.kvPerLayerRank(arch.Sliding, b, p.tp); why != "" {
				return g, why
			}
		}
		if sl > 0 && a.SlidingWindow <= 0 {
			return g, "sliding-window layers without a sliding_window size in config"
		}
		g.full, g.sliding = full*per, sl*perSl
		g.how = fmt.Sprintf("%d full-attention layer(s) per GPU × %s", full, how)
		switch {
		case sl > 0 && perSl != per:
			g.how += fmt.Sprintf("; %d sliding layer(s) × %s, capped at %s tokens", sl, slHow, facts.Int(a.SlidingWindow))
		case sl > 0:
			g.how += fmt.Sprintf("; %d sliding layer(s) capped at %s tokens", sl, facts.Int(a.SlidingWindow))
		}
	}
	if lin > 0 {
		st, how, why := c.stateLayers(p.tp, p.pp, nil)
		if why != "" {
			return g, why
		}
		g.state = st
		g.how += fmt.Sprintf("; per sequence and GPU the state of %s", how)
	}
	return g, ""
}

// kvDTypes are the cache widths a page shows side by side: the primary
// (the checkpoint's declared KV quantization, else the site's) and the
// other of BF16 and FP8.
func (c *calc) kvDTypes() (primary, other int64, primaryWhy string) {
	primary, primaryWhy = c.in.Sizing.KVDTypeBytes, "sizing.kvDtypeBytes"
	if c.in.Arch.Compressed != nil {
		return 1, 2, "vLLM, which serves DeepSeek-V4's compressed cache only in FP8 (fp8_ds_mla)"
	}
	if kb := c.in.Arch.Quant.KVCacheBits; kb > 0 {
		primary, primaryWhy = kb/8, "the checkpoint declares a "+c.in.Arch.Quant.KVCacheSrc
	}
	other = 1
	if primary == 1 {
		other = 2
	}
	return primary, other, primaryWhy
}

func dtypeName(b int64) string {
	switch b {
	case 1:
		return "fp8"
	case 2:
		return "bf16"
	case 4:
		return "fp32"
	}
	return fmt.Sprintf("%dbyte", b)
}

// servingResult is what the layout matrix needs from one configuration.
type servingResult struct {
	label        string
	atRest, fits bool
	known        bool
}

// serveOne computes fit and serving facts of n GPUs of acc under the
// label cfg ("8xH200"). full adds the side-by-side KV dtype, MTP and
// per-GPU margins a configured entry shows; the folded matrix gets the core.
func (c *calc) serveOne(cfg string, acc *catalog.Accelerator, n int64, tb int64, w weights, full bool) servingResult {
	sz := c.in.Sizing
	res := servingResult{label: cfg}
	hsrc := "catalog:hardware.yaml#" + acc.ID
	capacity := acc.Capacity()
	total := n * capacity
	capText := facts.Int(acc.MemoryBytes/(1<<20)) + " MiB"
	switch {
	case acc.GPUWiredShare > 0:
		capText = fmt.Sprintf("%s × %.0f%% (the share macOS lets the GPU wire by default)", facts.GB(float64(acc.MemoryBytes)), acc.GPUWiredShare*100)
	case acc.Vendor == "AMD" || acc.Class == "cpu":
		capText = facts.Int(acc.MemoryBytes) + " B"
	}
	verified := "as the device reports it (" + acc.MemorySource + ")"
	if !acc.MemoryVerified {
		verified = "UNVERIFIED: " + acc.MemorySource
	}
	if full {
		mf := c.add("fit."+cfg+".memory_bytes", total, facts.UnitBytes, fmt.Sprintf("%d × %s, %s", n, capText, verified), hsrc)
		if !acc.MemoryVerified {
			mf.Display += " (unverified)"
		}
		d := fmt.Sprintf("does not fit at rest: %s short of %d × %s", facts.GB(float64(tb-total)), n, capText)
		if tb <= total {
			d = fmt.Sprintf("fits at rest: %s spare of %d × %s", facts.GB(float64(total-tb)), n, capText)
		}
		c.add("fit."+cfg+".at_rest", tb <= total, facts.UnitBool, "tensor bytes ≤ total memory of the layout (weights only: the optimistic case)", w.src, hsrc).Display = d
	} else {
		c.add("fit."+cfg+".at_rest", tb <= total, facts.UnitBool, "tensor bytes ≤ "+fmt.Sprintf("%d × %s", n, capText), w.src, hsrc).Display = verdict(tb <= total)
	}
	f := c.add("fit."+cfg+".margin_bytes", total-tb, facts.UnitBytes, fmt.Sprintf("%d × %s − tensor bytes", n, capText), w.src, hsrc)
	f.Display = marginDisplay(total - tb)
	res.atRest = tb <= total
	p := c.placementOf(acc, n)
	main, withMTP := c.perGPU(w, p)
	if full {
		c.add("serving."+cfg+".placement", p.String(), facts.UnitText,
			fmt.Sprintf("the tensor and pipeline parallelism of deploy.%s (the first layout the engines accept and the memory holds; else the first they accept; else TP %d within a %d-GPU node)", cfg, p.tp, acc.GPUsPerNode), "site:hugo-like.yaml", hsrc, srcDeploy)
		c.add("serving."+cfg+".weights_bytes_per_gpu", main, facts.UnitBytes, fmt.Sprintf("%s on the tightest GPU under %s; multi-token-prediction modules not loaded", w.how, p), w.src, srcAnalytic)
	} else {
		c.add("serving."+cfg+".weights_bytes_per_gpu", main, facts.UnitBytes, "tightest GPU under "+p.String()+", placed as for the configured entries", w.src, srcAnalytic)
	}
	if full && w.mtp > 0 {
		c.add("serving."+cfg+".weights_bytes_per_gpu_with_mtp", withMTP, facts.UnitBytes, fmt.Sprintf("weights per GPU + the multi-token-prediction modules (%s on disk) ÷ TP %d, loaded only with speculative decoding", facts.GB(float64(w.mtp)), p.tp), w.src, srcAnalytic)
	}
	// vLLM: usable = memory × gpu_memory_utilization − weights − activation
	// and CUDA-graph reserve; the rest is KV cache.
	budget := c.gpuBudget(acc)
	if full {
		c.add("fit."+cfg+".usable_bytes", n*budget, facts.UnitBytes,
			fmt.Sprintf("%d × (%s × %.2f gpu_memory_utilization − %s reserve)", n, facts.GB(float64(capacity)), sz.GPUMemoryUtilization, facts.GB(float64(sz.ReservePerGPUBytes))), hsrc, "site:hugo-like.yaml")
	}
	primary, other, why := c.kvDTypes()
	ctx, _ := c.servingContext()
	for _, b := range []int64{primary, other} {
		if b == other && !full {
			break
		}
		suffix := ""
		if b == other {
			suffix = "_" + dtypeName(b)
		}
		g, missing := c.cacheOn(p, b)
		keys := []string{"kv_bytes_per_gpu_per_token", "max_concurrency", "max_context", "fits"}
		if missing != "" {
			for _, k := range keys {
				c.s.Unknown("serving."+cfg+"."+k+suffix, facts.UnitCount, missing)
			}
			continue
		}
		dt := fmt.Sprintf("%d-byte (%s) cache", b, dtypeName(b))
		if b == primary {
			dt += " from " + why
		}
		if !full {
			g.how = "per GPU under " + p.String()
		}
		if g.comp != nil {
			c.s.Unknown("serving."+cfg+".kv_bytes_per_gpu_per_token"+suffix, facts.UnitBytes, "compressed attention (compress_ratios): a layer of ratio r grows by one row every r tokens, no whole number of bytes per token; max_concurrency and max_context count the rows at each context ("+g.how+")")
		} else {
			c.add("serving."+cfg+".kv_bytes_per_gpu_per_token"+suffix, g.full, facts.UnitBytes, g.how+"; "+dt, srcConfig)
		}
		if g.state > 0 && b == primary && full {
			c.add("serving."+cfg+".state_bytes_per_gpu_per_sequence", g.state, facts.UnitBytes, g.how, srcConfig)
		}
		usable := budget - main
		if b == primary && full {
			c.add("serving."+cfg+".usable_bytes_per_gpu", usable, facts.UnitBytes,
				fmt.Sprintf("%s × %.2f − %s reserve − %s weights on the tightest GPU: what is left for the cache", facts.GB(float64(capacity)), sz.GPUMemoryUtilization, facts.GB(float64(sz.ReservePerGPUBytes)), facts.GB(float64(main))), hsrc, w.src, "site:hugo-like.yaml").Display = signedGB(usable)
		}
		perSeq := g.at(ctx)
		conc := int64(0)
		if usable > 0 && perSeq > 0 {
			conc = usable / perSeq
		}
		cf := c.add("serving."+cfg+".max_concurrency"+suffix, conc, facts.UnitCount,
			fmt.Sprintf("⌊(%s per GPU × utilization − reserve − %s weights) ÷ %s cache per sequence at %s tokens⌋ (%s)", facts.GB(float64(budget)), facts.GB(float64(main)), facts.GB(float64(perSeq)), facts.Int(ctx), dt), srcConfig, hsrc)
		if perSeq == 0 {
			c.s.Unknown("serving."+cfg+".max_concurrency"+suffix, facts.UnitCount, "the model holds no per-sequence cache: concurrency is not bounded by memory")
		} else if usable <= 0 {
			cf.Display = "0 (the weights alone exceed usable memory)"
		}
		mc, grows := g.maxContext(usable)
		limit := c.in.Arch.Context
		switch {
		case !grows && limit > 0:
			c.add("serving."+cfg+".max_context"+suffix, limit, facts.UnitTokens, "the cache does not grow with context: the model's own context", srcConfig)
		case !grows:
			c.s.Unknown("serving."+cfg+".max_context"+suffix, facts.UnitTokens, "the cache does not grow with context and config.json states no maximum")
		case limit > 0 && mc > limit:
			c.add("serving."+cfg+".max_context"+suffix, limit, facts.UnitTokens, fmt.Sprintf("%s tokens fit one sequence's cache; capped at the model's context", facts.Int(mc)), srcConfig, hsrc)
		default:
			c.add("serving."+cfg+".max_context"+suffix, mc, facts.UnitTokens, "the longest single sequence whose cache fits usable memory per GPU ("+dt+")", srcConfig, hsrc)
		}
		need := perSeq * sz.Concurrency
		fits := usable >= need
		c.add("serving."+cfg+".fits"+suffix, fits, facts.UnitBool,
			fmt.Sprintf("weights per GPU + %d sequence(s) × %s tokens of cache ≤ usable memory, on the tightest GPU", sz.Concurrency, facts.Int(ctx)), srcConfig, hsrc).Display = verdict(fits)
		if b == primary {
			res.fits, res.known = fits, true
			switch {
			case full && usable > 0:
				defer c.speed(speedIn{cfg: cfg, acc: acc, p: p, weightsGPU: main, cache: g, maxConc: conc})
			case full:
				c.s.Unknown("speed."+cfg+".decode_tokens_per_second", facts.UnitTokensPerSec, "the weights per GPU exceed its usable memory: see the offload plans")
				c.expertOffload(speedIn{cfg: cfg, acc: acc, p: p, weightsGPU: main, cache: g}, budget)
			}
		}
		if b == primary && full {
			c.add("fit."+cfg+".serving", fits, facts.UnitBool, "serving."+cfg+".fits: the tightest GPU, not the node sum", srcConfig, hsrc).Display = verdict(fits)
			c.add("fit."+cfg+".serving_margin_bytes", usable-need, facts.UnitBytes, "usable per GPU − cache per GPU at the serving context × concurrency", srcConfig, hsrc).Display = marginDisplay(usable-need) + " per GPU"
			if full && w.mtp > 0 {
				u := budget - withMTP
				mtpFits := u >= need
				c.add("serving."+cfg+".fits_with_mtp", mtpFits, facts.UnitBool, "as serving."+cfg+".fits, with the multi-token-prediction modules loaded for speculative decoding", srcConfig, hsrc).Display = verdict(mtpFits)
			}
		}
	}
	c.record(costOp{kind: opLayout, label: cfg, id: acc.ID, n: n, full: full})
	return res
}

// gpuBudget is what one GPU of acc offers weights and cache: its capacity
// × gpu_memory_utilization − the per-GPU reserve.
func (c *calc) gpuBudget(acc *catalog.Accelerator) int64 {
	sz := c.in.Sizing
	return int64(math.Floor(float64(acc.Capacity())*sz.GPUMemoryUtilization)) - sz.ReservePerGPUBytes
}

// servesAt says whether n GPUs of acc, placed as serveOne places them,
// hold on their tightest GPU the weights and the primary-dtype cache of the
// stated concurrency at ctx tokens; missing is why the cache is unknown.
func (c *calc) servesAt(acc *catalog.Accelerator, n int64, w weights, ctx int64) (fits bool, missing string) {
	p := c.placementOf(acc, n)
	main, _ := c.perGPU(w, p)
	primary, _, _ := c.kvDTypes()
	g, missing := c.cacheOn(p, primary)
	if missing != "" {
		return false, missing
	}
	return c.gpuBudget(acc)-main >= g.at(ctx)*c.in.Sizing.Concurrency, ""
}

// speedOfLayout predicts speed for n GPUs of acc placed as serveOne places
// them, for a layout the matrix found rather than a configured entry.
func (c *calc) speedOfLayout(cfg string, acc *catalog.Accelerator, n int64, w weights) {
	p := c.placementOf(acc, n)
	main, _ := c.perGPU(w, p)
	primary, _, _ := c.kvDTypes()
	g, missing := c.cacheOn(p, primary)
	usable := c.gpuBudget(acc) - main
	if missing != "" || usable <= 0 {
		return
	}
	ctx, _ := c.servingContext()
	conc := int64(0)
	if per := g.at(ctx); per > 0 {
		conc = usable / per
	}
	c.speed(speedIn{cfg: cfg, acc: acc, p: p, weightsGPU: main, cache: g, maxConc: conc})
}

func signedGB(b int64) string {
	if b < 0 {
		return "−" + facts.GB(float64(-b))
	}
	return facts.GB(float64(b))
}

// layouts are the GPU counts the matrix tries for one accelerator: the
// tensor-parallel sizes that fit its node, the whole node, then whole
// nodes until one holds the weights at rest and serves (at most
// maxNodes).
func layouts(tpSizes []int64, perNode int64) []int64 {
	var out []int64
	for _, s := range tpSizes {
		if s <= perNode {
			out = append(out, s)
		}
	}
	if len(out) == 0 || out[len(out)-1] != perNode {
		out = append(out, perNode)
	}
	return out
}

const maxNodes = 16
