package render

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// headingAttrAllowlist keeps only the id of a heading's {#id …} attributes:
// templates name anchors that way, while a style or an event handler
// written in a title or in prose must never reach the HTML.
type headingAttrAllowlist struct{}

func (headingAttrAllowlist) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering && h.Attributes() != nil {
			id, hasID := h.AttributeString("id")
			h.RemoveAttributes()
			if hasID {
				h.SetAttributeString("id", id)
			}
		}
		return ast.WalkContinue, nil
	})
}
