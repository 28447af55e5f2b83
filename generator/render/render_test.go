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
