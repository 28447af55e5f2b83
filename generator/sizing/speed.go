package sizing

import (
	"fmt"
	"math"
	"slices"
	"strings"

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
	// dp and ep are set for data-parallel attention (dpattention.go): dp
	// ranks each run attention whole on their own sequences, the routed
	// experts split whole over ep ranks; p is then TP 1 × PP 1 of n GPUs.
	dp, ep int64
}

// speed predicts decode and prefill for one configuration and prices a
// million output tokens, with the step model (step.go) and the fitted
// efficiencies and fixed costs of data/speed_fit.yaml (the site's
// efficiencies, without fixed costs, where the data has no fit).
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
	m := c.speedModel(in.acc)
	peak, peakName := c.peak(in.acc)
	cost := m.cost
	cost.bandwidth, cost.peak = in.acc.Bandwidth.Value, peak
	cost.batchPeak = pairPeak(in.acc)
	if in.acc.Interconnect != nil {
		cost.link = in.acc.Interconnect.Value
	}
	ctx := sp.PromptTokens
	if a.Context > 0 && ctx > a.Context {
		ctx = a.Context
	}
	tp, pp := float64(in.p.tp), float64(in.p.pp)
	// Routed-expert bytes on the tightest GPU: split like the rest of the
	// sharded weights. Tensor parallelism slices every expert across the
	// ranks, so each rank reads the same share of every expert the batch
	// hits: the busiest rank is any rank (no imbalance under TP).
	var expertGPU int64
	var expertActive float64 // routed-expert parameters one token uses
	experts := "no routed experts"
	an := c.in.Analytic
	dpa := in.dp > 1
	if an != nil && a.IsMoE() && an.ExpertBytes > 0 {
		expertGPU = ceilDiv(ceilDiv(an.ExpertBytes, in.p.tp), in.p.pp)
		if dpa {
			expertGPU = ceilDiv(an.ExpertBytes, max(in.ep, 1))
		}
		if a.RoutedExperts > 0 {
			expertActive = float64(an.Experts) * float64(a.ActiveExperts) / float64(a.RoutedExperts)
		}
		experts = fmt.Sprintf("routed experts read as hit: %d routed, %d per token, distinct experts for B tokens = E·(1 − (1 − k/E)^B) under uniform routing; tensor parallelism slices every expert, so no rank is busier than another", a.RoutedExperts, a.ActiveExperts)
		if dpa {
			experts = dpaExpertsText(a.RoutedExperts, a.ActiveExperts, in)
		}
	} else if a.IsMoE() {
		experts = "routed-expert bytes unknown (no module tree): every weight counted as read, an upper bound on bytes"
	}
	// The input embedding is a lookup: a step reads the rows of its tokens,
	// not the table. A tied table is the output head and is read whole.
	embedGPU, embedHow := c.embeddingGPU(in)
	// A module tree that does not describe the files could make these
	// differences negative: no bytes or FLOPs is the floor.
	denseGPU := max(in.weightsGPU-expertGPU-embedGPU, 0)
	denseActive := float64(active) - expertActive
	if an != nil && an.Active > an.ActiveNoEmbed && !a.TiedEmbed {
		denseActive -= float64(an.Active - an.ActiveNoEmbed)
	}
	denseActive = math.Max(denseActive, 0)
	layers := float64(ceilDiv(a.Layers, in.p.pp))
	attnFLOPs := c.attentionFLOPsPerToken(float64(ctx)) / tp / pp
	if a.Compressed != nil {
		split, replicated := c.compressedAttentionFLOPs(ctx)
		attnFLOPs += (split/tp + replicated) / pp
	}
	work := func(b int64) stepWork {
		if dpa {
			return c.dpaWork(in, b, float64(denseGPU), float64(expertGPU), denseActive, expertActive, attnFLOPs, ctx)
		}
		frac := 1.0
		if expertGPU > 0 {
			frac = DistinctExperts(float64(a.RoutedExperts), float64(a.ActiveExperts), float64(b)) / float64(a.RoutedExperts)
		}
		bb := float64(b)
		w := stepWork{
			groups: []opGroup{
				{name: "dense weights and head", bytes: float64(denseGPU), flops: 2 * denseActive * bb / (tp * pp)},
				{name: "routed experts", bytes: float64(expertGPU) * frac, flops: 2 * expertActive * bb / (tp * pp)},
				{name: "attention", bytes: bb * float64(in.cache.readAt(ctx)), flops: bb * attnFLOPs},
			},
			layers: layers,
			stages: pp,
			// the fit's rule: the 16-bit peak, whatever the weights
			extraFLOPs: (bb - 1) * 2 * (denseActive + expertActive) / (tp * pp),
		}
		if in.p.tp > 1 {
			w.collectives = 2 * layers
			w.commBytes = c.commBytes(in, b)
		}
		return w
	}
	// The method and the class's efficiencies are facts of their own,
	// stated once (speed.method, speed.method.<class>): a layout's
	// derivation gives only its own figures.
	method := c.speedMethod(ctx, in.acc.Class, m, cost)
	perLayout := func(t stepTime) string {
		s := fmt.Sprintf("%s read per GPU at %s, %s FLOPs per GPU at %s, %s s fixed (%s layers, %s collectives), %s s communication over %s, × %d pipeline stage(s)",
			facts.GB(t.bytes), rate(cost.bandwidth, "B/s"), sig(t.flops), peakName, sig(t.fixed), facts.Fixed(layers, 0), c.collectivesText(in), sig(t.comm), linkText(in.acc), in.p.pp)
		if dpa {
			s += "; " + experts
		}
		return s + "; " + embedHow + " (" + method + ")"
	}
	hsrc := catalog.HardwareSourcePrefix + in.acc.ID
	srcs := append([]string{hsrc, "site:hugo-like.yaml sizing.speed", srcConfig}, m.srcs...)
	one := work(1).time(cost)
	oneBar := m.errorBar(in.acc.Class, in.p.n, 1, false)
	f := c.add(key("decode_tokens_per_second"), 1/one.total, facts.UnitTokensPerSec,
		fmt.Sprintf("batch 1: 1 ÷ %s s per step: %s", sig(one.total), perLayout(one)), srcs...)
	oneBar.apply(c, f)
	c.add(key("comm_seconds_per_step"), one.comm, facts.UnitSeconds, c.commHow(in), srcs...).Display = sig(one.comm*1e3) + " ms"
	c.add(key("fixed_seconds_per_step"), one.fixed, facts.UnitSeconds,
		fmt.Sprintf("%s layers × %s µs + %s collectives × %s µs (%s)", facts.Fixed(layers, 0), sig(cost.layerSeconds*1e6), c.collectivesText(in), sig(cost.collectiveSeconds*1e6), method), srcs...).Display = sig(one.fixed*1e3) + " ms"
	var agg float64
	var aggBar errorBar
	conc, capped := in.maxConc, ""
	if m.class != nil && m.class.MaxBatch > 0 && conc > int64(m.class.MaxBatch) {
		conc = int64(m.class.MaxBatch)
		capped = fmt.Sprintf(", capped at %s's %d sequences per instance (%s) below the %d the memory holds", m.class.Engine, m.class.MaxBatch, m.class.MaxBatchSource, in.maxConc)
	}
	if conc > 0 {
		t := work(conc).time(cost)
		agg = float64(conc) / t.total
		aggBar = m.errorBar(in.acc.Class, in.p.n, conc, false)
		beyond := ""
		if m.fit != nil && m.fit.TokenBatchEfficiency > 0 && conc > int64(m.fit.ManySequenceMaxBatch) {
			beyond = fmt.Sprintf("; the token-batch efficiency was fitted on batches up to %d, so at %d it is extrapolated", m.fit.ManySequenceMaxBatch, conc)
		}
		if dq := dequantText(a.Quant, in.acc); dq != "" && conc > 1 {
			beyond += "; " + dq
		}
		f := c.add(key("decode_tokens_per_second_at_max_concurrency"), agg, facts.UnitTokensPerSec,
			fmt.Sprintf("%d sequences (serving.%s.max_concurrency%s) ÷ %s s per step, aggregate over the batch%s: %s", conc, in.cfg, capped, sig(t.total), beyond, perLayout(t)), srcs...)
		aggBar.apply(c, f)
	} else {
		c.s.Unknown(key("decode_tokens_per_second_at_max_concurrency"), facts.UnitTokensPerSec, "no sequence fits at the serving context (serving."+in.cfg+".max_concurrency is 0)")
	}
	matmul := denseActive + expertActive
	if dpa {
		// One prompt runs on one attention rank; its routed tokens spread
		// over the EP ranks' experts.
		matmul = denseActive + expertActive/float64(max(in.ep, 1))
	}
	c.prefill(in, key("prefill_seconds"), matmul, peak, peakName, cost.computeEff, m.errorBar(in.acc.Class, in.p.n, 1, true), srcs)
	tps, how := 1/one.total, "batch 1"
	if agg > 0 {
		tps, how = agg, fmt.Sprintf("%d concurrent sequences", conc)
	}
	c.record(costOp{kind: opSpeed, label: in.cfg, id: in.acc.ID, n: in.p.n, value: tps, how: how})
}

// speedMethod records, once per model, how a decode step is timed
// (speed.method) and, once per hardware class, the efficiencies and
// fixed costs it is timed with (speed.method.<class>); it returns the
// two keys, which a layout's derivation cites instead of repeating them.
func (c *calc) speedMethod(ctx int64, class string, m speedModel, cost stepCost) string {
	a := c.in.Arch
	general, perClass := "speed.method", "speed.method."+class
	if c.s.Get(general) == nil {
		experts := "no routed experts"
		switch {
		case a.IsMoE() && c.in.Analytic != nil && c.in.Analytic.ExpertBytes > 0:
			experts = fmt.Sprintf("routed experts read as hit: %d routed, %d per token, distinct experts for B tokens = E·(1 − (1 − k/E)^B) under uniform routing; tensor parallelism slices every expert, so no rank is busier than another (data-parallel attention layouts say how they split them)", a.RoutedExperts, a.ActiveExperts)
		case a.IsMoE():
			experts = "routed-expert bytes unknown (no module tree): every weight counted as read, an upper bound on bytes"
		}
		c.add(general, fmt.Sprintf("a decode step at a %s-token context on the tightest GPU: per operator group (dense weights and head, routed experts, attention with its cache) max(bytes per GPU ÷ (memory bandwidth × memory efficiency), FLOPs per GPU ÷ (dense peak × compute efficiency)), summed; + layers × a fixed cost per layer + collectives × a fixed cost per collective; + each token beyond the first's FLOPs ÷ (16-bit peak × token-batch efficiency); + collective bytes ÷ (interconnect bandwidth × interconnect efficiency); × pipeline stages in sequence; %s; the input embedding is a lookup, not read (a tied one is the output head, read whole)", facts.Int(ctx), experts),
			facts.UnitText, "the step model (generator/sizing/step.go)", srcConfig, "site:hugo-like.yaml sizing.speed")
	}
	if c.s.Get(perClass) == nil {
		c.add(perClass, fmt.Sprintf("memory efficiency %.2f, compute efficiency %.2f, %s µs per layer, %s µs per collective, token-batch efficiency %.3f, interconnect efficiency %.2f: %s",
			cost.memEff, cost.computeEff, sig(cost.layerSeconds*1e6), sig(cost.collectiveSeconds*1e6), cost.batchEff, cost.linkEff, m.how),
			facts.UnitText, "the speed model of "+class+" parts", append([]string{"site:hugo-like.yaml sizing.speed"}, m.srcs...)...)
	}
	return general + ", " + perClass
}

// embeddingGPU is the input embedding's bytes on the tightest GPU, which
// a step does not read (vocab-parallel like the rest: ÷ TP, on one stage).
func (c *calc) embeddingGPU(in speedIn) (int64, string) {
	a, an := c.in.Arch, c.in.Analytic
	switch {
	case a.TiedEmbed:
		return 0, "the tied embedding is the output head, read whole each step"
	case an == nil || an.Active <= an.ActiveNoEmbed || an.Total <= 0:
		return 0, "input embedding not set apart (no module tree): counted as read, an overcount"
	}
	params := an.Active - an.ActiveNoEmbed
	// The table is stored unquantized: at the checkpoint's unquantized
	// bytes per parameter.
	bpp := float64(an.TensorBytes) / float64(an.Total)
	if an.UnquantParams > 0 {
		bpp = float64(an.UnquantBytes) / float64(an.UnquantParams)
	}
	b := int64(float64(params) * bpp / float64(in.p.tp) / float64(in.p.pp))
	if b > in.weightsGPU {
		b = 0
	}
	return b, fmt.Sprintf("the input embedding (%s parameters, %s per GPU) is a lookup and not counted as read", facts.Params(float64(params)), facts.GB(float64(b)))
}

// attentionFLOPsPerToken is what one decoded token's attention costs at a
// context of n tokens: QKᵀ and AV over the context on the full layers and
// over the window on the sliding ones.
func (c *calc) attentionFLOPsPerToken(n float64) float64 {
	a := c.in.Arch
	dqk, dv := float64(a.HeadDim), float64(a.HeadDim)
	if a.Attention == arch.MLA {
		dqk, dv = float64(a.QKNopeDim+a.QKRopeDim), float64(a.VHeadDim)
	}
	window := n
	if a.SlidingWindow > 0 && float64(a.SlidingWindow) < n {
		window = float64(a.SlidingWindow)
	}
	per := 2 * float64(a.Heads) * (dqk + dv)
	return float64(a.Count(arch.Full))*n*per + float64(a.Count(arch.Sliding))*window*per
}

func (c *calc) collectivesText(in speedIn) string {
	if in.dp > 1 {
		return fmt.Sprintf("2 × %d", len(c.in.Arch.MoELayers))
	}
	if in.p.tp <= 1 {
		return "0"
	}
	return fmt.Sprintf("2 × %d", ceilDiv(c.in.Arch.Layers, in.p.pp))
}

func linkText(acc *catalog.Accelerator) string {
	if acc.Interconnect == nil {
		return "no listed interconnect"
	}
	return rate(acc.Interconnect.Value, "B/s")
}

// speedModel is what a part's steps are timed with: efficiencies and
// fixed costs, where they come from, and the engine its class runs.
type speedModel struct {
	cost  stepCost // without the part's rates
	how   string
	srcs  []string
	class *catalog.SpeedClass
	fit   *catalog.SpeedFit
}

func (c *calc) speedModel(acc *catalog.Accelerator) speedModel {
	sp := c.in.Sizing.Speed
	m := speedModel{cost: stepCost{memEff: sp.MemoryEfficiency, computeEff: sp.ComputeEfficiency, linkEff: sp.InterconnectEfficiency}}
	var sm *catalog.SpeedModel
	if c.in.Catalog != nil {
		sm = c.in.Catalog.Speed
	}
	m.class = sm.ClassFor(acc.Class)
	if m.class != nil {
		m.cost.computeEff = m.class.ComputeEfficiency
		m.srcs = append(m.srcs, "catalog:speed.yaml#"+acc.Class)
	}
	if sm == nil || sm.Fit == nil {
		m.how = "no fitted speed model in data/ (speed_fit.yaml): the site's efficiencies, fixed costs left out"
		return m
	}
	f := sm.Fit
	m.fit = f
	m.cost.memEff, m.cost.layerSeconds, m.cost.collectiveSeconds = f.MemoryEfficiency, f.LayerSeconds, f.CollectiveSeconds
	m.cost.batchEff = f.TokenBatchEfficiency
	scope := fmt.Sprintf("fitted on all %d calibration pairs", f.Pairs)
	compute := "compute efficiency stated in data/speed.yaml (no prefill pairs)"
	if f.ComputeEfficiency > 0 {
		m.cost.computeEff = f.ComputeEfficiency
		compute = fmt.Sprintf("compute efficiency fitted on the %d prefill pairs", f.PrefillPairs)
	}
	for _, cf := range f.Classes {
		if cf.Class != acc.Class {
			continue
		}
		if cf.MemoryEfficiency > 0 {
			m.cost.memEff = cf.MemoryEfficiency
			scope = fmt.Sprintf("memory efficiency fitted on the %d %s pairs, fixed costs on all %d", cf.Pairs, acc.Class, f.Pairs)
		}
		if cf.ComputeEfficiency > 0 {
			m.cost.computeEff = cf.ComputeEfficiency
			compute = "compute efficiency fitted on the " + acc.Class + " prefill pairs"
		}
	}
	scope += "; " + compute
	engine := "the engine"
	if m.class != nil {
		engine = m.class.Engine
	}
	m.how = fmt.Sprintf("efficiencies and fixed costs of %s on %s hardware from data/speed_fit.yaml, %s (see the calibration page)", engine, acc.Class, scope)
	m.srcs = append(m.srcs, "catalog:speed_fit.yaml")
	return m
}

// errorBar is the cross-validated error of a figure's regime.
type errorBar struct {
	regime   string
	re       *catalog.RegimeErrors
	p50, p90 float64
	ok       bool   // n ≥ MinRegimePairs
	text     string // printed beside the figure
	borrowed string // the classes the error was measured on when this part's is not one
	why      string // the reason an uncalibrated error is unknown
}

func (m speedModel) errorBar(class string, gpus, batch int64, prefill bool) errorBar {
	return m.errorBarFor(regimeOf(class, gpus, batch, prefill), class)
}

// errorBarFor is the error bar of a figure in the named regime on a part
// of the given class.
func (m speedModel) errorBarFor(regime, class string) errorBar {
	e := errorBar{regime: regime}
	e.re = m.fit.Regime(e.regime)
	n := 0
	if e.re != nil {
		n = e.re.Pairs
	}
	if n < catalog.MinRegimePairs {
		e.text = fmt.Sprintf("uncalibrated: n = %d < %d", n, catalog.MinRegimePairs)
		e.why = fmt.Sprintf("uncalibrated: %d measured pair(s) in the %s regime, fewer than the %d an error is quoted on", n, e.regime, catalog.MinRegimePairs)
		return e
	}
	e.ok, e.p50, e.p90 = true, e.re.ErrorP50, e.re.ErrorP90
	e.text = fmt.Sprintf("typically within ±%s %%, n = %d", facts.Fixed(e.p50*100, 0), n)
	if len(e.re.Classes) > 0 && !slices.Contains(e.re.Classes, class) {
		// e.g. GeForce cards over PCIe under tensor parallelism: the
		// regime's pairs all ran on NVLink datacenter parts.
		e.borrowed = fmt.Sprintf("measured on %s parts only, none %s", strings.Join(e.re.Classes, " and "), class)
		e.text += "; " + e.borrowed
	}
	return e
}

// apply prints the error bar beside the figure f and records the
// regime's percentiles once per page as facts of their own,
// speed.error_p50.<regime> and speed.error_p90.<regime> (unknown with the
// reason when the regime is uncalibrated): they are the same for every
// layout of the regime, so f's derivation names them rather than each
// layout carrying copies.
func (e errorBar) apply(c *calc, f *facts.Fact) {
	if f == nil || !f.Known() {
		return
	}
	f.Display = "≈ " + f.Display + " (" + e.text + ")"
	p50, p90 := "speed.error_p50."+e.regime, "speed.error_p90."+e.regime
	f.Derivation += "; its error: " + p50 + ", " + p90
	if c.s.Get(p50) == nil {
		if !e.ok {
			c.s.Unknown(p50, facts.UnitShare, e.why)
			c.s.Unknown(p90, facts.UnitShare, e.why)
		} else {
			how := fmt.Sprintf("leave-one-out error of the %d calibration pairs of the %s regime: %%s percentile of max(predicted ÷ measured, measured ÷ predicted) − 1", e.re.Pairs, e.regime)
			c.add(p50, e.p50, facts.UnitShare, fmt.Sprintf(how, "50th"), "catalog:speed_fit.yaml", "catalog:calibration.yaml")
			c.add(p90, e.p90, facts.UnitShare, fmt.Sprintf(how, "90th"), "catalog:speed_fit.yaml", "catalog:calibration.yaml")
		}
	}
	if e.ok {
		f.ErrorP90 = e.p90 // claims compare within the band
	}
}

// peak is the dense peak the step's matrix multiplies run at: FP8 when the
// weights are FP8 and the part has FP8 units, else the FP16-accumulate
// rate where the catalog lists one (GeForce, llama.cpp), else BF16
// (weight-only quantizations dequantize to 16 bits).
func (c *calc) peak(acc *catalog.Accelerator) (float64, string) {
	q := c.in.Arch.Quant
	if q.Bits == 8 && q.Type == "float" && acc.PeakFP8 != nil {
		return acc.PeakFP8.Value, rate(acc.PeakFP8.Value, "FLOP/s") + " dense FP8"
	}
	if acc.PeakFP16Acc16 != nil {
		// GeForce parts: llama.cpp's F16 GEMMs accumulate in FP16, at
		// twice the FP32-accumulate rate.
		return acc.PeakFP16Acc16.Value, rate(acc.PeakFP16Acc16.Value, "FLOP/s") + " dense FP16 with FP16 accumulate (llama.cpp's F16 GEMMs)"
	}
	if acc.PeakBF16 != nil {
		return acc.PeakBF16.Value, rate(acc.PeakBF16.Value, "FLOP/s") + " dense BF16"
	}
	return 0, "no published BF16 peak (compute term left out)"
}

// commBytes is what one step's tensor-parallel collectives move per GPU on
// one stage: per layer two ring all-reduces of the batch's hidden states
// (2(tp−1)/tp of the bytes cross each GPU's links), and per MoE layer two
// all-to-alls of the routed tokens' hidden states.
func (c *calc) commBytes(in speedIn, b int64) float64 {
	a := c.in.Arch
	tp := float64(in.p.tp)
	if in.dp > 1 {
		return c.dpaCommBytes(in, b)
	}
	if in.p.tp <= 1 || in.acc.Interconnect == nil || a.Hidden == 0 {
		return 0
	}
	hidden := float64(b) * float64(a.Hidden) * 2 // BF16 activations
	layers := float64(ceilDiv(a.Layers, in.p.pp))
	bytes := layers * 2 * allReduceBytes(hidden, in.p.tp)
	if a.IsMoE() {
		moe := float64(ceilDiv(int64(len(a.MoELayers)), in.p.pp))
		bytes += moe * 2 * hidden * float64(a.ActiveExperts) * (tp - 1) / tp
	}
	return bytes
}

func (c *calc) commHow(in speedIn) string {
	if in.dp > 1 {
		return c.dpaCommHow(in)
	}
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
	return s + fmt.Sprintf(" ÷ (%s × %.2f); the bandwidth term only, each collective's latency is in fixed_seconds_per_step", rate(in.acc.Interconnect.Value, "B/s"), c.in.Sizing.Speed.InterconnectEfficiency)
}

// prefill is the compute-bound time to first token for the stated prompt:
// 2 × active parameters per token plus attention's quadratic term on the
// attention layers (causal: half of QKᵀ and AV), over the peak of the TP
// group (pipeline stages run one after another for one prompt).
func (c *calc) prefill(in speedIn, key string, matmul float64, peak float64, peakName string, eff float64, bar errorBar, srcs []string) {
	if peak == 0 {
		c.s.Unknown(key, facts.UnitSeconds, "no published 16-bit peak for "+in.acc.ID)
		return
	}
	p := float64(c.in.Sizing.Speed.PromptTokens)
	// Causal: each prompt token attends to the tokens before it, half of
	// the full QKᵀ and AV on average.
	attn := c.attentionFLOPsPerToken(p) / 2 * p
	layers := "the full and sliding layers"
	if c.in.Arch.Compressed != nil {
		// The indexers run whole on every rank: × TP here, ÷ TP below.
		split, replicated := c.compressedPrefillFLOPs(int64(p))
		attn += split + replicated*float64(in.p.tp)
		layers = "DeepSeek-V4's compressed layers, each prompt token reading what decoding at its position reads (the indexers' scoring counted whole on every rank)"
	}
	flops := 2*matmul*p + attn
	secs := flops / (float64(in.p.tp) * peak * eff)
	f := c.add(key, secs, facts.UnitSeconds,
		fmt.Sprintf("%s-token prompt: (2 × %s parameters a token multiplies (the input embedding is a lookup) × tokens + %s causal attention FLOPs on %s) ÷ (TP %d × %s × %.2f compute efficiency); communication and pipeline bubbles left out",
			facts.Int(int64(p)), facts.Params(matmul), sig(attn), layers, in.p.tp, peakName, eff), srcs...)
	f.Display = sig(secs) + " s"
	bar.apply(c, f)
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
