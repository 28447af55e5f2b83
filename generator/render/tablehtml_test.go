package render

import (
	"strings"
	"testing"
)

// goldmarkTable is the HTML a page gets for t through Markdown and goldmark.
func goldmarkTable(t *testing.T, tb *Table) string {
	t.Helper()
	h, err := ToHTML(NewMarkdown(nil), []byte(tb.Markdown()))
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

// cellTexts are cell contents of the kinds fact tables hold: prose with
// Markdown and HTML characters that must stay literal, addresses in
// parentheses or ending a sentence, and whitespace to collapse.
var cellTexts = []string{
	"",
	"plain",
	"a * b * c",
	"*emph* and _x_ and __y__",
	"x | y",
	"<b>tag</b> & &amp; `code` \"quoted\" 'single'",
	"[link](not a link)",
	`\ back \\ slashes`,
	"~~strike~~ # head - item 1. one",
	"a  b\nc\t d",
	"1 × 81,559 MiB, as the device reports it (https://github.com/NVIDIA/nccl/issues/1264)",
	"see https://www.databricks.com/blog/llm-inference-performance-engineering-best-practices; then",
	"at http://x.org. And www.example.com, then https://a.b/c?d=1&e=2#f!",
	"(https://example.com/wiki/Foo(bar)) and (https://example.com/x))",
	"not a link: xhttps://example.com or http://nodot or www.x",
	"https://hf.co/moonshotai/Kimi-K3/blob/main/config.json: read 2026-08-06",
	"two: https://a.example/x https://b.example/y.",
	// After *, _ or ~ goldmark links an address only when the character
	// is no delimiter: left to goldmark (a fuzzed failure, "*http://0.a").
	"*http://0.a",
	"a_http://a.example b _www.example.com ~https://c.example *www.d.example",
	"**https://e.example** and __www.f.example__",
	"é_http://a.example 1_www.b.example a__http://c.example ._http://d.example _http://e.example",
	"sources: https://arxiv.org/abs/2510.26692; (see https://github.com/a/b/issues/1375); www.c.example/x;y",
	// A "://" after a www. host is no scheme (a fuzzed failure).
	"www.0.://a and www.b.example://c",
	Code("fit.8xB200.serving"),
	Code("a<b>&c"),
}

func TestTableHTMLIsGoldmarks(t *testing.T) {
	tb := &Table{Header: []string{AnchorHeader, "fact", "value", "how"}, Align: []Align{Left, Left, Right}}
	for i, s := range cellTexts {
		tb.Rows = append(tb.Rows, []string{Code("k" + itoa(i)), Code("k" + itoa(i)), s, s})
	}
	tb.Rows = append(tb.Rows, []string{Code("not an id!"), "short row"}, []string{Code("k-long"), "a", "b", "c", "extra"})
	plain := &Table{Header: []string{"name", "value"}, Align: []Align{Left, Right}, Rows: [][]string{{"a", "1"}, {"b & c", "2"}}}
	// A long table converts each repeated text once (memoRows): the texts
	// come back in other rows, columns and orders.
	long := &Table{Header: tb.Header, Align: tb.Align}
	for r := 0; len(long.Rows) < 3*memoRows; r++ {
		for i, s := range cellTexts {
			j := (i + r) % len(cellTexts)
			long.Rows = append(long.Rows, []string{Code("k" + itoa(r) + "-" + itoa(i)), Code("k"), s, cellTexts[j]})
		}
	}
	for _, tb := range []*Table{tb, plain, long, {Header: []string{"empty"}}} {
		want, got := goldmarkTable(t, tb), tb.HTML()
		if got != want {
			gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Errorf("line %d:\ngot  %s\nwant %s", i+1, gl[i], wl[i])
					break
				}
			}
			if len(gl) != len(wl) {
				t.Errorf("got %d lines, want %d", len(gl), len(wl))
			}
		}
	}
}

// TestTableHTMLLinksWholeAddresses is where HTML is right and the Markdown
// route is not: the md renderer escapes _ as \_, and goldmark's linkify
// stops at the backslash, cutting the address.
func TestTableHTMLLinksWholeAddresses(t *testing.T) {
	tb := &Table{Header: []string{"how"}, Rows: [][]string{{"see https://example.com/a_b_(c)."}}}
	want := `<td>see <a href="https://example.com/a_b_(c)">https://example.com/a_b_(c)</a>.</td>`
	if got := tb.HTML(); !strings.Contains(got, want) {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func TestValidAnchor(t *testing.T) {
	for id, want := range map[string]bool{
		"fit.8xB200.serving": true, "claim-size-1400": true, "a": true, "0_x": true,
		"": false, ".x": false, "-x": false, "_x": false, "a b": false, "a/b": false, "é": false, "a#b": false,
	} {
		if got := validAnchor(id); got != want {
			t.Errorf("validAnchor(%q) = %v", id, got)
		}
		if got := validAnchor([]byte(id)); got != want {
			t.Errorf("validAnchor([]byte(%q)) = %v", id, got)
		}
	}
}

// FuzzOneLine holds oneLine's fast path to what a Markdown cell reads:
// strings.Fields joined by single spaces.
func FuzzOneLine(f *testing.F) {
	for _, s := range append(cellTexts, " a", "a ", "a\u00a0b", "a\u2009b", "×≤−÷ ⌈x⌉ → y", "\xe2\xc2\xa0", "a\u3000b", "a\u1680b", "x\u205fy", "\xc2", "a — b – c … “d”", "\xe2\x80", "\xe2\x80\x20x", "a\u2028b", "a\u202fb", "\xe3\x80") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
		if asIs(s) {
			var b strings.Builder
			if writeCellHTML(&b, oneLine(s)); b.String() != s {
				t.Errorf("asIs(%q), but its HTML is %q", s, b.String())
			}
		}
	})
}

// A cell already on one line comes back as it is, without an allocation:
// dashes, quotes and ellipses (U+2013–U+2026, whose UTF-8 starts as the
// spaces U+2000–U+200A do) are not spaces to Fields either.
func TestOneLineKeepsPunctuation(t *testing.T) {
	for _, s := range []string{
		"the smallest layout whose tightest GPU holds its weights — 1 sequence(s) × 131,072 tokens",
		"2024–2026, “quoted” and ‘single’ … ⌈x ÷ y⌉ ≤ z − 1",
		"no\u00a0", // a no-break space: Fields splits there
	} {
		want := strings.Join(strings.Fields(s), " ")
		if got := oneLine(s); got != want {
			t.Fatalf("oneLine(%q) = %q, want %q", s, got, want)
		}
		if want != s {
			continue
		}
		if n := testing.AllocsPerRun(10, func() { oneLine(s) }); n != 0 {
			t.Errorf("oneLine(%q): %v allocations, want none", s, n)
		}
	}
}

// TestAsIs: the cells of a facts table are mostly their own HTML; what
// oneLine, the address search or escaping would change is not.
func TestAsIs(t *testing.T) {
	for s, want := range map[string]bool{
		"tensor bytes ≤ 2 × 97,887 MiB":                              true,
		"config.json; hardware catalog: MI300X":                      true,
		"which hosts were shown, the width of the window":            true,
		"⌊(183.1 GB per GPU × utilization − reserve) ÷ 4.1 GB⌋ — ok": true,
		"":                  true,
		" a":                false,
		"a ":                false,
		"a  b":              false,
		"a\tb":              false,
		"a\u00a0b":          false,
		"a\u2009b":          false,
		"a < b":             false,
		"a & b":             false,
		`"quoted"`:          false,
		"see https://x.org": false,
		"http":              false,
		"www.":              false,
		Code("k"):           false,
	} {
		if got := asIs(s); got != want {
			t.Errorf("asIs(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestAddressEndsBeforeSemicolon: a bare address ends before a ';', which
// GFM would keep in it (the generator writes "; " between sources), in
// prose and in a table written either way.
func TestAddressEndsBeforeSemicolon(t *testing.T) {
	const text = "sources: https://arxiv.org/abs/2510.26692; (see https://github.com/a/b/issues/1375); end"
	want := []string{`href="https://arxiv.org/abs/2510.26692"`, `href="https://github.com/a/b/issues/1375"`}
	prose, err := ToHTML(NewMarkdown(nil), []byte(text+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	tb := &Table{Header: []string{"a"}, Rows: [][]string{{text}}}
	for name, html := range map[string]string{"prose": string(prose), "table": tb.HTML(), "table via goldmark": goldmarkTable(t, tb)} {
		for _, w := range want {
			if !strings.Contains(html, w) {
				t.Errorf("%s: no %s in %s", name, w, html)
			}
		}
		if strings.Contains(html, `;"`) {
			t.Errorf("%s: an address kept its ';': %s", name, html)
		}
	}
}
