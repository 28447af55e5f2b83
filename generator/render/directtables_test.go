package render

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark"

	"dossier/generator/internal/sitetest"
)

// printed prints tables into a page the way a template does, with prose,
// headings and an answer box around them, and returns the page and what
// the template printed.
func printed(tables []*Table, between string) ([]byte, []PrintedTable) {
	var b strings.Builder
	b.WriteString("# Page\n\n## Answer {#answer}\n\n")
	var out []PrintedTable
	for i, tb := range tables {
		md := tb.Markdown()
		out = append(out, PrintedTable{Table: tb, Markdown: md})
		b.WriteString(md)
		b.WriteString(between)
		b.WriteString("## Section " + itoa(i) + "\n\nSome *prose* with a [link](https://example.com).\n\n")
	}
	return []byte(b.String()), out
}

// dossierTables are tables of the shapes a dossier prints: fact tables
// (the key column last, the link on "value", "answer" or the second
// column), an anchored fit table, plain tables, short and long rows, and
// cells with every character Markdown or HTML would read.
func dossierTables() []*Table {
	var texts []string
	for _, s := range cellTexts {
		if !goldmarkOnly(s) {
			texts = append(texts, s)
		}
	}
	facts := &Table{Header: []string{"", "value", "how", FactHeader}, Align: []Align{Left, Right}}
	answer := &Table{Header: []string{"question", "answer", FactHeader}}
	second := &Table{Header: []string{"dtype", "parameters", "share", FactHeader}, Align: []Align{Left, Right, Right}}
	anchored := &Table{Header: []string{AnchorHeader, "layout", "memory", "$/h"}, Align: []Align{Left, Left, Right, Right}}
	anchoredFacts := &Table{Header: []string{AnchorHeader, "claim", "value", FactHeader}}
	plain := &Table{Header: []string{"name", "by", "date"}}
	for i, s := range texts {
		key := Code("k." + itoa(i) + "_x-y")
		if i%5 == 0 {
			key = ""
		}
		facts.Rows = append(facts.Rows, []string{s, s, s, key})
		answer.Rows = append(answer.Rows, []string{s, s, key})
		second.Rows = append(second.Rows, []string{"F8", s, "1.0%", key})
		anchored.Rows = append(anchored.Rows, []string{Code("fit-" + itoa(i)), s, s, s})
		anchoredFacts.Rows = append(anchoredFacts.Rows, []string{Code("claim-" + itoa(i)), s, s, key})
		plain.Rows = append(plain.Rows, []string{s, s, s})
	}
	facts.Rows = append(facts.Rows, []string{"short"}, []string{"long", "v", "h", Code("k.long"), "extra"})
	anchored.Rows = append(anchored.Rows, []string{"", "no anchor"}, []string{Code("not an id!"), "x"})
	return []*Table{answer, facts, second, anchored, anchoredFacts, plain}
}

func TestDirectTablesAreGoldmarks(t *testing.T) {
	tables := dossierTables()
	// A fact printed in a matrix of the facts page links to its row.
	rows := map[string]string{"k.long": "k"}
	for _, target := range []FactsTarget{{Page: "facts.html"}, {Page: "facts.html", Rows: rows}, {}} {
		for _, between := range []string{"\n", "\n\n\n"} {
			md, pts := printed(tables, between)
			gm := NewDossierMarkdown(nil, target)
			if target.Page == "" {
				gm = NewMarkdown(nil)
			}
			if d := goldmarkDiff(t, gm, md, pts, target); d != "" {
				t.Errorf("facts %+v: %s", target, d)
			}
			// The test means nothing if goldmark converted the tables.
			if _, direct := swapTables(md, pts, target.Page); len(direct) != len(tables) {
				t.Errorf("facts %+v: %d of %d tables written directly", target, len(direct), len(tables))
			}
			html, err := convert(gm, md, pts, target)
			if err != nil {
				t.Fatal(err)
			}
			if target.Rows != nil && !strings.Contains(string(html), `href="facts.html#k" title="k.long"`) {
				t.Errorf("facts %+v: no link to k.long's row in\n%s", target, html)
			}
		}
	}
}

// TestDirectTablesFallBack covers the tables goldmark must convert: one a
// paragraph runs into, one with an address, and a page that already holds
// the placeholder text. The HTML is still goldmark's.
func TestDirectTablesFallBack(t *testing.T) {
	tb := &Table{Header: []string{"", "value", FactHeader}, Rows: [][]string{{"a", "1", Code("k.a")}}}
	addr := &Table{Header: []string{"reference", "address"}, Rows: [][]string{{"a", "see https://example.com/a_b"}}}
	keyText := &Table{Header: []string{"", "value", FactHeader}, Rows: [][]string{{"a", "1", "k_a"}}}
	spaced := &Table{Header: []string{AnchorHeader, "value"}, Rows: [][]string{{Code(" x "), "1"}}}
	cases := map[string]struct {
		md     string
		tables []*Table
		direct int
	}{
		"paragraph before": {"Text right above\n" + tb.Markdown(), []*Table{tb}, 0},
		"text after":       {tb.Markdown() + "more text\n", []*Table{tb}, 0},
		"address":          {addr.Markdown(), []*Table{addr}, 0},
		"key not code":     {keyText.Markdown(), []*Table{keyText}, 0},
		"spaced anchor":    {spaced.Markdown(), []*Table{spaced}, 0},
		"placeholder text": {"about " + placeholder + "0\n\n" + tb.Markdown(), []*Table{tb}, 0},
		"mixed":            {addr.Markdown() + "\n" + tb.Markdown(), []*Table{addr, tb}, 1},
	}
	for name, c := range cases {
		var pts []PrintedTable
		for _, tb := range c.tables {
			pts = append(pts, PrintedTable{Table: tb, Markdown: tb.Markdown()})
		}
		md := []byte(c.md)
		if d := goldmarkDiff(t, NewDossierMarkdown(nil, FactsTarget{Page: "facts.html"}), md, pts, FactsTarget{Page: "facts.html"}); d != "" {
			t.Errorf("%s: %s", name, d)
		}
		if _, direct := swapTables(md, pts, "facts.html"); len(direct) != c.direct {
			t.Errorf("%s: %d tables written directly, want %d", name, len(direct), c.direct)
		}
	}
}

// goldmarkDiff converts md both ways, with gm whole and with its printed
// tables written directly, and returns where they differ ("" for nowhere).
func goldmarkDiff(t *testing.T, gm goldmark.Markdown, md []byte, pts []PrintedTable, facts FactsTarget) string {
	t.Helper()
	want, err := ToHTML(gm, md)
	if err != nil {
		t.Fatal(err)
	}
	got, err := convert(gm, md, pts, facts)
	if err != nil {
		t.Fatal(err)
	}
	return sitetest.FirstDiff(string(want), string(got))
}

// FuzzDirectTables holds the direct HTML to goldmark's for any cell text
// in a fact table and an anchored one.
func FuzzDirectTables(f *testing.F) {
	for _, s := range cellTexts {
		f.Add(s, "k.a")
	}
	f.Fuzz(func(t *testing.T, text, key string) {
		tables := []*Table{
			{Header: []string{"", "value", FactHeader}, Align: []Align{Left, Right}, Rows: [][]string{{text, text, Code(key)}, {"b", text, ""}}},
			{Header: []string{AnchorHeader, text, "x"}, Rows: [][]string{{Code(key), text, text}}},
		}
		md, pts := printed(tables, "\n")
		// A matrix fact links to its row, the key up to its last dot.
		target := FactsTarget{Page: "facts.html"}
		if i := strings.LastIndexByte(key, '.'); i > 0 {
			target.Rows = map[string]string{key: key[:i]}
		}
		if d := goldmarkDiff(t, NewDossierMarkdown(nil, target), md, pts, target); d != "" {
			t.Errorf("%q, key %q: %s", text, key, d)
		}
	})
}
