package sizing

import "math"

// The step model: the time of one decode (or prefill) step on the busiest
// GPU of a layout. Each operator group takes the longer of streaming its
// bytes and computing its FLOPs (a group's weights and its GEMMs overlap;
// different groups run one after another), and the step adds fixed costs
// no roofline has: a per-layer cost (kernel launches, norms and the small
// ops between GEMMs) and a latency per tensor-parallel collective, plus
// the bytes the collectives move over the link. Pipeline stages run in
// sequence for one token.

// opGroup is one operator group of a step on one GPU.
type opGroup struct {
	name         string
	bytes, flops float64
}

// stepWork is what one step asks of one GPU of one stage.
type stepWork struct {
	groups      []opGroup
	layers      float64 // layers on the stage
	collectives float64 // tensor-parallel collectives on the stage
	commBytes   float64 // bytes the collectives move per GPU
	stages      float64 // pipeline stages a token passes in sequence
}

// stepCost is what the time of a step is computed from: the part's rates
// and the engine's efficiencies and fixed costs.
type stepCost struct {
	bandwidth, peak, link       float64 // B/s, dense FLOP/s, B/s; 0 when unknown
	memEff, computeEff, linkEff float64
	layerSeconds                float64
	collectiveSeconds           float64
}

// stepTime is a step's time and its parts (per stage, before × stages).
type stepTime struct {
	mem, compute float64 // summed over groups, each group's own term
	bound        float64 // Σ max(memory, compute) over groups
	fixed        float64 // layers × t_layer + collectives × α
	comm         float64 // collective bytes ÷ link
	total        float64 // stages × (bound + fixed + comm)
	bytes, flops float64
}

func (w stepWork) time(c stepCost) stepTime {
	var t stepTime
	for _, g := range w.groups {
		var m, f float64
		if c.bandwidth > 0 && c.memEff > 0 {
			m = g.bytes / (c.bandwidth * c.memEff)
		}
		if c.peak > 0 && c.computeEff > 0 {
			f = g.flops / (c.peak * c.computeEff)
		}
		t.mem += m
		t.compute += f
		t.bound += math.Max(m, f)
		t.bytes += g.bytes
		t.flops += g.flops
	}
	t.fixed = w.layers*c.layerSeconds + w.collectives*c.collectiveSeconds
	if c.link > 0 && c.linkEff > 0 {
		t.comm = w.commBytes / (c.link * c.linkEff)
	}
	stages := math.Max(w.stages, 1)
	t.total = stages * (t.bound + t.fixed + t.comm)
	return t
}

// allReduceBytes is what one ring all-reduce of n bytes moves per GPU
// among tp GPUs: 2(tp−1)/tp of them.
func allReduceBytes(n float64, tp int64) float64 {
	if tp <= 1 {
		return 0
	}
	return n * 2 * float64(tp-1) / float64(tp)
}
