package render

import (
	"bytes"
	"html/template"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
)

// placeholder marks where a printed table stood in the Markdown goldmark
// converts; it is a one-cell table, so the document keeps its shape (the
// contents still follow the answer box's table).
const placeholder = "dossier-direct-table-"

// convert converts md with gm, writing each of its printed tables that
// stands alone (a blank line or the start before it, a blank line or the
// end after it) with Table.html instead of letting goldmark parse it back:
// on a dossier the tables are most of goldmark's work. A table
// Table.html cannot write as goldmark does is left to goldmark.
func convert(gm goldmark.Markdown, md []byte, tables []PrintedTable, facts FactsTarget) (template.HTML, error) {
	if len(tables) == 0 {
		return ToHTML(gm, md)
	}
	in, direct := swapTables(md, tables, facts.Page)
	if len(direct) == 0 {
		return ToHTML(gm, md)
	}
	converted, err := ToHTML(gm, in)
	if err != nil {
		return "", err
	}
	html := make([]string, len(direct))
	for i, t := range direct {
		html[i] = t.Table.html(facts)
	}
	out, ok := fillPlaceholders(string(converted), html)
	if !ok {
		// Something around a table changed how goldmark read it.
		return ToHTML(gm, md)
	}
	return template.HTML(out), nil
}

// swapTables returns md with each printed table that can be written
// directly replaced by a placeholder, and those tables in order.
func swapTables(md []byte, tables []PrintedTable, factsPage string) ([]byte, []PrintedTable) {
	if bytes.Contains(md, []byte(placeholder)) {
		return md, nil
	}
	var in bytes.Buffer
	in.Grow(len(md))
	var direct []PrintedTable // the table of the i-th placeholder
	at := 0
	for _, pt := range tables {
		i := bytes.Index(md[at:], []byte(pt.Markdown))
		if pt.Markdown == "" || i < 0 {
			continue
		}
		start, end := at+i, at+i+len(pt.Markdown)
		alone := (start == 0 || start >= 2 && md[start-1] == '\n' && md[start-2] == '\n') && (end == len(md) || md[end] == '\n')
		if !alone || !directOK(pt.Table, factsPage) {
			in.Write(md[at:end])
			at = end
			continue
		}
		in.Write(md[at:start])
		in.WriteString("| " + placeholder + strconv.Itoa(len(direct)) + " |\n| --- |\n")
		direct = append(direct, pt)
		at = end
	}
	in.Write(md[at:])
	return in.Bytes(), direct
}

// fillPlaceholders replaces the converted placeholders, in order, by the
// tables' HTML; ok is false unless each is found as goldmark writes a
// one-cell table.
func fillPlaceholders(html string, direct []string) (string, bool) {
	var b strings.Builder
	size := len(html)
	for _, d := range direct {
		size += len(d)
	}
	b.Grow(size)
	for i, d := range direct {
		ph := "<table>\n<thead>\n<tr>\n<th scope=\"col\">" + placeholder + strconv.Itoa(i) + "</th>\n</tr>\n</thead>\n</table>\n"
		j := strings.Index(html, ph)
		if j < 0 {
			return "", false
		}
		b.WriteString(html[:j])
		b.WriteString(d)
		html = html[j+len(ph):]
	}
	b.WriteString(html)
	return b.String(), true
}

// directOK says whether Table.html writes t as goldmark converts its
// Markdown on a page with the facts appendix factsPage: no cell holds
// what linkify would turn into a link, and the cells naming a row's
// anchor or fact are empty or code that is a valid id.
func directOK(t *Table, factsPage string) bool {
	if len(t.Rows) == 0 || factsPage != "" && !validAnchor(factsPage) {
		return false
	}
	for _, h := range t.Header {
		if goldmarkOnly(h) {
			return false
		}
	}
	anchored := len(t.Header) > 0 && t.Header[0] == AnchorHeader
	first := 0
	if anchored {
		first = 1
	}
	factCol, _ := t.factColumns(first, factsPage)
	for _, row := range t.Rows {
		for i, c := range row {
			if goldmarkOnly(c) || anchored && i == 0 && !plainCode(c) || i == factCol && !keyCell(c) {
				return false
			}
		}
	}
	return true
}

// goldmarkOnly reports cell text Table.html may not write as goldmark
// does: an email or an address goldmark's linkify could read differently
// (see plainAddress), a NUL, which goldmark replaces, code that is not
// plainCodeText, and invalid UTF-8, which the two Markdown libraries read
// differently.
func goldmarkOnly(s string) bool {
	if code, ok := codeCell(oneLine(s)); ok {
		return !plainCodeText(code)
	}
	if !utf8.ValidString(s) || strings.ContainsAny(s, "@\x00") {
		return true
	}
	// Every address must be plain, and no other text may look like one.
	start, end := nextAddress(s)
	if start < 0 {
		// Most cells: no address, nothing to copy.
		return strings.Contains(s, "://") || strings.Contains(s, "www.")
	}
	var outside strings.Builder
	for ; start >= 0; start, end = nextAddress(s) {
		run := s[start:]
		if n := strings.IndexAny(run, " <"); n >= 0 {
			run = run[:n]
		}
		if !plainAddress(run, s[start:end]) {
			return true
		}
		outside.WriteString(s[:start])
		s = s[end:]
	}
	outside.WriteString(s)
	rest := outside.String()
	return strings.Contains(rest, "://") || strings.Contains(rest, "www.")
}

// plainAddress reports an address that linkify reads as Table.html does:
// its run up to the next space holds only letters, digits and -./:?=#%+,;()!
// (nothing the md renderer escapes; an apostrophe, which linkify keeps at
// the end and Table.HTML does not, neither), and its host is letters,
// digits, - and dots, starting with a letter or digit and ending in a dot
// and lowercase letters.
func plainAddress(run, addr string) bool {
	for i := 0; i < len(run); i++ {
		c := run[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-./:?=#%+,;()!", c) >= 0) {
			return false
		}
	}
	// The scheme is the address's own start: a www. address may hold a
	// "://" further on ("www.0.://a"), which is no scheme.
	host := addr
	for _, scheme := range []string{"https://", "http://"} {
		if h, ok := strings.CutPrefix(host, scheme); ok {
			host = h
			break
		}
	}
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	// Linkify wants a host of letters, digits, - and . that starts with a
	// letter or digit: to it "http://!.a" is no address.
	if host == "" || !isAlnum(host[0]) || strings.Contains(host, "..") {
		return false
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; !isAlnum(c) && c != '-' && c != '.' {
			return false
		}
	}
	tld := host[strings.LastIndexByte(host, '.')+1:]
	if tld == "" {
		return false
	}
	for i := 0; i < len(tld); i++ {
		if tld[i] < 'a' || tld[i] > 'z' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// plainCode reports an empty cell or a code cell of plainCodeText.
func plainCode(c string) bool {
	c = oneLine(c)
	code, ok := codeCell(c)
	return c == "" || ok && plainCodeText(code)
}

// plainCodeText reports code goldmark reads as it is: not empty, no space
// at either end to strip, valid UTF-8 without a NUL, and no backtick or
// pipe, which the md renderer leaves unescaped.
func plainCodeText(code string) bool {
	return code != "" && code[0] != ' ' && code[len(code)-1] != ' ' && utf8.ValidString(code) && !strings.ContainsAny(code, "|`\x00")
}

// keyCell reports an empty cell or a code cell naming a fact by a valid
// id, which a link's address and title hold unescaped.
func keyCell(c string) bool {
	code, ok := codeCell(oneLine(c))
	return oneLine(c) == "" || ok && validAnchor(code)
}
