package charts

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// wellFormed parses the SVG as XML: inline SVG must be well-formed.
func wellFormed(t *testing.T, svg string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, svg)
		}
	}
}

func TestStripCountsLayers(t *testing.T) {
	kinds := strings.Repeat("LLLF", 23) + "F"
	svg := (&Strip{Title: "93 layers", Desc: "d", Kinds: kinds}).SVG("layers")
	wellFormed(t, svg)
	if got := strings.Count(svg, `class="layer full" x=`); got != 24+1 { // 24 cells + legend swatch
		t.Errorf("full cells = %d, want 24 (+1 legend)", got-0)
	}
	if got := strings.Count(svg, `class="layer linear" x=`); got != 69+1 {
		t.Errorf("linear cells = %d, want 69 (+1 legend)", got)
	}
	if !strings.Contains(svg, "layer 93: full attention") || !strings.Contains(svg, "layer 92: full attention") {
		t.Error("layers 92 and 93 should both be full")
	}
}

func TestStackedShowsShortfallAndEscapes(t *testing.T) {
	c := &Stacked{Title: "<memory>", Desc: "a & b", Unit: func(v, _ float64) string { return "x" },
		Bars: []Bar{{Label: "8xB200", Capacity: 1440, Usable: 1296,
			Segments: []Segment{{Label: "payload", Value: 1361, Class: "payload"}, {Label: "scales", Value: 85, Class: "scales"}},
			Note:     "120.9 GB short", Bad: true}}}
	svg := c.SVG("mem")
	wellFormed(t, svg)
	for _, want := range []string{"&lt;memory&gt;", "a &amp; b", `class="note bad"`, "120.9 GB short", `role="img"`, `aria-labelledby="mem-title mem-desc"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
}
