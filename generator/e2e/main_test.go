package e2e

import (
	"fmt"
	"os"
	"path/filepath"
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
