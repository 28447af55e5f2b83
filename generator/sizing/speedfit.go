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
}

// The grids the fit searches, coarse enough to refit once per left-out
// pair in a test: efficiencies to 0.01, fixed costs to 1 µs and 2 µs.
const (
	effLo, effHi, effStep = 0.30, 1.00, 0.01
	layerHi, layerStep    = 150e-6, 1e-6
	collHi, collStep      = 40e-6, 2e-6
	minClassPairs         = catalog.MinRegimePairs
	fitMethod             = "least squares on log(predicted ÷ measured) over a grid: memory efficiency 0.30–1.00 by 0.01, layer cost 0–150 µs by 1 µs, collective latency 0–40 µs by 2 µs, over all pairs; then each class with at least 5 pairs of its own, and not all of them, refits its memory efficiency alone. Collective bytes cross the link at 0.8 of its bandwidth (the site's default). Regime errors are leave-one-out: each pair predicted by the same procedure run without it."
	// pairLinkEfficiency is the site's default interconnect efficiency;
	// the collectives' bytes at batch 1 are a few microseconds, α dwarfs them.
	pairLinkEfficiency = 0.8
)

// pairWork is the step a calibration pair ran: its weights and cache
// streamed once per step, its collectives two all-reduces per layer.
func pairWork(p *catalog.CalibrationPair) stepWork {
	ctx := float64(p.PromptTokens) + float64(p.OutputTokens)/2
	b := float64(p.Batch)
	w := stepWork{
		groups: []opGroup{
			{name: "weights", bytes: p.BytesPerGPU, flops: 2 * p.ActiveParams * b / float64(p.GPUs)},
			{name: "attention", bytes: b * ctx * p.KVBytesPerToken},
		},
		layers: float64(p.Layers),
		stages: 1,
	}
	if p.GPUs > 1 {
		w.collectives = 2 * float64(p.Layers)
		w.commBytes = w.collectives * allReduceBytes(b*float64(p.Hidden)*2, int64(p.GPUs))
	}
	return w
}

func pairCost(cat *catalog.Catalog, p *catalog.CalibrationPair, sp speedParams, memEff float64) stepCost {
	acc := cat.Accelerators[p.Hardware]
	c := stepCost{bandwidth: acc.Bandwidth.Value, memEff: memEff, linkEff: pairLinkEfficiency,
		layerSeconds: sp.layerSeconds, collectiveSeconds: sp.collectiveSeconds, computeEff: 0.5}
	if acc.PeakBF16 != nil {
		c.peak = acc.PeakBF16.Value
	}
	if cl := cat.Speed.ClassFor(acc.Class); cl != nil {
		c.computeEff = cl.ComputeEfficiency
	}
	if acc.Interconnect != nil {
		c.link = acc.Interconnect.Value
	}
	return c
}

// predictPair is the pair's predicted decode rate per sequence.
func predictPair(cat *catalog.Catalog, p *catalog.CalibrationPair, sp speedParams, memEff float64) float64 {
	t := pairWork(p).time(pairCost(cat, p, sp, memEff))
	return 1 / t.total
}

// pairTerms is a pair's step with everything but the fitted parameters
// worked out, so the fit's grid costs a few operations per point.
type pairTerms struct {
	mem1, compute []float64 // per group: bytes ÷ bandwidth at efficiency 1, FLOPs ÷ (peak × efficiency)
	layers, colls float64
	comm          float64
	measured      float64
}

func termsOf(cat *catalog.Catalog, p *catalog.CalibrationPair) pairTerms {
	w := pairWork(p)
	c := pairCost(cat, p, speedParams{}, 1)
	t := pairTerms{layers: w.layers, colls: w.collectives, measured: p.Value}
	for _, g := range w.groups {
		t.mem1 = append(t.mem1, g.bytes/c.bandwidth)
		var f float64
		if c.peak > 0 {
			f = g.flops / (c.peak * c.computeEff)
		}
		t.compute = append(t.compute, f)
	}
	if c.link > 0 {
		t.comm = w.commBytes / (c.link * c.linkEff)
	}
	return t
}

// seconds is the step time of pairWork(p).time(pairCost(…)) for one pair.
func (t pairTerms) seconds(sp speedParams, eff float64) float64 {
	var s float64
	for i, m := range t.mem1 {
		s += math.Max(m/eff, t.compute[i])
	}
	return s + t.layers*sp.layerSeconds + t.colls*sp.collectiveSeconds + t.comm
}

func logErr(terms []pairTerms, sp speedParams, eff float64) float64 {
	var s float64
	for _, t := range terms {
		d := math.Log(1 / t.seconds(sp, eff) / t.measured)
		s += d * d
	}
	return s
}

// fitted is one run of the fit: the shared parameters and the classes'
// own memory efficiencies.
type fitted struct {
	sp       speedParams
	classEff map[string]float64
	classIDs map[string][]string
}

func (f fitted) eff(cat *catalog.Catalog, p *catalog.CalibrationPair) float64 {
	if e, ok := f.classEff[cat.Accelerators[p.Hardware].Class]; ok {
		return e
	}
	return f.sp.memEff
}

// steps counts the points of a grid from 0 (or lo) to hi by step.
func steps(lo, hi, step float64) int { return int(math.Round((hi-lo)/step)) + 1 }

func fit(cat *catalog.Catalog, pairs []*catalog.CalibrationPair) fitted {
	terms := make([]pairTerms, len(pairs))
	for i, p := range pairs {
		terms[i] = termsOf(cat, p)
	}
	best, bestErr := speedParams{}, math.Inf(1)
	for i := 0; i < steps(effLo, effHi, effStep); i++ {
		eff := effLo + float64(i)*effStep
		for j := 0; j < steps(0, layerHi, layerStep); j++ {
			for k := 0; k < steps(0, collHi, collStep); k++ {
				sp := speedParams{memEff: eff, layerSeconds: float64(j) * layerStep, collectiveSeconds: float64(k) * collStep}
				if e := logErr(terms, sp, eff); e < bestErr {
					best, bestErr = sp, e
				}
			}
		}
	}
	f := fitted{sp: best, classEff: map[string]float64{}, classIDs: map[string][]string{}}
	byClass := map[string][]pairTerms{}
	for i, p := range pairs {
		cl := cat.Accelerators[p.Hardware].Class
		byClass[cl] = append(byClass[cl], terms[i])
		f.classIDs[cl] = append(f.classIDs[cl], p.ID)
	}
	for cl, ts := range byClass {
		if len(ts) < minClassPairs || len(ts) == len(pairs) {
			// Too few of its own, or all of them: the shared fit is the class's.
			delete(f.classIDs, cl)
			continue
		}
		bestEff, bestErr := best.memEff, math.Inf(1)
		for i := 0; i < steps(effLo, effHi, effStep); i++ {
			eff := effLo + float64(i)*effStep
			if e := logErr(ts, best, eff); e < bestErr {
				bestEff, bestErr = eff, e
			}
		}
		f.classEff[cl] = bestEff
	}
	return f
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
		MemoryEfficiency: round4(all.sp.memEff), LayerSeconds: round4(all.sp.layerSeconds), CollectiveSeconds: round4(all.sp.collectiveSeconds)}
	for _, cl := range catalog.Classes {
		if e, ok := all.classEff[cl]; ok {
			ids := append([]string(nil), all.classIDs[cl]...)
			sort.Strings(ids)
			out.Classes = append(out.Classes, catalog.ClassFit{Class: cl, MemoryEfficiency: round4(e), Pairs: len(ids), FittedOn: ids})
		}
	}
	ratios := map[string][]float64{}
	ids := map[string][]string{}
	for i, p := range pairs {
		rest := make([]*catalog.CalibrationPair, 0, len(pairs)-1)
		rest = append(append(rest, pairs[:i]...), pairs[i+1:]...)
		f := fit(cat, rest)
		r := predictPair(cat, p, f.sp, f.eff(cat, p)) / p.Value
		acc := cat.Accelerators[p.Hardware]
		reg := regimeOf(acc.Class, int64(p.GPUs), int64(p.Batch), false)
		ratios[reg] = append(ratios[reg], r)
		ids[reg] = append(ids[reg], p.ID)
	}
	for _, reg := range Regimes {
		out.Regimes = append(out.Regimes, regimeErrors(reg.ID, ratios[reg.ID], ids[reg.ID]))
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
	fmt.Fprintf(&b, "%d pairs: memory efficiency %.4g, %.4g µs per layer, %.4g µs per collective\n", f.Pairs, f.MemoryEfficiency, f.LayerSeconds*1e6, f.CollectiveSeconds*1e6)
	for _, c := range f.Classes {
		fmt.Fprintf(&b, "  %s: memory efficiency %.4g on its %d pairs\n", c.Class, c.MemoryEfficiency, c.Pairs)
	}
	fmt.Fprintf(&b, "%-18s %5s %8s %7s %7s %7s %8s %8s\n", "regime", "pairs", "median", "≤1.25×", "≤1.5×", "≤2×", "err p50", "err p90")
	for _, r := range f.Regimes {
		fmt.Fprintf(&b, "%-18s %5d %8.3f %7.2f %7.2f %7.2f %8.3f %8.3f\n", r.Regime, r.Pairs, r.MedianRatio, r.Within125, r.Within15, r.Within2, r.ErrorP50, r.ErrorP90)
	}
	return b.String()
}
