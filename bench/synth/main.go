// Command synth writes the synthetic sites bench/run measures: a dossier
// site of N model pages (copies of the shipped models under new ids, every
// ninth one Kimi K3) and the equivalent Hugo site (each page's rendered
// Markdown from the shipped public/, a list page, RSS). With -facts it also
// writes hugo-facts/, the same site with what else dossier publishes per
// model: a page bundle of its facts.json (published as it is) and a page
// whose layout renders it as a table of every fact, as dossier's
// facts.html does. Each copy's facts.json names the copy's id, as
// dossier's would, so no two copies are the same file.
//
//	go run ./bench/synth -n 1000 [-small] [-facts] -out DIR
//
// writes DIR/dossier, DIR/hugo and with -facts DIR/hugo-facts. It reads the site root given by -src
// (default: the current directory).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"dossier/generator/facts"
)

// large are the shipped models too big for the small-only site.
var large = map[string]bool{"kimi-k3": true, "kimi-k2-5": true, "deepseek-v3": true}

var modelLine = regexp.MustCompile(`(?m)^model: *(\S+)\s*$`)

type model struct {
	slug, id string
	page     []byte // content/models/<slug>.md
	snapshot []byte
	rendered []byte // public/models/<slug>/index.md
	facts    []byte // public/models/<slug>/facts.json
	// hugoFacts is facts.json with every fact an object of its own
	// (schema 1): Hugo's template ranges over the facts, it cannot expand
	// schema 2's tables.
	hugoFacts []byte
}

func main() {
	n := flag.Int("n", 1000, "model pages to write")
	small := flag.Bool("small", false, "small models only (no K3, K2.5, DeepSeek V3)")
	src := flag.String("src", ".", "site root to copy the models from")
	out := flag.String("out", "", "directory to write dossier/ and hugo/ into")
	withFacts := flag.Bool("facts", false, "also write hugo-facts/, with a facts page and facts.json per model")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "synth: -out DIR is required")
		os.Exit(2)
	}
	if err := run(*src, *out, *n, *small, *withFacts); err != nil {
		fmt.Fprintln(os.Stderr, "synth:", err)
		os.Exit(1)
	}
}

func run(src, out string, n int, small, withFacts bool) error {
	models, err := load(src)
	if err != nil {
		return err
	}
	var k3 *model
	var cycle []*model
	for _, m := range models {
		if m.slug == "kimi-k3" {
			k3 = m
		}
		if !small && m.slug != "kimi-k3" || small && !large[m.slug] {
			cycle = append(cycle, m)
		}
	}
	if k3 == nil && !small {
		return fmt.Errorf("%s: content/models/kimi-k3.md is missing", src)
	}
	ds, hs, hfs := filepath.Join(out, "dossier"), filepath.Join(out, "hugo"), filepath.Join(out, "hugo-facts")
	for _, d := range []string{ds, hs, hfs} {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	for _, f := range []string{"hugo-like.yaml", "content/_index.md"} {
		if err := copyFile(filepath.Join(src, f), filepath.Join(ds, f)); err != nil {
			return err
		}
	}
	// Every catalog at the top of data/ (software.yaml is written below,
	// with each copy's windows) and the snippets the pages audit: a page
	// reads them, so a copy without them fails or differs from the shipped
	// page Hugo renders.
	for _, dir := range []string{"templates", "data/pricing", "data", "content/snippets"} {
		names, _ := filepath.Glob(filepath.Join(src, dir, "*"))
		for _, name := range names {
			if st, err := os.Stat(name); err != nil || st.IsDir() || dir == "data" && filepath.Ext(name) != ".yaml" {
				continue
			}
			if err := copyFile(name, filepath.Join(ds, dir, filepath.Base(name))); err != nil {
				return err
			}
		}
	}
	hugoSites := []string{hs}
	if withFacts {
		hugoSites = append(hugoSites, hfs)
	}
	for _, h := range hugoSites {
		if err := hugoSkeleton(h); err != nil {
			return err
		}
	}
	if withFacts {
		if err := write(filepath.Join(hfs, "layouts/facts/single.html"), []byte(factsLayout)); err != nil {
			return err
		}
	}
	software, windows, err := softwareWindows(filepath.Join(src, "data/software.yaml"))
	if err != nil {
		return err
	}
	for i := range n {
		m := cycle[i%len(cycle)]
		if !small && i%9 == 0 {
			m = k3
		}
		slug := fmt.Sprintf("%s-%05d", m.slug, i)
		id := fmt.Sprintf("synth/%s-%05d", filepath.Base(m.id), i)
		page := modelLine.ReplaceAll(m.page, []byte("model: "+id))
		snap := bytes.Replace(m.snapshot, []byte(`"model": "`+m.id+`"`), []byte(`"model": "`+id+`"`), 1)
		if err := write(filepath.Join(ds, "content/models", slug+".md"), page); err != nil {
			return err
		}
		if err := write(filepath.Join(ds, "data/hub", id, "snapshot.json"), snap); err != nil {
			return err
		}
		for _, w := range windows[m.id] {
			software = append(software, bytes.Replace(w, []byte(m.id), []byte(id), 1)...)
		}
		title := fmt.Sprintf("%s (%05d)", m.slug, i)
		front := fmt.Sprintf("---\ntitle: %q\ndate: 2026-08-06\norgs: [%q]\nfamilies: [%q]\n---\n", title, strings.Split(m.id, "/")[0], m.slug)
		for _, h := range hugoSites {
			if err := write(filepath.Join(h, "content/models", slug+".md"), append([]byte(front), m.rendered...)); err != nil {
				return err
			}
		}
		if withFacts {
			factsFront := fmt.Sprintf("---\ntitle: %q\ndate: 2026-08-06\n---\n", title+": every fact")
			if err := write(filepath.Join(hfs, "content/facts", slug, "index.md"), []byte(factsFront)); err != nil {
				return err
			}
			if err := write(filepath.Join(hfs, "content/facts", slug, "facts.json"), bytes.ReplaceAll(m.hugoFacts, []byte(m.id), []byte(id))); err != nil {
				return err
			}
		}
	}
	return write(filepath.Join(ds, "data/software.yaml"), software)
}

var windowRe = regexp.MustCompile(`(?m)^  - model: *(\S+)\s*$`)

// softwareWindows splits data/software.yaml into its head and the
// windows of each model, so every copy gets its original's windows (the
// pages cite them).
func softwareWindows(path string) ([]byte, map[string][][]byte, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	locs := windowRe.FindAllSubmatchIndex(b, -1)
	if locs == nil {
		return b, nil, nil
	}
	windows := map[string][][]byte{}
	for i, l := range locs {
		end := len(b)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		id := string(b[l[2]:l[3]])
		windows[id] = append(windows[id], b[l[0]:end])
	}
	return append([]byte(nil), b[:locs[0][0]]...), windows, nil
}

func load(src string) ([]*model, error) {
	names, err := filepath.Glob(filepath.Join(src, "content/models/*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*model
	for _, name := range names {
		page, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if bytes.Contains(page, []byte("\ndraft: true")) {
			continue
		}
		mm := modelLine.FindSubmatch(page)
		if mm == nil {
			return nil, fmt.Errorf("%s: no model: line", name)
		}
		m := &model{slug: strings.TrimSuffix(filepath.Base(name), ".md"), id: string(mm[1]), page: page}
		if m.snapshot, err = os.ReadFile(filepath.Join(src, "data/hub", m.id, "snapshot.json")); err != nil {
			return nil, err
		}
		if m.rendered, err = os.ReadFile(filepath.Join(src, "public/models", m.slug, "index.md")); err != nil {
			return nil, err
		}
		if m.facts, err = os.ReadFile(filepath.Join(src, "public/models", m.slug, "facts.json")); err != nil {
			return nil, err
		}
		if m.hugoFacts, err = schema1(m.facts); err != nil {
			return nil, fmt.Errorf("%s: %w", m.slug, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// hugoSkeleton writes the Hugo configuration and layouts: a base page, a
// single page with the Markdown rendered by goldmark (raw HTML kept, as
// dossier keeps its charts), a list page with a table, and RSS.
func hugoSkeleton(dir string) error {
	files := map[string]string{
		"hugo.toml": `baseURL = "https://dossier.example.org/"
title = "dossier: fact-checked model dossiers"
disableKinds = ["taxonomy", "term"]
[outputs]
home = ["HTML", "RSS"]
section = ["HTML", "RSS"]
[markup.goldmark.renderer]
unsafe = true
`,
		"content/_index.md":        "---\ntitle: dossiers\n---\nEvery model, fact-checked.\n",
		"content/models/_index.md": "---\ntitle: models\n---\n",
		"layouts/_default/baseof.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }} · {{ site.Title }}</title>
<link rel="stylesheet" href="{{ "style.css" | relURL }}"></head><body><main>{{ block "main" . }}{{ end }}</main></body></html>
`,
		"layouts/_default/single.html": `{{ define "main" }}<article><h1>{{ .Title }}</h1>{{ .TableOfContents }}{{ .Content }}</article>{{ end }}
`,
		"layouts/_default/list.html": `{{ define "main" }}<h1>{{ .Title }}</h1>{{ .Content }}<table><thead><tr><th>model</th><th>org</th><th>family</th><th>words</th></tr></thead><tbody>
{{ range where .RegularPagesRecursive "Section" "models" }}<tr><td><a href="{{ .RelPermalink }}">{{ .Title }}</a></td><td>{{ delimit .Params.orgs ", " }}</td><td>{{ delimit .Params.families ", " }}</td><td>{{ .WordCount }}</td></tr>
{{ end }}</tbody></table>{{ end }}
`,
		"static/style.css": "body{font-family:sans-serif}\n",
	}
	for name, text := range files {
		if err := write(filepath.Join(dir, name), []byte(text)); err != nil {
			return err
		}
	}
	return nil
}

// factsLayout renders a facts bundle's facts.json as the table of
// dossier's facts.html: one row per fact, in key order (a map ranges in
// key order), with its value, unit, derivation and sources.
const factsLayout = `{{ define "main" }}<article><h1>{{ .Title }}</h1>{{ with .Resources.Get "facts.json" }}{{ $doc := transform.Unmarshal . }}
<table><thead><tr><th>fact</th><th>value</th><th>unit</th><th>derivation</th><th>sources</th></tr></thead><tbody>
{{ range $key, $f := $doc.facts }}<tr><td><code>{{ $key }}</code></td><td>{{ $f.display }}</td><td>{{ $f.unit }}</td><td>{{ $f.derivation }}</td><td>{{ with $f.sources }}{{ delimit . "; " }}{{ end }}</td></tr>
{{ end }}</tbody></table>{{ end }}</article>{{ end }}
`

// schema1 rewrites a facts.json of either schema as {"facts": {key: fact}}.
func schema1(factsJSON []byte) ([]byte, error) {
	var doc struct {
		Facts facts.Set `json:"facts"`
	}
	if err := json.Unmarshal(factsJSON, &doc); err != nil {
		return nil, err
	}
	return json.Marshal(map[string]*facts.Set{"facts": &doc.Facts})
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	return write(to, b)
}

func write(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
