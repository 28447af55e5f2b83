package review

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"dossier/generator/facts"
	"dossier/generator/render"
)

// Markdown is the report for a pull request: the summary, the models added
// and removed, the changes several models share (once, with the count),
// then each model's own changes.
func (r *Report) Markdown() string {
	var b strings.Builder
	b.WriteString("# Dossier changes\n\n")
	r.writeSummary(&b)
	if r.Empty() {
		return b.String()
	}
	if len(r.Added) > 0 {
		rows := make([][]string, len(r.Added))
		for i, a := range r.Added {
			rows[i] = []string{a.Model, short(a.Revision)}
			for _, k := range Headline {
				v, ok := a.Headline[k]
				if !ok {
					rows[i] = append(rows[i], "absent")
					continue
				}
				rows[i] = append(rows[i], v.Shown())
			}
		}
		hdr := []string{"model", "revision"}
		for _, k := range Headline {
			hdr = append(hdr, render.Code(k))
		}
		b.WriteString("## Models added\n\n" + (&render.Table{Header: hdr, Rows: rows}).Markdown() + "\n")
	}
	if len(r.Removed) > 0 {
		b.WriteString("## Models removed\n\n" + strings.Join(r.Removed, ", ") + "\n\n")
	}
	hdr := []string{"fact", "before", "after", "what moved it"}
	if len(r.Common) > 0 {
		rows := make([][]string, len(r.Common))
		for i, c := range r.Common {
			models := strconv.Itoa(len(c.Models))
			if len(c.Models) <= 3 {
				models += ": " + strings.Join(c.Models, ", ")
			}
			rows[i] = append(changeRow(c.Change), models)
		}
		b.WriteString("## Changes common to several models\n\n" + (&render.Table{Header: append(hdr, "models"), Rows: rows}).Markdown() + "\n")
	}
	for _, m := range r.Changed {
		fmt.Fprintf(&b, "## %s\n\n", m.Model)
		if m.OldRevision != "" {
			fmt.Fprintf(&b, "Snapshot revision %s → %s.\n\n", short(m.OldRevision), short(m.Revision))
		}
		if m.Layout != nil {
			s := m.Layout.Sentence()
			fmt.Fprintf(&b, "%s%s.\n\n", strings.ToUpper(s[:1]), s[1:])
		}
		var flips, rest [][]string
		for _, c := range m.Facts {
			if c.Flip {
				flips = append(flips, changeRow(c))
			} else {
				rest = append(rest, changeRow(c))
			}
		}
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

func changeRow(c Change) []string {
	return []string{render.Code(c.Key), c.Old.Shown(), c.New.Shown(), c.Moved}
}

// writeSummary writes the chain a reviewer reads first: inputs changed →
// models affected → verdicts flipped.
func (r *Report) writeSummary(b *strings.Builder) {
	s := r.Summary
	inputs := "input files not compared (the base is a directory, not a git ref)"
	if s.InputsKnown {
		inputs = facts.Count(len(s.InputsChanged), "input file") + " changed"
	}
	if r.Empty() {
		fmt.Fprintf(b, "no changes: %s; no fact, verdict or model moved.\n", inputs)
		if len(s.InputsChanged) > 0 {
			b.WriteString("\n" + codeList(s.InputsChanged) + "\n")
		}
		for _, n := range s.Notes {
			b.WriteString("- Note: " + n + "\n")
		}
		return
	}
	fmt.Fprintf(b, "**%s → %s of %d affected → %s flipped.**\n\n", inputs,
		facts.Count(len(s.ModelsAffected), "model"), s.ModelsTotal, facts.Count(len(s.VerdictsFlip), "verdict"))
	if len(s.InputsChanged) > 0 {
		b.WriteString("- Inputs: " + strings.Join(codeEach(s.InputsChanged), ", ") + "\n")
	}
	var parts []string
	if n := len(r.Added); n > 0 {
		parts = append(parts, strconv.Itoa(n)+" added")
	}
	if n := len(r.Removed); n > 0 {
		parts = append(parts, strconv.Itoa(n)+" removed")
	}
	if n := len(s.ModelsAffected) - len(r.Added) - len(r.Removed); n > 0 {
		parts = append(parts, strconv.Itoa(n)+" changed")
	}
	b.WriteString("- Models: " + strings.Join(parts, ", ") + ": " + strings.Join(s.ModelsAffected, ", ") + "\n")
	for _, f := range s.VerdictsFlip {
		fmt.Fprintf(b, "- Flipped: %s `%s`: %s → %s%s\n", f.Model, f.What, f.Old.Shown(), f.New.Shown(), EffectText(f.Effects))
	}
	for _, n := range s.Notes {
		b.WriteString("- Note: " + n + "\n")
	}
	b.WriteString("\n")
}

// EffectText is a flip's effects in parentheses, or nothing.
func EffectText(es []Effect) string {
	if len(es) == 0 {
		return ""
	}
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("%s %s → %s", e.What, e.Old.Shown(), e.New.Shown())
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func codeEach(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = "`" + x + "`"
	}
	return out
}

func codeList(xs []string) string {
	return "- " + strings.Join(codeEach(xs), "\n- ") + "\n"
}

// JSON is the report as indented JSON: values are numbers (or bools, or
// text) with their units, as in facts.json.
func (r *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
