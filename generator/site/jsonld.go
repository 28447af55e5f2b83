package site

import (
	"net/url"
	"strings"

	"dossier/generator/claims"
	"dossier/generator/content"
	"dossier/generator/methodology"
)

// claimReviews builds one schema.org ClaimReview per reviewed claim.
func claimReviews(m *Model, pageURL, author, siteURL string) []any {
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
		rating := map[string]any{"@type": "Rating", "alternateName": name, "url": siteURL + methodology.Path + "#" + methodology.Anchor(r.Verdict)}
		if r.Reason != "" {
			rating["ratingExplanation"] = r.Reason
		}
		if rt.Value > 0 {
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
			claim["appearance"] = []any{appearance(m.Content.Front.Source(r.Where), r.Where)}
		}
		out = append(out, map[string]any{
			"@context":      "https://schema.org",
			"@type":         "ClaimReview",
			"url":           pageURL + "#claim-" + r.ID,
			"claimReviewed": r.Text,
			"reviewRating":  rating,
			"itemReviewed":  claim,
			"author":        map[string]any{"@type": "Organization", "name": author, "url": siteURL},
			"datePublished": m.Content.Front.Review,
		})
	}
	return out
}

// appearance is the CreativeWork a claim appeared in: the page's source
// with that id, else a URL, else a named document.
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
		return work
	}
	if u, err := url.Parse(where); err == nil && (u.Scheme == "https" || u.Scheme == "http") && !strings.ContainsAny(where, " ") {
		work["url"] = where
	} else {
		work["name"] = where
	}
	return work
}
