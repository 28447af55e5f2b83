package site

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/config"
)

// searchSite builds a copy of the fixture site with search on and the
// given search command.
func searchBuild(t *testing.T, root, command string) (string, error) {
	t.Helper()
	t.Setenv("DOSSIER_SEARCH", "true")
	t.Setenv("DOSSIER_SEARCHCOMMAND", command)
	cfg, err := config.Load(root, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(root, "public")
	_, err = Build(s, Options{Destination: dest})
	return dest, err
}

// A stand-in indexer records the directory it was given: the index must
// be built on the staged output, before it replaces public/.
func TestSearchIndexRunsOnStagedOutput(t *testing.T) {
	root := copySite(t)
	script := filepath.Join(t.TempDir(), "fake-pagefind")
	body := "#!/bin/sh\n# args: --site DIR --output-subdir pagefind\nmkdir -p \"$2/$4\" && echo indexed > \"$2/$4/pagefind.js\" && test -f \"$2/models/kimi-k3/index.html\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	dest, err := searchBuild(t, root, script)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "pagefind/pagefind.js")); err != nil || string(b) != "indexed\n" {
		t.Fatalf("index not in the published output: %v", err)
	}
	page, _ := os.ReadFile(filepath.Join(dest, "search/index.html"))
	if !strings.Contains(string(page), "pagefind-ui.js") {
		t.Error("no search page")
	}
	k3, _ := os.ReadFile(filepath.Join(dest, "models/kimi-k3/index.html"))
	if !strings.Contains(string(k3), "data-pagefind-body") || !strings.Contains(string(k3), "search/index.html") {
		t.Error("dossier pages are not marked for indexing or do not link the search")
	}

	// A failing indexer fails the build and leaves the output as it was.
	before := snapshotDir(t, dest)
	if _, err := searchBuild(t, root, "false"); err == nil || !strings.Contains(err.Error(), "search index") {
		t.Fatalf("failing indexer: %v", err)
	}
	after := snapshotDir(t, dest)
	if len(after) != len(before) || after["pagefind/pagefind.js"] != "indexed\n" {
		t.Error("a failed search index changed public/")
	}
}

// With the real Pagefind (DOSSIER_PAGEFIND names its binary; .ci/run
// installs it from npm), the index covers every dossier.
func TestSearchWithPagefind(t *testing.T) {
	bin := os.Getenv("DOSSIER_PAGEFIND")
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but DOSSIER_PAGEFIND does not name a pagefind binary")
		}
		t.Skip("DOSSIER_PAGEFIND unset: install pagefind from npm to run the real indexer")
	}
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("DOSSIER_PAGEFIND=%s: %v", bin, err)
	}
	dest, err := searchBuild(t, copySite(t), bin)
	if err != nil {
		t.Fatal(err)
	}
	entry, err := os.ReadFile(filepath.Join(dest, "pagefind/pagefind-entry.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(entry), `"page_count"`) {
		t.Errorf("pagefind-entry.json: %s", entry)
	}
	frags, _ := filepath.Glob(filepath.Join(dest, "pagefind/fragment/*"))
	if len(frags) < 9 {
		t.Errorf("%d pages indexed, want every dossier", len(frags))
	}
}
