package page

import (
	"fmt"
	"strings"

	"dossier/generator/charts"
	"dossier/generator/facts"
	"dossier/generator/render"
)

func (m *Model) num(key string) (float64, bool) { return m.Facts.Get(key).Float() }

// weightSegments splits tensor bytes into payload, scales and unquantized
// modules when the facts separate them, else one "weights" segment.
func (m *Model) weightSegments() []charts.Segment {
	tb, ok := m.num("bytes.tensors")
	if !ok {
		return nil
	}
	payload, p1 := m.num("bytes.payload")
	scales, p2 := m.num("bytes.quant_scales")
	unq, p3 := m.num("bytes.unquantized")
	if !p1 || !p2 || !p3 || payload == 0 {
		return []charts.Segment{{Label: "weights", Value: tb, Class: "weights"}}
	}
	segs := []charts.Segment{
		{Label: "quantized payload", Value: payload, Class: "payload"},
		{Label: "scales", Value: scales, Class: "scales"},
		{Label: "unquantized modules", Value: unq, Class: "unquantized"},
	}
	if rest := tb - payload - scales - unq; rest > tb*1e-6 {
		segs = append(segs, charts.Segment{Label: "other tensors", Value: rest, Class: "other"})
	}
	return segs
}

// byteTick labels a byte axis in the unit that fits its largest value.
func byteTick(v, axisMax float64) string { return facts.BytesIn(v, axisMax) }

// buildCharts draws the page's charts from its facts; a chart whose facts
// are unknown is left out.
func (m *Model) buildCharts() map[string]render.Chart {
	out := map[string]render.Chart{}
	add := func(name, alt, svg string) {
		out[name] = render.Chart{File: name + ".svg", Alt: alt, SVG: svg} // beside the page, as a Hugo leaf bundle keeps its images
	}
	if w := m.weightSegments(); w != nil && len(m.Hardware) > 0 {
		cache, _ := m.num("fit.cache_bytes")
		c := &charts.Stacked{Unit: byteTick, Value: facts.GB}
		for _, hw := range m.Hardware {
			total, ok := m.num("fit." + hw + ".memory_bytes")
			if !ok {
				continue
			}
			usable, _ := m.num("fit." + hw + ".usable_bytes")
			segs := append([]charts.Segment(nil), w...)
			if cache > 0 {
				segs = append(segs, charts.Segment{Label: "KV cache + state", Value: cache, Class: "cache"})
			}
			margin, _ := m.num("fit." + hw + ".serving_margin_bytes")
			bar := charts.Bar{Label: HWLabel(hw), Segments: segs, Capacity: total, Usable: usable, ID: "fit-" + hw, Bad: margin < 0}
			// Either margin may be absent (no serving verdict without a cache size).
			if f := m.Facts.Get("fit." + hw + ".serving_margin_bytes"); f != nil {
				bar.Note = f.Display
			} else if f := m.Facts.Get("fit." + hw + ".margin_bytes"); f != nil {
				bar.Note = f.Display
			}
			c.Bars = append(c.Bars, bar)
		}
		if len(c.Bars) > 0 {
			c.Title = "Memory needed against each hardware configuration"
			assume := ""
			if f := m.Facts.Get("fit.assumptions"); f.Known() {
				assume = f.Display
			}
			var notes []string
			for _, b := range c.Bars {
				notes = append(notes, b.Label+": "+b.Note)
			}
			c.Desc = "Weights and, when known, KV cache and state (" + assume + ") stacked against total memory (outline) and usable memory (dashed). " + strings.Join(notes, "; ") + "."
			add("memory", c.Desc, c.SVG("chart-memory"))
		}
	}
	if f := m.Facts.Get("arch.layer_kinds"); f.Known() {
		kinds := f.Display
		s := &charts.Strip{Title: "Attention kind of every layer", Kinds: kinds,
			Desc: fmt.Sprintf("%d layers: %d full attention, %d linear attention, %d sliding window.", len(kinds),
				strings.Count(kinds, "F"), strings.Count(kinds, "L"), strings.Count(kinds, "S"))}
		if full := m.Facts.Get("arch.layers_full_attention"); full.Known() {
			s.Desc += " Full-attention layers, 1-based: " + fullList(kinds) + "."
		}
		add("layers", s.Desc, s.SVG("chart-layers"))
	}
	if w := m.weightSegments(); w != nil {
		c := &charts.Stacked{Unit: byteTick, Value: facts.GB, Title: "The naive multiplication against the real checkpoint"}
		var parts []string
		for _, k := range [][2]string{{"headline parameters × nominal bits", "bytes.naive_headline"}, {"exact parameters × nominal bits", "bytes.naive_exact"}} {
			if v, ok := m.num(k[1]); ok {
				c.Bars = append(c.Bars, charts.Bar{Label: strings.SplitN(k[0], " ×", 2)[0], Segments: []charts.Segment{{Label: "naive estimate", Value: v, Class: "naive"}}, Note: facts.GB(v)})
				parts = append(parts, k[0]+": "+facts.GB(v))
			}
		}
		file := append([]charts.Segment(nil), w...)
		if h, ok := m.num("bytes.headers"); ok {
			file = append(file, charts.Segment{Label: "safetensors headers", Value: h, Class: "headers"})
		}
		total := 0.0
		for _, s := range file {
			total += s.Value
			parts = append(parts, s.Label+": "+facts.GB(s.Value))
		}
		c.Bars = append(c.Bars, charts.Bar{Label: "the real file", Segments: file, Note: facts.GB(total)})
		c.Desc = "Bars for the naive multiplications and the checkpoint split into its parts. " + strings.Join(parts, "; ") + "."
		add("bytes", c.Desc, c.SVG("chart-bytes"))
	}
	return out
}

func fullList(kinds string) string {
	var n []string
	for i := range kinds {
		if kinds[i] == 'F' {
			n = append(n, fmt.Sprint(i+1))
		}
	}
	return strings.Join(n, ", ")
}
