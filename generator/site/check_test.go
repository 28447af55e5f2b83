package site

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"dossier/generator/config"
	"dossier/generator/internal/sitetest"
)

// TestCheckReusesItsFindings: a second check of unchanged pages computes
// none and reports exactly what the first did; an edited page is checked
// again, and the finding it adds shows.
func TestCheckReusesItsFindings(t *testing.T) {
	keep := []string{"content/models/llama-3-1-8b.md", "content/models/gpt-oss-20b.md"}
	root := sitetest.Fixture(t, func(rel string) bool { return slices.Contains(keep, rel) })
	check := func() []Diagnostic {
		t.Helper()
		cfg, err := config.Load(root, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := Check(cfg, CheckOptions{Today: time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	computed := func() int {
		t.Helper()
		return len(loadSite(t, root, Options{Collect: true, Drafts: true, check: true}).Models)
	}
	first := check()
	if n := computed(); n != 0 {
		t.Errorf("unchanged pages: %d computed again", n)
	}
	if again := check(); !reflect.DeepEqual(again, first) {
		t.Errorf("the cached check differs:\n%v\nfirst:\n%v", again, first)
	}
	sitetest.Edit(t, filepath.Join(root, "content/models/llama-3-1-8b.md"), "This is a dense model", "A successor is coming soon.\n\nThis is a dense model")
	if n := computed(); n != 1 {
		t.Errorf("one page edited: %d computed", n)
	}
	edited := check()
	if len(edited) != len(first)+1 || !slices.ContainsFunc(edited, func(d Diagnostic) bool {
		return d.File == "content/models/llama-3-1-8b.md" && d.Severity == "warning" && strings.HasPrefix(d.Msg, "tell 6")
	}) {
		t.Errorf("the edit's tell is not reported: %v (before: %v)", edited, first)
	}
	full, err := Load(mustConfig(t, root), Options{Collect: true, Drafts: true, check: true, Full: true})
	if err != nil || len(full.Models) != 2 {
		t.Errorf("--full check computed %d pages (%v)", len(full.Models), err)
	}
}

func mustConfig(t *testing.T, root string) *config.Site {
	t.Helper()
	cfg, err := config.Load(root, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
