package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"dossier/generator/config"
	"dossier/generator/internal/sitetest"
	"dossier/generator/site"
)

// built is the fixture site, built once for the whole package.
var built struct {
	dir string
	err error
}

// pagesOverlay is laid over three models of the fixture site (K3, Llama
// 3.1 8B, Qwen3-30B-A3B) for the reader-facing browser tests (answer box,
// phones, index, filter, compare, units): a tiny two-layer model and a
// price for an RTX 4090 (the fixture catalog has the classes).
const pagesOverlay = "testdata/pages-overlay"

// pagesModels are the fixture site's pages the pages fixture keeps.
var pagesModels = []string{"content/models/kimi-k3.md", "content/models/llama-3-1-8b.md", "content/models/qwen3-30b-a3b.md"}

// pagesSite is the build of the pages fixture.
var pagesSite struct {
	dir string
	err error
}

func TestMain(m *testing.M) {
	code := run(m)
	os.Exit(code)
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "dossier-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	built.dir = filepath.Join(tmp, "public")
	// The browser tests build the frozen fixture site, not the live one.
	root := filepath.Join(tmp, "site")
	if built.err = sitetest.CopyFixture(root, nil); built.err == nil {
		built.err = buildSite(root, built.dir)
	}
	pagesSite.dir = filepath.Join(tmp, "pages")
	pagesSite.err = buildPagesSite(filepath.Join(tmp, "pages-site"), pagesSite.dir)
	defer stopBrowser()
	return m.Run()
}

// buildSite builds the site at root into dest.
func buildSite(root, dest string) error {
	cfg, err := config.Load(root, nil, nil)
	if err != nil {
		return err
	}
	s, err := site.Load(cfg, site.Options{})
	if err != nil {
		return err
	}
	_, err = site.Build(s, site.Options{Destination: dest})
	return err
}

// builtSite returns the directory of the fixture site's build.
func builtSite(t *testing.T) string {
	t.Helper()
	if built.err != nil {
		t.Fatalf("build the fixture site: %v", built.err)
	}
	return built.dir
}

// buildPagesSite copies the fixture site's three models into root, lays
// pagesOverlay over it and builds it into dest.
func buildPagesSite(root, dest string) error {
	keep := func(rel string) bool { return slices.Contains(pagesModels, rel) }
	if err := sitetest.CopyFixture(root, keep); err != nil {
		return err
	}
	err := filepath.WalkDir(pagesOverlay, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(pagesOverlay, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		return fmt.Errorf("lay %s over the fixture: %w", pagesOverlay, err)
	}
	return buildSite(root, dest)
}

// fixtureSite returns the directory of the pages fixture's build.
func fixtureSite(t *testing.T) string {
	t.Helper()
	if pagesSite.err != nil {
		t.Fatalf("build the pages fixture (%s over the fixture site): %v", pagesOverlay, pagesSite.err)
	}
	return pagesSite.dir
}

// dossierPages lists the dossier pages of a build as URL paths
// (/models/<slug>/), sorted.
func dossierPages(t *testing.T, dir string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "models", "*", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	for _, m := range matches {
		pages = append(pages, "/models/"+filepath.Base(filepath.Dir(m))+"/")
	}
	sort.Strings(pages)
	if len(pages) == 0 {
		t.Fatalf("no dossier pages (models/*/index.html) in %s", dir)
	}
	return pages
}
