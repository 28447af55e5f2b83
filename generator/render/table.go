// Package render writes pages: Markdown through text/template with tables
// built from data as a gomarkdown AST (so the renderer escapes every cell;
// a table it would print unchanged is written directly, held to its
// output by tests), and HTML by converting that Markdown with
// goldmark in safe mode inside an html/template layout.
package render

import (
	"strings"
	"unicode/utf8"

	"github.com/gomarkdown/markdown"
	"github.com/gomarkdown/markdown/ast"
	"github.com/gomarkdown/markdown/md"
)

// Align is a column's alignment.
type Align int

const (
	Left Align = iota
	Right
)

// Table is tabular data to print as a Markdown table.
type Table struct {
	Header []string
	Align  []Align
	Rows   [][]string
}

// Markdown renders t as gomarkdown's md renderer prints it. Cell text is
// literal: Markdown or HTML in it is escaped and stays inert. A table
// whose every cell the renderer would print as it stands (see plainText)
// is written directly: most dossier tables are plain, and the renderer
// would build and walk a tree for every cell.
func (t *Table) Markdown() string {
	if len(t.Rows) == 0 {
		return ""
	}
	if s, ok := t.plainMarkdown(); ok {
		return s
	}
	return t.rendered()
}

// rendered is t through gomarkdown's md renderer.
func (t *Table) rendered() string {
	doc := &ast.Document{CommonMark: true}
	tbl := &ast.Table{}
	ast.AppendChild(doc, tbl)
	head := &ast.TableHeader{}
	ast.AppendChild(tbl, head)
	ast.AppendChild(head, t.row(t.Header, true))
	body := &ast.TableBody{}
	ast.AppendChild(tbl, body)
	for _, r := range t.Rows {
		ast.AppendChild(body, t.row(r, false))
	}
	out := markdown.Render(doc, md.NewRenderer())
	return strings.TrimRight(string(out), "\n") + "\n"
}

// plainMarkdown writes t as rendered would, if every cell is plain.
func (t *Table) plainMarkdown() (string, bool) {
	size := 0
	for _, r := range t.Rows {
		for _, c := range r {
			size += len(c) + 3
		}
		size += 2
	}
	var b strings.Builder
	b.Grow(size + 8*len(t.Header) + 2)
	if !writePlainRow(&b, t.Header) {
		return "", false
	}
	b.WriteByte('|')
	for i := range t.Header {
		if i < len(t.Align) && t.Align[i] == Right {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteByte('\n')
	for _, r := range t.Rows {
		if !writePlainRow(&b, r) {
			return "", false
		}
	}
	return b.String(), true
}

// writePlainRow writes a row as the md renderer does ("| a | b |"), or
// reports a cell that is not plain.
func writePlainRow(b *strings.Builder, cells []string) bool {
	b.WriteByte('|')
	for _, c := range cells {
		text := oneLine(c)
		b.WriteByte(' ')
		if code, ok := codeCell(text); ok {
			// The renderer fences code with one more backtick than its
			// longest run and pads it when it starts or ends with one.
			if strings.IndexByte(code, '`') >= 0 {
				return false
			}
			if code != "" {
				b.WriteByte('`')
				b.WriteString(code)
				b.WriteByte('`')
			}
		} else if text, ok = plainText(text); ok {
			b.WriteString(text)
		} else {
			return false
		}
		b.WriteString(" |")
	}
	b.WriteByte('\n')
	return true
}

// plainText returns a cell's text (one line, see oneLine) as the md
// renderer prints it, if that is simple to know: it escapes a lone
// punctuation character with a backslash (a "." only after a number, which
// depends on the cell before), _ unless it joins two word characters, a
// few characters wherever they are (& only before an entity; those are
// left to the renderer) and | in a table.
func plainText(s string) (string, bool) {
	if len(s) == 1 {
		switch s[0] {
		case '\\', '`', '*', '_', '{', '}', '[', ']', '(', ')', '#', '+', '-', '$', '^', '<', '>':
			return "\\" + s, true
		case '.':
			return "", false
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '_':
			if i == 0 || i == len(s)-1 || !wordByte(s[i-1]) || !wordByte(s[i+1]) {
				return "", false
			}
		case markdownSpecial[c]:
			return "", false
		}
	}
	return s, true
}

// wordByte is a byte the md renderer counts as part of a word.
func wordByte(c byte) bool {
	return c >= utf8.RuneSelf || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// markdownSpecial are the bytes the md renderer may escape in a cell's
// text, and the white space it would collapse.
var markdownSpecial = [256]bool{
	'\\': true, '`': true, '*': true, '[': true, ']': true,
	'<': true, '~': true, '!': true, '&': true, '|': true,
	'\t': true, '\n': true, '\r': true,
}

func (t *Table) row(cells []string, header bool) *ast.TableRow {
	row := &ast.TableRow{}
	for i, c := range cells {
		cell := &ast.TableCell{IsHeader: header}
		if i < len(t.Align) && t.Align[i] == Right {
			cell.Align = ast.TableAlignmentRight
		}
		// A literal newline would end the row; a cell is one line.
		text := oneLine(c)
		if code, ok := codeCell(text); ok {
			ast.AppendChild(cell, &ast.Code{Leaf: ast.Leaf{Literal: []byte(code)}})
		} else {
			ast.AppendChild(cell, &ast.Text{Leaf: ast.Leaf{Literal: []byte(text)}})
		}
		ast.AppendChild(row, cell)
	}
	return row
}

// Code marks s to print as inline code in a table cell.
func Code(s string) string { return "\x00code:" + s }

func codeCell(s string) (string, bool) {
	return strings.CutPrefix(s, "\x00code:")
}
