package render

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// NewMarkdown returns the goldmark converter every page uses: GFM tables,
// footnotes, automatic heading IDs and heading attributes ({#id}), and the
// safe default that drops raw HTML and dangerous link targets.
func NewMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.Footnote, extension.DefinitionList),
		goldmark.WithParserOptions(parser.WithAutoHeadingID(), parser.WithHeadingAttribute()),
	)
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
