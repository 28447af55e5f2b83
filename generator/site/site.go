// Package site is the build: it loads the configuration, content, catalogs
// and snapshots, computes every model's facts, renders the pages and writes
// the publish directory atomically, so a failed build leaves the previous
// output as it was.
package site

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/content"
	"dossier/generator/facts"
	"dossier/generator/page"
	"dossier/generator/render"
	"dossier/generator/sizing"
	"dossier/generator/snapshot"
)

// Options change what a build publishes.
type Options struct {
	Destination string // publish directory; default the configured one
	Drafts      bool   // publish draft pages too
}

// Model is one computed dossier.
type Model struct {
	Page     *page.Model
	Content  *content.Page
	Snapshot *snapshot.Snapshot
	Arch     *arch.Architecture
	Facts    *facts.Set
}

// Site is everything loaded and computed, before rendering.
type Site struct {
	Config    *config.Site
	Content   *content.Site
	Catalog   *catalog.Catalog
	Templates *render.Templates
	Models    []*Model
}

// Report says what a build did.
type Report struct {
	Destination string
	Files       []string // relative paths written
	Models      []string // model ids published
}

// Load reads and computes the whole site without writing anything.
func Load(cfg *config.Site, opts Options) (*Site, error) {
	s := &Site{Config: cfg}
	var err error
	if s.Content, err = content.Load(cfg.Dir(cfg.ContentDir)); err != nil {
		return nil, err
	}
	if s.Catalog, err = catalog.Load(cfg.Dir(cfg.DataDir)); err != nil {
		return nil, err
	}
	for i, hw := range cfg.Hardware {
		if _, id, _ := config.ParseHardware(hw); s.Catalog.Accelerators[id] == nil {
			return nil, fmt.Errorf("%s: field hardware[%d]: accelerator %q is not in %s", cfg.File, i, id, filepath.Join(cfg.DataDir, "hardware.yaml"))
		}
	}
	if s.Templates, err = render.LoadTemplates(cfg.Dir(cfg.TemplatesDir)); err != nil {
		return nil, err
	}
	for _, p := range s.Content.Models {
		if p.Front.Draft && !opts.Drafts {
			continue
		}
		m, err := s.computeModel(p)
		if err != nil {
			return nil, err
		}
		s.Models = append(s.Models, m)
	}
	return s, nil
}

func (s *Site) computeModel(p *content.Page) (*Model, error) {
	cfg := s.Config
	path := snapshot.Path(cfg.Dir(cfg.DataDir), p.Front.Model)
	snap, err := snapshot.Load(path)
	if err != nil {
		return nil, fmt.Errorf("%s: model %s: %w", p.Path, p.Front.Model, err)
	}
	if snap.Model != p.Front.Model {
		return nil, fmt.Errorf("%s: field model: %q, but the snapshot is of %q", path, p.Front.Model, snap.Model)
	}
	a, err := arch.Parse(snap.Config, snap.HFQuantConfig)
	if err != nil {
		return nil, fmt.Errorf("%s: field config: %w", path, err)
	}
	an, anErr := Analytic(snap.Config, snap.HFQuantConfig)
	set := sizing.Compute(sizing.Input{
		Model: snap.Model, Snapshot: snap, Arch: a, Analytic: an, AnalyticErr: anErr,
		Sizing: cfg.Sizing, Hardware: cfg.Hardware, Catalog: s.Catalog,
	})
	addPublished(set, p)
	pm, err := page.Build(page.Input{
		Page: p, Facts: set, Revision: snap.Revision, Fetched: snap.Fetched,
		Hardware: cfg.Hardware, Catalog: s.Catalog, Provenance: provenance(snap, s.Catalog, cfg),
	})
	if err != nil {
		return nil, err
	}
	return &Model{Page: pm, Content: p, Snapshot: snap, Arch: a, Facts: set}, nil
}

// addPublished records the authors' figures as facts of their own, so a
// page can print them beside the derived ones without mixing the two.
func addPublished(set *facts.Set, p *content.Page) {
	for _, pub := range p.Front.Published {
		v := any(pub.Value)
		if pub.Value == float64(int64(pub.Value)) {
			v = int64(pub.Value)
		}
		f := set.Add(facts.Fact{Key: "published." + pub.Key, Value: v, Unit: pub.Unit, Sources: []string{pub.Source}, Derivation: "as published"})
		if pub.Text != "" {
			f.Display = pub.Text
		}
	}
}

func provenance(snap *snapshot.Snapshot, cat *catalog.Catalog, cfg *config.Site) [][2]string {
	rev := snap.Revision
	out := [][2]string{
		{"snapshot", fmt.Sprintf("%s@%s, read %s: %s", snap.Model, rev, snap.Fetched, snap.Source)},
	}
	if snap.CensusSource != "" {
		out = append(out, [2]string{"hub:census", snap.CensusSource})
	}
	out = append(out, [2]string{"hub:tree", snap.Shards.Source})
	if snap.Index != nil {
		out = append(out, [2]string{"hub:index", snap.Index.Source})
	}
	if snap.Header != nil {
		out = append(out, [2]string{"hub:headers", snap.Header.Source})
	}
	out = append(out, [2]string{"config.json", snap.ConfigSource})
	ids := make([]string, 0, len(cat.Accelerators))
	for id := range cat.Accelerators {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		a := cat.Accelerators[id]
		out = append(out, [2]string{"catalog:hardware.yaml#" + id, fmt.Sprintf("%s, %s: %s (as of %s)", a.Name, facts.GB(float64(a.MemoryBytes)), a.Source, a.AsOf)})
	}
	for _, pl := range cat.PriceLists {
		out = append(out, [2]string{"pricing:" + pl.Provider + " " + pl.AsOf, pl.Source})
	}
	out = append(out, [2]string{"site:hugo-like.yaml", "sizing assumptions: " + cfg.Sizing.DownloadSource})
	return out
}

// factsDoc is the published facts.json shape.
type factsDoc struct {
	Model        string     `json:"model"`
	Revision     string     `json:"revision"`
	Generated    string     `json:"generated"`
	Facts        *facts.Set `json:"facts"`
	Claims       []any      `json:"claims"`
	Measurements []any      `json:"measurements"`
}

// FactsJSON encodes one model's facts document.
func FactsJSON(m *Model) ([]byte, error) {
	doc := factsDoc{Model: m.Snapshot.Model, Revision: m.Snapshot.Revision, Generated: m.Snapshot.Fetched, Facts: m.Facts, Claims: []any{}, Measurements: []any{}}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("facts.json for %s: %w", m.Snapshot.Model, err)
	}
	return append(b, '\n'), nil
}

// Render produces every output file, keyed by path relative to the
// publish directory.
func (s *Site) Render() (map[string][]byte, error) {
	out := map[string][]byte{"style.css": s.Templates.CSS}
	for _, m := range s.Models {
		dir := "models/" + m.Page.Slug + "/"
		md, err := s.Templates.Markdown("dossier.md", m.Page, render.PageFuncs{Tables: m.Page.Tables, Fact: m.Page.Fact})
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", m.Content.Path, err)
		}
		html, err := s.Templates.HTML(md, render.HTMLPage{
			PageTitle: m.Page.Title + " · " + s.Config.Title, SiteTitle: s.Config.Title, Root: "../../",
			MarkdownURL: "index.md", FactsURL: "facts.json",
		})
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", m.Content.Path, err)
		}
		fj, err := FactsJSON(m)
		if err != nil {
			return nil, err
		}
		out[dir+"index.md"], out[dir+"index.html"], out[dir+"facts.json"] = md, html, fj
	}
	md, err := s.renderIndex()
	if err != nil {
		return nil, err
	}
	html, err := s.Templates.HTML(md, render.HTMLPage{PageTitle: s.Config.Title, SiteTitle: s.Config.Title, Root: "", MarkdownURL: "index.md"})
	if err != nil {
		return nil, err
	}
	out["index.md"], out["index.html"] = md, html
	return out, nil
}

type indexData struct {
	Title string
	Intro string
}

func (s *Site) renderIndex() ([]byte, error) {
	t := &render.Table{
		Header: []string{"model", "parameters", "activated", "checkpoint", "bits/param", "KV per token", "hybrid", "cheapest serving", "$/h"},
		Align:  []render.Align{render.Left, render.Right, render.Right, render.Right, render.Right, render.Right, render.Left, render.Left, render.Right},
	}
	for _, m := range s.Models {
		d := func(k string) string {
			f := m.Facts.Get(k)
			if !f.Known() {
				return "unknown"
			}
			if v, _ := f.Float(); f.Unit == facts.UnitBytes && v >= 1e9 {
				return facts.GB(v)
			}
			return f.Display
		}
		t.Rows = append(t.Rows, []string{m.Page.Title, d("params.total"), d("params.active_no_embedding"), d("bytes.checkpoint"),
			d("bits_per_param"), d("kv.bytes_per_token"), d("arch.hybrid"), d("fit.cheapest_serving"), d("cost.cheapest_serving.usd_per_hour")})
	}
	data := indexData{Title: s.Config.Title}
	if s.Content.Index != nil {
		if s.Content.Index.Front.Title != "" {
			data.Title = s.Content.Index.Front.Title
		}
		data.Intro = strings.TrimSpace(string(s.Content.Index.Body))
	}
	return s.Templates.Markdown("index.md", data, render.PageFuncs{Tables: map[string]*render.Table{"models": t}})
}
