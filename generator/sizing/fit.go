package sizing

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/deploy"
	"dossier/generator/facts"
	"dossier/generator/internal/checked"
)

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

func (c *calc) fit() {
	tb, tsrc, ok := c.tensorBytes()
	if !ok {
		why := "tensor bytes unknown"
		if f := c.s.Get("bytes.tensors"); f != nil && f.Reason != "" {
			why += ": " + f.Reason
		}
		c.s.Unknown("fit.min_gpus", facts.UnitCount, why)
		return
	}
	sz := c.in.Sizing
	ctx, capped := c.servingContext()
	cacheBytes, cacheOK := int64(0), false
	if c.cache != nil {
		if per, ok := c.cache(ctx); ok {
			cacheBytes, cacheOK = c.product("cache at the serving context × concurrency", term{"bytes per sequence", per}, term{"sizing.concurrency", sz.Concurrency})
			if cacheOK {
				_, cacheOK = c.sum("tensor bytes + cache", term{"tensor bytes", tb}, term{"cache bytes", cacheBytes})
			}
		}
	}
	reserve := "no further reserve per GPU"
	if sz.ReservePerGPUBytes > 0 {
		reserve = facts.GB(float64(sz.ReservePerGPUBytes)) + " reserved per GPU for activations and CUDA graphs"
	}
	ctxText := facts.Int(ctx) + "-token context"
	if capped {
		ctxText = fmt.Sprintf("%s-token context (the model's maximum; the site's serving context is %s)", facts.Int(ctx), facts.Int(sz.ServingContext))
	}
	assume := fmt.Sprintf("%s × %d concurrent sequence(s), per GPU as vLLM and SGLang place the model: %d%% of each GPU's memory usable (gpu_memory_utilization), %s",
		ctxText, sz.Concurrency, int(math.Round(sz.GPUMemoryUtilization*100)), reserve)
	c.add("fit.assumptions", assume, facts.UnitText, "site sizing settings", "site:hugo-like.yaml")
	// The same conditions one by one, for the verdicts that state them.
	primary, _, kvWhy := c.kvDTypes()
	c.add("fit.context", ctx, facts.UnitTokens, "the context the serving verdicts assume (sizing.servingContext, capped at the model's own)", "site:hugo-like.yaml", srcConfig)
	c.add("fit.concurrency", sz.Concurrency, facts.UnitCount, "sequences the serving verdicts assume (sizing.concurrency)", "site:hugo-like.yaml")
	c.add("fit.kv_dtype", dtypeName(primary), facts.UnitText, "the cache width the serving verdicts assume: "+kvWhy, "site:hugo-like.yaml", srcConfig)
	if cacheOK {
		c.add("fit.cache_bytes", cacheBytes, facts.UnitBytes, "KV + state at the serving context × concurrency, one copy (a node-level view; the verdicts count per GPU)", srcConfig)
	}
	if sp := sz.Speed; sp.MemoryEfficiency > 0 && sp.ComputeEfficiency > 0 && sp.InterconnectEfficiency > 0 && sp.PromptTokens > 0 {
		how := fmt.Sprintf("decode roofline at %.0f%% of HBM bandwidth and prefill at %.0f%% of dense peak FLOP/s, collectives at %.0f%% of the interconnect (bandwidth term only), a prompt and decode context of %s tokens, routed experts hit as under uniform routing",
			sp.MemoryEfficiency*100, sp.ComputeEfficiency*100, sp.InterconnectEfficiency*100, facts.Int(sp.PromptTokens))
		if cat := c.in.Catalog; cat != nil && cat.Speed != nil && cat.Speed.Fit != nil {
			// The fitted model replaces the site's memory and compute
			// efficiencies; the interconnect's and the context remain.
			how = fmt.Sprintf("a step model fitted on %d public measurements (data/speed_fit.yaml: memory efficiency per hardware class, a fixed cost per layer and per collective, a compute efficiency from the prefill pairs; data/speed.yaml states it where the fit has none), collectives at %.0f%% of the interconnect, a prompt and decode context of %s tokens, routed experts hit as under uniform routing",
				cat.Speed.Fit.Pairs, sp.InterconnectEfficiency*100, facts.Int(sp.PromptTokens))
		}
		src := "site:hugo-like.yaml sizing.speed"
		if sp.Source != "" {
			src += " (" + sp.Source + ")"
		}
		c.add("speed.assumptions", how, facts.UnitText, "site speed settings", src)
	}
	if c.in.Catalog == nil {
		return
	}
	w := c.weightSplit(tb, tsrc)
	c.plans = &planner{w: w, memo: map[quoteKey][]deploy.Candidate{}}
	done := map[string]servingResult{}
	for _, hw := range c.in.Hardware {
		n, id, _ := config.ParseHardware(hw)
		acc := c.in.Catalog.Accelerators[id]
		if acc == nil {
			c.s.Unknown("fit."+hw+".at_rest", facts.UnitBool, "accelerator "+id+" is not in data/hardware.yaml")
			continue
		}
		if n < 1 || n > checked.MaxGPUs {
			c.s.Unknown("fit."+hw+".at_rest", facts.UnitBool, fmt.Sprintf("a layout of %d GPUs is outside 1..%d", n, checked.MaxGPUs))
			continue
		}
		done[hw] = c.serveOne(hw, acc, int64(n), tb, w, true)
	}
	ids := make([]string, 0, len(c.in.Catalog.Accelerators))
	for id := range c.in.Catalog.Accelerators {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var serving []candidate // the first layout that serves, per accelerator
	for _, id := range ids {
		acc := c.in.Catalog.Accelerators[id]
		hsrc := catalog.HardwareSourcePrefix + id
		min := ceilDiv(tb, acc.Capacity())
		c.add("fit.min_gpus."+id, min, facts.UnitCount,
			fmt.Sprintf("⌈%s tensor bytes ÷ %s per GPU⌉: weights at rest only", facts.GB(float64(tb)), facts.GB(float64(acc.Capacity()))), tsrc, hsrc)
		perNode := int64(acc.GPUsPerNode)
		var atRest, serves int64
		var undeployed int64 // the first count whose memory serves but that no engine launches
		label := func(n int64) string { return fmt.Sprintf("%dx%s", n, id) }
		try := func(n int64) {
			r, ok := done[label(n)]
			if !ok {
				r = c.serveOne(label(n), acc, n, tb, w, false)
				done[label(n)] = r
			}
			if r.atRest && atRest == 0 {
				atRest = n
			}
			_, deployable := c.chosen(acc, n)
			switch {
			case !r.known || !r.fits || serves != 0:
			case deployable:
				serves = n
				serving = append(serving, candidate{label: label(n), id: id, n: n})
			case undeployed == 0:
				undeployed = n
			}
		}
		for _, n := range layouts(sz.TensorParallelSizes, perNode) {
			try(n)
		}
		// Whole nodes beyond one, until a layout holds the weights and
		// serves; a cache that outgrows any layout stops the search. Only
		// the two layouts found are recorded: the counts passed on the way
		// are arithmetic no reader launches, and recording them put up to
		// 128 GPUs of every consumer card on K3's page.
		servingCtx, _ := c.servingContext()
		for k := int64(2); k <= maxNodes && (atRest == 0 || (serves == 0 && cacheOK)); k++ {
			n := k * perNode
			switch {
			case n*acc.Capacity() < tb:
				continue
			case atRest == 0:
				try(n)
				continue
			}
			fits, _ := c.servesAt(acc, n, w, servingCtx)
			_, deployable := c.chosen(acc, n)
			switch {
			case fits && deployable:
				try(n)
			case fits && undeployed == 0:
				undeployed = n
			}
		}
		if atRest > 0 {
			c.add("fit.smallest_at_rest."+id, label(atRest), facts.UnitText, "the smallest layout (the tensor-parallel sizes within a node, then whole nodes) whose memory holds the tensor bytes", tsrc, hsrc)
			c.add("fit.deployable_gpus."+id, atRest, facts.UnitCount,
				fmt.Sprintf("%d rounded up to a tensor-parallel size %v within a %d-GPU node, else whole nodes", min, sz.TensorParallelSizes, acc.GPUsPerNode), tsrc, hsrc, "site:hugo-like.yaml")
			c.record(costOp{kind: opDeployable, id: id, n: atRest})
		} else {
			c.s.Unknown("fit.smallest_at_rest."+id, facts.UnitText, fmt.Sprintf("no layout up to %d nodes holds the weights", maxNodes))
		}
		switch {
		case serves > 0:
			c.add("fit.smallest_serving."+id, label(serves), facts.UnitText, "the smallest layout whose tightest GPU holds its weights and the cache at the serving context — "+assume, tsrc, hsrc)
			c.add("fit.deployable_gpus_serving."+id, serves, facts.UnitCount, "GPUs of fit.smallest_serving."+id+" (a deployable layout)", tsrc, hsrc)
		case cacheOK && undeployed > 0:
			// Memory is not what stops it: say what is.
			c.s.Unknown("fit.smallest_serving."+id, facts.UnitText, fmt.Sprintf("%s holds the weights and the cache at the stated context, but no engine launches it: %s", label(undeployed), briefly(c.plan(acc, undeployed))))
		case cacheOK:
			c.s.Unknown("fit.smallest_serving."+id, facts.UnitText, fmt.Sprintf("no layout up to %d nodes serves at the stated context", maxNodes))
		}
	}
	// Which layout is cheapest is the price lists' to say (answerAll), but
	// the answer box quotes its speed: it is predicted here for the layout
	// the prices choose, and the answer checks the choice.
	best, _, priced := c.cheapestOf(serving)
	c.record(costOp{kind: opCheapest, label: best.label, cands: serving})
	// Configured entries have their speed already.
	if priced && !slices.Contains(c.in.Hardware, best.label) {
		c.speedOfLayout(best.label, c.in.Catalog.Accelerators[best.id], best.n, w)
	}
	for _, id := range ids {
		c.minGPUsAtContexts(c.in.Catalog.Accelerators[id], tb, w)
	}
	c.deployments(ids, w)
}

// minGPUsAtContexts records, at each of the site's contexts, the GPU count
// of the smallest layout of acc (the layouts the matrix tries) whose
// tightest GPU holds its weights and the cache of the stated concurrency —
// the serving accounting of serveOne — so a reader's "fits my hardware"
// filter picks verdicts the build computed.
func (c *calc) minGPUsAtContexts(acc *catalog.Accelerator, tb int64, w weights) {
	sz := c.in.Sizing
	hsrc := catalog.HardwareSourcePrefix + acc.ID
	perNode := int64(acc.GPUsPerNode)
	counts := layouts(sz.TensorParallelSizes, perNode)
	for k := int64(2); k <= maxNodes; k++ {
		counts = append(counts, k*perNode)
	}
	for _, ctx := range sz.Contexts {
		key := fmt.Sprintf("fit.min_gpus_at.%d.%s", ctx, acc.ID)
		// The cache at ctx is sized only where kv.bytes_at_context is: not
		// beyond the model's own context.
		if kv := c.s.Get(fmt.Sprintf("kv.bytes_at_context.%d", ctx)); !kv.Known() {
			c.s.Unknown(key, facts.UnitCount, reasonOr(reasonOf(kv), "cache at this context unknown"))
			continue
		}
		found, why := int64(0), ""
		for _, n := range counts {
			if n*acc.Capacity() < tb {
				continue
			}
			fits, missing := c.servesAt(acc, n, w, ctx)
			if missing != "" {
				why = missing
				break
			}
			if fits {
				found = n
				break
			}
		}
		switch {
		case found > 0:
			c.add(key, found, facts.UnitCount, fmt.Sprintf("the smallest layout whose tightest GPU holds its weights and %d sequence(s) × %s tokens of cache in usable memory (as fit.smallest_serving)", sz.Concurrency, facts.Int(ctx)), w.src, hsrc, srcConfig)
		case why != "":
			c.s.Unknown(key, facts.UnitCount, why)
		default:
			c.s.Unknown(key, facts.UnitCount, fmt.Sprintf("no layout up to %d nodes serves at this context", maxNodes))
		}
	}
}

func reasonOf(f *facts.Fact) string {
	if f == nil {
		return ""
	}
	return f.Reason
}

// costPerProvider prices a configuration at every provider that quotes it
// (cost.<hw>.usd_per_hour.<provider>) and names the cheapest in
// cost.<hw>.usd_per_hour.
func (c *calc) costPerProvider(hw, id string, n int) {
	quotes := c.quotes(id, n)
	for _, q := range quotes {
		c.price("cost."+hw+".usd_per_hour."+q.ProviderID, q.USDPerHour, q.Approximate, q.Derivation, q.SourceKey())
	}
	if q, ok := c.cheapest(id, n); ok {
		d := q.Derivation
		if len(quotes) > 1 {
			d = fmt.Sprintf("the cheapest of %d providers: %s", len(quotes), d)
		}
		c.price("cost."+hw+".usd_per_hour", q.USDPerHour, q.Approximate, d, q.SourceKey())
	}
}

// price adds a cost fact. A price the catalog marks approximate is shown
// with "≈", and so is every figure computed from it (c.approx).
func (c *calc) price(key string, v float64, approx bool, derivation string, sources ...string) {
	f := c.add(key, v, facts.UnitUSDHour, derivation, sources...)
	if approx {
		f.Display = "≈" + f.Display
		if c.approx == nil {
			c.approx = map[string]bool{}
		}
		c.approx[key] = true
	}
}

func verdict(ok bool) string {
	if ok {
		return "fits"
	}
	return "does not fit"
}

func marginDisplay(m int64) string {
	if m < 0 {
		return facts.GB(float64(-m)) + " short"
	}
	return facts.GB(float64(m)) + " spare"
}

func (c *calc) download() {
	ck, ok := c.s.Get("bytes.checkpoint").Int()
	sz := c.in.Sizing
	if !ok {
		c.s.Unknown("download.seconds", facts.UnitSeconds, "checkpoint size unknown")
		return
	}
	rate := sz.DownloadBytesPerSec
	rsrc := "site:hugo-like.yaml sizing.downloadBytesPerSecond"
	if sz.DownloadSource != "" {
		rsrc += " (" + sz.DownloadSource + ")"
	}
	secs := float64(ck) / rate
	c.add("download.bytes_per_second", rate, facts.UnitBytesPerSecond, "stated throughput", rsrc).Display = fmt.Sprintf("%s MB/s", facts.Fixed(rate/1e6, 1))
	c.add("download.seconds", secs, facts.UnitSeconds, fmt.Sprintf("%s ÷ %s MB/s", facts.GB(float64(ck)), facts.Fixed(rate/1e6, 1)), c.src("tree"), rsrc)
	if sz.WaitWindowSeconds > 0 {
		wb := int64(rate * sz.WaitWindowSeconds)
		c.add("download.window_bytes", wb, facts.UnitBytes, fmt.Sprintf("what a %s s wait window buys at the stated throughput", facts.Fixed(sz.WaitWindowSeconds, 0)), rsrc).Display = facts.GB(float64(wb))
		c.add("download.exceeds_window", secs > sz.WaitWindowSeconds, facts.UnitBool, "download time > wait window", rsrc)
	}
	for _, hw := range c.in.Hardware {
		c.record(costOp{kind: opIdle, label: hw, value: secs})
	}
}
