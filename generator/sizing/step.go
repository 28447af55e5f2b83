package sizing

import "math"

// The step model: the time of one decode (or prefill) step on the busiest
// GPU of a layout. Each operator group takes the longer of streaming its
// bytes and computing its FLOPs (a group's weights and its GEMMs overlap;
// different groups run one after another), and the step adds fixed costs
// no roofline has: a per-layer cost (kernel launches, norms and the small
// ops between GEMMs) and a latency per tensor-parallel collective, plus
// the bytes the collectives move over the link. Pipeline stages run in
// sequence for one token. Weights kept in the host's RAM (llama.cpp
// -ngl below the layer count, --n-cpu-moe) are read by the CPU at the
// host's bandwidth, one after the GPU's part: at decode no weights cross
// PCIe, since llama.cpp hands a matrix product on host weights to the GPU
// only from a batch of 32 (ggml_backend_cuda_device_offload_op,
// min_batch_size = 32, ggml/src/ggml-cuda/ggml-cuda.cu).

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
	hostBytes   float64 // weights the CPU reads per step from the host's RAM
	extraFLOPs  float64 // GEMM FLOPs per GPU of the tokens beyond the first
}

// stepCost is what the time of a step is computed from: the part's rates
// and the engine's efficiencies and fixed costs.
type stepCost struct {
	bandwidth, peak, link       float64 // B/s, dense FLOP/s, B/s; 0 when unknown
	memEff, computeEff, linkEff float64
	layerSeconds                float64
	collectiveSeconds           float64
	hostBandwidth, hostEff      float64 // the host's RAM, for offloaded weights
	batchPeak, batchEff         float64 // what those FLOPs run at: 16-bit peak × token-batch efficiency
}

// stepTime is a step's time and its parts (per stage, before × stages).
type stepTime struct {
	mem, compute float64 // summed over groups, each group's own term
	bound        float64 // Σ max(memory, compute) over groups
	fixed        float64 // layers × t_layer + collectives × α
	batch        float64 // extra tokens' FLOPs ÷ (16-bit peak × token-batch efficiency)
	comm         float64 // collective bytes ÷ link
	host         float64 // host bytes ÷ (host bandwidth × host efficiency)
	total        float64 // stages × (bound + fixed + batch + comm) + host
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
	if w.extraFLOPs > 0 && c.batchPeak > 0 && c.batchEff > 0 {
		t.batch = w.extraFLOPs / (c.batchPeak * c.batchEff)
	}
	if c.link > 0 && c.linkEff > 0 {
		t.comm = w.commBytes / (c.link * c.linkEff)
	}
	if w.hostBytes > 0 && c.hostBandwidth > 0 && c.hostEff > 0 {
		t.host = w.hostBytes / (c.hostBandwidth * c.hostEff)
	}
	stages := math.Max(w.stages, 1)
	t.total = stages*(t.bound+t.fixed+t.batch+t.comm) + t.host
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

// OffloadDecodeSeconds is one sequence's decode step with its weights
// split between one GPU and the host's RAM, the way llama.cpp runs
// -ngl below the layer count or --n-cpu-moe: gpuBytes (weights and cache
// on the GPU) at the GPU's bandwidth, hostBytes (the weights the CPU
// multiplies) at the host's, plus the layers' fixed cost. Rates come from
// OffloadRatesFor. One formula for every offload figure.
func OffloadDecodeSeconds(gpuBytes, hostBytes, layers float64, r OffloadRates) float64 {
	w := stepWork{groups: []opGroup{{name: "gpu", bytes: gpuBytes}}, layers: layers, stages: 1, hostBytes: hostBytes}
	c := stepCost{bandwidth: r.GPUBandwidth, memEff: r.GPUEfficiency, layerSeconds: r.LayerSeconds,
		hostBandwidth: r.HostBandwidth, hostEff: r.HostEfficiency}
	return w.time(c).total
}
