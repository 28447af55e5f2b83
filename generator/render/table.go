// Package render writes pages: Markdown through text/template with tables
// built from data as a gomarkdown AST (so every cell is escaped by the
// renderer, not by hand), and HTML by converting that Markdown with
// goldmark in safe mode inside an html/template layout.
package render

import (
	"strings"

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

// Markdown renders t with gomarkdown's md renderer. Cell text is literal:
// Markdown or HTML in it is escaped and stays inert.
func (t *Table) Markdown() string {
	if len(t.Rows) == 0 {
		return ""
	}
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
