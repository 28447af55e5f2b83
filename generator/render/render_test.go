package render

import (
	"strings"
	"testing"
)

func TestTableEscapesCells(t *testing.T) {
	tb := &Table{Header: []string{"a", "b"}, Rows: [][]string{{"ctx | 128k *tokens*", "<script>x</script> [l](javascript:y)"}, {Code("fit-8xB200"), "line\nbreak"}}}
	md := tb.Markdown()
	for _, want := range []string{`ctx \| 128k \*tokens\*`, `\<script>`, `\[l\](javascript:y)`, "`fit-8xB200`", "line break"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	html, err := ToHTML(NewMarkdown(nil), []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script>", `href="javascript:`} {
		if strings.Contains(string(html), bad) {
			t.Errorf("HTML contains %q: %s", bad, html)
		}
	}
	if (&Table{Header: []string{"a"}}).Markdown() != "" {
		t.Error("a table without rows should print nothing")
	}
}

func TestRowAnchorsAndChartsInline(t *testing.T) {
	md := "| # | v |\n| --- | --- |\n| `claim-x` | 1 |\n\n![memory chart](charts/memory.svg)\n\n![other](x.png)\n\n![bad](javascript:alert(1))\n"
	html, err := ToHTML(NewMarkdown(map[string]string{"charts/memory.svg": `<svg class="chart"></svg>`}), []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	s := string(html)
	for _, want := range []string{`<tr id="claim-x">`, `<th scope="col">`, `<figure class="chart"><svg class="chart"></svg><figcaption>memory chart</figcaption></figure>`, `<img src="x.png" alt="other">`, `<img src="" alt="bad">`} {
		if !strings.Contains(s, want) {
			t.Errorf("HTML lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "<p><figure") {
		t.Error("a chart is wrapped in a paragraph")
	}
}

// TestDossierHTMLMovesKeysOutOfTables: in a dossier's HTML the fact column
// goes, the value links to the appendix with the key on hover, the anchor
// column becomes the row's id, and the contents follow the answer box.
func TestDossierHTMLMovesKeysOutOfTables(t *testing.T) {
	md := "# M\n\n## Answer {#answer}\n\n" +
		(&Table{Header: []string{"question", "answer", FactHeader}, Rows: [][]string{{"size", "4.2 MB", Code("bytes.checkpoint")}, {"claims", "none", ""}}}).Markdown() +
		"\n## Fit\n\n" +
		(&Table{Header: []string{AnchorHeader, "layout", "verdict"}, Rows: [][]string{{Code("fit-8xB200"), "8 × B200", "fits"}}}).Markdown() +
		"\n## Bytes\n\n" +
		(&Table{Header: []string{"", "value", "how", FactHeader}, Rows: [][]string{{"tensor bytes", "4.2 MB", "sum", Code("bytes.tensors")}}}).Markdown()
	html, err := ToHTML(NewDossierMarkdown(nil, FactsTarget{Page: "facts.html"}), []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	s := string(html)
	for _, want := range []string{
		`<td><a href="facts.html#bytes.checkpoint" title="bytes.checkpoint">4.2 MB</a></td>`,
		`<td><a href="facts.html#bytes.tensors" title="bytes.tensors">4.2 MB</a></td>`,
		`<tr id="fit-8xB200">`,
		`<nav class="toc" aria-label="Contents">`, `<a href="#fit">Fit</a>`, `<a href="#bytes">Bytes</a>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("HTML lacks %s:\n%s", want, s)
		}
	}
	for _, bad := range []string{"<code>bytes.checkpoint</code>", "<code>fit-8xB200</code>", ">fact<", ">#<", `href="#answer"`} {
		if strings.Contains(s, bad) {
			t.Errorf("HTML still has %s:\n%s", bad, s)
		}
	}
	if toc, answer := strings.Index(s, `<nav class="toc"`), strings.Index(s, `id="answer"`); toc < answer || toc > strings.Index(s, `id="fit"`) {
		t.Errorf("contents at %d, not between the answer box (%d) and the first section", toc, answer)
	}
}
