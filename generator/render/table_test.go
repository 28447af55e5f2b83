package render

import (
	"testing"
)

// markdownCells are cell texts around what the md renderer escapes: lone
// punctuation, _ inside and at the edges of words, entities, code with and
// without backticks, and texts the shorter lists pass as they are.
var markdownCells = []string{
	"#", "-", "+", ".", "!", "(", ")", "$", "^", "{", "}", "<", ">", "_", "*", "\\", "`", "[", "]", "~", "&", "|",
	"kimi_linear", "kv_lora_rank 512", "_x", "x_", "a _b", "a_ b", "é_é", "1_2", "a__b",
	"8.", "1. one", "# head", "- item", "a & b", "&amp;", "a &#123; b", "<b>", "a < b", "a > b", "x!", "![x](y)",
	"1 × $98.32 per 8-GPU hour (Azure: Standard_ND96isr_H100_v5, eastus)",
	"“quoted” — dashes – and … dots", "a\u00a0b", "a\tb", " padded ",
	Code(""), Code("x"), Code("a`b"), Code("`x`"), Code(" x "), Code("a|b"), Code("a_b*c"),
}

// TestPlainMarkdownIsRendered holds the tables written directly to the md
// renderer's output, and counts them: the test means nothing if every
// table went to the renderer.
func TestPlainMarkdownIsRendered(t *testing.T) {
	tables := dossierTables()
	cells := append(append([]string{}, cellTexts...), markdownCells...)
	for _, s := range cells {
		tables = append(tables,
			&Table{Header: []string{"", "value", FactHeader}, Align: []Align{Left, Right}, Rows: [][]string{{"a", s, Code("k.a")}, {"8", s}}},
			&Table{Header: []string{s, "n"}, Align: []Align{Right}, Rows: [][]string{{s, "1"}, {"", s, "extra"}}},
		)
	}
	tables = append(tables, &Table{Rows: [][]string{{"no header"}}}, &Table{Header: []string{"empty"}})
	direct := 0
	for _, tb := range tables {
		if _, ok := tb.plainMarkdown(); ok {
			direct++
		}
		if got, want := tb.Markdown(), tb.rendered(); len(tb.Rows) > 0 && got != want {
			t.Errorf("%q:\ngot  %q\nwant %q", tb.Rows, got, want)
		}
	}
	if direct < len(tables)/2 {
		t.Errorf("%d of %d tables written directly", direct, len(tables))
	}
}

// FuzzPlainMarkdown holds the direct Markdown to the renderer's for any
// cell text, beside a number (a "." after one is escaped) and as code.
func FuzzPlainMarkdown(f *testing.F) {
	for _, s := range append(append([]string{}, cellTexts...), markdownCells...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tb := &Table{Header: []string{s, "n"}, Align: []Align{Left, Right}, Rows: [][]string{{"1", s}, {s, Code(s)}, {"", s}}}
		if got, want := tb.Markdown(), tb.rendered(); got != want {
			t.Errorf("%q:\ngot  %q\nwant %q", s, got, want)
		}
	})
}
