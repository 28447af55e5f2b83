package site

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"dossier/generator/claims"
	"dossier/generator/page"
	"dossier/generator/render"
)

var slugRe = regexp.MustCompile(`[^a-z0-9]+`)

func slugify(s string) string {
	return strings.Trim(slugRe.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// columns of the model table, shared by the index and the list pages:
// what a reader sorts by, narrow enough for 1280 px.
var columns = []render.Column{
	{Name: "model", Sort: "text"}, {Name: "parameters", Sort: "num"}, {Name: "activated", Sort: "num"},
	{Name: "checkpoint", Sort: "num"}, {Name: "smallest deployment", Sort: "num"},
	{Name: "cheapest per token", Sort: "num"}, {Name: "claims (supported / refuted / misleading)", Sort: "num"},
}

// columnAlign is the Markdown alignment of each column.
var columnAlign = []render.Align{render.Left, render.Right, render.Right, render.Right, render.Left, render.Right, render.Left}

func (s *Site) row(m *Model, sum *Summary) render.Row {
	cell := func(key string) render.Cell {
		f := m.Facts.Get(key)
		if !f.Known() {
			return render.Cell{Text: "unknown", Num: true}
		}
		c := render.Cell{Text: f.Display, Sort: f.Display}
		if v, isNum := f.Float(); isNum {
			c.Num, c.Sort = true, strconv.FormatFloat(v, 'g', -1, 64)
		}
		return c
	}
	hub := m.Page.Hub()
	title := render.Cell{Text: sum.Title, Sort: sum.Title, Link: "models/" + sum.Slug + "/index.html", Sub: sum.Org,
		Links: []render.Link{{Name: "Hub", URL: hub.Page}, {Name: "files", URL: hub.Files}, {Name: "config", URL: hub.Config}}}
	smallest := render.Cell{Text: "none deployable"}
	if short, full, memory, ok := m.Page.Smallest(s.Catalog); ok {
		smallest = render.Cell{Text: short, Title: full, Sort: strconv.FormatInt(memory, 10), Num: true}
	}
	// The answer box's cheapest: $ per million output tokens of the
	// deployment that has the fewest, under it the layout and its $/h.
	price := cell("deploy.cheapest.usd_per_m_output_tokens")
	if price.Text != "unknown" {
		price.Text += "/M"
	}
	if f := m.Facts.Get("deploy.cheapest.layout"); f.Known() {
		price.Sub = page.HWLabel(f.Display)
		if h := m.Facts.Get("cost." + f.Display + ".usd_per_hour"); h.Known() {
			price.Sub += ", " + h.Display
		}
	}
	n := claims.Tally(m.Reviews)
	claimsCell := render.Cell{Text: "none checked", Sort: "0"}
	if len(m.Reviews) > 0 {
		claimsCell = render.Cell{Text: fmt.Sprintf("%d / %d / %d of %d", n["supported"], n["refuted"], n["misleading"], len(m.Reviews)),
			Sort: strconv.Itoa(len(m.Reviews)), Title: page.ClaimsTally(m.Reviews)}
	}
	return render.Row{Slug: sum.Slug, Cells: []render.Cell{title, cell("params.total"), cell("params.active_no_embedding"),
		cell("bytes.checkpoint"), smallest, price, claimsCell}}
}

// group is a list page: the models of one organisation or family.
type group struct {
	kind, name, path string
	models           []*Summary
}

func (s *Site) groups(sums []*Summary) []group {
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
	for _, m := range sums {
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
func (s *Site) renderLists(out *memory, sums []*Summary) error {
	groups := s.groups(sums)
	var links []render.Link
	for _, g := range groups {
		label := "organisation"
		if g.kind == "families" {
			label = "family"
		}
		links = append(links, render.Link{Name: label + ": " + g.name, URL: g.path + "index.html"})
	}
	// The calibration page is linked from the index only (the list pages
	// carry no links).
	links = append(links, render.Link{Name: "calibration: speed predictions against measurements", URL: CalibrationPath + "index.html"})
	title, intro := s.Config.Title, ""
	if s.Content.Index != nil {
		if s.Content.Index.Front.Title != "" {
			title = s.Content.Index.Front.Title
		}
		intro = strings.TrimSpace(string(s.Content.Index.Body))
	}
	pages := []listPage{{title: title, intro: intro, caption: "All dossiers", links: links, models: sums}}
	for _, g := range groups {
		what := "Organisation"
		if g.kind == "families" {
			what = "Architecture family"
		}
		pages = append(pages, listPage{dir: g.path, title: what + ": " + g.name, caption: "Dossiers of " + g.name, models: g.models})
	}
	// The index and each group's list on every core: each lists up to
	// every model.
	errs := make([]error, len(pages))
	parallel(len(pages), func(i int) {
		md, html, err := s.renderList(pages[i])
		if err == nil {
			err = out.put(pages[i].dir+"index.md", md)
		}
		if err == nil {
			err = out.put(pages[i].dir+"index.html", html)
		}
		errs[i] = err
	})
	return firstError(errs)
}

// listPage is the index or a group's list, as renderList takes it.
type listPage struct {
	dir, title, intro, caption string
	links                      []render.Link
	models                     []*Summary
}

// renderList renders one model list as Markdown and HTML.
func (s *Site) renderList(l listPage) (mdText, html []byte, err error) {
	root := strings.Repeat("../", strings.Count(l.dir, "/"))
	var rows []render.Row
	md := &render.Table{Align: columnAlign}
	for _, c := range columns {
		md.Header = append(md.Header, c.Name)
	}
	for _, m := range l.models {
		r := m.Row
		rows = append(rows, r)
		var cells []string
		for i, c := range r.Cells {
			text := c.Text
			if c.Sub != "" && i > 0 {
				text += " (" + c.Sub + ")"
			}
			cells = append(cells, text)
		}
		md.Rows = append(md.Rows, cells)
	}
	mdText, _, err = s.Templates.Markdown("index.md", indexData{Title: l.title, Intro: l.intro}, render.PageFuncs{Tables: map[string]*render.Table{"models": md}})
	if err != nil {
		return nil, nil, err
	}
	introHTML, err := render.IntroHTML([]byte(l.intro))
	if err != nil {
		return nil, nil, err
	}
	for i := range l.links {
		l.links[i].URL = root + l.links[i].URL
	}
	html, err = s.Templates.List(render.ListPage{
		HTMLPage: render.HTMLPage{PageTitle: l.title, SiteTitle: s.Config.Title, Root: root, MarkdownURL: "index.md", Search: s.Config.Search},
		Title:    l.title, Intro: introHTML, Caption: l.caption, Lists: l.links, Columns: columns, Rows: rows,
	})
	if err != nil {
		return nil, nil, err
	}
	return mdText, html, nil
}
