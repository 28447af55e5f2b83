package site

import (
	"net/url"
	"strings"

	"dossier/generator/claims"
	"dossier/generator/config"
	"dossier/generator/content"
	"dossier/generator/corrections"
	"dossier/generator/methodology"
)

// claimReviews builds one schema.org ClaimReview per reviewed claim.
// dates are when each claim first appeared on the site and when its
// verdict or scope last changed (from git; a claim not yet committed is
// dated by the page's review). The author is the named reviewer (the
// page's, else the site's) with the publishing organisation, or the
// organisation alone when nobody is named.
func claimReviews(m *Model, pageURL string, cfg *config.Site, dates map[string]corrections.ClaimDates) []any {
	front := &m.Content.Front
	org := map[string]any{"@type": "Organization", "name": cfg.Organisation(), "url": cfg.BaseURL}
	if cfg.Publisher.URL != "" {
		org["url"] = cfg.Publisher.URL
	}
	author := org
	reviewer := front.Reviewer
	if reviewer == "" {
		reviewer = cfg.Publisher.Reviewer
	}
	if reviewer != "" {
		author = map[string]any{"@type": "Person", "name": reviewer, "affiliation": org}
	}
	var out []any
	for _, r := range m.Reviews {
		rt, _ := claims.RatingOf(r.Verdict)
		name := rt.Name
		if r.Scope != "" {
			// A scoped verdict holds only within its scope; an unqualified
			// "Supported" would claim more than the review found.
			name += ", within scope: " + r.Scope
		}
		// The rating links to its definition; the explanation is why this
		// claim got it.
		rating := map[string]any{"@type": "Rating", "alternateName": name, "url": cfg.BaseURL + methodology.Path + "#" + methodology.Anchor(r.Verdict)}
		if r.Reason != "" {
			rating["ratingExplanation"] = r.Reason
		}
		withdrawn := ""
		var fixes []any
		published, modified := front.Review, front.Review
		if d, ok := dates[r.ID]; ok {
			published, modified = d.First, d.Modified
		}
		for _, c := range front.Corrections {
			if c.Claim != r.ID {
				continue
			}
			fixes = append(fixes, map[string]any{"@type": "CorrectionComment", "datePublished": c.Date,
				"text": c.Headline() + ". Why: " + c.Why + " (" + c.By + ")"})
			if c.Date > modified {
				modified = c.Date
			}
			if c.Kind == content.RetractionKind || c.Kind == content.VoidKind {
				withdrawn = c.Kind
			}
		}
		switch {
		case withdrawn != "":
			// A retracted review or a voided check rates nothing any more.
			rating["alternateName"] = map[string]string{content.RetractionKind: "Retracted", content.VoidKind: "Void: the check was invalidated"}[withdrawn] + " (was " + name + ")"
		case rt.Value > 0:
			rating["ratingValue"], rating["bestRating"], rating["worstRating"] = rt.Value, 5, 1
		}
		claim := map[string]any{
			"@type":  "Claim",
			"author": map[string]any{"@type": "Organization", "name": r.By},
		}
		if r.Date != "" { // an unknown date is left out, never guessed
			claim["datePublished"] = r.Date
		}
		if r.Where != "" {
			work := appearance(front.Source(r.Where), r.Where)
			claim["appearance"] = []any{work}
			claim["firstAppearance"] = work
		}
		review := map[string]any{
			"@context":      "https://schema.org",
			"@type":         "ClaimReview",
			"url":           pageURL + "#claim-" + r.ID,
			"claimReviewed": r.Text,
			"reviewRating":  rating,
			"itemReviewed":  claim,
			"author":        author,
			"publisher":     org,
			"datePublished": published,
			"dateModified":  modified,
		}
		if len(fixes) > 0 {
			review["correction"] = fixes
		}
		out = append(out, review)
	}
	return out
}

// appearance is the CreativeWork a claim appeared in: the page's source
// with that id (with its archived copy when there is one), else a URL,
// else a named document.
func appearance(src *content.Source, where string) map[string]any {
	work := map[string]any{"@type": "CreativeWork"}
	if src != nil {
		work["name"] = src.Title
		work["author"] = map[string]any{"@type": "Organization", "name": src.By}
		if src.Date != "" {
			work["datePublished"] = src.Date
		}
		if src.URL != "" {
			work["url"] = src.URL
		}
		if src.Archived != "" {
			work["archivedAt"] = src.Archived
		}
		return work
	}
	if u, err := url.Parse(where); err == nil && (u.Scheme == "https" || u.Scheme == "http") && !strings.ContainsAny(where, " ") {
		work["url"] = where
	} else {
		work["name"] = where
	}
	return work
}
