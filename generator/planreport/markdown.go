package planreport

import (
	"io"
	"strings"

	"dossier/generator/render"
)

// Markdown writes the report as Markdown: the same answer, sections and
// tables as Text, as gomarkdown tables (cells escaped by the renderer),
// with the fact keys as code.
func Markdown(w io.Writer, r *Report) error {
	var b strings.Builder
	names := make([]string, len(r.Models))
	for i, m := range r.Models {
		names[i] = m.Name
		if len(r.Models) > 1 {
			names[i] = modelTag(i) + ": " + m.Name
		}
	}
	b.WriteString("# " + strings.Join(names, " vs ") + "\n\n")
	for i, m := range r.Models {
		b.WriteString("- " + names[i] + " from " + m.Origin + "\n")
	}
	for _, in := range r.Inputs {
		b.WriteString("- " + in + "\n")
	}
	valueHead := []string{"value"}
	if len(r.Models) > 1 {
		valueHead = nil
		for i := range r.Models {
			valueHead = append(valueHead, modelTag(i))
		}
	}
	b.WriteString("\n## Answer\n\n")
	b.WriteString(mdRows(r.answer(), append([]string{""}, valueHead...), false, false))
	for _, l := range r.launch() {
		b.WriteString("\n## " + l.title + "\n\n```sh\n" + l.command + "\n```\n")
		if l.notes != "" {
			b.WriteString("\n" + (&render.Table{Header: []string{"beside the command"}, Rows: [][]string{{l.notes}}}).Markdown())
		}
	}
	if !r.All {
		b.WriteString("\n" + moreLine(r) + "\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	for _, s := range r.sections() {
		b.WriteString("\n## " + s.title + "\n\n")
		head := append([]string{"fact"}, valueHead...)
		if r.All {
			head = append(head, "how")
		}
		if md := mdRows(s.rows, head, true, r.All); md != "" {
			b.WriteString(md)
		}
		for _, t := range s.tables {
			tbl := &render.Table{Header: []string{"per " + t.entity}}
			for _, c := range t.columns {
				tbl.Header = append(tbl.Header, columnName(c))
			}
			for _, tr := range t.rows {
				tbl.Rows = append(tbl.Rows, append([]string{tr.label}, tr.cells...))
			}
			b.WriteString("\n" + tbl.Markdown())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdRows is a table of one row per fact; code marks the label as a key,
// notes adds the derivations (one per model, joined).
func mdRows(rows []*row, head []string, code, notes bool) string {
	t := &render.Table{Header: head}
	for _, rw := range rows {
		label := rw.key
		if code {
			label = render.Code(label)
		}
		cells := append([]string{label}, rw.values...)
		if notes {
			cells = append(cells, strings.Join(rw.taggedNotes(), " · "))
		}
		t.Rows = append(t.Rows, cells)
	}
	return t.Markdown()
}
