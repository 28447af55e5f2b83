package site

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"dossier/generator/facts"
	"dossier/generator/render"
)

var slugRe = regexp.MustCompile(`[^a-z0-9]+`)

func slugify(s string) string {
	return strings.Trim(slugRe.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// columns of the model table, shared by the index and the list pages.
var columns = []render.Column{
	{Name: "model", Sort: "text"}, {Name: "organisation", Sort: "text"}, {Name: "family", Sort: "text"},
	{Name: "parameters", Sort: "num"}, {Name: "activated (without embedding)", Sort: "num"}, {Name: "checkpoint", Sort: "num"},
	{Name: "bits/param", Sort: "num"}, {Name: "KV per token", Sort: "num"},
	{Name: "cheapest serving configuration", Sort: "text"}, {Name: "$/h", Sort: "num"}, {Name: "claims", Sort: "text"},
}

func (s *Site) row(m *Model, sum *Summary) render.Row {
	cell := func(key string) render.Cell {
		f := m.Facts.Get(key)
		if !f.Known() {
			return render.Cell{Text: "unknown", Num: true}
		}
		v, isNum := f.Float()
		c := render.Cell{Text: f.Display, Num: isNum}
		if isNum {
			c.Sort = strconv.FormatFloat(v, 'g', -1, 64)
			c.Text = compact(f.Unit, v, f.Display)
		} else {
			c.Sort = f.Display
		}
		return c
	}
	title := render.Cell{Text: sum.Title, Sort: sum.Title, Link: "models/" + sum.Slug + "/index.html"}
	return render.Row{Cells: []render.Cell{title, {Text: sum.Org, Sort: sum.Org}, {Text: sum.Family, Sort: sum.Family},
		cell("params.total"), cell("params.active_no_embedding"), cell("bytes.checkpoint"), cell("bits_per_param"),
		cell("kv.bytes_per_token"), cell("fit.cheapest_serving"), cell("cost.cheapest_serving.usd_per_hour"),
		{Text: sum.Verdicts, Sort: sum.Verdicts}}}
}

// group is a list page: the models of one organisation or family.
type group struct {
	kind, name, path string
	models           []*Summary
}

func (s *Site) groups() []group {
	by := map[string]*group{}
	var keys []string
	add := func(kind, name string, m *Summary) {
		if name == "" {
			return
		}
		path := kind + "/" + slugify(name) + "/"
		g := by[path]
		if g == nil {
			g = &group{kind: kind, name: name, path: path}
			by[path] = g
			keys = append(keys, path)
		}
		g.models = append(g.models, m)
	}
	for _, m := range s.summaries() {
		add("orgs", m.Org, m)
		add("families", m.Family, m)
	}
	sort.Strings(keys)
	out := make([]group, len(keys))
	for i, k := range keys {
		out[i] = *by[k]
	}
	return out
}

// renderLists writes the index and one list page per organisation and
// architecture family, as HTML (sortable) and Markdown.
func (s *Site) renderLists(out map[string][]byte) error {
	groups := s.groups()
	var links []render.Link
	for _, g := range groups {
		label := "organisation"
		if g.kind == "families" {
			label = "family"
		}
		links = append(links, render.Link{Name: label + ": " + g.name, URL: g.path + "index.html"})
	}
	title, intro := s.Config.Title, ""
	if s.Content.Index != nil {
		if s.Content.Index.Front.Title != "" {
			title = s.Content.Index.Front.Title
		}
		intro = strings.TrimSpace(string(s.Content.Index.Body))
	}
	if err := s.renderList(out, "", title, intro, "All dossiers", links, s.summaries()); err != nil {
		return err
	}
	for _, g := range groups {
		what := "Organisation"
		if g.kind == "families" {
			what = "Architecture family"
		}
		if err := s.renderList(out, g.path, what+": "+g.name, "", "Dossiers of "+g.name, nil, g.models); err != nil {
			return err
		}
	}
	return nil
}

func (s *Site) renderList(out map[string][]byte, dir, title, intro, caption string, links []render.Link, models []*Summary) error {
	root := strings.Repeat("../", strings.Count(dir, "/"))
	var rows []render.Row
	md := &render.Table{Align: []render.Align{render.Left, render.Left, render.Left, render.Right, render.Right, render.Right, render.Right, render.Right, render.Left, render.Right, render.Left}}
	for _, c := range columns {
		md.Header = append(md.Header, c.Name)
	}
	for _, m := range models {
		r := m.Row
		rows = append(rows, r)
		var cells []string
		for _, c := range r.Cells {
			cells = append(cells, c.Text)
		}
		md.Rows = append(md.Rows, cells)
	}
	mdText, err := s.Templates.Markdown("index.md", indexData{Title: title, Intro: intro}, render.PageFuncs{Tables: map[string]*render.Table{"models": md}})
	if err != nil {
		return err
	}
	introHTML, err := render.IntroHTML([]byte(intro))
	if err != nil {
		return err
	}
	for i := range links {
		links[i].URL = root + links[i].URL
	}
	html, err := s.Templates.List(render.ListPage{
		HTMLPage: render.HTMLPage{PageTitle: title, SiteTitle: s.Config.Title, Root: root, MarkdownURL: "index.md", Search: s.Config.Search},
		Title:    title, Intro: introHTML, Caption: caption, Lists: links, Columns: columns, Rows: rows,
	})
	if err != nil {
		return err
	}
	out[dir+"index.md"], out[dir+"index.html"] = mdText, html
	return nil
}

// compact shortens a display for a table cell: GB for large sizes, KiB or
// MiB for small ones, bare numbers for bits per parameter.
func compact(unit string, v float64, display string) string {
	switch unit {
	case facts.UnitBytes:
		switch {
		case v >= 1e9:
			return facts.GB(v)
		case v >= 1<<20:
			return facts.Fixed(v/(1<<20), 1) + " MiB"
		case v >= 1<<10:
			return facts.Fixed(v/(1<<10), 1) + " KiB"
		}
	case facts.UnitBits:
		return facts.Fixed(v, 2)
	}
	return display
}
