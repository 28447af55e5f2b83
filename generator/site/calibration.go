package site

import (
	"fmt"
	"sort"
	"strings"

	"dossier/generator/catalog"
	"dossier/generator/claims"
	"dossier/generator/facts"
	"dossier/generator/render"
	"dossier/generator/sizing"
)

// CalibrationPath is the site's page of every speed prediction set beside
// a measurement, across models.
const CalibrationPath = "calibration/"

// CalibrationPair is one speed measurement of a model beside the
// prediction for the layout it ran on (sizing's calibration.<ID>.* facts).
// Ratio is predicted ÷ measured; Comparable is false when the build found
// no prediction to set beside it, with the reason.
type CalibrationPair struct {
	ID         string  `json:"id"`
	Layout     string  `json:"layout"`
	Measured   string  `json:"measured"`
	By         string  `json:"by"`
	Predicted  string  `json:"predicted"`
	Ratio      float64 `json:"ratio"`
	RatioText  string  `json:"ratio_text"`
	Comparable bool    `json:"comparable"`
	Reason     string  `json:"reason,omitempty"`
	Source     string  `json:"source"`
	SourceURL  string  `json:"source_url,omitempty"`
}

// calibrationPairs reads a model's pairs from its facts: every measurement
// the calibration stage judged (it wrote calibration.<ID>.ratio).
func calibrationPairs(m *Model) []CalibrationPair {
	var out []CalibrationPair
	for i := range m.Content.Front.Measurements {
		ms := &m.Content.Front.Measurements[i]
		rf := m.Facts.Get("calibration." + ms.ID + ".ratio")
		if rf == nil {
			continue // not a decode speed
		}
		p := CalibrationPair{ID: ms.ID, Layout: ms.Configuration.Layout, Measured: claims.Value(ms), By: ms.By, Source: ms.Source}
		for _, s := range m.Content.Front.Sources {
			if s.ID == ms.Source {
				p.Source, p.SourceURL = s.Title, s.URL
			}
		}
		if r, ok := rf.Float(); ok {
			p.Ratio, p.RatioText, p.Comparable = r, rf.Display, true
			p.Predicted = m.Facts.Get("calibration." + ms.ID + ".predicted").Display
			// A streamed run: the prediction is bytes ÷ an assumed disk
			// rate, so the rate the run implies stands beside it.
			if d := m.Facts.Get("calibration." + ms.ID + ".implied_disk_bytes_per_second"); d.Known() {
				p.Predicted += fmt.Sprintf(" at an assumed %s from disk; the run implies %s", m.Facts.Get("calibration."+ms.ID+".assumed_disk_bytes_per_second").Display, d.Display)
			}
		} else {
			p.Reason = rf.Reason
		}
		out = append(out, p)
	}
	return out
}

// Spread is the minimum, median and maximum of ratios (none when empty).
func Spread(ratios []float64) (lo, med, hi float64, ok bool) {
	if len(ratios) == 0 {
		return 0, 0, 0, false
	}
	r := append([]float64(nil), ratios...)
	sort.Float64s(r)
	n := len(r)
	med = r[n/2]
	if n%2 == 0 {
		med = (r[n/2-1] + r[n/2]) / 2
	}
	return r[0], med, r[n-1], true
}

// renderCalibration writes calibration/index.md and index.html: every
// comparable pair across models, the spread of their ratios (the honest
// error bar of the speed predictions), then the measurements that could
// not be compared and why.
func (s *Site) renderCalibration(out *memory, sums []*Summary) error {
	comparable := &render.Table{
		Header: []string{"model", "measurement", "layout", "measured", "predicted", "predicted ÷ measured", "by", "source"},
		Align:  []render.Align{render.Left, render.Left, render.Left, render.Right, render.Right, render.Right, render.Left, render.Left},
	}
	other := &render.Table{Header: []string{"model", "measurement", "measured", "why not compared"}}
	var ratios []float64
	models := map[string]bool{}
	for _, sum := range sums {
		link := sum.Title // table cells are literal text
		for _, p := range sum.Calibration {
			if !p.Comparable {
				other.Rows = append(other.Rows, []string{link, render.Code(p.ID), p.Measured, p.Reason})
				continue
			}
			src := p.Source
			if p.SourceURL != "" {
				src = p.Source + ", " + p.SourceURL
			}
			comparable.Rows = append(comparable.Rows, []string{link, render.Code(p.ID), p.Layout, p.Measured, p.Predicted, p.RatioText, p.By, src})
			ratios = append(ratios, p.Ratio)
			models[sum.Slug] = true
		}
	}
	var b strings.Builder
	// The tables are handed to the HTML page as printed, so they are
	// written straight to HTML: a site of a thousand models has thousands
	// of rows, which goldmark parsed back from the Markdown.
	var printed []render.PrintedTable
	table := func(t *render.Table) {
		md := t.Markdown()
		printed = append(printed, render.PrintedTable{Table: t, Markdown: md})
		b.WriteString(md)
	}
	b.WriteString("# Speed predictions against measurements\n\n")
	s.writeSpeedModel(&b, table)
	b.WriteString("## This site's models\n\n")
	b.WriteString("Every published decode-speed measurement of a model on this site that names the layout it ran on, beside the build's prediction for that layout (see each dossier's speed section for the settings). A ratio above 1 means the prediction is faster than what was measured. Some of these runs are also in the calibration set above (the same source and configuration), so they are not all an independent check; and some ran under conditions other than the ones the figures assume (another context length, an engine's own word count), as the measurement's text says.\n\n")
	lo, med, hi, ok := Spread(ratios)
	if ok {
		fmt.Fprintf(&b, "**Spread:** %d pairs from %d models; predicted ÷ measured runs from %s to %s, median %s.\n\n",
			len(ratios), len(models), ratioText(lo), ratioText(hi), ratioText(med))
		table(comparable)
	} else {
		b.WriteString("No measurement on this site names a layout the build can predict.\n\n")
	}
	if len(other.Rows) > 0 {
		b.WriteString("\n## Measurements not compared\n\n")
		table(other)
	}
	md := []byte(b.String())
	return s.putPage(out, CalibrationPath, "Calibration", md, printed)
}

func ratioText(r float64) string { return facts.Fixed(r, 2) + "×" }

// writeSpeedModel writes the speed model's calibration: its fitted
// parameters, the leave-one-out error per regime (the error bar every
// speed figure prints), and the calibration set.
func (s *Site) writeSpeedModel(b *strings.Builder, table func(*render.Table)) {
	var sm *catalog.SpeedModel
	if s.Catalog != nil {
		sm = s.Catalog.Speed
	}
	if sm == nil || sm.Fit == nil {
		b.WriteString("This site's data has no fitted speed model (data/speed_fit.yaml), so every speed figure is uncalibrated: it uses the site's efficiencies and no fixed costs.\n\n")
		return
	}
	f := sm.Fit
	b.WriteString("## The speed model and its cross-validated error\n\n")
	fmt.Fprintf(b, "Each decode step takes, per operator group, the longer of streaming its bytes and computing its FLOPs, plus a fixed cost per layer and per tensor-parallel collective. Fitted on %d public measurements (data/calibration.yaml): %s of the catalog bandwidth, %s µs per layer, %s µs per collective.",
		f.Pairs, facts.Percent(f.MemoryEfficiency), facts.Fixed(f.LayerSeconds*1e6, 0), facts.Fixed(f.CollectiveSeconds*1e6, 0))
	for _, c := range f.Classes {
		fmt.Fprintf(b, " %s hardware has its own memory efficiency, %s, fitted on its %d pairs.", c.Class, facts.Percent(c.MemoryEfficiency), c.Pairs)
	}
	if f.TokenBatchEfficiency > 0 {
		fmt.Fprintf(b, " Each token beyond the first adds its matrix FLOPs to a decode step at %s of the 16-bit dense peak, fitted on the %d many-sequences pairs (batches up to %d; beyond that it is extrapolated).", facts.Percent(f.TokenBatchEfficiency), f.ManySequencePairs, f.ManySequenceMaxBatch)
	}
	if f.HostEfficiency > 0 {
		fmt.Fprintf(b, " Weights kept in the host's RAM are read by the CPU at %s of the host's stated memory bandwidth, fitted on %d offload pairs.", facts.Percent(f.HostEfficiency), f.OffloadPairs)
	}
	b.WriteString(" Method: " + f.Method + "\n\n")
	fmt.Fprintf(b, "The error below is leave-one-out: each pair is predicted by a fit that did not see it. A figure on a dossier prints its regime's typical error (the 50th percentile); a regime with fewer than %d pairs prints \"uncalibrated\".\n\n", catalog.MinRegimePairs)
	rt := &render.Table{
		Header: []string{"regime", "pairs", "median predicted ÷ measured", "within 1.25×", "within 1.5×", "within 2×", "typical error (p50)", "p90"},
		Align:  []render.Align{render.Left, render.Right, render.Right, render.Right, render.Right, render.Right, render.Right, render.Right},
	}
	for _, reg := range sizing.Regimes {
		re := f.Regime(reg.ID)
		if re == nil || re.Pairs == 0 {
			rt.Rows = append(rt.Rows, []string{reg.Label, "0", "—", "—", "—", "—", "uncalibrated", "—"})
			continue
		}
		typical := "±" + facts.Fixed(re.ErrorP50*100, 0) + " %"
		if re.Pairs < catalog.MinRegimePairs {
			typical = "uncalibrated"
		}
		rt.Rows = append(rt.Rows, []string{reg.Label, facts.Int(int64(re.Pairs)), ratioText(re.MedianRatio),
			facts.Percent(re.Within125), facts.Percent(re.Within15), facts.Percent(re.Within2), typical, "±" + facts.Fixed(re.ErrorP90*100, 0) + " %"})
	}
	table(rt)
	b.WriteString("\n### The calibration set\n\n")
	pt := &render.Table{
		Header: []string{"pair", "model", "weights", "hardware", "engine", "batch", "prompt / output", "measured", "bytes per GPU", "source"},
		Align:  []render.Align{render.Left, render.Left, render.Left, render.Left, render.Left, render.Right, render.Right, render.Right, render.Right, render.Left},
	}
	for _, p := range sm.Pairs {
		lengths := facts.Int(int64(p.PromptTokens)) + " / " + facts.Int(int64(p.OutputTokens))
		if p.PromptTokens == 0 && p.OutputTokens == 0 {
			lengths = "not stated"
		}
		hardware, engine, read := fmt.Sprintf("%d × %s", p.GPUs, p.Hardware), p.Engine+" "+p.EngineVersion, facts.GB(p.BytesPerGPU)
		if o := p.Offload; o != nil {
			how := "stated memory"
			if o.Host.Measured {
				how = "measured"
			}
			hardware += fmt.Sprintf(" + host (%s, %s, %s %s)", o.Host.CPU, o.Host.Memory, facts.GB(o.Host.Bandwidth)+"/s", how)
			engine += ", offload flags " + o.Flags
			read += " + " + facts.GB(o.HostBytes) + " on the CPU"
		}
		pt.Rows = append(pt.Rows, []string{render.Code(p.ID), p.Model, p.Quant, hardware, engine,
			facts.Int(int64(p.Batch)), lengths, facts.Fixed(p.Value, 2) + " tokens/s", read, p.Source})
	}
	table(pt)
	b.WriteString("\n")
}
