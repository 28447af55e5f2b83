// Package charts draws the dossier's charts as inline SVG from plain
// numbers: no JavaScript is needed to see them, each carries a title and a
// description for assistive technology, and the page prints the same
// numbers in a table beside it. Colours come from CSS classes, so the page
// stylesheet decides light, dark and print.
package charts

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Segment is one coloured part of a bar.
type Segment struct {
	Label string
	Value float64
	Class string // CSS class: payload, scales, unquantized, headers, cache, naive
}

// Bar is one row of a stacked bar chart.
type Bar struct {
	Label    string
	Segments []Segment
	Capacity float64 // total memory (0: none); drawn as an outline
	Usable   float64 // usable memory (0: none); drawn as a dashed mark
	Note     string  // printed at the end of the row, e.g. "22.7 GB short"
	Bad      bool    // the note is a shortfall
	ID       string  // anchor of the row in the page's table
}

// Stacked is a horizontal stacked bar chart. Each bar's label and note
// sit on a line above it, so the bars use the chart's full width and the
// chart scales down to a phone without cropping a label.
type Stacked struct {
	Title string
	Desc  string
	// Unit writes a value of the axis whose largest value is axisMax, so
	// every label of one chart shares a unit that fits its magnitude.
	Unit func(v, axisMax float64) string
	// Value writes one segment's or capacity's own value in its hover
	// title, in the unit that fits it (a 3 KB header in a 4 MB bar); nil
	// uses Unit.
	Value func(v float64) string
	Bars  []Bar
}

// The geometry is in viewBox units; the chart is drawn at most at about
// 1.4× and at 390 px at about 0.75×, so 13-unit text stays legible.
const (
	width     = 480.0
	pad       = 6.0
	labelH    = 17.0
	barH      = 16.0
	rowGap    = 10.0
	rowH      = labelH + barH + rowGap
	topPad    = 4.0
	legendH   = 26.0
	axisH     = 22.0
	charW     = 6.8 // average advance of a 12-unit sans-serif character
	plotLeft  = pad
	plotRight = width - pad
)

// SVG renders the chart.
func (c *Stacked) SVG(id string) string {
	max := 0.0
	for _, b := range c.Bars {
		t := 0.0
		for _, s := range b.Segments {
			t += s.Value
		}
		max = math.Max(max, math.Max(t, b.Capacity))
	}
	if max == 0 {
		max = 1
	}
	unit := func(v float64) string { return c.Unit(v, max) }
	value := unit
	if c.Value != nil {
		value = c.Value
	}
	x := func(v float64) float64 { return plotLeft + v/max*(plotRight-plotLeft) }
	seen := map[string]string{}
	var order []string
	for _, bar := range c.Bars {
		for _, s := range bar.Segments {
			if _, ok := seen[s.Class]; !ok && s.Value > 0 {
				seen[s.Class] = s.Label
				order = append(order, s.Class)
			}
		}
	}
	items := legendItems(order, seen, len(c.Bars) > 0 && c.Bars[0].Capacity > 0)
	h := topPad + float64(len(c.Bars))*rowH + axisH + legendHeight(items)
	var b strings.Builder
	open(&b, id, c.Title, c.Desc, h)
	for i, bar := range c.Bars {
		ly := topPad + float64(i)*rowH + labelH - 4
		y := topPad + float64(i)*rowH + labelH
		fmt.Fprintf(&b, `<text class="label" x="%.1f" y="%.1f">%s</text>`, plotLeft, ly, esc(bar.Label))
		if bar.Note != "" {
			cls := "note"
			if bar.Bad {
				cls = "note bad"
			}
			fmt.Fprintf(&b, `<text class="%s" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, cls, plotRight, ly, esc(bar.Note))
		}
		pos := 0.0
		for _, s := range bar.Segments {
			if s.Value <= 0 {
				continue
			}
			fmt.Fprintf(&b, `<rect class="seg %s" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s: %s</title></rect>`,
				esc(s.Class), x(pos), y, x(pos+s.Value)-x(pos), barH, esc(s.Label), esc(value(s.Value)))
			pos += s.Value
		}
		if bar.Capacity > 0 {
			fmt.Fprintf(&b, `<rect class="capacity" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>memory: %s</title></rect>`,
				plotLeft, y-2, x(bar.Capacity)-plotLeft, barH+4, esc(value(bar.Capacity)))
		}
		if bar.Usable > 0 {
			fmt.Fprintf(&b, `<line class="usable" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"><title>usable: %s</title></line>`,
				x(bar.Usable), x(bar.Usable), y-3, y+barH+3, esc(value(bar.Usable)))
		}
	}
	axisY := topPad + float64(len(c.Bars))*rowH
	fmt.Fprintf(&b, `<line class="axis" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, plotLeft, plotRight, axisY, axisY)
	for i := 0; i <= 4; i++ {
		v := max * float64(i) / 4
		anchor := "middle"
		switch i {
		case 0:
			anchor = "start"
		case 4:
			anchor = "end"
		}
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="%s">%s</text>`, x(v), axisY+14, anchor, esc(unit(v)))
	}
	drawLegend(&b, axisY+axisH, items)
	b.WriteString("</svg>")
	return b.String()
}

type legendItem struct {
	class, label string
	x, row       float64
	usable       bool
}

// legendItems lays the legend out in rows that fit the chart's width.
func legendItems(order []string, names map[string]string, capacity bool) []legendItem {
	var items []legendItem
	for _, cls := range order {
		items = append(items, legendItem{class: "seg " + cls, label: names[cls]})
	}
	if capacity {
		items = append(items, legendItem{class: "capacity", label: "memory"}, legendItem{class: "usable", label: "usable", usable: true})
	}
	lx, row := plotLeft, 0.0
	for i := range items {
		w := 26 + charW*float64(len([]rune(items[i].label)))
		if lx+w > plotRight && lx > plotLeft {
			lx, row = plotLeft, row+1
		}
		items[i].x, items[i].row = lx, row
		lx += w
	}
	return items
}

func legendHeight(items []legendItem) float64 {
	if len(items) == 0 {
		return 4
	}
	return legendH + 16*items[len(items)-1].row
}

func drawLegend(b *strings.Builder, y float64, items []legendItem) {
	for _, it := range items {
		ly := y + 16*it.row
		if it.usable {
			fmt.Fprintf(b, `<line class="usable" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, it.x+6, it.x+6, ly-1, ly+13)
		} else {
			fmt.Fprintf(b, `<rect class="%s" x="%.1f" y="%.1f" width="12" height="12"/>`, esc(it.class), it.x, ly)
		}
		fmt.Fprintf(b, `<text class="legend" x="%.1f" y="%.1f">%s</text>`, it.x+16, ly+10, esc(it.label))
	}
}

func open(b *strings.Builder, id, title, desc string, h float64) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="%s" viewBox="0 0 %.0f %.0f" width="100%%" role="img" aria-labelledby="%s-title %s-desc">`,
		esc(id), width, h, esc(id), esc(id))
	fmt.Fprintf(b, `<title id="%s-title">%s</title><desc id="%s-desc">%s</desc>`, esc(id), esc(title), esc(id), esc(desc))
}

func esc(s string) string { return html.EscapeString(s) }

// Strip draws one cell per layer, coloured by layer kind.
type Strip struct {
	Title string
	Desc  string
	Kinds string // one letter per layer: F full, L linear, S sliding
}

var kindClass = map[byte]string{'F': "full", 'L': "linear", 'S': "sliding"}
var kindName = map[byte]string{'F': "full attention", 'L': "linear attention", 'S': "sliding window"}

// SVG renders the strip.
func (s *Strip) SVG(id string) string {
	n := len(s.Kinds)
	cell := math.Min(24, (width-2*pad)/math.Max(1, float64(n)))
	var items []legendItem
	lx, row := plotLeft, 0.0
	for _, k := range []byte{'F', 'L', 'S'} {
		c := strings.Count(s.Kinds, string(k))
		if c == 0 {
			continue
		}
		label := fmt.Sprintf("%s (%d)", kindName[k], c)
		w := 26 + charW*float64(len([]rune(label)))
		if lx+w > plotRight && lx > plotLeft {
			lx, row = plotLeft, row+1
		}
		items = append(items, legendItem{class: "layer " + kindClass[k], label: label, x: lx, row: row})
		lx += w
	}
	h := 56 + legendHeight(items)
	var b strings.Builder
	open(&b, id, s.Title, s.Desc, h)
	for i := 0; i < n; i++ {
		k := s.Kinds[i]
		fmt.Fprintf(&b, `<rect class="layer %s" x="%.2f" y="20" width="%.2f" height="24"><title>layer %d: %s</title></rect>`,
			kindClass[k], pad+float64(i)*cell, math.Max(cell-1, 0.5), i+1, kindName[k])
	}
	for i := 0; i < n; i++ {
		// Decades, the first and the last layer; a decade next to the last
		// would print over it.
		if i == 0 || i == n-1 || (i+1)%10 == 0 && n-1-i >= 4 {
			fmt.Fprintf(&b, `<text class="tick" x="%.2f" y="14" text-anchor="middle">%d</text>`, pad+(float64(i)+0.5)*cell, i+1)
		}
	}
	drawLegend(&b, 56, items)
	b.WriteString("</svg>")
	return b.String()
}
