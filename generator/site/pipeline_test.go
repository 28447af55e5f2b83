package site

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"dossier/generator/internal/sitetest"
)

// fileIDs records which file (inode) and modification time every path of
// dir has, to tell a build that wrote nothing from one that rewrote.
func fileIDs(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	out := map[string]os.FileInfo{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Stat(p)
		out[p] = fi
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCachedBuildsMatchFullBuild makes each kind of change in turn. After
// each, a build over the previous output (incremental) and a build into a
// new directory reading the previous output's pages and cache (cached)
// must publish byte for byte what a --full build without any cache
// publishes (the stamps file, which records modification times, aside),
// and recompute only what the change touches: a snapshot change one page,
// a price change every page but no module tree, nothing changed nothing —
// not a single file written.
func TestCachedBuildsMatchFullBuild(t *testing.T) {
	keep := []string{"content/models/kimi-k3.md", "content/models/llama-3-1-8b.md", "content/models/gpt-oss-20b.md"}
	root := sitetest.Fixture(t, func(rel string) bool { return slices.Contains(keep, rel) })
	out := t.TempDir()
	dest := filepath.Join(out, "public")
	build := func(prev, to string) *Report {
		t.Helper()
		r, err := Build(loadSite(t, root, Options{Previous: prev}), Options{Destination: to})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	n := 0
	sameAsFull := func(what, dir string) {
		t.Helper()
		n++
		full := filepath.Join(out, "full", what)
		if r := build("", full); len(r.Reused) != 0 {
			t.Fatalf("%s: the full build reused %v", what, r.Reused)
		}
		sameOutput(t, what, dir, full)
		stampsAreTrue(t, what, dir)
		spareIsTrue(t, what, dir)
	}

	first := build("", dest)
	if first.ModuleTrees != 3 || len(first.Rebuilt) != 3 {
		t.Fatalf("first build: %d module trees, rebuilt %v", first.ModuleTrees, first.Rebuilt)
	}

	// Nothing changed, every input rewritten with the same bytes.
	before := fileIDs(t, out)
	time.Sleep(10 * time.Millisecond) // so a rewrite would show in the times
	for _, in := range sitetest.Inputs {
		filepath.WalkDir(filepath.Join(root, in), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				err = os.WriteFile(p, b, 0o644)
			}
			return err
		})
	}
	r := build(dest, dest)
	if !r.Unchanged || len(r.Rebuilt) != 0 || r.ModuleTrees != 0 || len(r.Files) != len(first.Files) {
		t.Errorf("nothing changed: unchanged %v, rebuilt %v, %d module trees, %d files (first %d)", r.Unchanged, r.Rebuilt, r.ModuleTrees, len(r.Files), len(first.Files))
	}
	after := fileIDs(t, out)
	for p, fi := range before {
		if a := after[p]; a == nil || !os.SameFile(fi, a) || !a.ModTime().Equal(fi.ModTime()) {
			t.Errorf("nothing changed, yet %s was rewritten", p)
		}
	}
	if len(after) != len(before) {
		t.Errorf("nothing changed, yet %d paths became %d", len(before), len(after))
	}
	sameAsFull("unchanged", dest)

	// One snapshot changed: that page only, its module tree from the cache.
	// A file of another page was touched: reused once hashed, and its new
	// stamp recorded (stampsAreTrue).
	touched := filepath.Join(dest, "models", "llama-3-1-8b", "index.md")
	if err := os.Chtimes(touched, time.Time{}, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	sitetest.Edit(t, filepath.Join(root, "data/hub/moonshotai/Kimi-K3/snapshot.json"), `"fetched": "2026-08-06"`, `"fetched": "2026-08-07"`)
	before = fileIDs(t, dest)
	r = build(dest, dest)
	if r.Unchanged || !slices.Equal(r.Rebuilt, []string{"kimi-k3"}) || r.ModuleTrees != 0 {
		t.Errorf("K3's snapshot changed: rebuilt %v, %d module trees", r.Rebuilt, r.ModuleTrees)
	}
	sameAsFull("snapshot", dest)
	// The lists K3 is on are rendered again; the others are linked.
	after = fileIDs(t, dest)
	var lists int
	for p, fi := range after {
		rel, _ := filepath.Rel(dest, p)
		if m, _ := filepath.Match("*/*/index.*", filepath.ToSlash(rel)); !m || strings.HasPrefix(rel, "models") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		onIt := bytes.Contains(b, []byte("Kimi K3"))
		switch was := before[p]; {
		case onIt && was != nil && os.SameFile(fi, was):
			t.Errorf("K3's snapshot changed, yet its list %s was linked", rel)
		case !onIt && (was == nil || !os.SameFile(fi, was)):
			t.Errorf("K3's snapshot changed, yet list %s, without K3, was written again", rel)
		case !onIt:
			lists++
		}
	}
	if lists < 8 {
		t.Errorf("K3's snapshot changed: %d files of lists without K3 linked", lists)
	}

	// A price changed: every page's cost facts, no module tree.
	sitetest.Edit(t, filepath.Join(root, "data/pricing/runpod.yaml"), "usd_per_gpu_hour: 5.98", "usd_per_gpu_hour: 6.10")
	cached := filepath.Join(out, "cached")
	r = build(dest, cached)
	if len(r.Rebuilt) != 3 || r.ModuleTrees != 0 || len(r.Spliced) != 3 || len(r.Priced) != 3 {
		t.Errorf("a price changed (cached build): rebuilt %v, spliced %v, priced %v, %d module trees", r.Rebuilt, r.Spliced, r.Priced, r.ModuleTrees)
	}
	sameAsFull("price-cached", cached)
	before = fileIDs(t, dest)
	r = build(dest, dest)
	if len(r.Rebuilt) != 3 || r.ModuleTrees != 0 || len(r.Spliced) != 3 || len(r.Priced) != 3 {
		t.Errorf("a price changed: rebuilt %v, spliced %v, priced %v, %d module trees", r.Rebuilt, r.Spliced, r.Priced, r.ModuleTrees)
	}
	sameAsFull("price", dest)
	// Its charts rendered to the bytes they had: linked, not written; its
	// pages are new files.
	after = fileIDs(t, dest)
	var charts int
	for p, fi := range before {
		switch a := after[p]; {
		case strings.HasSuffix(p, ".svg") && (a == nil || !os.SameFile(fi, a)):
			t.Errorf("a price changed, yet chart %s was written again", p)
		case strings.HasSuffix(p, ".svg"):
			charts++
		case strings.HasSuffix(p, "index.html") && strings.Contains(p, "models") && a != nil && os.SameFile(fi, a):
			t.Errorf("a price changed, yet %s was not rewritten", p)
		}
	}
	if charts < 6 {
		t.Errorf("a price changed: %d charts linked", charts)
	}

	// A page's prose changed: that page, and the lists it appears in.
	sitetest.Edit(t, filepath.Join(root, "content/models/llama-3-1-8b.md"), "This is a dense model", "This is a dense model, edited")
	r = build(dest, dest)
	if !slices.Equal(r.Rebuilt, []string{"llama-3-1-8b"}) || r.ModuleTrees != 0 {
		t.Errorf("llama's prose changed: rebuilt %v, %d module trees", r.Rebuilt, r.ModuleTrees)
	}
	sameAsFull("prose", dest)

	// A config changed: its module tree is built again, the others' are not.
	sitetest.Edit(t, filepath.Join(root, "data/hub/meta-llama/Llama-3.1-8B/snapshot.json"), `"rope_theta"`, `"x_bench_note": 1, "rope_theta"`)
	r = build(dest, dest)
	if !slices.Equal(r.Rebuilt, []string{"llama-3-1-8b"}) || r.ModuleTrees != 1 {
		t.Errorf("llama's config changed: rebuilt %v, %d module trees", r.Rebuilt, r.ModuleTrees)
	}
	sameAsFull("config", dest)
	if n != 6 {
		t.Fatal("not every case compared")
	}
}

// TestUnchangedPagesAreNotParsed: a build over a previous output takes an
// unchanged page's model and draft flag from the manifest instead of
// decoding its YAML; and a build keeps only stubs of its pages, so memory
// does not grow with the site.
func TestUnchangedPagesAreNotParsed(t *testing.T) {
	keep := []string{"content/models/llama-3-1-8b.md", "content/models/gpt-oss-20b.md"}
	root := sitetest.Fixture(t, func(rel string) bool { return slices.Contains(keep, rel) })
	dest := filepath.Join(t.TempDir(), "public")
	load := func(prev string) *Site { t.Helper(); return loadSite(t, root, Options{Previous: prev}) }
	known := func(s *Site) (n int) {
		for _, p := range s.Content.Models {
			if !p.Partial || p.Body != nil || len(p.Front.Published) > 0 {
				t.Errorf("%s: kept whole", p.Path)
			}
			if p.Front.Model == "" {
				t.Errorf("%s: a stub without its model", p.Path)
			}
			if p.Known {
				n++
			}
		}
		return n
	}
	first := load("")
	if n := known(first); n != 0 {
		t.Errorf("first build: %d pages taken from a manifest there is not", n)
	}
	if _, err := Build(first, Options{Destination: dest}); err != nil {
		t.Fatal(err)
	}
	for _, e := range first.entries {
		if e.model != nil || !e.page.Partial {
			t.Errorf("%s: its model or page outlived its publication", e.slug)
		}
	}
	if n := known(load(dest)); n != 2 {
		t.Errorf("nothing changed: %d of 2 pages left unparsed", n)
	}
	// A changed snapshot: llama is parsed when it is computed, not to be
	// hashed (a price change computes every page: parsing each twice was
	// a twentieth of that build).
	sitetest.Edit(t, filepath.Join(root, "data/hub/meta-llama/Llama-3.1-8B/snapshot.json"), `"rope_theta"`, `"x_note": 1, "rope_theta"`)
	s := load(dest)
	if n := known(s); n != 2 {
		t.Errorf("llama's snapshot changed: %d pages left unparsed before the build, want 2", n)
	}
	if _, err := Build(s, Options{Destination: dest}); err != nil {
		t.Fatal(err)
	}
	for _, e := range s.entries {
		if e.slug == "llama-3-1-8b" && (e.page.Known || e.reused || e.page.Front.Model != "meta-llama/Llama-3.1-8B" || len(e.page.Dated) == 0) {
			t.Errorf("llama: known %v, reused %v, model %q, dates %v", e.page.Known, e.reused, e.page.Front.Model, e.page.Dated)
		}
	}
	// A manifest naming another model for llama's page: the page, parsed
	// when computed, decides, and its inputs are hashed again.
	m := loadManifest(dest)
	me := m.Models["llama-3-1-8b"]
	sitetest.Edit(t, filepath.Join(dest, filepath.FromSlash(ManifestPath)), `"model":"`+me.Model+`"`, `"model":"someone/another-model"`)
	sitetest.Edit(t, filepath.Join(root, "data/hub/meta-llama/Llama-3.1-8B/snapshot.json"), `"x_note": 1, `, ``)
	s = load(dest)
	if _, err := Build(s, Options{Destination: dest}); err != nil {
		t.Fatal(err)
	}
	again := loadManifest(dest).Models["llama-3-1-8b"]
	if again.Model != me.Model || again.Hash == me.Hash {
		t.Errorf("a manifest naming another model: recorded %q, hash %s (was %s)", again.Model, again.Hash, me.Hash)
	}
	full := filepath.Join(t.TempDir(), "full")
	if _, err := Build(loadSite(t, root, Options{}), Options{Destination: full}); err != nil {
		t.Fatal(err)
	}
	if again.Hash != loadManifest(full).Models["llama-3-1-8b"].Hash {
		t.Error("a manifest naming another model: the hash recorded is not a full build's")
	}
}

// stampsAreTrue checks that the stamps a build recorded are those of the
// files it published: a wrong one would make the next build trust a file
// edited since, or hash every file again.
func stampsAreTrue(t *testing.T, what, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(StampsPath)))
	if err != nil {
		t.Fatal(err)
	}
	var stamps map[string]stamp
	if err := json.Unmarshal(b, &stamps); err != nil {
		t.Fatal(err)
	}
	files := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return err
	})
	if len(stamps) != files-1 { // all but the stamps file itself
		t.Errorf("%s: %d stamps for %d files", what, len(stamps), files)
	}
	for name, st := range stamps {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || stampOf(fi) != st {
			t.Errorf("%s: %s has stamp %+v, recorded %+v (%v)", what, name, stampOf(fi), st, err)
		}
	}
}
