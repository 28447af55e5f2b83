package site

import (
	"net/url"
	"strings"
)

// ratings maps a verdict to schema.org Rating values (5 best, 1 worst).
// An unverifiable claim gets no rating value, only its name.
var ratings = map[string]struct {
	value int
	name  string
}{
	"supported":    {5, "Supported"},
	"outdated":     {3, "Outdated"},
	"misleading":   {2, "Misleading"},
	"refuted":      {1, "False"},
	"unverifiable": {0, "Unverifiable"},
}

// claimReviews builds one schema.org ClaimReview per reviewed claim.
func claimReviews(m *Model, pageURL, author, siteURL string) []any {
	var out []any
	for _, r := range m.Reviews {
		rt := ratings[r.Verdict]
		rating := map[string]any{"@type": "Rating", "alternateName": rt.name}
		if rt.value > 0 {
			rating["ratingValue"], rating["bestRating"], rating["worstRating"] = rt.value, 5, 1
		}
		claim := map[string]any{
			"@type":         "Claim",
			"author":        map[string]any{"@type": "Organization", "name": r.By},
			"datePublished": r.Date,
		}
		if r.Where != "" {
			work := map[string]any{"@type": "CreativeWork"}
			if u, err := url.Parse(r.Where); err == nil && (u.Scheme == "https" || u.Scheme == "http") && !strings.ContainsAny(r.Where, " ") {
				work["url"] = r.Where
			} else {
				work["name"] = r.Where
			}
			claim["appearance"] = []any{work}
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
