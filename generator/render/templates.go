package render

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"path/filepath"
	"strings"
	"text/template"

	"dossier/generator/internal/safefile"
	"github.com/yuin/goldmark"
)

// Templates are the site's layouts: text/template for Markdown pages,
// html/template for the HTML layout around converted Markdown.
type Templates struct {
	dir  string
	md   map[string]*template.Template
	html *htmltemplate.Template // base layout around converted Markdown
	list *htmltemplate.Template // base layout with the model-table main block
	find *htmltemplate.Template // base layout with the search page
	cmp  *htmltemplate.Template // base layout with the compare page
	CSS  []byte
	JS   []byte // sort.js
	// ModelsJS is models.js: the index's hardware filter and the compare
	// page, both reading models.json.
	ModelsJS []byte
}

// MarkdownPages are the Markdown templates a site needs.
var MarkdownPages = []string{"dossier.md", "index.md"}

// LoadTemplates parses the templates under dir.
func LoadTemplates(dir string) (*Templates, error) {
	t := &Templates{dir: dir, md: map[string]*template.Template{}}
	for _, name := range MarkdownPages {
		path := filepath.Join(dir, name)
		b, err := safefile.Read(path, dir, safefile.Template)
		if err != nil {
			return nil, fmt.Errorf("read template: %w", err)
		}
		tm, err := template.New(name).Funcs(stubFuncs).Option("missingkey=error").Parse(string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		t.md[name] = tm
	}
	read := func(name string) ([]byte, error) {
		return safefile.Read(filepath.Join(dir, name), dir, safefile.Template)
	}
	// Each page template is base.html with one more file parsed into a
	// copy of it (as ParseFiles would, but through the bounded read).
	parse := func(into *htmltemplate.Template, name string) (*htmltemplate.Template, error) {
		b, err := read(name)
		if err == nil {
			if into.Name() != name {
				into = into.New(name)
			}
			_, err = into.Parse(string(b))
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
		return into, nil
	}
	h, err := parse(htmltemplate.New("base.html"), "base.html")
	if err != nil {
		return nil, err
	}
	t.html = h
	for _, p := range []struct {
		name string
		into **htmltemplate.Template
	}{{"list.html", &t.list}, {"search.html", &t.find}, {"compare.html", &t.cmp}} {
		c, err := h.Clone()
		if err == nil {
			_, err = parse(c, p.name)
		}
		if err != nil {
			return nil, err
		}
		*p.into = c
	}
	if t.CSS, err = read("style.css"); err != nil {
		return nil, fmt.Errorf("read stylesheet: %w", err)
	}
	if t.JS, err = read("sort.js"); err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	if t.ModelsJS, err = read("models.js"); err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	return t, nil
}

// stubFuncs lets templates parse before the per-page functions exist.
var stubFuncs = template.FuncMap{
	"table": func(string) (string, error) { return "", nil },
	"fact":  func(string) (string, error) { return "", nil },
	"chart": func(string) (string, error) { return "", nil },
	"has":   func(string) bool { return false },
}

// PageFuncs are what a Markdown template can call for one page.
type PageFuncs struct {
	Tables map[string]*Table
	Fact   func(key string) (string, error)
	Charts map[string]Chart
}

// Chart is a drawn chart: the file it is published as, its alternative
// text and its SVG.
type Chart struct {
	File string // relative to the page, e.g. memory.svg
	Alt  string
	SVG  string
}

// PrintedTable is a table as a Markdown page printed it.
type PrintedTable struct {
	Table    *Table
	Markdown string
}

// Markdown executes the Markdown template name for data. It also returns
// the tables the page printed, in order, for HTMLPage.Tables.
func (t *Templates) Markdown(name string, data any, pf PageFuncs) ([]byte, []PrintedTable, error) {
	return t.markdown(name, data, pf)
}

// markdown is Markdown.
func (t *Templates) markdown(name string, data any, pf PageFuncs) ([]byte, []PrintedTable, error) {
	tm, ok := t.md[name]
	if !ok {
		return nil, nil, fmt.Errorf("no Markdown template %s", name)
	}
	tm, err := tm.Clone()
	if err != nil {
		return nil, nil, err
	}
	var printed []PrintedTable
	tm.Funcs(template.FuncMap{
		"table": func(n string) (string, error) {
			tb, ok := pf.Tables[n]
			if !ok {
				return "", fmt.Errorf("no table %q", n)
			}
			md := tb.Markdown()
			printed = append(printed, PrintedTable{Table: tb, Markdown: md})
			return md, nil
		},
		"fact": func(key string) (string, error) {
			if pf.Fact == nil {
				return "", fmt.Errorf("no facts on this page")
			}
			return pf.Fact(key)
		},
		"has": func(n string) bool { tb := pf.Tables[n]; return tb != nil && len(tb.Rows) > 0 },
		"chart": func(n string) (string, error) {
			c, ok := pf.Charts[n]
			if !ok {
				return "", nil // nothing to draw for this model
			}
			return "![" + strings.NewReplacer("[", "(", "]", ")").Replace(c.Alt) + "](" + c.File + ")\n", nil
		},
	})
	var buf bytes.Buffer
	if err := tm.Execute(&buf, data); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", filepath.Join(t.dir, name), err)
	}
	return normalizeBlankLines(buf.Bytes()), printed, nil
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
	JSONLD      []any // structured data; html/template encodes each as JSON in its script element
	MarkdownURL string
	FactsURL    string
	// FactsPage is the facts appendix a dossier's values link to; set, the
	// page is converted as a dossier (see NewDossierMarkdown). FactRows
	// maps the facts the appendix prints in its matrices to their rows'
	// anchors (FactsTarget).
	FactsPage string
	FactRows  map[string]string
	Search    bool // link the search page (Pagefind runs after the build)
	// Table follows the converted Markdown, written straight to HTML:
	// a table too large to round-trip through Markdown (see Table.HTML).
	Table *Table
	// Matrices follow Table, written straight to HTML: the facts page's
	// tables of facts per layout and per accelerator.
	Matrices []*FactMatrix
	// Tables are the tables the Markdown holds as Markdown printed them.
	// Each that stands alone is written straight to HTML instead of being
	// parsed back by goldmark, which is most of the work of converting a
	// dossier (see convert).
	Tables []PrintedTable
}

// HTML converts the Markdown page md, inlining its charts, and wraps it in
// the base layout.
func (t *Templates) HTML(md []byte, p HTMLPage, charts map[string]Chart) ([]byte, error) {
	body, err := convert(markdownFor(p, charts), md, p.Tables, FactsTarget{Page: p.FactsPage, Rows: p.FactRows})
	if err != nil {
		return nil, err
	}
	if p.Table != nil {
		// Table.HTML escapes every cell, as goldmark's safe mode would.
		// Written after the body in one builder: the table is most of
		// the page, and concatenating copied it again.
		var b strings.Builder
		b.Grow(len(body) + p.Table.htmlSize())
		b.WriteString(string(body))
		b.WriteString("<div class=\"facts\">\n")
		p.Table.writeHTML(&b, FactsTarget{})
		b.WriteString("</div>\n")
		for _, m := range p.Matrices {
			m.writeHTML(&b)
		}
		body = htmltemplate.HTML(b.String())
	}
	return t.layout(body, p)
}

// markdownFor is the converter of p, its charts inlined.
func markdownFor(p HTMLPage, charts map[string]Chart) goldmark.Markdown {
	svgs := map[string]string{}
	for _, c := range charts {
		svgs[c.File] = c.SVG
	}
	if p.FactsPage != "" {
		return NewDossierMarkdown(svgs, FactsTarget{Page: p.FactsPage, Rows: p.FactRows})
	}
	return NewMarkdown(svgs)
}

// layout wraps body in the base layout.
func (t *Templates) layout(body htmltemplate.HTML, p HTMLPage) ([]byte, error) {
	p.Body = body
	var buf bytes.Buffer
	buf.Grow(len(body) + 16<<10) // the body and the layout around it
	if err := t.html.ExecuteTemplate(&buf, "base", p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(t.dir, "base.html"), err)
	}
	return buf.Bytes(), nil
}

// ListPage is a page whose main content is the sortable model table.
type ListPage struct {
	HTMLPage
	Title   string
	Intro   htmltemplate.HTML // converted Markdown
	Caption string
	Lists   []Link
	Columns []Column
	Rows    []Row
}

// Link is a named URL.
type Link struct{ Name, URL string }

// Column is a header of the model table; Sort is "num", "text" or "".
type Column struct{ Name, Sort string }

// Row is one model in the table.
type Row struct {
	Slug  string // matches the model's entry in models.json
	Cells []Cell
}

// Cell is one table cell: the text shown and the raw value sorting uses.
type Cell struct {
	Text  string
	Sort  string
	Num   bool
	Sub   string // a second, smaller line: the organisation, the layout a price is for
	Title string // shown on hover
	Link  string // first cell only: the dossier, relative to the site root
	Links []Link // first cell only: outside links (Hub page, files, config)
}

// List renders a model-table page.
func (t *Templates) List(p ListPage) ([]byte, error) {
	var buf bytes.Buffer
	if err := t.list.ExecuteTemplate(&buf, "base", p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(t.dir, "list.html"), err)
	}
	return buf.Bytes(), nil
}

// IntroHTML converts a page's Markdown introduction.
func IntroHTML(md []byte) (htmltemplate.HTML, error) { return ToHTML(NewMarkdown(nil), md) }

// SearchPage renders the search page (Pagefind's UI).
func (t *Templates) SearchPage(p HTMLPage) ([]byte, error) {
	var buf bytes.Buffer
	if err := t.find.ExecuteTemplate(&buf, "base", p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(t.dir, "search.html"), err)
	}
	return buf.Bytes(), nil
}

// ComparePage renders the compare page.
func (t *Templates) ComparePage(p HTMLPage) ([]byte, error) {
	var buf bytes.Buffer
	if err := t.cmp.ExecuteTemplate(&buf, "base", p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(t.dir, "compare.html"), err)
	}
	return buf.Bytes(), nil
}
