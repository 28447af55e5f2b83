package site

import (
	"strings"

	"dossier/generator/content"
)

// publishedPageRules reports a published page (drafts are exempt) that
// reads as a scaffold published as is: an empty summary, a title equal to
// its slug (unless title_checked says the authors style the name so), no
// review date, or neither claims nor published figures to check. They are
// errors with --strict, warnings without.
func publishedPageRules(p *content.Page, file string, strict bool) []Diagnostic {
	f := p.Front
	if f.Draft || f.Model == "" {
		return nil
	}
	sev := "warning"
	if strict {
		sev = "error"
	}
	var ds []Diagnostic
	add := func(field, msg string) {
		line := lineIn(p.Path, field)
		ds = append(ds, Diagnostic{file, line, sev, "published page: " + msg})
	}
	if strings.TrimSpace(f.Summary) == "" {
		add("summary", "field summary: empty (one line on what the dossier finds), or set draft: true")
	}
	if strings.TrimSpace(f.Title) == p.Slug && !f.TitleChecked {
		add("title", "field title: "+p.Slug+" is the page's slug (write the name as its authors style it; title_checked: true when they style it so)")
	}
	if f.Review == "" {
		add("title", "field review: missing (the date of this review)")
	}
	if len(f.Claims) == 0 && len(f.Published) == 0 {
		add("title", "no claims and no published figures: a published page checks at least one public claim or the authors' figures")
	}
	return ds
}
