package render

import "strings"

// FactMatrix is a table of facts that share their columns, one row per
// layout or accelerator: what each column is, how it is derived and from
// what is stated once above it (Notes), and each cell holds one fact. A
// row's id is its facts' key up to the row, where a dossier's links to
// them land (FactsTarget). It is written straight to HTML, after the
// page's other tables.
type FactMatrix struct {
	Title  string   // text, e.g. serving.{row}.…
	Notes  []string // text, one per column: unit, rules, sources
	Header []string // text; the first heads the row labels
	Rows   []MatrixRow
}

// MatrixRow is one row of a FactMatrix.
type MatrixRow struct {
	ID    string // the facts' key up to the row: fit.8xH100, fit.min_gpus.H100
	Label string
	Cells []MatrixCell // one per column after the label; a zero cell is empty
}

// MatrixCell is one fact of a FactMatrix.
type MatrixCell struct {
	Key   string // the fact key; "" for an empty cell
	Value string // text
	Note  string // text under the value: the row's numbers of the rule, or its own derivation
}

// writeHTML writes the matrix's title, notes and table. Text is escaped
// and linked as table cells are (writeCellText).
func (m *FactMatrix) writeHTML(b *strings.Builder) {
	b.WriteString(`<h3 class="matrix">`)
	writeCellText(b, m.Title)
	b.WriteString("</h3>\n<ul class=\"matrix\">\n")
	for _, n := range m.Notes {
		b.WriteString("<li>")
		writeCellText(b, n)
		b.WriteString("</li>\n")
	}
	b.WriteString("</ul>\n<table>\n<thead>\n<tr>\n")
	for _, h := range m.Header {
		b.WriteString(`<th scope="col">`)
		writeCellText(b, h)
		b.WriteString("</th>\n")
	}
	b.WriteString("</tr>\n</thead>\n<tbody>\n")
	for _, r := range m.Rows {
		// A row on one line: a K3-scale page has thousands of cells.
		b.WriteString("<tr")
		if validAnchor(r.ID) {
			b.WriteString(` id="`)
			b.WriteString(r.ID)
			b.WriteByte('"')
		}
		b.WriteString("><th scope=\"row\">")
		writeCellText(b, r.Label)
		b.WriteString("</th>")
		for _, c := range r.Cells {
			if c.Key == "" {
				b.WriteString("<td></td>")
				continue
			}
			b.WriteString("<td>")
			writeCellText(b, c.Value)
			if c.Note != "" {
				b.WriteString("<br><small>")
				writeCellText(b, c.Note)
				b.WriteString("</small>")
			}
			b.WriteString("</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
}
