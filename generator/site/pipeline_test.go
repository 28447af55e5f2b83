package site

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"dossier/generator/internal/sitetest"
)

// fileIDs records which file (inode) and modification time every path of
// dir has, to tell a build that wrote nothing from one that rewrote. Lock
// files are left out: each build notes its process id in the one it takes.
func fileIDs(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	out := map[string]os.FileInfo{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || strings.HasSuffix(p, ".lock") {
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

// TestCachedBuildsMatchFullBuild makes each kind of change in turn (nothing,
// a snapshot, a price, prose, a config, a template). After
// each, a build with the cache (into the previous output, or into a new
// directory) must publish byte for byte what a --full build publishes, and
// recompute only what the change touches: a snapshot change one page, a
// price change every page but no module tree, nothing changed nothing —
// not a single file written.
func TestCachedBuildsMatchFullBuild(t *testing.T) {
	keep := []string{"content/models/kimi-k3.md", "content/models/llama-3-1-8b.md", "content/models/gpt-oss-20b.md"}
	root := sitetest.Fixture(t, func(rel string) bool { return slices.Contains(keep, rel) })
	out := t.TempDir()
	dest := filepath.Join(out, "public")
	buildWith := func(opts Options, to string) *Report {
		t.Helper()
		r, err := Build(loadSite(t, root, opts), Options{Destination: to})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	build := func(to string) *Report { t.Helper(); return buildWith(Options{}, to) }
	n := 0
	sameAsFull := func(what, dir string) {
		t.Helper()
		n++
		full := filepath.Join(out, "full", what)
		if r := buildWith(Options{Full: true}, full); len(r.Reused) != 0 {
			t.Fatalf("%s: the full build reused %v", what, r.Reused)
		}
		sameOutput(t, what, dir, full)
		// --verify recomputes what the cache gave and finds it the same.
		if r := buildWith(Options{Verify: true}, dir); !r.Unchanged || r.Verified != len(r.Files) {
			t.Errorf("%s: --verify: unchanged %v, verified %d of %d files", what, r.Unchanged, r.Verified, len(r.Files))
		}
	}

	first := build(dest)
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
	r := build(dest)
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
	sitetest.Edit(t, filepath.Join(root, "data/hub/moonshotai/Kimi-K3/snapshot.json"), `"fetched": "2026-08-06"`, `"fetched": "2026-08-07"`)
	before, beforeBytes := fileIDs(t, dest), snapshotDir(t, dest)
	r = build(dest)
	if r.Unchanged || !slices.Equal(r.Rebuilt, []string{"kimi-k3"}) || r.ModuleTrees != 0 {
		t.Errorf("K3's snapshot changed: rebuilt %v, %d module trees", r.Rebuilt, r.ModuleTrees)
	}
	sameAsFull("snapshot", dest)
	// A list is a new file exactly when its bytes changed: rendered to the
	// same bytes, it is the same file.
	after = fileIDs(t, dest)
	var lists int
	for p, fi := range after {
		rel, _ := filepath.Rel(dest, p)
		if m, _ := filepath.Match("*/*/index.*", filepath.ToSlash(rel)); !m || strings.HasPrefix(rel, "models") {
			continue
		}
		was := before[p]
		if was == nil {
			t.Errorf("K3's snapshot changed, and list %s is new", rel)
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if same := os.SameFile(fi, was); same != (string(b) == beforeBytes[filepath.ToSlash(rel)]) {
			t.Errorf("K3's snapshot changed: list %s is the same file %v, with the same bytes %v", rel, same, !same)
		}
		lists++
	}
	if lists < 8 {
		t.Errorf("K3's snapshot changed: %d list files compared", lists)
	}

	// A price changed: every page's cost facts, no module tree. Built into
	// another directory first, then into dest from the cache alone.
	sitetest.Edit(t, filepath.Join(root, "data/pricing/runpod.yaml"), "usd_per_gpu_hour: 5.98", "usd_per_gpu_hour: 6.10")
	cached := filepath.Join(out, "cached")
	r = build(cached)
	if len(r.Rebuilt) != 3 || r.ModuleTrees != 0 {
		t.Errorf("a price changed (other directory): rebuilt %v, %d module trees", r.Rebuilt, r.ModuleTrees)
	}
	sameAsFull("price-cached", cached)
	before = fileIDs(t, dest)
	r = build(dest)
	if len(r.Rebuilt) != 0 || len(r.Reused) != 3 || r.Unchanged {
		t.Errorf("a price changed, built before: rebuilt %v, reused %v, unchanged %v", r.Rebuilt, r.Reused, r.Unchanged)
	}
	sameAsFull("price", dest)
	// Its charts rendered to the bytes they had: the same files; its pages
	// are new files.
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
	r = build(dest)
	if !slices.Equal(r.Rebuilt, []string{"llama-3-1-8b"}) || r.ModuleTrees != 0 {
		t.Errorf("llama's prose changed: rebuilt %v, %d module trees", r.Rebuilt, r.ModuleTrees)
	}
	sameAsFull("prose", dest)

	// A config changed: its module tree is built again, the others' are not.
	sitetest.Edit(t, filepath.Join(root, "data/hub/meta-llama/Llama-3.1-8B/snapshot.json"), `"rope_theta"`, `"x_bench_note": 1, "rope_theta"`)
	r = build(dest)
	if !slices.Equal(r.Rebuilt, []string{"llama-3-1-8b"}) || r.ModuleTrees != 1 {
		t.Errorf("llama's config changed: rebuilt %v, %d module trees", r.Rebuilt, r.ModuleTrees)
	}
	sameAsFull("config", dest)

	// A template changed: every page and the lists, no module tree.
	sitetest.Edit(t, filepath.Join(root, "templates/dossier.md"), "## Claims vs artifacts", "## Claims against artifacts")
	r = build(dest)
	if len(r.Rebuilt) != 3 || r.ModuleTrees != 0 {
		t.Errorf("a template changed: rebuilt %v, %d module trees", r.Rebuilt, r.ModuleTrees)
	}
	if md := snapshotDir(t, dest)["models/kimi-k3/index.md"]; !strings.Contains(md, "## Claims against artifacts") {
		t.Error("a template changed, yet K3's page does not show it")
	}
	sameAsFull("template", dest)
	if n != 7 {
		t.Fatal("not every case compared")
	}
}

// TestUnchangedPagesAreNotParsed: a build takes an unchanged page's model
// and draft flag from the cache's front stage instead of decoding its
// YAML; and a build keeps only stubs of its pages, so memory does not grow
// with the site.
func TestUnchangedPagesAreNotParsed(t *testing.T) {
	keep := []string{"content/models/llama-3-1-8b.md", "content/models/gpt-oss-20b.md"}
	root := sitetest.Fixture(t, func(rel string) bool { return slices.Contains(keep, rel) })
	dest := filepath.Join(t.TempDir(), "public")
	load := func(full bool) *Site { t.Helper(); return loadSite(t, root, Options{Full: full}) }
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
	first := load(false)
	if n := known(first); n != 0 {
		t.Errorf("first build: %d pages taken from a cache there is not", n)
	}
	if _, err := Build(first, Options{Destination: dest}); err != nil {
		t.Fatal(err)
	}
	for _, e := range first.entries {
		if e.model != nil || !e.page.Partial {
			t.Errorf("%s: its model or page outlived its publication", e.slug)
		}
	}
	if n := known(load(false)); n != 2 {
		t.Errorf("nothing changed: %d of 2 pages left unparsed", n)
	}
	if n := known(load(true)); n != 0 {
		t.Errorf("--full: %d pages taken from the cache", n)
	}
	// A changed snapshot: llama is parsed when it is computed, not to be
	// hashed.
	sitetest.Edit(t, filepath.Join(root, "data/hub/meta-llama/Llama-3.1-8B/snapshot.json"), `"rope_theta"`, `"x_note": 1, "rope_theta"`)
	s := load(false)
	if n := known(s); n != 2 {
		t.Errorf("llama's snapshot changed: %d pages left unparsed before the build, want 2", n)
	}
	r, err := Build(s, Options{Destination: dest})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Rebuilt, []string{"llama-3-1-8b"}) {
		t.Errorf("llama's snapshot changed: rebuilt %v", r.Rebuilt)
	}
	// An edited page is parsed: its bytes have no front record.
	sitetest.Edit(t, filepath.Join(root, "content/models/llama-3-1-8b.md"), "This is a dense model", "This is a dense model, edited")
	if n := known(load(false)); n != 1 {
		t.Errorf("llama's page edited: %d pages left unparsed, want 1", n)
	}
}

// A site loaded with Options.Collect (every model computed in Load, none
// looked up in the cache) renders the files a build does: its page records
// are written under their keys too, for the shared files to read back.
func TestCollectedSiteRendersTheSameFiles(t *testing.T) {
	root := copySite(t)
	want, err := loadSite(t, root, Options{}).Render()
	if err != nil {
		t.Fatal(err)
	}
	got, err := loadSite(t, root, Options{Collect: true}).Render()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d files, want %d", len(got), len(want))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s differs", name)
		}
	}
}
