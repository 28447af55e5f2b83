package render

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"os"
	"path/filepath"
	"text/template"

	"github.com/yuin/goldmark"
)

// Templates are the site's layouts: text/template for Markdown pages,
// html/template for the HTML layout around converted Markdown.
type Templates struct {
	dir  string
	md   map[string]*template.Template
	html *htmltemplate.Template
	gm   goldmark.Markdown
	CSS  []byte
}

// MarkdownPages are the Markdown templates a site needs.
var MarkdownPages = []string{"dossier.md", "index.md"}

// LoadTemplates parses the templates under dir.
func LoadTemplates(dir string) (*Templates, error) {
	t := &Templates{dir: dir, md: map[string]*template.Template{}, gm: NewMarkdown()}
	for _, name := range MarkdownPages {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read template: %w", err)
		}
		tm, err := template.New(name).Funcs(stubFuncs).Option("missingkey=error").Parse(string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		t.md[name] = tm
	}
	base := filepath.Join(dir, "base.html")
	h, err := htmltemplate.ParseFiles(base)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", base, err)
	}
	t.html = h
	css, err := os.ReadFile(filepath.Join(dir, "style.css"))
	if err != nil {
		return nil, fmt.Errorf("read stylesheet: %w", err)
	}
	t.CSS = css
	return t, nil
}

// stubFuncs lets templates parse before the per-page functions exist.
var stubFuncs = template.FuncMap{
	"table": func(string) (string, error) { return "", nil },
	"fact":  func(string) (string, error) { return "", nil },
	"has":   func(string) bool { return false },
}

// PageFuncs are what a Markdown template can call for one page.
type PageFuncs struct {
	Tables map[string]*Table
	Fact   func(key string) (string, error)
}

// Markdown executes the Markdown template name for data.
func (t *Templates) Markdown(name string, data any, pf PageFuncs) ([]byte, error) {
	tm, ok := t.md[name]
	if !ok {
		return nil, fmt.Errorf("no Markdown template %s", name)
	}
	tm, err := tm.Clone()
	if err != nil {
		return nil, err
	}
	tm.Funcs(template.FuncMap{
		"table": func(n string) (string, error) {
			tb, ok := pf.Tables[n]
			if !ok {
				return "", fmt.Errorf("no table %q", n)
			}
			return tb.Markdown(), nil
		},
		"fact": func(key string) (string, error) {
			if pf.Fact == nil {
				return "", fmt.Errorf("no facts on this page")
			}
			return pf.Fact(key)
		},
		"has": func(n string) bool { tb := pf.Tables[n]; return tb != nil && len(tb.Rows) > 0 },
	})
	var buf bytes.Buffer
	if err := tm.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(t.dir, name), err)
	}
	return normalizeBlankLines(buf.Bytes()), nil
}

// normalizeBlankLines collapses runs of blank lines that template actions
// leave behind, so the Markdown diffs cleanly.
func normalizeBlankLines(b []byte) []byte {
	lines := bytes.Split(b, []byte("\n"))
	out := make([][]byte, 0, len(lines))
	blank := 0
	for _, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 {
			blank++
			if blank > 1 {
				continue
			}
			l = nil
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	res := bytes.TrimRight(bytes.Join(out, []byte("\n")), "\n")
	return append(res, '\n')
}

// HTMLPage is what the base layout prints.
type HTMLPage struct {
	PageTitle   string
	SiteTitle   string
	Root        string // relative path to the site root, e.g. "../../"
	Body        htmltemplate.HTML
	Head        htmltemplate.HTML // extra head elements (JSON-LD), built by html/template
	MarkdownURL string
	FactsURL    string
}

// HTML converts the Markdown page md and wraps it in the base layout.
func (t *Templates) HTML(md []byte, p HTMLPage) ([]byte, error) {
	body, err := ToHTML(t.gm, md)
	if err != nil {
		return nil, err
	}
	p.Body = body
	var buf bytes.Buffer
	if err := t.html.ExecuteTemplate(&buf, "base", p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(t.dir, "base.html"), err)
	}
	return buf.Bytes(), nil
}
