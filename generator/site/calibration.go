package site

import (
	"fmt"
	"sort"
	"strings"

	"dossier/generator/claims"
	"dossier/generator/facts"
	"dossier/generator/render"
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
	b.WriteString("Every published decode-speed measurement of a model on this site that names the layout it ran on, beside the build's roofline prediction for that layout (see each dossier's speed section for the settings). A ratio above 1 means the prediction is faster than what was measured.\n\n")
	lo, med, hi, ok := Spread(ratios)
	if ok {
		fmt.Fprintf(&b, "**Spread:** %d pairs from %d models; predicted ÷ measured runs from %s to %s, median %s. That range is the error bar of every speed figure on this site.\n\n",
			len(ratios), len(models), ratioText(lo), ratioText(hi), ratioText(med))
		table(comparable)
	} else {
		b.WriteString("No measurement on this site names a layout the build can predict, so the speed figures have no measured error bar yet.\n\n")
	}
	if len(other.Rows) > 0 {
		b.WriteString("\n## Measurements not compared\n\n")
		table(other)
	}
	md := []byte(b.String())
	html, err := s.Templates.HTML(md, render.HTMLPage{PageTitle: "Calibration · " + s.Config.Title, SiteTitle: s.Config.Title, Root: "../", MarkdownURL: "index.md", Search: s.Config.Search, Tables: printed}, nil)
	if err != nil {
		return fmt.Errorf("render %sindex.html: %w", CalibrationPath, err)
	}
	if err := out.put(CalibrationPath+"index.md", md); err != nil {
		return err
	}
	return out.put(CalibrationPath+"index.html", html)
}

func ratioText(r float64) string { return facts.Fixed(r, 2) + "×" }
