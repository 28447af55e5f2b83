package render

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// FactHeader is the header of the column in which a Markdown table names
// each row's fact key. The review copy prints it; the HTML page drops it and
// links the row's value to the fact's entry in the facts appendix instead,
// with the key on hover.
const FactHeader = "fact"

// valueHeaders name the column a fact link goes on; without one, the
// second column is the value.
var valueHeaders = map[string]bool{"value": true, "answer": true, "derived here": true, "parameters": true}

// FactsTarget is where a dossier's fact links land: Page is the facts
// appendix, relative to the dossier ("facts.html"), and Rows maps the key
// of a fact printed in one of its matrices to the anchor of that fact's
// row (fit.8xH100.margin_bytes → fit.8xH100). A matrix anchors rows, not
// cells: an id per cell was a fifth of the appendix's bytes.
type FactsTarget struct {
	Page string
	Rows map[string]string
}

// href is the link to the fact key.
func (ft FactsTarget) href(key string) string {
	if row, ok := ft.Rows[key]; ok {
		key = row
	}
	return ft.Page + "#" + key
}

// factLinks moves fact keys out of the visible HTML tables.
type factLinks struct {
	target FactsTarget
}

func (fl factLinks) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		tbl, ok := n.(*east.Table)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		head, ok := tbl.FirstChild().(*east.TableHeader)
		if !ok || head.LastChild() == nil || string(cellText(head.LastChild(), src)) != FactHeader {
			return ast.WalkSkipChildren, nil
		}
		value, i := 1, 0
		for c := head.FirstChild(); c != nil; c = c.NextSibling() {
			if valueHeaders[string(cellText(c, src))] {
				value = i
				break
			}
			i++
		}
		head.RemoveChild(head, head.LastChild())
		for row := head.NextSibling(); row != nil; row = row.NextSibling() {
			last := row.LastChild()
			if last == nil {
				continue
			}
			key := string(cellText(last, src))
			row.RemoveChild(row, last)
			if key == "" {
				continue
			}
			cell := row.FirstChild()
			for j := 0; j < value && cell != nil; j++ {
				cell = cell.NextSibling()
			}
			if cell == nil {
				continue
			}
			link := ast.NewLink()
			link.Destination = []byte(fl.target.href(key))
			link.Title = []byte(key)
			for c := cell.FirstChild(); c != nil; {
				next := c.NextSibling()
				link.AppendChild(link, c)
				c = next
			}
			cell.AppendChild(cell, link)
		}
		return ast.WalkSkipChildren, nil
	})
}

// KindContents is the table of contents node.
var KindContents = ast.NewNodeKind("Contents")

// contents is a <nav> of in-page links to the page's sections.
type contents struct {
	ast.BaseBlock
	links [][2]string // id, text
}

func (c *contents) Kind() ast.NodeKind { return KindContents }

func (c *contents) Dump(src []byte, level int) { ast.DumpHelper(c, src, level, nil, nil) }

// tableOfContents inserts the contents after the answer box (the first
// table after the heading with id AnswerID), else before the first
// section heading.
type tableOfContents struct{}

// AnswerID is the id of the answer box's heading.
const AnswerID = "answer"

func (tableOfContents) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	toc := &contents{}
	var first, after ast.Node
	answer := false
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Level == 2 {
			id, _ := h.AttributeString("id")
			ids, _ := id.([]byte)
			if string(ids) == AnswerID {
				answer = true
				continue
			}
			if first == nil {
				first = h
			}
			toc.links = append(toc.links, [2]string{string(ids), string(cellText(h, src))})
			continue
		}
		if _, ok := n.(*east.Table); ok && answer && after == nil {
			after = n
		}
	}
	if len(toc.links) < 2 {
		return
	}
	switch {
	case after != nil:
		doc.InsertAfter(doc, after, toc)
	case first != nil:
		doc.InsertBefore(doc, first, toc)
	}
}

type contentsRenderer struct{}

func (contentsRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindContents, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		c := n.(*contents)
		var b strings.Builder
		b.WriteString(`<nav class="toc" aria-label="Contents"><strong class="toc-title">Contents</strong><ol>`)
		for _, l := range c.links {
			b.WriteString(`<li><a href="#` + string(util.EscapeHTML([]byte(l[0]))) + `">` + string(util.EscapeHTML([]byte(l[1]))) + `</a></li>`)
		}
		b.WriteString("</ol></nav>\n")
		w.WriteString(b.String())
		return ast.WalkSkipChildren, nil
	})
}
