package render

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/util"
)

// HTML writes t as the HTML goldmark makes of t.Markdown() on a page (see
// NewMarkdown): column headers scoped, right-aligned columns styled, an
// AnchorHeader column turned into row ids, code cells as <code>, and bare
// http(s):// and www. addresses linked. It is for the facts appendix: a
// table of over a thousand rows, which it would be wasteful to write as
// Markdown only for goldmark to parse it back.
// TestTableHTMLIsGoldmarks holds it to the converted Markdown.
func (t *Table) HTML() string { return t.html(FactsTarget{}) }

// html is HTML for a dossier page whose facts appendix is facts.Page:
// there, as factLinks does, a table whose last column is FactHeader drops
// that column and links each row's value to the fact it names.
func (t *Table) html(facts FactsTarget) string {
	var b strings.Builder
	b.Grow(t.htmlSize())
	t.writeHTML(&b, facts)
	return b.String()
}

// htmlSize is about the length of t's HTML: its cells' text plus their
// markup, so a builder grows once.
func (t *Table) htmlSize() int {
	size := 64
	for _, row := range t.Rows {
		size += 40
		for _, c := range row {
			size += len(c) + 32
		}
	}
	return size
}

// writeHTML writes html(facts) to b.
func (t *Table) writeHTML(b *strings.Builder, facts FactsTarget) {
	if len(t.Rows) == 0 {
		return
	}
	w := t.newHTMLWriter(b, facts)
	b.WriteString("<table>\n<thead>\n<tr>\n")
	for i := w.first; i < len(t.Header); i++ {
		if i != w.factCol {
			w.cell("th", i, t.Header[i], "")
		}
	}
	b.WriteString("</tr>\n</thead>\n<tbody>\n")
	for _, row := range t.Rows {
		w.row(row)
	}
	b.WriteString("</tbody>\n</table>\n")
}

// htmlWriter writes a table's cells and rows to b.
type htmlWriter struct {
	t                 *Table
	b                 *strings.Builder
	facts             FactsTarget
	anchored          bool
	first             int
	factCol, valueCol int
	// A long table repeats its cells: the facts appendix names a few dozen
	// source lists and fewer derivations than facts over a thousand rows.
	// Each distinct text is converted once; a repeat copies its HTML from
	// where it was first written (at[0]:at[1] of b).
	written map[string][2]int
}

func (t *Table) newHTMLWriter(b *strings.Builder, facts FactsTarget) *htmlWriter {
	w := &htmlWriter{t: t, b: b, facts: facts}
	w.anchored = len(t.Header) > 0 && t.Header[0] == AnchorHeader
	if w.anchored {
		w.first = 1
	}
	w.factCol, w.valueCol = t.factColumns(w.first, facts.Page)
	if len(t.Rows) >= memoRows {
		w.written = make(map[string][2]int, len(t.Rows))
	}
	return w
}

func (w *htmlWriter) content(text string) {
	b := w.b
	if w.written == nil || len(text) < memoLen {
		writeCellText(b, text)
		return
	}
	if at, ok := w.written[text]; ok {
		b.WriteString(b.String()[at[0]:at[1]])
		return
	}
	start := b.Len()
	writeCellText(b, text)
	w.written[text] = [2]int{start, b.Len()}
}

func (w *htmlWriter) cell(tag string, i int, text, fact string) {
	b := w.b
	b.WriteByte('<')
	b.WriteString(tag)
	if tag == "th" {
		b.WriteString(` scope="col"`)
	}
	if i < len(w.t.Align) && w.t.Align[i] == Right {
		b.WriteString(` style="text-align:right"`)
	}
	b.WriteByte('>')
	if fact != "" {
		b.WriteString(`<a href="` + w.facts.href(fact) + `" title="` + fact + `">`)
	}
	w.content(text)
	if fact != "" {
		b.WriteString("</a>")
	}
	b.WriteString("</")
	b.WriteString(tag)
	b.WriteString(">\n")
}

func (w *htmlWriter) row(row []string) {
	b, t := w.b, w.t
	b.WriteString("<tr")
	if w.anchored && len(row) > 0 {
		id, _ := codeCell(oneLine(row[0]))
		if validAnchor(id) {
			b.WriteString(` id="`)
			b.WriteString(id)
			b.WriteByte('"')
		}
	}
	b.WriteString(">\n")
	fact := ""
	if w.factCol >= 0 && w.factCol < len(row) {
		fact = cellKey(row[w.factCol])
	}
	// A row has the header's columns: GFM drops extra cells and leaves
	// missing ones empty, unaligned.
	for i := w.first; i < len(t.Header); i++ {
		switch {
		case i == w.factCol:
		case i < len(row) && i == w.valueCol:
			w.cell("td", i, row[i], fact)
		case i < len(row):
			w.cell("td", i, row[i], "")
		default:
			b.WriteString("<td></td>\n")
		}
	}
	b.WriteString("</tr>\n")
}

// Tables of memoRows rows or more convert each distinct cell text of
// memoLen bytes or more once (see writeHTML): below that, a map lookup
// costs about what converting the text does.
const (
	memoRows = 64
	memoLen  = 16
)

// factColumns returns the FactHeader column of a dossier table and the
// column its links go on, as factLinks picks them; -1, -1 for none.
func (t *Table) factColumns(first int, factsPage string) (fact, value int) {
	last := len(t.Header) - 1
	if factsPage == "" || last < first || cellKey(t.Header[last]) != FactHeader {
		return -1, -1
	}
	value = first + 1
	for i := first; i <= last; i++ {
		if valueHeaders[cellKey(t.Header[i])] {
			value = i
			break
		}
	}
	return last, value
}

// cellKey is a cell's text as goldmark's cellText reads a code span or a
// cell without Markdown characters.
func cellKey(text string) string {
	text = oneLine(text)
	if code, ok := codeCell(text); ok {
		return code
	}
	return text
}

// oneLine is s with its runs of white space made one space and its ends
// trimmed, as a Markdown cell reads it; most cells are already so, which
// one pass over the bytes confirms without building a new string.
func oneLine(s string) string {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c > ' ' && c < utf8.RuneSelf:
		case c == ' ':
			if i == 0 || i == len(s)-1 || s[i+1] == ' ' {
				return strings.Join(strings.Fields(s), " ")
			}
		case c < ' ':
			if asciiSpace(c) {
				return strings.Join(strings.Fields(s), " ")
			}
		case mayBeSpace(s[i:]):
			return strings.Join(strings.Fields(s), " ")
		}
	}
	return s
}

// mayBeSpace reports whether s starts with the UTF-8 of a non-ASCII white
// space (U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F,
// U+205F, U+3000), as Fields reads it: rune by rune, an invalid sequence
// one byte at a time. Only the lead bytes of those runes are decoded, so
// × ≤ − cost one comparison, and — – … ' " (U+2013–U+2026) one decode.
func mayBeSpace(s string) bool {
	switch s[0] {
	case 0xC2, 0xE1, 0xE2, 0xE3:
		r, _ := utf8.DecodeRuneInString(s)
		return unicode.IsSpace(r)
	}
	return false
}

func asciiSpace(c byte) bool {
	return c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == ' '
}

// writeCellText writes the HTML of a cell's text as it stands in a table.
func writeCellText(b *strings.Builder, text string) {
	if asIs(text) {
		b.WriteString(text)
	} else {
		writeCellHTML(b, oneLine(text))
	}
}

// asIs reports whether a cell's text is its own HTML: one line as oneLine
// leaves it, nothing to escape and no address to link. Most cells are, and
// one pass over the bytes says so instead of oneLine, the address search
// and escaping each making their own.
func asIs(s string) bool {
	for i := 0; i < len(s); i++ {
		switch cellBytes[s[i]] {
		case plainByte:
		case spaceByte:
			if i == 0 || i == len(s)-1 || s[i+1] == ' ' {
				return false
			}
		case addressByte:
			if strings.HasPrefix(s[i:], "http") || strings.HasPrefix(s[i:], "www.") {
				return false
			}
		case leadByte:
			if mayBeSpace(s[i:]) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// What a byte of cell text may start, for asIs.
const (
	plainByte   = iota
	spaceByte   // ' ': not at an end, not doubled
	addressByte // h, w: http or www.
	leadByte    // a multi-byte rune, maybe a space (see mayBeSpace)
	otherByte   // control characters, < > & ": leave them to writeCellHTML
)

var cellBytes = func() (c [256]uint8) {
	for i := range c {
		switch {
		case i < ' ' || i == 0x7f || i == '<' || i == '>' || i == '&' || i == '"':
			c[i] = otherByte
		case i == ' ':
			c[i] = spaceByte
		case i == 'h' || i == 'w':
			c[i] = addressByte
		case i >= utf8.RuneSelf:
			c[i] = leadByte
		}
	}
	return c
}()

// writeCellHTML writes a cell's text, escaped, with addresses linked.
func writeCellHTML(b *strings.Builder, text string) {
	if code, ok := codeCell(text); ok {
		b.WriteString("<code>")
		writeEscaped(b, code)
		b.WriteString("</code>")
		return
	}
	for text != "" {
		start, end := nextAddress(text)
		if start < 0 {
			break
		}
		writeEscaped(b, text[:start])
		addr := text[start:end]
		href := addr
		if strings.HasPrefix(addr, "www.") {
			href = "http://" + addr
		}
		b.WriteString(`<a href="`)
		b.Write(util.EscapeHTML(util.URLEscape([]byte(href), false)))
		b.WriteString(`">`)
		writeEscaped(b, addr)
		b.WriteString("</a>")
		text = text[end:]
	}
	writeEscaped(b, text)
}

// writeEscaped writes s with <, >, & and " escaped, as goldmark escapes
// text.
func writeEscaped(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '&':
			esc = "&amp;"
		case '"':
			esc = "&quot;"
		default:
			continue
		}
		b.WriteString(s[start:i])
		b.WriteString(esc)
		start = i + 1
	}
	b.WriteString(s[start:])
}

// nextAddress finds the first bare address in s as the pages' linkify
// reads one (gfm in html.go): http://, https:// or www. at the start of s
// or after a space or (, matched by the same patterns (a host ending in a
// dot and lowercase letters; a path only after / # or ?; nothing past a
// ';'), less trailing punctuation and unbalanced closing parentheses. It
// returns -1, -1 when there is none. Linkify also starts after *, _ or ~,
// but only when goldmark's emphasis or strikethrough parser does not take
// the character as a delimiter (or the Markdown does not escape it): never
// for * and ~ before an address, which open a run; for _ only inside a
// word, after a letter or digit. Any other such cell has no address here,
// so goldmarkOnly leaves it to goldmark.
func nextAddress(s string) (start, end int) {
	// Most cells hold no address at all: two substring searches say so
	// without a walk from one h or w to the next.
	if !strings.Contains(s, "http") && !strings.Contains(s, "www.") {
		return -1, -1
	}
	for i := 0; i < len(s); i++ {
		// Every address starts with h or w: skip to the next one.
		j := strings.IndexAny(s[i:], "hw")
		if j < 0 {
			break
		}
		if i += j; i > 0 && s[i-1] != ' ' && s[i-1] != '(' && !intraword(s[:i]) {
			continue
		}
		rest := s[i:]
		var pattern *regexp.Regexp
		switch {
		case strings.HasPrefix(rest, "https://"), strings.HasPrefix(rest, "http://"):
			pattern = addressURL
		case strings.HasPrefix(rest, "www."):
			pattern = addressWWW
		default:
			continue
		}
		m := pattern.FindStringIndex(rest)
		if m == nil {
			continue
		}
		if n := trimAddress(rest[:m[1]]); n > 0 {
			return i, i + n
		}
	}
	return -1, -1
}

// intraword reports whether before ends in an underscore inside a word:
// after a letter or digit, where it opens no emphasis.
func intraword(before string) bool {
	under, ok := strings.CutSuffix(before, "_")
	if !ok || under == "" {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(under)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// trimAddress is the length of addr without its trailing punctuation and
// the closing parentheses that have no opening one inside it.
func trimAddress(addr string) int {
	open, closing := strings.Count(addr, "("), strings.Count(addr, ")")
	n := len(addr)
	for n > 0 {
		switch addr[n-1] {
		case '?', '!', '.', ',', ':', '*', '_', '~', '\'', '"':
			n--
			continue
		case ')':
			if closing > open {
				closing--
				n--
				continue
			}
		}
		break
	}
	return n
}
