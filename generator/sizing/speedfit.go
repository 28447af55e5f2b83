package sizing

import (
	"bytes"
	"fmt"
	"math"
	"sort"

	"go.yaml.in/yaml/v3"

	"dossier/generator/catalog"
)

// Regimes are the kinds of speed figure whose errors are counted apart:
// a pair and a predicted figure fall in exactly one (regimeOf).
var Regimes = []struct{ ID, Label string }{
	{"single-gpu", "one GPU, one sequence"},
	{"tensor-parallel", "tensor parallel, one sequence"},
	{"high-concurrency", "many sequences at once"},
	{"prefill", "prefill (time to first token)"},
	{"apple", "Apple unified memory"},
	{"cpu-offload", "CPU host or weights offloaded to it"},
}

// regimeOf names the regime of a figure on a part of the given class.
func regimeOf(class string, gpus, batch int64, prefill bool) string {
	switch {
	case prefill:
		return "prefill"
	case class == "unified":
		return "apple"
	case class == "cpu":
		return "cpu-offload"
	case batch > 1:
		return "high-concurrency"
	case gpus > 1:
		return "tensor-parallel"
	}
	return "single-gpu"
}

// speedParams are the fitted parameters.
type speedParams struct {
	memEff, layerSeconds, collectiveSeconds float64
	hostEff                                 float64 // offload pairs' CPU side
	batchEff                                float64 // share of the 16-bit peak the tokens beyond the first run at; 0: no such cost
}

// The grids the fit searches, coarse enough to refit once per left-out
// pair in a test: efficiencies to 0.01, fixed costs to 1 µs and 2 µs.
const (
	effLo, effHi, effStep = 0.30, 1.00, 0.01
	ceffLo                = 0.05
	layerHi, layerStep    = 150e-6, 1e-6
	collHi, collStep      = 40e-6, 2e-6
	batchLo, batchStep    = 0.01, 0.005
	minClassPairs         = catalog.MinRegimePairs
	fitMethod             = "least squares on log(predicted ÷ measured) over the decode pairs: a grid of layer cost 0–150 µs by 1 µs and collective latency 0–40 µs by 2 µs (coarse at 4× the steps, then fine within three coarse steps of the coarse best), and for each point the best memory efficiency 0.30–1.00 (by 0.05, then by 0.01 around the best) of each class with at least 5 decode pairs of its own (and not all of them), the other classes sharing one; the shared memory efficiency reported is the best over all decode pairs at the fitted costs, for classes with too few pairs; the prefill pairs then fit the compute efficiency (0.05–1.00 by 0.01), the same way per class. Decode pairs take their class's stated compute efficiency. Collective bytes cross the link at 0.8 of its bandwidth (the site's default). Offload pairs (weights split between one GPU and the host's RAM) stay out of those fits: at the fitted costs and the GPU class's memory efficiency they fit the host efficiency (0.05–1.00 by 0.01), the share of the host's stated bandwidth the CPU side reads its bytes at. Each token beyond the first adds its GEMM FLOPs (2 × active parameters ÷ GPUs) ÷ (16-bit dense peak × the token-batch efficiency) to a decode step; that efficiency (0.01–1.00 by 0.005) is fitted on the many-sequences pairs (batch > 1) at the GPU fit's costs and efficiencies, and the GPU fit redone at it, twice (alternating least squares). Regime errors are leave-one-out: each pair predicted by the same procedure run without it."
	// pairLinkEfficiency is the site's default interconnect efficiency;
	// the collectives' bytes at batch 1 are a few microseconds, α dwarfs them.
	pairLinkEfficiency = 0.8
)

// pairWork is the step a calibration pair ran. Decode: its weights and
// cache streamed once per step, two all-reduces per layer under TP.
// Prefill: the prompt's GEMMs and causal attention in one pass.
func pairWork(p *catalog.CalibrationPair) stepWork {
	b := float64(p.Batch)
	w := stepWork{layers: float64(p.Layers), stages: 1}
	if p.Metric == catalog.MetricPrefill {
		n := float64(p.PromptTokens)
		w.groups = []opGroup{
			{name: "weights", bytes: p.BytesPerGPU, flops: 2 * p.ActiveParams * n / float64(p.GPUs)},
			{name: "attention", flops: float64(p.Layers) * p.AttentionWidth * n * n / float64(p.GPUs)},
		}
	} else {
		ctx := float64(p.PromptTokens) + float64(p.OutputTokens)/2
		w.groups = []opGroup{
			{name: "weights", bytes: p.BytesPerGPU, flops: 2 * p.ActiveParams * b / float64(p.GPUs)},
			{name: "attention", bytes: b * ctx * p.KVBytesPerToken, flops: b * 2 * ctx * float64(p.Layers) * p.AttentionWidth / float64(p.GPUs)},
		}
	}
	if p.GPUs > 1 {
		w.collectives = 2 * float64(p.Layers)
		w.commBytes = w.collectives * allReduceBytes(b*float64(p.Hidden)*2, int64(p.GPUs))
	}
	return w
}

// pairPeak is the dense peak a pair's GEMMs run at: the FP16-accumulate
// rate where the catalog lists one (GeForce under llama.cpp), else BF16.
func pairPeak(acc *catalog.Accelerator) float64 {
	switch {
	case acc.PeakFP16Acc16 != nil:
		return acc.PeakFP16Acc16.Value
	case acc.PeakBF16 != nil:
		return acc.PeakBF16.Value
	}
	return 0
}

// pairTerms is a pair's step with everything but the fitted parameters
// worked out, so the fit's grid costs a few operations per point.
type pairTerms struct {
	mem1, flops1  []float64 // per group: bytes ÷ bandwidth, FLOPs ÷ peak (both at efficiency 1)
	layers, colls float64
	comm          float64
	measured      float64 // tokens/s
	tokens        float64 // tokens a step yields: the prompt for prefill, the batch for decode
	class         string
	stated        float64 // the class's stated compute efficiency (speed.yaml)
	prefill       bool
	host1         float64 // offload: host bytes ÷ host bandwidth (at efficiency 1)
	offload       bool
	extraFlops1   float64 // decode: the GEMM FLOPs of the tokens beyond the first ÷ the 16-bit peak
}

// pairAccelerator is the part a pair ran on: the catalog's, or the one the
// pair states when the catalog does not list it.
func pairAccelerator(cat *catalog.Catalog, p *catalog.CalibrationPair) *catalog.Accelerator {
	if a := cat.Accelerators[p.Hardware]; a != nil {
		return a
	}
	if p.GPU == nil {
		return nil
	}
	return &catalog.Accelerator{ID: p.Hardware, Name: p.GPU.Name, Class: p.GPU.Class,
		Bandwidth: catalog.Spec{Value: p.GPU.Bandwidth, Source: p.GPU.BandwidthSource}}
}

func termsOf(cat *catalog.Catalog, p *catalog.CalibrationPair) pairTerms {
	acc := pairAccelerator(cat, p)
	w := pairWork(p)
	t := pairTerms{layers: w.layers, colls: w.collectives, measured: p.Value, tokens: float64(p.Batch),
		class: acc.Class, stated: 0.5, prefill: p.Metric == catalog.MetricPrefill}
	if t.prefill {
		t.tokens = float64(p.PromptTokens)
	} else {
		if pk := pairPeak(acc); pk > 0 {
			t.extraFlops1 = float64(p.Batch-1) * 2 * p.ActiveParams / float64(p.GPUs) / pk
		}
	}
	if cl := cat.Speed.ClassFor(acc.Class); cl != nil {
		t.stated = cl.ComputeEfficiency
	}
	peak := pairPeak(acc)
	for _, g := range w.groups {
		t.mem1 = append(t.mem1, g.bytes/acc.Bandwidth.Value)
		var f float64
		if peak > 0 {
			f = g.flops / peak
		}
		t.flops1 = append(t.flops1, f)
	}
	if acc.Interconnect != nil {
		t.comm = w.commBytes / (acc.Interconnect.Value * pairLinkEfficiency)
	}
	if o := p.Offload; o != nil {
		t.offload, t.host1 = true, o.HostBytes/o.Host.Bandwidth
	}
	return t
}

// rate is the pair's predicted tokens/s.
func (t pairTerms) rate(sp speedParams, eff, ceff float64) float64 {
	var s float64
	for i, m := range t.mem1 {
		s += math.Max(m/eff, t.flops1[i]/ceff)
	}
	s += t.layers*sp.layerSeconds + t.colls*sp.collectiveSeconds + t.comm
	if t.host1 > 0 && sp.hostEff > 0 {
		s += t.host1 / sp.hostEff
	}
	if t.extraFlops1 > 0 && sp.batchEff > 0 {
		s += t.extraFlops1 / sp.batchEff
	}
	return t.tokens / s
}

func logErr(terms []pairTerms, sp speedParams, eff, ceff func(pairTerms) float64) float64 {
	var s float64
	for _, t := range terms {
		d := math.Log(t.rate(sp, eff(t), ceff(t)) / t.measured)
		s += d * d
	}
	return s
}

// fitted is one run of the fit: the shared parameters and the classes'
// own efficiencies.
type fitted struct {
	sp        speedParams
	classEff  map[string]float64
	classIDs  map[string][]string
	ceff      float64 // fitted on the prefill pairs; 0 without any
	classCEff map[string]float64
	prefill   int
	offload   int
	many      int
}

func (f fitted) eff(t pairTerms) float64 {
	if e, ok := f.classEff[t.class]; ok {
		return e
	}
	return f.sp.memEff
}

func (f fitted) computeEff(t pairTerms) float64 {
	if e, ok := f.classCEff[t.class]; ok {
		return e
	}
	if f.ceff > 0 {
		return f.ceff
	}
	return t.stated
}

// steps counts the points of a grid from 0 (or lo) to hi by step.
func steps(lo, hi, step float64) int { return int(math.Round((hi-lo)/step)) + 1 }

// bestOf is the grid point of [lo, hi] by step with the least err, the
// first of equals.
func bestOf(lo, hi, step float64, err func(float64) float64) float64 {
	best, bestErr := lo, math.Inf(1)
	for i := 0; i < steps(lo, hi, step); i++ {
		v := lo + float64(i)*step
		if e := err(v); e < bestErr {
			best, bestErr = v, e
		}
	}
	return best
}

func fit(cat *catalog.Catalog, pairs []*catalog.CalibrationPair) fitted {
	var decode, prefill, offload []pairTerms
	var decodeIDs []string
	for _, p := range pairs {
		t := termsOf(cat, p)
		switch {
		case t.offload:
			offload = append(offload, t)
		case t.prefill:
			prefill = append(prefill, t)
		default:
			decode = append(decode, t)
			decodeIDs = append(decodeIDs, p.ID)
		}
	}
	stated := func(t pairTerms) float64 { return t.stated }
	// A class with enough decode pairs of its own gets its own memory
	// efficiency; the others share one. For a given layer cost and
	// collective latency each group's best efficiency is a 1-D search, so
	// the fit is a grid over the two fixed costs with the efficiencies
	// found inside it.
	groups := map[string][]pairTerms{}
	for _, t := range decode {
		g := t.class
		if n := countClass(decode, t.class); n < minClassPairs || n == len(decode) {
			g = "" // shared
		}
		groups[g] = append(groups[g], t)
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	var seq float64 // the token-batch efficiency the GPU fit runs at (0: none)
	effFor := func(ts []pairTerms, layer, coll float64) (float64, float64) {
		sp := speedParams{layerSeconds: layer, collectiveSeconds: coll, batchEff: seq}
		scan := func(lo, hi, step float64) (float64, float64) {
			bestEff, bestErr := lo, math.Inf(1)
			for i := 0; i < steps(lo, hi, step); i++ {
				e := lo + float64(i)*step
				if err := logErr(ts, sp, func(pairTerms) float64 { return e }, stated); err < bestErr {
					bestEff, bestErr = e, err
				}
			}
			return bestEff, bestErr
		}
		// 0.05 steps, then 0.01 steps around the best of them: the error
		// has one minimum in the efficiency.
		c, _ := scan(effLo, effHi, 5*effStep)
		return scan(math.Max(c-5*effStep, effLo), math.Min(c+5*effStep, effHi), effStep)
	}
	total := func(layer, coll float64) float64 {
		var sum float64
		for _, g := range names {
			_, e := effFor(groups[g], layer, coll)
			sum += e
		}
		return sum
	}
	grid := func(lLo, lHi, lStep, cLo, cHi, cStep float64) (float64, float64) {
		bl, bc, bestErr := 0.0, 0.0, math.Inf(1)
		for j := 0; j < steps(lLo, lHi, lStep); j++ {
			for k := 0; k < steps(cLo, cHi, cStep); k++ {
				l, c := lLo+float64(j)*lStep, cLo+float64(k)*cStep
				if e := total(l, c); e < bestErr {
					bl, bc, bestErr = l, c, e
				}
			}
		}
		return bl, bc
	}
	// Coarse to fine over the fixed costs: 4× the steps, then the fine
	// grid within three coarse steps of the coarse best.
	clamp := func(v, lo, hi float64) float64 { return math.Min(math.Max(v, lo), hi) }
	gpuFit := func() speedParams {
		cl, cc := grid(0, layerHi, 4*layerStep, 0, collHi, 4*collStep)
		layer, coll := grid(clamp(cl-8*layerStep, 0, layerHi), clamp(cl+8*layerStep, 0, layerHi), layerStep,
			clamp(cc-8*collStep, 0, collHi), clamp(cc+8*collStep, 0, collHi), collStep)
		shared, _ := effFor(decode, layer, coll)
		return speedParams{memEff: shared, layerSeconds: layer, collectiveSeconds: coll, batchEff: seq}
	}
	// What each token beyond the first adds to a decode step: its GEMM
	// FLOPs at a share of the 16-bit dense peak, on top of the weight
	// streaming (small-batch GEMMs do not hide under it; the ITL of a
	// loaded server also carries arriving prompts' prefill, which scales
	// the same way). The share is fitted on the many-sequences pairs at
	// the GPU fit's costs, and the GPU fit redone at it: two rounds of
	// alternating least squares.
	var many []pairTerms
	for _, t := range decode {
		if t.extraFlops1 > 0 {
			many = append(many, t)
		}
	}
	best := gpuFit()
	if len(many) > 0 {
		for range 2 {
			effs := map[string]float64{}
			for _, g := range names {
				effs[g], _ = effFor(groups[g], best.layerSeconds, best.collectiveSeconds)
			}
			effOf := func(t pairTerms) float64 {
				if e, ok := effs[t.class]; ok {
					return e
				}
				return effs[""]
			}
			seq = bestOf(batchLo, effHi, batchStep, func(v float64) float64 {
				sp := best
				sp.batchEff = v
				return logErr(many, sp, effOf, stated)
			})
			best = gpuFit()
		}
	}
	layer, coll := best.layerSeconds, best.collectiveSeconds
	f := fitted{sp: best, classEff: map[string]float64{}, classIDs: map[string][]string{}, classCEff: map[string]float64{}, prefill: len(prefill), offload: len(offload), many: len(many)}
	for _, g := range names {
		if g == "" {
			continue
		}
		f.classEff[g], _ = effFor(groups[g], layer, coll)
		for i, t := range decode {
			if t.class == g {
				f.classIDs[g] = append(f.classIDs[g], decodeIDs[i])
			}
		}
	}
	if len(prefill) > 0 {
		f.ceff = bestOf(ceffLo, effHi, effStep, func(c float64) float64 {
			return logErr(prefill, best, f.eff, func(pairTerms) float64 { return c })
		})
		pre := map[string][]pairTerms{}
		for _, t := range prefill {
			pre[t.class] = append(pre[t.class], t)
		}
		for cl, ts := range pre {
			if len(ts) < minClassPairs || len(ts) == len(prefill) {
				continue
			}
			f.classCEff[cl] = bestOf(ceffLo, effHi, effStep, func(c float64) float64 {
				return logErr(ts, best, f.eff, func(pairTerms) float64 { return c })
			})
		}
	}
	if len(offload) > 0 {
		f.sp.hostEff = bestOf(ceffLo, effHi, effStep, func(h float64) float64 {
			sp := f.sp
			sp.hostEff = h
			return logErr(offload, sp, f.eff, stated)
		})
	}
	return f
}

// predictPair is the pair's predicted tokens/s under a fit.
func predictPair(cat *catalog.Catalog, p *catalog.CalibrationPair, f fitted) float64 {
	t := termsOf(cat, p)
	return t.rate(f.sp, f.eff(t), f.computeEff(t))
}

// FitSpeed fits the speed model on the catalog's calibration set and
// cross-validates it (leave one out), giving what speed_fit.yaml holds.
func FitSpeed(cat *catalog.Catalog) (*catalog.SpeedFit, error) {
	if cat == nil || cat.Speed == nil || len(cat.Speed.Pairs) == 0 {
		return nil, fmt.Errorf("no calibration set: data/%s is missing or empty", "calibration.yaml")
	}
	pairs := cat.Speed.Pairs
	all := fit(cat, pairs)
	out := &catalog.SpeedFit{Method: fitMethod, Pairs: len(pairs),
		MemoryEfficiency: round4(all.sp.memEff), LayerSeconds: round4(all.sp.layerSeconds), CollectiveSeconds: round4(all.sp.collectiveSeconds),
		ComputeEfficiency: round4(all.ceff), PrefillPairs: all.prefill,
		HostEfficiency: round4(all.sp.hostEff), OffloadPairs: all.offload,
		TokenBatchEfficiency: round4(all.sp.batchEff), ManySequencePairs: all.many}
	for _, p := range pairs {
		if p.Metric == catalog.MetricDecode && p.Offload == nil && p.Batch > out.ManySequenceMaxBatch && p.Batch > 1 {
			out.ManySequenceMaxBatch = p.Batch
		}
	}
	for _, cl := range catalog.Classes {
		e, ok1 := all.classEff[cl]
		c, ok2 := all.classCEff[cl]
		if !ok1 && !ok2 {
			continue
		}
		ids := append([]string(nil), all.classIDs[cl]...)
		sort.Strings(ids)
		out.Classes = append(out.Classes, catalog.ClassFit{Class: cl, MemoryEfficiency: round4(e), ComputeEfficiency: round4(c), Pairs: len(ids), FittedOn: ids})
	}
	ratios := map[string][]float64{}
	ids := map[string][]string{}
	classes := map[string]map[string]bool{}
	for i, p := range pairs {
		rest := make([]*catalog.CalibrationPair, 0, len(pairs)-1)
		rest = append(append(rest, pairs[:i]...), pairs[i+1:]...)
		f := fit(cat, rest)
		r := predictPair(cat, p, f) / p.Value
		acc := pairAccelerator(cat, p)
		reg := regimeOf(acc.Class, int64(p.GPUs), int64(p.Batch), p.Metric == catalog.MetricPrefill)
		if p.Offload != nil {
			reg = "cpu-offload"
		}
		ratios[reg] = append(ratios[reg], r)
		ids[reg] = append(ids[reg], p.ID)
		if classes[reg] == nil {
			classes[reg] = map[string]bool{}
		}
		classes[reg][acc.Class] = true
	}
	for _, reg := range Regimes {
		re := regimeErrors(reg.ID, ratios[reg.ID], ids[reg.ID])
		for _, cl := range catalog.Classes {
			if classes[reg.ID][cl] {
				re.Classes = append(re.Classes, cl)
			}
		}
		out.Regimes = append(out.Regimes, re)
	}
	return out, nil
}

func regimeErrors(regime string, ratios []float64, ids []string) catalog.RegimeErrors {
	re := catalog.RegimeErrors{Regime: regime, Pairs: len(ratios), IDs: ids}
	if len(ratios) == 0 {
		return re
	}
	r := append([]float64(nil), ratios...)
	sort.Float64s(r)
	errs := make([]float64, len(r))
	var in125, in15, in2 int
	for i, v := range r {
		e := math.Max(v, 1/v)
		errs[i] = e - 1
		if e <= 1.25 {
			in125++
		}
		if e <= 1.5 {
			in15++
		}
		if e <= 2 {
			in2++
		}
	}
	sort.Float64s(errs)
	n := float64(len(r))
	re.MedianRatio = round4(percentile(r, 0.5))
	re.Within125, re.Within15, re.Within2 = round4(float64(in125)/n), round4(float64(in15)/n), round4(float64(in2)/n)
	re.ErrorP50, re.ErrorP90 = round4(percentile(errs, 0.5)), round4(percentile(errs, 0.9))
	return re
}

// percentile of sorted values, linear between ranks.
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 1 {
		return sorted[0]
	}
	x := q * float64(len(sorted)-1)
	i := int(math.Floor(x))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (x-float64(i))*(sorted[i+1]-sorted[i])
}

// round4 keeps four significant figures: what the file and the pages print.
func round4(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// MarshalSpeedFit is speed_fit.yaml's text for a fit.
func MarshalSpeedFit(f *catalog.SpeedFit) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# Written by the speed fit, never by hand: `go test ./generator/sizing -run TestSpeedFitIsCurrent -update`\n")
	b.WriteString("# refits on calibration.yaml and rewrites this file; the test fails when it differs from a refit.\n")
	e := yaml.NewEncoder(&b)
	e.SetIndent(2)
	if err := e.Encode(f); err != nil {
		return nil, fmt.Errorf("encode speed fit: %w", err)
	}
	if err := e.Close(); err != nil {
		return nil, fmt.Errorf("encode speed fit: %w", err)
	}
	return b.Bytes(), nil
}

// FitTable prints a fit: its parameters, then per regime the
// leave-one-out error.
func FitTable(f *catalog.SpeedFit) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d pairs: memory efficiency %.4g, %.4g µs per layer, %.4g µs per collective; compute efficiency %.4g on %d prefill pairs; host efficiency %.4g on %d offload pairs; token-batch efficiency %.4g on %d many-sequences pairs\n",
		f.Pairs, f.MemoryEfficiency, f.LayerSeconds*1e6, f.CollectiveSeconds*1e6, f.ComputeEfficiency, f.PrefillPairs, f.HostEfficiency, f.OffloadPairs, f.TokenBatchEfficiency, f.ManySequencePairs)
	for _, c := range f.Classes {
		fmt.Fprintf(&b, "  %s: memory efficiency %.4g, compute efficiency %.4g (0: the shared one), on its %d decode pairs\n", c.Class, c.MemoryEfficiency, c.ComputeEfficiency, c.Pairs)
	}
	fmt.Fprintf(&b, "%-18s %5s %8s %7s %7s %7s %8s %8s\n", "regime", "pairs", "median", "≤1.25×", "≤1.5×", "≤2×", "err p50", "err p90")
	for _, r := range f.Regimes {
		fmt.Fprintf(&b, "%-18s %5d %8.3f %7.2f %7.2f %7.2f %8.3f %8.3f\n", r.Regime, r.Pairs, r.MedianRatio, r.Within125, r.Within15, r.Within2, r.ErrorP50, r.ErrorP90)
	}
	return b.String()
}

func countClass(ts []pairTerms, class string) int {
	n := 0
	for _, t := range ts {
		if t.class == class {
			n++
		}
	}
	return n
}
