package render

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// AnchorHeader is the header of a table's first column whose cells name
// each row's anchor: a reviewer can link to #claim-size-1400 or #fit-8xB200.
const AnchorHeader = "#"

// validAnchor reports whether id may be a row's id: a letter or digit,
// then letters, digits, '.', '_' and '-'. (A loop, not a regexp: it runs
// for every row of a thousand-row facts table.)
func validAnchor[T string | []byte](id T) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return len(id) > 0
}

// rowAnchors marks header cells as column headers and gives table rows
// the id their first cell names, in tables whose first header cell is
// AnchorHeader. The anchor column itself leaves the HTML: an anchor is a
// link target, not a row label.
type rowAnchors struct{}

func (rowAnchors) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		tbl, ok := n.(*east.Table)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		head, ok := tbl.FirstChild().(*east.TableHeader)
		if !ok || head.FirstChild() == nil {
			return ast.WalkSkipChildren, nil
		}
		// Header cells head their columns, for screen readers.
		for c := head.FirstChild(); c != nil; c = c.NextSibling() {
			c.SetAttributeString("scope", "col")
		}
		if strings.TrimPrefix(string(cellText(head.FirstChild(), src)), `\`) != AnchorHeader {
			return ast.WalkSkipChildren, nil
		}
		for row := head.NextSibling(); row != nil; row = row.NextSibling() {
			if row.FirstChild() == nil {
				continue
			}
			if id := cellText(row.FirstChild(), src); validAnchor(id) {
				row.SetAttributeString("id", id)
			}
			row.RemoveChild(row, row.FirstChild())
		}
		head.RemoveChild(head, head.FirstChild())
		// The table's alignments are per column; drop the anchor's.
		if len(tbl.Alignments) > 0 {
			tbl.Alignments = tbl.Alignments[1:]
		}
		return ast.WalkSkipChildren, nil
	})
}

// cellText is the plain text of a table cell (its code spans included).
func cellText(n ast.Node, src []byte) []byte {
	var out []byte
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			out = append(out, t.Segment.Value(src)...)
		}
		return ast.WalkContinue, nil
	})
	return out
}
