package methodology

import (
	"strings"
	"testing"

	"dossier/generator/claims"
	"dossier/generator/config"
)

// Every rating gets its anchor, its ClaimReview values and the first
// example of its verdict; a verdict without a claim says so; the
// publisher's keys are printed as given, and an empty one as not stated.
func TestMarkdown(t *testing.T) {
	in := Input{
		Organisation: "Example Checks",
		Publisher:    config.Publisher{URL: "https://checks.example.org/", Funding: "reader donations only; no vendor money.", Reviewer: "A. Reviewer", Corrections: "corrections@checks.example.org"},
		Examples: []Example{
			{Verdict: "refuted", Page: "Kimi K3", Link: "../models/kimi-k3/index.html#claim-size-1400", Text: "1,400 GB", By: "a blog", Reason: "The listing sums to 1,560.9 GB."},
			{Verdict: "refuted", Page: "Other", Link: "../models/other/index.html#claim-x", Text: "second refuted", By: "b", Reason: "r"},
			{Verdict: "supported", Page: "Kimi K3", Link: "../models/kimi-k3/index.html#claim-single-card", Text: "runs on one card", By: "AirLLM", Scope: "streaming from disk", Reason: "Measured."},
		},
	}
	md := string(Markdown(in))
	for _, r := range claims.Ratings {
		if !strings.Contains(md, "### Rating: "+r.Verdict+"\n\n"+r.Means) {
			t.Errorf("no definition of %s", r.Verdict)
		}
	}
	for _, want := range []string{
		"| [supported](#rating-supported) | 5 | Supported |",
		"| [unverifiable](#rating-unverifiable) | none | Unverifiable |",
		"Example, from [Kimi K3](../models/kimi-k3/index.html#claim-size-1400): “1,400 GB” (a blog). The listing sums to 1,560.9 GB.",
		"“runs on one card” (AirLLM), rated supported within this scope: streaming from disk. Measured.",
		"### Rating: outdated\n\n" + claims.Ratings[1].Means + "\n\nNo claim on this site has this rating yet.",
		"7. **Capacity from a spec sheet rather than the device.**",
		"Write to corrections@checks.example.org",
		"Published by [Example Checks](https://checks.example.org/). Claims are reviewed by A. Reviewer unless a dossier names another reviewer. Funding: reader donations only; no vendor money.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("page lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "second refuted") {
		t.Error("a second example of one rating is shown")
	}
	empty := string(Markdown(Input{Organisation: "dossier"}))
	for _, want := range []string{"Published by dossier. Funding: not stated", "has not published an address for correction requests"} {
		if !strings.Contains(empty, want) {
			t.Errorf("without publisher keys, the page lacks %q:\n%s", want, empty)
		}
	}
}
