package site

import (
	"slices"

	"dossier/generator/methodology"
)

// addExamples adds to in the first claim of each rating in sum that no
// model before it had: the methodology page's worked examples.
func addExamples(in *methodology.Input, sum *Summary) {
	for _, c := range sum.Claims {
		if c.Withdrawn != "" || slices.ContainsFunc(in.Examples, func(e methodology.Example) bool { return e.Verdict == c.Verdict }) {
			continue // a withdrawn review illustrates nothing
		}
		in.Examples = append(in.Examples, methodology.Example{Verdict: c.Verdict, Page: sum.Title,
			Link: "../models/" + sum.Slug + "/index.html#claim-" + c.ID, Text: c.Text, By: c.By, Scope: c.Scope, Reason: c.Reason})
	}
}

// renderMethodology writes methodology/index.md and index.html, each
// rating's worked example the first claim of the index with that rating.
func (s *Site) renderMethodology(out *memory, in methodology.Input) error {
	md := methodology.Markdown(in)
	return s.putPage(out, methodology.Path, "Methodology", md, nil)
}
