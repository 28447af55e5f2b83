package render

import (
	"bytes"
	"regexp"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// A folded block is written in Markdown as GitHub folds one, raw HTML
// lines around ordinary Markdown:
//
//	<details>
//	<summary>Every quant</summary>
//
//	| quant | … |
//
//	</details>
//
// Safe mode drops raw HTML, so folds rewrites exactly that pair of
// blocks, at the top level, into a Details node whose summary is plain
// text (escaped when written); any other raw HTML is still dropped.
var (
	foldOpen  = regexp.MustCompile(`^<details>\n<summary>([^<>\n]+)</summary>\n?$`)
	foldClose = regexp.MustCompile(`^</details>\n?$`)
)

// KindDetails is a folded block.
var KindDetails = ast.NewNodeKind("Details")

// Details is a block folded away behind its summary.
type Details struct {
	ast.BaseBlock
	Summary string
}

// Kind implements ast.Node.
func (n *Details) Kind() ast.NodeKind { return KindDetails }

// Dump implements ast.Node.
func (n *Details) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Summary": n.Summary}, nil)
}

type folds struct{}

func (folds) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		m := foldOpen.FindSubmatch(blockText(n, src))
		if m == nil {
			continue
		}
		var end ast.Node
		for c := n.NextSibling(); c != nil; c = c.NextSibling() {
			if t := blockText(c, src); foldClose.Match(t) {
				end = c
				break
			} else if foldOpen.Match(t) {
				break // no nesting: the inner opening stays raw (dropped)
			}
		}
		if end == nil {
			continue
		}
		d := &Details{Summary: string(m[1])}
		doc.InsertBefore(doc, n, d)
		for c := n.NextSibling(); c != end; {
			next := c.NextSibling()
			d.AppendChild(d, c) // AppendChild detaches c from doc
			c = next
		}
		doc.RemoveChild(doc, n)
		doc.RemoveChild(doc, end)
		n = d
	}
}

// blockText is the raw text of an HTML block, nil for any other node.
func blockText(n ast.Node, src []byte) []byte {
	h, ok := n.(*ast.HTMLBlock)
	if !ok || h.HasClosure() {
		return nil
	}
	var b bytes.Buffer
	lines := h.Lines()
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		b.Write(s.Value(src))
	}
	return b.Bytes()
}

type detailsRenderer struct{}

func (detailsRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindDetails, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			w.WriteString("<details>\n<summary>")
			w.Write(util.EscapeHTML([]byte(n.(*Details).Summary)))
			w.WriteString("</summary>\n")
		} else {
			w.WriteString("</details>\n")
		}
		return ast.WalkContinue, nil
	})
}
