package render

import (
	"strings"
	"testing"
)

// A <details> block with a plain-text summary, closed by </details> at the
// same level, folds what lies between; the direct table writer still
// writes a table inside it. Every other raw HTML stays dropped: an
// unclosed opening, a summary holding markup, a nested opening.
func TestFoldedTable(t *testing.T) {
	tb := &Table{Header: []string{"quant", "bytes"}, Rows: [][]string{{"UD-Q1_0", "466 GB"}}}
	md := "Intro.\n\n<details>\n<summary>Every quant & its size (6)</summary>\n\n" + tb.Markdown() + "\n</details>\n\nAfter.\n"
	for name, gm := range map[string]func() (string, error){
		"markdown": func() (string, error) { h, err := ToHTML(NewMarkdown(nil), []byte(md)); return string(h), err },
		"dossier": func() (string, error) {
			h, err := convert(NewDossierMarkdown(nil, FactsTarget{Page: "facts.html"}), []byte(md), []PrintedTable{{Table: tb, Markdown: tb.Markdown()}}, FactsTarget{Page: "facts.html"})
			return string(h), err
		},
	} {
		got, err := gm()
		if err != nil {
			t.Fatal(err)
		}
		open, table, close := strings.Index(got, "<details>\n<summary>Every quant &amp; its size (6)</summary>\n"), strings.Index(got, "<td>UD-Q1_0</td>"), strings.Index(got, "</details>")
		if open < 0 || table < open || close < table || !strings.Contains(got[close:], "<p>After.</p>") || strings.Contains(got, "raw HTML omitted") {
			t.Errorf("%s: not folded:\n%s", name, got)
		}
	}
	for name, bad := range map[string]string{
		"unclosed": "<details>\n<summary>x</summary>\n\n" + tb.Markdown(),
		"markup":   "<details>\n<summary><script>x</script></summary>\n\n" + tb.Markdown() + "\n</details>\n",
		"nested":   "<details>\n<summary>a</summary>\n\n<details>\n<summary>b</summary>\n\n" + tb.Markdown() + "\n</details>\n\n</details>\n",
		"attrs":    "<details open onclick=\"x()\">\n<summary>a</summary>\n\n" + tb.Markdown() + "\n</details>\n",
	} {
		h, err := ToHTML(NewMarkdown(nil), []byte(bad))
		if err != nil {
			t.Fatal(err)
		}
		got := string(h)
		if strings.Contains(got, "<script") || strings.Contains(got, "onclick") {
			t.Errorf("%s: raw HTML passed: %s", name, got)
		}
		if name != "nested" && strings.Contains(got, "<details") {
			t.Errorf("%s: folded: %s", name, got)
		}
	}
}
