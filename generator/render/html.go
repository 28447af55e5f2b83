package render

import (
	"bytes"
	"fmt"
	"html/template"
	"regexp"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// gfm is GitHub Flavored Markdown as goldmark's GFM extension has it
// (tables, strikethrough, task lists, bare addresses linked), except that
// an address ends before a semicolon. GFM keeps a ';' that ends an address
// unless it closes an entity, and this generator writes "; " after
// sources and between derivation parts: "https://arxiv.org/abs/2510.26692;"
// and "…/issues/1375);" were links to pages that do not exist. An address
// with a ';' of its own is cut there; none of the sources has one.
// nextAddress stops there too.
var gfm = goldmark.Extender(extensionList{
	extension.Table, extension.Strikethrough, extension.TaskList,
	extension.NewLinkify(extension.WithLinkifyURLRegexp(addressURL), extension.WithLinkifyWWWRegexp(addressWWW)),
})

// The address patterns of goldmark's linkify, but for ';' in the path.
const addressPath = `(?:[/#?][-a-zA-Z0-9@:%_+.~#$!?&/=()',">^{}\[\]` + "`" + `]*)?`

var (
	addressURL = regexp.MustCompile(`^(?:http|https|ftp)://[-a-zA-Z0-9@:%._+~#=]{1,256}\.[a-z]+(?::\d+)?` + addressPath)
	addressWWW = regexp.MustCompile(`^www\.[-a-zA-Z0-9@:%._+~#=]{1,256}\.[a-z]+` + addressPath)
)

// extensionList extends a converter with each of its extensions.
type extensionList []goldmark.Extender

func (l extensionList) Extend(m goldmark.Markdown) {
	for _, e := range l {
		e.Extend(m)
	}
}

// NewMarkdown returns the goldmark converter every page uses: GFM tables,
// footnotes, automatic heading IDs (no heading attributes: a {#id style=…}
// in prose stays text, never markup), row anchors, and the safe default that drops raw HTML and dangerous link
// targets (a <details> fold around Markdown excepted: fold.go). charts maps an image destination to SVG this generator drew;
// such images are inlined, every other image stays an <img>.
func NewMarkdown(charts map[string]string) goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(gfm, extension.Footnote, extension.DefinitionList),
		goldmark.WithParserOptions(parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(folds{}, 10), util.Prioritized(rowAnchors{}, 100))),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(chartImages(charts), 1), util.Prioritized(detailsRenderer{}, 1))),
	)
}

// NewDossierMarkdown is NewMarkdown for a dossier page read in a browser,
// with heading attributes for the template's anchors ({#answer}) but only
// the id kept (headingAttrAllowlist):
// fact keys leave the tables for links into the facts page (the key shows on
// hover), and a table of contents follows the answer box.
func NewDossierMarkdown(charts map[string]string, facts FactsTarget) goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(gfm, extension.Footnote, extension.DefinitionList),
		goldmark.WithParserOptions(parser.WithAutoHeadingID(), parser.WithHeadingAttribute(),
			parser.WithASTTransformers(util.Prioritized(folds{}, 10), util.Prioritized(headingAttrAllowlist{}, 50), util.Prioritized(rowAnchors{}, 100), util.Prioritized(factLinks{target: facts}, 110),
				util.Prioritized(tableOfContents{}, 120))),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(chartImages(charts), 1),
			util.Prioritized(contentsRenderer{}, 1), util.Prioritized(detailsRenderer{}, 1))),
	)
}

// chartImages renders images: a chart the generator drew is inlined as
// SVG (trusted: built from numbers, every string escaped); any other image
// is an <img> with goldmark's dangerous-URL check.
type chartImages map[string]string

func (c chartImages) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindImage, c.render)
	reg.Register(ast.KindParagraph, c.paragraph)
}

// paragraph renders a paragraph as goldmark does, except one holding only
// a chart: a <figure> may not sit inside a <p>.
func (c chartImages) paragraph(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if img, ok := n.FirstChild().(*ast.Image); ok && n.ChildCount() == 1 {
		if _, chart := c[string(img.Destination)]; chart {
			return ast.WalkContinue, nil
		}
	}
	if entering {
		w.WriteString("<p")
		if n.Attributes() != nil {
			html.RenderAttributes(w, n, html.ParagraphAttributeFilter)
		}
		w.WriteString(">")
	} else {
		w.WriteString("</p>\n")
	}
	return ast.WalkContinue, nil
}

func (c chartImages) render(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	img := n.(*ast.Image)
	alt := altText(img, src)
	if svg, ok := c[string(img.Destination)]; ok {
		fmt.Fprintf(w, `<figure class="chart">%s<figcaption>%s</figcaption></figure>`, svg, util.EscapeHTML([]byte(alt)))
		return ast.WalkSkipChildren, nil
	}
	dest := img.Destination
	if html.IsDangerousURL(dest) {
		dest = nil
	}
	fmt.Fprintf(w, `<img src="%s" alt="%s">`, util.EscapeHTML(util.URLEscape(dest, true)), util.EscapeHTML([]byte(alt)))
	return ast.WalkSkipChildren, nil
}

func altText(n ast.Node, src []byte) string {
	var b bytes.Buffer
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// ToHTML converts Markdown to an HTML fragment.
func ToHTML(gm goldmark.Markdown, src []byte) (template.HTML, error) {
	var buf bytes.Buffer
	if err := gm.Convert(src, &buf); err != nil {
		return "", fmt.Errorf("convert markdown: %w", err)
	}
	// goldmark in safe mode escapes raw HTML and empties dangerous URLs, so
	// its output is trusted here.
	return template.HTML(buf.String()), nil
}
