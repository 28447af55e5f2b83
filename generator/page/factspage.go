package page

import (
	"strconv"
	"strings"

	"dossier/generator/facts"
	"dossier/generator/render"
)

// FactsAppendix is every fact of the page for the facts page, anchored by
// its key (the HTML tables link their values there): the facts of the
// layout and accelerator matrices as one table each, every column's unit,
// rules and sources stated once above it, and the other facts one row
// each. tab is m.Facts.Tabulate(), the layout facts.json writes too.
func (m *Model) FactsAppendix(tab *facts.Tabulated) (*render.Table, []*render.FactMatrix) {
	singles := m.factsTable(func(yield func(*facts.Fact) bool) {
		for _, f := range tab.Singles {
			if !yield(f) {
				return
			}
		}
	}, len(tab.Singles))
	matrices := make([]*render.FactMatrix, 0, len(tab.Tables))
	for _, t := range tab.Tables {
		matrices = append(matrices, m.factMatrix(t))
	}
	return singles, matrices
}

func (m *Model) factMatrix(t *facts.Table) *render.FactMatrix {
	fm := &render.FactMatrix{Title: t.Prefix + ".{row}…", Header: make([]string, 0, len(t.Columns)+1)}
	fm.Header = append(fm.Header, "row")
	for _, c := range t.Columns {
		name := c.Name
		if name == "" {
			name = "value"
		}
		fm.Header = append(fm.Header, render.Code(name))
		// One line per column, and one per rule when it has several. A
		// rule may end in an address: what follows it starts with a space,
		// or the address would take the punctuation.
		note := c.Key(t.Prefix) + " (" + c.Unit + ")"
		switch len(c.Rules) {
		case 0:
			note += ": each cell states its derivation"
		case 1:
			note += ": " + m.named(c.Rules[0])
		}
		if len(c.Sources) > 0 {
			note += " · sources: " + m.sourcesCell(c.Sources)
		}
		fm.Notes = append(fm.Notes, note)
		if len(c.Rules) > 1 {
			for i, r := range c.Rules {
				fm.Notes = append(fm.Notes, name+", rule "+strconv.Itoa(i+1)+": "+m.named(r))
			}
		}
	}
	for i, row := range t.Rows {
		r := render.MatrixRow{ID: t.RowKey(row), Label: row, Cells: make([]render.MatrixCell, len(t.Columns))}
		for j, c := range t.Columns {
			cell := t.Cells[i][j]
			if cell == nil {
				continue
			}
			f := cell.Fact
			var parts []string
			if !f.Known() {
				parts = append(parts, "unknown: "+f.Reason)
			}
			switch {
			case cell.OwnDerivation:
				parts = append(parts, m.named(f.Derivation))
			case len(c.Rules) > 1 && len(cell.Bindings) > 0:
				parts = append(parts, "rule "+strconv.Itoa(cell.Rule+1)+": "+strings.Join(cell.Bindings, " · "))
			case len(c.Rules) > 1 && f.Derivation != "":
				parts = append(parts, "rule "+strconv.Itoa(cell.Rule+1))
			case len(cell.Bindings) > 0:
				parts = append(parts, strings.Join(cell.Bindings, " · "))
			}
			if cell.OwnSources && len(f.Sources) > 0 {
				parts = append(parts, "from "+m.sourcesCell(f.Sources))
			}
			r.Cells[j] = render.MatrixCell{Key: f.Key, Value: f.Display, Note: strings.Join(parts, "; ")}
		}
		fm.Rows = append(fm.Rows, r)
	}
	return fm
}

// named is text with its cited references named, as the facts table
// prints derivations.
func (m *Model) named(text string) string {
	if m.namer != nil {
		return m.namer(text)
	}
	return text
}
