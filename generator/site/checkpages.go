package site

import (
	"fmt"
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

// unarchivedSources warns on each web source of a page with neither an
// archived copy nor a hash of the document as read, nor a reason why: a
// page edited after the review could not be shown as it stood. The
// model's own Hub repository is exempt: the snapshot pins its commit.
func unarchivedSources(p *content.Page, file string) []Diagnostic {
	var ds []Diagnostic
	hub := "https://huggingface.co/" + p.Front.Model
	for i, s := range p.Front.Sources {
		if !s.Web() || s.Archived != "" || s.SHA256 != "" || s.Unarchived != "" || strings.TrimSuffix(s.URL, "/") == hub {
			continue
		}
		ds = append(ds, Diagnostic{file, s.Line, "warning", fmt.Sprintf("field sources[%d]: %s is read on the web but has no archived copy (archived:) or hash (sha256:); give one, or say why in unarchived:", i, s.ID)})
	}
	return ds
}
