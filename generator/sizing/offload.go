package sizing

import (
	"fmt"
	"sort"

	"dossier/generator/catalog"
	"dossier/generator/facts"
)

// hostClass finds the catalog's CPU host for offload (class cpu); nil when
// the catalog has none.
func (c *calc) hostClass() *catalog.Accelerator {
	if c.in.Catalog == nil {
		return nil
	}
	ids := make([]string, 0, len(c.in.Catalog.Accelerators))
	for id, a := range c.in.Catalog.Accelerators {
		if a.Class == "cpu" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		return nil
	}
	return c.in.Catalog.Accelerators[ids[0]]
}

// expertOffload plans a MoE model whose weights do not fit a layout the
// way llama.cpp's --cpu-moe does: the routed experts stay in host RAM and
// run there, everything else on the GPUs. One sequence's decode step reads
// the GPU's non-expert weights and cache at HBM speed and the experts one
// token activates at the host's memory bandwidth.
func (c *calc) expertOffload(in speedIn, budget int64) {
	a, an := c.in.Arch, c.in.Analytic
	sp := c.in.Sizing.Speed
	if in.acc.Class == "unified" || in.acc.Class == "cpu" {
		return // the host's memory is the device's: nothing to offload to
	}
	if !a.IsMoE() || an == nil || an.ExpertBytes == 0 || a.RoutedExperts == 0 || sp.MemoryEfficiency <= 0 || sp.PromptTokens <= 0 {
		return
	}
	host := c.hostClass()
	if host == nil {
		return
	}
	key := "offload." + in.cfg + ".experts_in_host_ram."
	expertGPU := ceilDiv(ceilDiv(an.ExpertBytes, in.p.tp), in.p.pp)
	onGPU := in.weightsGPU - expertGPU
	ctx := sp.PromptTokens
	if a.Context > 0 && a.Context < ctx {
		ctx = a.Context
	}
	need := onGPU + in.cache.at(ctx)
	hsrc := catalog.HardwareSourcePrefix + host.ID
	if need > budget {
		c.s.Unknown(key+"decode_tokens_per_second", facts.UnitTokensPerSec,
			fmt.Sprintf("even without the routed experts the tightest GPU needs %s (weights and one %s-token cache) against %s usable", facts.GB(float64(need)), facts.Int(ctx), facts.GB(float64(budget))))
		return
	}
	if an.ExpertBytes > host.Capacity() {
		c.s.Unknown(key+"decode_tokens_per_second", facts.UnitTokensPerSec,
			fmt.Sprintf("the routed experts (%s) exceed the host's %s", facts.GB(float64(an.ExpertBytes)), facts.GB(float64(host.Capacity()))))
		return
	}
	active := float64(an.ExpertBytes) * float64(a.ActiveExperts) / float64(a.RoutedExperts)
	gpuBytes := float64(in.p.pp) * (float64(onGPU) + float64(in.cache.readAt(ctx)))
	r := OffloadRatesFor(c.in.Catalog, in.acc.Class, sp.MemoryEfficiency)
	r.GPUBandwidth, r.HostBandwidth = in.acc.Bandwidth.Value, host.Bandwidth.Value
	layers := float64(a.Layers)
	t := OffloadDecodeSeconds(gpuBytes, active, layers, r)
	c.add(key+"host_bytes", an.ExpertBytes, facts.UnitBytes, "routed-expert tensors held in host RAM", srcAnalytic, hsrc)
	c.add(key+"gpu_bytes_per_gpu", need, facts.UnitBytes, fmt.Sprintf("non-expert weights on the tightest GPU + one %s-token cache", facts.Int(ctx)), srcAnalytic, srcConfig)
	srcs := []string{hsrc, catalog.HardwareSourcePrefix + in.acc.ID, "site:hugo-like.yaml sizing.speed", srcAnalytic}
	if r.Calibrated {
		srcs = append(srcs, "catalog:speed_fit.yaml", "catalog:calibration.yaml")
	}
	f := c.add(key+"decode_tokens_per_second", 1/t, facts.UnitTokensPerSec,
		fmt.Sprintf("one sequence: 1 ÷ (%s GPU bytes over %d stage(s) ÷ (%s × %.2f) + %s layers × %s µs + %s of active experts per token (%d of %d) ÷ (%s host memory bandwidth of %s × %.2f)); the experts computed on the CPU, as llama.cpp --cpu-moe does; %s",
			facts.GB(gpuBytes), in.p.pp, rate(in.acc.Bandwidth.Value, "B/s"), r.GPUEfficiency, facts.Int(int64(a.Layers)), sig(r.LayerSeconds*1e6), facts.GB(active), a.ActiveExperts, a.RoutedExperts, rate(host.Bandwidth.Value, "B/s"), host.ID, r.HostEfficiency, r.How),
		srcs...)
	// The CPU-offload regime's error, whatever the GPU's class: the host's
	// memory is what this figure rests on.
	c.speedModel(in.acc).errorBarFor("cpu-offload", in.acc.Class).apply(c, f)
}

// OffloadRates are what an offload step is timed with (OffloadDecodeSeconds).
type OffloadRates struct {
	GPUBandwidth, GPUEfficiency   float64 // B/s, share
	HostBandwidth, HostEfficiency float64 // B/s, share
	LayerSeconds                  float64
	// Calibrated is true when speed_fit.yaml has a host efficiency fitted
	// on offload pairs; How says where the efficiencies come from.
	Calibrated bool
	How        string
}

// OffloadRatesFor gives the efficiencies and fixed cost an offload step on
// a GPU of the given class runs at: the fitted ones from the catalog's
// speed_fit.yaml, or siteEff on both sides and no fixed cost without a
// fitted host efficiency. The caller sets the two bandwidths.
func OffloadRatesFor(cat *catalog.Catalog, gpuClass string, siteEff float64) OffloadRates {
	r := OffloadRates{GPUEfficiency: siteEff, HostEfficiency: siteEff,
		How: "no host efficiency fitted (data/speed_fit.yaml has no offload pairs): the site's memory efficiency on both sides, no fixed cost"}
	if cat == nil || cat.Speed == nil || cat.Speed.Fit == nil || cat.Speed.Fit.HostEfficiency <= 0 {
		return r
	}
	f := cat.Speed.Fit
	r.Calibrated = true
	r.GPUEfficiency, r.HostEfficiency, r.LayerSeconds = f.MemoryEfficiency, f.HostEfficiency, f.LayerSeconds
	for _, cf := range f.Classes {
		if cf.Class == gpuClass && cf.MemoryEfficiency > 0 {
			r.GPUEfficiency = cf.MemoryEfficiency
		}
	}
	r.How = fmt.Sprintf("host efficiency fitted on the %d offload pairs, GPU efficiency and layer cost as for %s parts (data/speed_fit.yaml)", f.OffloadPairs, gpuClass)
	return r
}
