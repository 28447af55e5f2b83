package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"dossier/generator/config"
	"dossier/generator/site"
)

// siteRoot is the shipped site, relative to this package.
const siteRoot = "../.."

// fixtureRoot is the browser tests' frozen site: three shipped models, a
// tiny one, and a catalog with accelerator classes and an RTX 4090. Its
// templates are the repository's.
const fixtureRoot = "testdata/site"

// built is the shipped site, built once for the whole package; fixture is
// the fixture site.
var built, fixture struct {
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
	built.err = buildSite(siteRoot, built.dir)
	fixture.dir = filepath.Join(tmp, "fixture")
	fixture.err = buildSite(fixtureRoot, fixture.dir)
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

// builtSite returns the directory of the shipped site's build.
func builtSite(t *testing.T) string {
	t.Helper()
	if built.err != nil {
		t.Fatalf("build the shipped site: %v", built.err)
	}
	return built.dir
}

// fixtureSite returns the directory of the fixture site's build.
func fixtureSite(t *testing.T) string {
	t.Helper()
	if fixture.err != nil {
		t.Fatalf("build the fixture site %s: %v", fixtureRoot, fixture.err)
	}
	return fixture.dir
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
