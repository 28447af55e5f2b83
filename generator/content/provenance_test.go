package content

import (
	"strings"
	"testing"
)

// A claim names who made it, where and when; a source is named the way a
// reader looks it up. Each case is one way the K3 audit found provenance
// going wrong.
func TestClaimProvenanceIsChecked(t *testing.T) {
	const src = "sources:\n  - {id: repo, title: The repository, by: Moonshot AI, date: \"2026-07-27\", url: \"https://huggingface.co/moonshotai/Kimi-K3\"}\n"
	claim := func(fields string) string {
		return "---\ntitle: x\nmodel: a/b\n" + src + "claims:\n  - {id: c, text: t, kind: size, checks: [{fact: bytes.checkpoint, expect: 1}], " + fields + "}\n---\n"
	}
	for _, tc := range []struct{ name, in, want string }{
		{"vague by", claim(`by: launch coverage, where: repo, date: "2026-07-28"`), `claims[0].by: "launch coverage" names nobody`},
		{"tutorial sites", claim(`by: tutorial sites, where: repo, date: "2026-07-28"`), `claims[0].by`},
		{"no where", claim(`by: AirLLM, date: "2026-07-28"`), `claims[0].where: missing`},
		{"no date at all", claim(`by: AirLLM, where: repo`), `claims[0].date: missing`},
		{"impossible date", claim(`by: AirLLM, where: repo, date: "2026-02-30"`), `claims[0].date: expected a real YYYY-MM-DD date`},
		{"dated before its source", claim(`by: Moonshot AI, where: repo, date: "2026-07-17"`), `claims[0].date: 2026-07-17 is before its source "repo" was published (2026-07-27)`},
		{"quote without paraphrase", claim(`by: AirLLM, where: repo, date: "2026-07-28", quote: "the words"`), `claims[0].quote`},
		{"source with vague by", "---\ntitle: x\nmodel: a/b\nsources:\n  - {id: s, title: T, by: various, accessed: \"2026-08-06\", url: u}\n---\n", `sources[0].by`},
		{"source without date", "---\ntitle: x\nmodel: a/b\nsources:\n  - {id: s, title: T, by: AirLLM, url: u}\n---\n", `sources[0].date: missing`},
		{"source without URL or note", "---\ntitle: x\nmodel: a/b\nsources:\n  - {id: s, title: T, by: AirLLM, accessed: \"2026-08-06\"}\n---\n", `sources[0].url: missing`},
		{"conflict with one side", "---\ntitle: x\nmodel: a/b\n" + src + "conflicts:\n  - {id: k, topic: q, rests_on: repo, reason: r, sides: [{source: repo, says: a, evidence: e}]}\n---\n", `conflicts[0].sides: a conflict has at least two sides`},
		{"conflict resting on no side", "---\ntitle: x\nmodel: a/b\n" + src + "  - {id: b, title: B, by: AirLLM, accessed: \"2026-08-06\", note: n}\nconflicts:\n  - {id: k, topic: q, rests_on: nobody, reason: r, sides: [{source: repo, says: a, evidence: e}, {source: b, says: c, evidence: f}]}\n---\n", `conflicts[0].rests_on: "nobody" is not one of the conflict's sides`},
	} {
		_, err := Parse("content/models/x.md", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), "content/models/x.md") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want file and %q", tc.name, err, tc.want)
		}
	}
	ok := claim(`by: AirLLM, where: repo, accessed: "2026-08-06", paraphrase: true, quote: "the words"`)
	p, err := Parse("content/models/x.md", []byte(ok))
	if err != nil {
		t.Fatalf("a well-sourced claim was rejected: %v", err)
	}
	if got := p.Front.Claims[0].When(); got != "date unknown, read 2026-08-06" {
		t.Errorf("When() = %q for an undated claim", got)
	}
	if got := p.Front.Cite("repo"); got != "“The repository” — Moonshot AI, 2026-07-27, https://huggingface.co/moonshotai/Kimi-K3" {
		t.Errorf("Cite(repo) = %q", got)
	}
}

// Vague judges an attribution by its form: a crowd, an indefinite pronoun
// or a mass noun names nobody; a proper name, a handle, a site or a
// possessive names someone, whatever qualifies it after a comma.
func TestVagueBy(t *testing.T) {
	for by, want := range map[string]bool{
		"":                                 true,
		"experts":                          true,
		"anonymous":                        true,
		"Reddit users":                     true,
		"AI researchers":                   true,
		"users of Hacker News":             true,
		"several commentators":             true,
		"someone":                          true,
		"Everybody":                        true,
		"the press":                        true,
		"Moonshot AI":                      false,
		"Artificial Analysis":              false,
		"smeltcore":                        false,
		"pseudotensor (SGLang issue 3196)": false,
		"Jovan Chan (runaihome.com)":       false,
		"the course’s authors (no byline in the copy we hold)": false,
		"the fact check’s author, in the 17 July summary":      false,
		"Kimi Team’s Kimi Linear figures, re-attributed to K3": false,
		"the author of a circulating fine-tuning snippet":      false,
		"r/LocalLLaMA":              false,
		"vLLM maintainers":          true,
		"@karpathy":                 false,
		"AirLLM release note, #316": false,
	} {
		if got := Vague(by); got != want {
			t.Errorf("Vague(%q) = %v, want %v", by, got, want)
		}
	}
}
