package review

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"dossier/generator/render"
)

// Markdown is the report for a pull request.
func (r *Report) Markdown() string {
	var b strings.Builder
	b.WriteString("# Dossier changes\n\n")
	if r.Empty() {
		b.WriteString("no changes\n")
		return b.String()
	}
	if len(r.Added) > 0 {
		b.WriteString("Models added: " + strings.Join(r.Added, ", ") + "\n\n")
	}
	if len(r.Removed) > 0 {
		b.WriteString("Models removed: " + strings.Join(r.Removed, ", ") + "\n\n")
	}
	for _, m := range r.Changed {
		fmt.Fprintf(&b, "## %s\n\n", m.Model)
		if m.OldRevision != m.NewRevision {
			fmt.Fprintf(&b, "Snapshot revision %s → %s.\n\n", short(m.OldRevision), short(m.NewRevision))
		}
		var flips, rest [][]string
		for _, c := range m.Facts {
			row := []string{render.Code(c.Key), c.Old, c.New, c.Moved}
			if c.Flip {
				flips = append(flips, row)
			} else {
				rest = append(rest, row)
			}
		}
		hdr := []string{"fact", "before", "after", "what moved it"}
		if len(flips) > 0 {
			b.WriteString("### Verdicts that flipped\n\n" + (&render.Table{Header: hdr, Rows: flips}).Markdown() + "\n")
		}
		if len(m.Claims) > 0 {
			var rows [][]string
			for _, c := range m.Claims {
				tells := make([]string, len(c.NewTells))
				for i, t := range c.NewTells {
					tells[i] = strconv.Itoa(t)
				}
				rows = append(rows, []string{render.Code(c.ID), c.Text, c.Old, c.New, strings.Join(tells, ", ")})
			}
			b.WriteString("### Claims\n\n" + (&render.Table{Header: []string{"claim", "text", "before", "after", "new tells"}, Rows: rows}).Markdown() + "\n")
		}
		if len(rest) > 0 {
			b.WriteString("### Facts that changed\n\n" + (&render.Table{Header: hdr, Rows: rest}).Markdown() + "\n")
		}
	}
	return b.String()
}

// JSON is the report as indented JSON.
func (r *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
