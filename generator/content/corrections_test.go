package content

import (
	"strings"
	"testing"
)

// Editorial corrections, right-of-reply records and archived sources are
// validated like claims: each error names the file, the item's line and
// the field.
func TestCorrectionsAndContactedValidated(t *testing.T) {
	head := "---\ntitle: x\nmodel: a/b\nreview: \"2026-08-06\"\nclaims:\n  - {id: one, text: t, by: Acme, where: w, date: \"2026-01-01\"}\n"
	good := "  - {kind: correction, date: \"2026-08-10\", claim: one, what: \"quoted 1.4 TB\", why: \"the source says 1.4 TB per node\", by: \"J. Doe\"}\n"
	if p, err := Parse("content/models/x.md", []byte(head+"corrections:\n"+good+"---\n")); err != nil {
		t.Fatalf("a valid entry: %v", err)
	} else if c := p.Front.Corrections[0]; c.Line != 8 || c.Subject() != "claim one" || c.Kind != CorrectionKind {
		t.Errorf("entry %+v", c)
	}
	for _, tc := range []struct{ in, want string }{
		{head + "corrections:\n" + good + "  - {kind: erratum, date: \"2026-08-10\", claim: one, what: w, why: y, by: J}\n---\n",
			`line 9: field corrections[1].kind: expected one of correction, update, retraction, void, found "erratum"`},
		{head + "corrections:\n  - {kind: void, date: \"2026-08-10\", claim: two, what: w, why: y, by: J}\n---\n",
			`line 8: field corrections[0].claim: "two" is not a claim of the page`},
		{head + "corrections:\n  - {kind: void, date: \"2026-08-10\", claim: one, fact: bytes.checkpoint, what: w, why: y, by: J}\n---\n",
			`line 8: field corrections[0].claim: give exactly one of claim`},
		{head + "corrections:\n  - {kind: correction, date: \"2026-08-01\", claim: one, what: w, why: y, by: J}\n---\n",
			`line 8: field corrections[0].date: 2026-08-01 is before the page's review (2026-08-06)`},
		{head + "corrections:\n  - {kind: retraction, date: \"2026-08-10\", claim: one, what: w, why: y, by: unknown}\n---\n",
			`line 8: field corrections[0].by: expected the named person or desk`},
		{head + "corrections:\n  - {kind: update, date: \"2026-02-30\", fact: bytes.checkpoint, what: w, why: y, by: J}\n---\n",
			`line 8: field corrections[0].date: expected a real YYYY-MM-DD date`},
		{head + "corrections:\n  - {kind: update, date: \"2026-08-10\", fact: bytes.checkpoint, what: \"\", why: y, by: J}\n---\n",
			`line 8: field corrections[0].what: missing`},
		{"---\ntitle: x\nmodel: a/b\nclaims:\n  - {id: one, text: t, by: Acme, where: w, date: \"2026-01-01\", contacted: {who: Acme, date: \"2026-01-05\"}}\n---\n",
			`line 5: field claims[0].contacted.response: missing`},
		{"---\ntitle: x\nmodel: a/b\nclaims:\n  - {id: one, text: t, by: Acme, where: w, date: \"2026-01-01\", contacted: {who: \"\", date: \"2026-01-05\", response: none}}\n---\n",
			`line 5: field claims[0].contacted.who: expected the named person`},
		{"---\ntitle: x\nmodel: a/b\nsources:\n  - {id: s, title: T, by: Acme, date: \"2026-01-01\", url: \"https://a.example/\", archived: \"web.archive.org/x\"}\n---\n",
			`line 5: field sources[0].archived: expected the http(s) address`},
		{"---\ntitle: x\nmodel: a/b\nsources:\n  - {id: s, title: T, by: Acme, date: \"2026-01-01\", url: \"https://a.example/\", sha256: ABC}\n---\n",
			`line 5: field sources[0].sha256: expected 64 lower-case hex digits`},
	} {
		_, err := Parse("content/models/x.md", []byte(tc.in))
		if err == nil || !strings.HasPrefix(err.Error(), "content/models/x.md: "+tc.want) {
			t.Errorf("%q:\nerror %v\nwant  content/models/x.md: %s", tc.in, err, tc.want)
		}
	}
	p, err := Parse("content/models/x.md", []byte("---\ntitle: x\nmodel: a/b\nclaims:\n  - {id: one, text: t, by: Acme, where: w, date: \"2026-01-01\", contacted: {who: Acme, date: \"2026-01-05\", response: no answer}}\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Front.Claims[0].Contacted.String(); got != "asked Acme on 2026-01-05; response: no answer" {
		t.Errorf("contacted %q", got)
	}
}
