package sizing

import (
	"fmt"
	"math"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/facts"
)

// DistinctExperts is how many of e routed experts a batch of b tokens hits
// when each token picks k of them uniformly at random: e·(1 − (1 − k/e)^b).
// Real routers are not uniform; the pages say so.
func DistinctExperts(e, k, b float64) float64 {
	if e <= 0 || k <= 0 || b <= 0 {
		return 0
	}
	return e * (1 - math.Pow(1-k/e, b))
}

// speedIn is what the roofline reads of one configuration's placement.
type speedIn struct {
	cfg        string
	acc        *catalog.Accelerator
	p          placement
	weightsGPU int64    // weights on the tightest GPU
	cache      gpuCache // its cache per token and per sequence
	maxConc    int64    // sequences that fit at the serving context
}

// stepTime is the decode roofline of one step for a batch of b sequences:
// the time of the tightest pipeline stage, memory, compute and
// communication, times the stages a token passes in sequence.
type stepTime struct {
	mem, compute, comm, total float64
	bytes, flops              float64
}

// speed predicts decode and prefill for one configuration and prices a
// million output tokens. Every efficiency is a site setting.
func (c *calc) speed(in speedIn) {
	sp := c.in.Sizing.Speed
	a := c.in.Arch
	key := func(k string) string { return "speed." + in.cfg + "." + k }
	if !(sp.MemoryEfficiency > 0 && sp.ComputeEfficiency > 0 && sp.InterconnectEfficiency > 0 && sp.PromptTokens > 0) {
		return // no speed assumptions stated: no speed figures
	}
	active, ok := c.s.Get("params.active").Int()
	if !ok {
		c.s.Unknown(key("decode_tokens_per_second"), facts.UnitTokensPerSec, "active parameters unknown")
		return
	}
	bw := in.acc.Bandwidth.Value
	peak, peakName := c.peak(in.acc)
	ctx := sp.PromptTokens
	if a.Context > 0 && ctx > a.Context {
		ctx = a.Context
	}
	// Routed-expert bytes on the tightest GPU: split like the rest of the
	// sharded weights.
	var expertGPU int64
	experts := "no routed experts: every weight on the GPU is read each step"
	if an := c.in.Analytic; an != nil && a.IsMoE() && an.ExpertBytes > 0 {
		expertGPU = ceilDiv(ceilDiv(an.ExpertBytes, in.p.tp), in.p.pp)
		experts = fmt.Sprintf("routed experts read as hit: %d routed, %d per token, distinct experts for B tokens = E·(1 − (1 − k/E)^B) under uniform routing", a.RoutedExperts, a.ActiveExperts)
	} else if a.IsMoE() {
		experts = "routed-expert bytes unknown (no module tree): every weight counted as read, an upper bound on bytes"
	}
	step := func(b int64) stepTime {
		var t stepTime
		frac := 1.0
		if expertGPU > 0 {
			frac = DistinctExperts(float64(a.RoutedExperts), float64(a.ActiveExperts), float64(b)) / float64(a.RoutedExperts)
		}
		t.bytes = float64(in.weightsGPU-expertGPU) + float64(expertGPU)*frac + float64(b)*float64(in.cache.at(ctx))
		t.mem = t.bytes / (bw * sp.MemoryEfficiency)
		t.flops = 2 * float64(active) * float64(b) / float64(in.p.tp*in.p.pp)
		if peak > 0 {
			t.compute = t.flops / (peak * sp.ComputeEfficiency)
		}
		t.comm = c.commSeconds(in, b)
		t.total = float64(in.p.pp) * (math.Max(t.mem, t.compute) + t.comm)
		return t
	}
	assume := fmt.Sprintf("decode at a %s-token context: max(bytes read per GPU ÷ (%s × %.2f memory efficiency), FLOPs per GPU ÷ (%s × %.2f compute efficiency)) + tensor-parallel communication at %.2f of the interconnect; × %d pipeline stage(s) in sequence; %s",
		facts.Int(ctx), rate(bw, "B/s"), sp.MemoryEfficiency, peakName, sp.ComputeEfficiency, sp.InterconnectEfficiency, in.p.pp, experts)
	hsrc := "catalog:hardware.yaml#" + in.acc.ID
	srcs := []string{hsrc, "site:hugo-like.yaml sizing.speed", srcConfig}
	one := step(1)
	c.add(key("decode_tokens_per_second"), 1/one.total, facts.UnitTokensPerSec,
		fmt.Sprintf("batch 1: 1 ÷ %s s per step (%s read per GPU, %s FLOPs per GPU, %s s communication) — %s", sig(one.total), facts.GB(one.bytes), sig(one.flops), sig(one.comm), assume), srcs...)
	c.add(key("comm_seconds_per_step"), one.comm, facts.UnitSeconds, c.commHow(in), srcs...).Display = sig(one.comm*1e3) + " ms"
	var agg float64
	if in.maxConc > 0 {
		t := step(in.maxConc)
		agg = float64(in.maxConc) / t.total
		c.add(key("decode_tokens_per_second_at_max_concurrency"), agg, facts.UnitTokensPerSec,
			fmt.Sprintf("%d sequences (serving.%s.max_concurrency) ÷ %s s per step, aggregate over the batch — %s", in.maxConc, in.cfg, sig(t.total), assume), srcs...)
	} else {
		c.s.Unknown(key("decode_tokens_per_second_at_max_concurrency"), facts.UnitTokensPerSec, "no sequence fits at the serving context (serving."+in.cfg+".max_concurrency is 0)")
	}
	c.prefill(in, key("prefill_seconds"), active, peak, peakName, srcs)
	tps, how := 1/one.total, "batch 1"
	if agg > 0 {
		tps, how = agg, fmt.Sprintf("%d concurrent sequences", in.maxConc)
	}
	c.record(costOp{kind: opSpeed, label: in.cfg, id: in.acc.ID, n: in.p.n, value: tps, how: how})
}

// peak is the dense peak the step's matrix multiplies run at: FP8 when the
// weights are FP8 and the part has FP8 units, else BF16 (weight-only
// quantizations dequantize to BF16).
func (c *calc) peak(acc *catalog.Accelerator) (float64, string) {
	q := c.in.Arch.Quant
	if q.Bits == 8 && q.Type == "float" && acc.PeakFP8 != nil {
		return acc.PeakFP8.Value, rate(acc.PeakFP8.Value, "FLOP/s") + " dense FP8"
	}
	if acc.PeakBF16 != nil {
		return acc.PeakBF16.Value, rate(acc.PeakBF16.Value, "FLOP/s") + " dense BF16"
	}
	return 0, "no published BF16 peak (compute term left out)"
}

// commSeconds is one step's tensor-parallel communication on one stage:
// per layer two ring all-reduces of the batch's hidden states (2(tp−1)/tp
// of the bytes cross each GPU's links), and per MoE layer two all-to-alls
// of the routed tokens' hidden states.
func (c *calc) commSeconds(in speedIn, b int64) float64 {
	a := c.in.Arch
	tp := float64(in.p.tp)
	if in.p.tp <= 1 || in.acc.Interconnect == nil || a.Hidden == 0 {
		return 0
	}
	bw := in.acc.Interconnect.Value * c.in.Sizing.Speed.InterconnectEfficiency
	hidden := float64(b) * float64(a.Hidden) * 2 // BF16 activations
	layers := float64(ceilDiv(a.Layers, in.p.pp))
	bytes := layers * 2 * hidden * 2 * (tp - 1) / tp
	if a.IsMoE() {
		moe := float64(ceilDiv(int64(len(a.MoELayers)), in.p.pp))
		bytes += moe * 2 * hidden * float64(a.ActiveExperts) * (tp - 1) / tp
	}
	return bytes / bw
}

func (c *calc) commHow(in speedIn) string {
	if in.p.tp <= 1 {
		return "one GPU per stage: no tensor-parallel communication"
	}
	if in.acc.Interconnect == nil {
		return "the catalog gives no interconnect bandwidth: communication left out"
	}
	s := fmt.Sprintf("batch 1, per stage: %d layers × 2 all-reduces × hidden %d × 2 B × 2(TP−1)/TP", ceilDiv(c.in.Arch.Layers, in.p.pp), c.in.Arch.Hidden)
	if c.in.Arch.IsMoE() {
		s += fmt.Sprintf(" + MoE layers × 2 all-to-alls × %d routed copies × hidden × 2 B × (TP−1)/TP", c.in.Arch.ActiveExperts)
	}
	return s + fmt.Sprintf(" ÷ (%s × %.2f); the bandwidth term only, each collective's fixed latency (microseconds) is left out", rate(in.acc.Interconnect.Value, "B/s"), c.in.Sizing.Speed.InterconnectEfficiency)
}

// prefill is the compute-bound time to first token for the stated prompt:
// 2 × active parameters per token plus attention's quadratic term on the
// attention layers (causal: half of QKᵀ and AV), over the peak of the TP
// group (pipeline stages run one after another for one prompt).
func (c *calc) prefill(in speedIn, key string, active int64, peak float64, peakName string, srcs []string) {
	a := c.in.Arch
	if peak == 0 {
		c.s.Unknown(key, facts.UnitSeconds, "no published BF16 peak for "+in.acc.ID)
		return
	}
	p := float64(c.in.Sizing.Speed.PromptTokens)
	dqk, dv := float64(a.HeadDim), float64(a.HeadDim)
	if a.Attention == arch.MLA {
		dqk, dv = float64(a.QKNopeDim+a.QKRopeDim), float64(a.VHeadDim)
	}
	window := p
	if a.SlidingWindow > 0 && float64(a.SlidingWindow) < p {
		window = float64(a.SlidingWindow)
	}
	attn := float64(a.Count(arch.Full))*p*p*float64(a.Heads)*(dqk+dv) + float64(a.Count(arch.Sliding))*p*window*float64(a.Heads)*(dqk+dv)
	flops := 2*float64(active)*p + attn
	secs := flops / (float64(in.p.tp) * peak * c.in.Sizing.Speed.ComputeEfficiency)
	c.add(key, secs, facts.UnitSeconds,
		fmt.Sprintf("%s-token prompt: (2 × %s active parameters × tokens + %s attention FLOPs on the full and sliding layers) ÷ (TP %d × %s × %.2f compute efficiency); communication and pipeline bubbles left out",
			facts.Int(int64(p)), facts.Params(float64(active)), sig(attn), in.p.tp, peakName, c.in.Sizing.Speed.ComputeEfficiency), srcs...).Display = sig(secs) + " s"
}

func sig(v float64) string { return fmt.Sprintf("%.3g", v) }

func rate(v float64, unit string) string {
	switch {
	case v >= 1e15:
		return facts.Fixed(v/1e15, 2) + " P" + unit
	case v >= 1e12:
		return facts.Fixed(v/1e12, 2) + " T" + unit
	case v >= 1e9:
		return facts.Fixed(v/1e9, 1) + " G" + unit
	}
	return facts.Fixed(v, 0) + " " + unit
}
