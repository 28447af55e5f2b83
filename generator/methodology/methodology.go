// Package methodology writes the site's methodology page: what each
// rating means on the scale ClaimReview carries, with a worked example
// from the site's own claims, the tells, how claims are chosen, what is
// not checked, the corrections policy and who publishes and funds the
// site. Everything on it comes from the ratings and tells the checker
// applies (package claims) and from hugo-like.yaml's publisher keys.
package methodology

import (
	"fmt"
	"sort"
	"strings"

	"dossier/generator/claims"
	"dossier/generator/config"
)

// Path is the page's directory under the publish directory.
const Path = "methodology/"

// Anchor is the id of a rating's definition on the page (the id goldmark
// gives its heading "Rating: <verdict>"): ClaimReviews and claims link to
// Path + "index.html#" + Anchor(verdict).
func Anchor(verdict string) string { return "rating-" + verdict }

// Example is one claim of the site shown as a rating's worked example.
type Example struct {
	Verdict string
	Page    string // the dossier's title
	Link    string // from the methodology page to the claim's row
	Text    string
	By      string
	Scope   string
	Reason  string
}

// Input is what the page is written from.
type Input struct {
	Publisher    config.Publisher
	Organisation string    // the publisher's name, or the site's author
	Examples     []Example // any number per verdict; the first of each is shown
}

// Markdown is the page.
func Markdown(in Input) []byte {
	var b strings.Builder
	b.WriteString("# Methodology\n\n")
	b.WriteString("Every dossier on this site checks public claims about an open-weight model against the model's own artifacts: the file listing and safetensors headers of its Hub repository at a pinned commit, its `config.json`, and dated hardware and price lists. A claim gets one of five ratings; every figure behind a rating is a fact with its unit, sources and derivation in the dossier's `facts.json`.\n\n")

	b.WriteString("## Ratings\n\n")
	fmt.Fprintf(&b, "The ratings, best first, with the values each review's ClaimReview markup carries (`reviewRating.ratingValue` on a scale from %d, worst, to %d, best, and `alternateName`). A rating with a scope holds only within it, and its `alternateName` says so.\n\n", claims.WorstValue, claims.BestValue)
	b.WriteString("| rating | ratingValue | alternateName |\n| --- | ---: | --- |\n")
	for _, r := range claims.Ratings {
		value := "none"
		if r.Value > 0 {
			value = fmt.Sprint(r.Value)
		}
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s |\n", r.Verdict, Anchor(r.Verdict), value, r.Name)
	}
	b.WriteString("\n")
	first := map[string]Example{}
	for _, e := range in.Examples {
		if _, ok := first[e.Verdict]; !ok {
			first[e.Verdict] = e
		}
	}
	for _, r := range claims.Ratings {
		fmt.Fprintf(&b, "### Rating: %s\n\n%s\n\n", r.Verdict, r.Means) // its id is Anchor(r.Verdict)
		e, ok := first[r.Verdict]
		if !ok {
			b.WriteString("No claim on this site has this rating yet.\n\n")
			continue
		}
		fmt.Fprintf(&b, "Example, from [%s](%s): “%s” (%s)", e.Page, e.Link, e.Text, e.By)
		if e.Scope != "" {
			fmt.Fprintf(&b, ", rated %s within this scope: %s", e.Verdict, e.Scope)
		}
		fmt.Fprintf(&b, ". %s\n\n", e.Reason)
	}
	b.WriteString("A rating is *computed* when the claim carries machine checks against the page's facts: supported when every check holds, refuted when none does, misleading when some do, unverifiable when none fails but one cannot decide (its fact is unknown, with the reason shown, or is a ceiling the claimed figure stays under), outdated when the date it names passed before the review. A hand-written rating that contradicts a computed one fails the build.\n\n")

	b.WriteString("## Tells\n\n")
	fmt.Fprintf(&b, "Every claim and every paragraph of a dossier is read for %d signs that a figure did not come from its artifact. A tell is not a rating: it says where to look. Each dossier lists the tells its claims show.\n\n", len(claims.TellNames))
	tells := make([]int, 0, len(claims.TellNames))
	for t := range claims.TellNames {
		tells = append(tells, t)
	}
	sort.Ints(tells)
	for _, t := range tells {
		fmt.Fprintf(&b, "%d. **%s.** %s\n", t, capital(claims.TellNames[t]), claims.TellMeans[t])
	}
	b.WriteString("\n")

	b.WriteString("## How claims are chosen\n\n")
	b.WriteString("A dossier checks the claims a reader deciding whether and where to run the model meets: the parameter counts, sizes, precisions, hardware and speed figures in the model card, the release announcement, and the coverage and posts that spread them. A claim is checked when an artifact, a measurement or a dated document can decide it. It is quoted verbatim with who made it, where and when; a paraphrase is marked as one, with the source's nearest words beside it. A claim's author must be a named person, organisation or outlet.\n\n")

	b.WriteString("## What is not checked\n\n")
	b.WriteString("Model quality (benchmark scores, answers, safety) is not measured here: a leaderboard figure is reported with its interval and rank spread, never re-run. Speeds and costs per token are predictions from a roofline model of the hardware, marked as such, and set beside published measurements on the calibration page; they are not measurements. Prices are the dated lists in the site's data, not quotes. A claim that nothing available can decide is rated unverifiable rather than guessed.\n\n")

	b.WriteString("## Corrections\n\n")
	b.WriteString("Each dossier ends with its corrections log, newest first. It merges two kinds of entries. Those the build writes from the committed history of the dossier's facts: a verdict or headline figure that moved because a snapshot, a price list, a catalog or the site's assumptions changed, or because the generator computes differently. And those the reviewers write when the error was theirs: a *correction* (a wrong figure, quote or attribution, fixed), an *update* (new information, the earlier text was right when written), a *retraction* (a review withdrawn) or a *void* (a check invalidated by the checker's own error, its rating no longer standing). An editorial entry names the claim or fact, what was wrong, why, who made it and when, and shows as a banner on the claim and at the top of the page; the feed and the ClaimReview markup carry it too. Earlier versions of every dossier stay in the repository's history.\n\n")
	b.WriteString("**How to request a correction.** ")
	if c := in.Publisher.Corrections; c != "" {
		fmt.Fprintf(&b, "Write to %s, naming the dossier, the claim or figure, and the artifact or document that shows the error. Vendors and the people whose claims are checked are welcome to answer a review; when the claimant was asked before publication, the claim says who, when and what they answered.\n\n", c)
	} else {
		b.WriteString("This site has not published an address for correction requests yet (`publisher.corrections` in its configuration is empty).\n\n")
	}

	b.WriteString("## Who publishes this site\n\n")
	org := in.Organisation
	if u := in.Publisher.URL; u != "" {
		org = "[" + org + "](" + u + ")"
	}
	fmt.Fprintf(&b, "Published by %s.", org)
	if r := in.Publisher.Reviewer; r != "" {
		fmt.Fprintf(&b, " Claims are reviewed by %s unless a dossier names another reviewer.", r)
	}
	if f := in.Publisher.Funding; f != "" {
		fmt.Fprintf(&b, " Funding: %s\n", f)
	} else {
		b.WriteString(" Funding: not stated (`publisher.funding` in the site's configuration is empty).\n")
	}
	return []byte(b.String())
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
