package sizing

import (
	"fmt"
	"math"
	"sort"

	"dossier/generator/config"
	"dossier/generator/facts"
)

// deployable rounds a GPU count up to a layout that serves: a
// tensor-parallel size within one node, else whole nodes.
func deployable(min int64, tp []int64, perNode int64) int64 {
	sizes := append([]int64(nil), tp...)
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	for _, s := range sizes {
		if s >= min && s <= perNode {
			return s
		}
	}
	return (min + perNode - 1) / perNode * perNode
}

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
			cacheBytes, cacheOK = per*sz.Concurrency, true
		}
	}
	reserve := "no further reserve per GPU"
	if sz.ReservePerGPUBytes > 0 {
		reserve = facts.GB(float64(sz.ReservePerGPUBytes)) + " reserved per GPU"
	}
	ctxText := facts.Int(ctx) + "-token context"
	if capped {
		ctxText = fmt.Sprintf("%s-token context (the model's maximum; the site's serving context is %s)", facts.Int(ctx), facts.Int(sz.ServingContext))
	}
	assume := fmt.Sprintf("%s × %d concurrent sequence(s), %d%% of memory usable (gpu_memory_utilization), %s",
		ctxText, sz.Concurrency, int(math.Round(sz.GPUMemoryUtilization*100)), reserve)
	c.add("fit.assumptions", assume, facts.UnitText, "site sizing settings", "site:hugo-like.yaml")
	if cacheOK {
		c.add("fit.cache_bytes", cacheBytes, facts.UnitBytes, "KV + state at the serving context × concurrency", srcConfig)
	}
	if c.in.Catalog == nil {
		return
	}
	ids := make([]string, 0, len(c.in.Catalog.Accelerators))
	for id := range c.in.Catalog.Accelerators {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	type option struct {
		label, src string
		usd        float64
		approx     bool
	}
	var cheapest *option
	for _, id := range ids {
		acc := c.in.Catalog.Accelerators[id]
		hsrc := "catalog:hardware.yaml#" + id
		min := ceilDiv(tb, acc.MemoryBytes)
		c.add("fit.min_gpus."+id, min, facts.UnitCount,
			fmt.Sprintf("⌈%s tensor bytes ÷ %s per GPU⌉: weights at rest only", facts.GB(float64(tb)), facts.GB(float64(acc.MemoryBytes))), tsrc, hsrc)
		c.add("min_gpus."+id, min, facts.UnitCount, "same as fit.min_gpus."+id, tsrc, hsrc)
		dep := deployable(min, sz.TensorParallelSizes, int64(acc.GPUsPerNode))
		c.add("fit.deployable_gpus."+id, dep, facts.UnitCount,
			fmt.Sprintf("%d rounded up to a tensor-parallel size %v within a %d-GPU node, else whole nodes", min, sz.TensorParallelSizes, acc.GPUsPerNode), tsrc, hsrc, "site:hugo-like.yaml")
		if q, ok := c.in.Catalog.Cheapest(id, int(dep)); ok {
			c.price("cost.deployable."+id+".usd_per_hour", q.USDPerHour, q.Approximate, q.Derivation, q.SourceKey())
		}
		c.minGPUsAtContexts(id, acc.MemoryBytes, tb, tsrc, hsrc)
		if cacheOK {
			if ms, ok := c.servingMinimum(acc.MemoryBytes, tb, cacheBytes); ok {
				ds := deployable(ms, sz.TensorParallelSizes, int64(acc.GPUsPerNode))
				c.add("fit.min_gpus_serving."+id, ms, facts.UnitCount, "⌈(tensor bytes + cache) ÷ usable memory per GPU⌉ — "+assume, tsrc, hsrc)
				c.add("fit.deployable_gpus_serving."+id, ds, facts.UnitCount, "serving minimum rounded to a deployable layout", tsrc, hsrc)
				if q, ok := c.in.Catalog.Cheapest(id, int(ds)); ok {
					if cheapest == nil || q.USDPerHour < cheapest.usd {
						cheapest = &option{label: fmt.Sprintf("%dx%s", ds, id), usd: q.USDPerHour, src: q.SourceKey(), approx: q.Approximate}
					}
				}
			}
		}
	}
	if cheapest != nil {
		c.add("fit.cheapest_serving", cheapest.label, facts.UnitText, "the priced deployable configuration that serves at the stated context for the least $/h", "site:hugo-like.yaml", cheapest.src)
		c.price("cost.cheapest_serving.usd_per_hour", cheapest.usd, cheapest.approx, "$/h of fit.cheapest_serving", cheapest.src)
	}
	for _, hw := range c.in.Hardware {
		c.fitOne(hw, tb, tsrc, cacheBytes, cacheOK)
	}
}

// servingMinimum is the GPU count whose usable memory holds the weights
// and cache: ⌈(tensor bytes + cache) ÷ usable memory per GPU⌉. ok is false
// when the reserve leaves a GPU no usable memory.
func (c *calc) servingMinimum(memPerGPU, tb, cacheBytes int64) (int64, bool) {
	sz := c.in.Sizing
	usable := int64(sz.GPUMemoryUtilization*float64(memPerGPU)) - sz.ReservePerGPUBytes
	if usable <= 0 {
		return 0, false
	}
	return ceilDiv(tb+cacheBytes, usable), true
}

// minGPUsAtContexts records the serving minimum of accelerator id at each
// of the site's contexts (at the stated concurrency), so a reader's "fits
// my hardware" filter picks verdicts the build computed.
func (c *calc) minGPUsAtContexts(id string, memPerGPU, tb int64, tsrc, hsrc string) {
	sz := c.in.Sizing
	for _, n := range sz.Contexts {
		key := fmt.Sprintf("fit.min_gpus_at.%d.%s", n, id)
		per, ok := int64(0), false
		// The cache at n is sized only where kv.bytes_at_context is: not
		// beyond the model's own context.
		kv := c.s.Get(fmt.Sprintf("kv.bytes_at_context.%d", n))
		if c.cache != nil && kv.Known() {
			per, ok = c.cache(n)
		}
		if !ok {
			c.s.Unknown(key, facts.UnitCount, reasonOr(reasonOf(kv), "cache at this context unknown"))
			continue
		}
		ms, ok := c.servingMinimum(memPerGPU, tb, per*sz.Concurrency)
		if !ok {
			c.s.Unknown(key, facts.UnitCount, "the per-GPU reserve leaves no usable memory")
			continue
		}
		c.add(key, ms, facts.UnitCount, fmt.Sprintf("⌈(tensor bytes + cache of %d sequence(s) at %s tokens) ÷ usable memory per GPU⌉", sz.Concurrency, facts.Int(n)), tsrc, hsrc, srcConfig)
	}
}

func reasonOf(f *facts.Fact) string {
	if f == nil {
		return ""
	}
	return f.Reason
}

func (c *calc) fitOne(hw string, tb int64, tsrc string, cacheBytes int64, cacheOK bool) {
	n, id, _ := config.ParseHardware(hw)
	acc := c.in.Catalog.Accelerators[id]
	if acc == nil {
		c.s.Unknown("fit."+hw+".at_rest", facts.UnitBool, "accelerator "+id+" is not in data/hardware.yaml")
		return
	}
	sz := c.in.Sizing
	hsrc := "catalog:hardware.yaml#" + id
	total := int64(n) * acc.MemoryBytes
	c.add("fit."+hw+".memory_bytes", total, facts.UnitBytes, fmt.Sprintf("%d × %s", n, facts.GB(float64(acc.MemoryBytes))), hsrc)
	c.add("fit."+hw+".at_rest", tb <= total, facts.UnitBool, "tensor bytes ≤ total GPU memory (weights only: the optimistic case)", tsrc, hsrc).Display =
		verdict(tb <= total)
	f := c.add("fit."+hw+".margin_bytes", total-tb, facts.UnitBytes, "total GPU memory − tensor bytes", tsrc, hsrc)
	f.Display = marginDisplay(total - tb)
	if cacheOK {
		usable := int64(sz.GPUMemoryUtilization*float64(total)) - int64(n)*sz.ReservePerGPUBytes
		need := tb + cacheBytes
		c.add("fit."+hw+".usable_bytes", usable, facts.UnitBytes,
			fmt.Sprintf("%s × %.2f (gpu_memory_utilization) − reserve", facts.GB(float64(total)), sz.GPUMemoryUtilization), hsrc, "site:hugo-like.yaml")
		c.add("fit."+hw+".serving", need <= usable, facts.UnitBool, "tensor bytes + KV and state at the serving context ≤ usable memory", tsrc, hsrc).Display = verdict(need <= usable)
		c.add("fit."+hw+".serving_margin_bytes", usable-need, facts.UnitBytes, "usable memory − (tensor bytes + cache)", tsrc, hsrc).Display = marginDisplay(usable - need)
	}
	c.costPerProvider(hw, id, n)
}

// costPerProvider prices a configuration at every provider that quotes it
// (cost.<hw>.usd_per_hour.<provider>) and names the cheapest in
// cost.<hw>.usd_per_hour.
func (c *calc) costPerProvider(hw, id string, n int) {
	quotes := c.in.Catalog.Quotes(id, n)
	for _, q := range quotes {
		c.price("cost."+hw+".usd_per_hour."+q.ProviderID, q.USDPerHour, q.Approximate, q.Derivation, q.SourceKey())
	}
	if q, ok := c.in.Catalog.Cheapest(id, n); ok {
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
		key := "cost." + hw + ".usd_per_hour"
		if p, ok := c.s.Get(key).Float(); ok {
			f := c.add("download.idle_usd."+hw, secs/3600*p, facts.UnitUSD, "download hours × $/h of "+hw+": GPUs idle while the weights arrive", key, "download.seconds")
			if c.approx[key] {
				f.Display = "≈" + f.Display
			}
		}
	}
}
