package site

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/facts"
)

// TestInputsPageListsTheSharedInputsOnce: the inputs page has a row for
// every part of the hardware catalog and every price source, each with its
// date; a dossier names them in one row with their counts and links the
// page, instead of repeating a row per part.
func TestInputsPageListsTheSharedInputsOnce(t *testing.T) {
	root := copySite(t)
	s := loadSite(t, root, Options{})
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, root, dest); err != nil {
		t.Fatal(err)
	}
	page := string(readOut(t, dest, InputsPath+"index.md"))
	if len(s.Catalog.Accelerators) < 10 || len(s.Catalog.PriceSources()) < 1 {
		t.Fatalf("the fixture has %d parts and %d price sources", len(s.Catalog.Accelerators), len(s.Catalog.PriceSources()))
	}
	for id, a := range s.Catalog.Accelerators {
		if !strings.Contains(page, "| `"+id+"` | "+a.Name+", ") || !strings.Contains(page, a.AsOf+" |") {
			t.Errorf("the inputs page has no row for %s (%s, as of %s)", id, a.Name, a.AsOf)
		}
	}
	for _, ps := range s.Catalog.PriceSources() {
		if !strings.Contains(page, ps.Source) {
			t.Errorf("the inputs page does not cite the price source %s (%s)", ps.Key, ps.Source)
		}
	}
	// Each source and device capture that is an address is linked whole,
	// not with the text that follows it.
	html := string(readOut(t, dest, InputsPath+"index.html"))
	for id, a := range s.Catalog.Accelerators {
		for _, u := range []string{a.Source, a.MemorySource} {
			if strings.HasPrefix(u, "https://") && !strings.Contains(u, " ") && !strings.Contains(html, `href="`+u+`"`) {
				t.Errorf("%s: %s is not linked as it is", id, u)
			}
		}
	}
	md := string(readOut(t, dest, "models/kimi-k3/index.md"))
	row := fmt.Sprintf("| the site's shared inputs | the hardware catalog (%s), %s and the sizing settings", facts.Count(len(s.Catalog.Accelerators), "part"), facts.Count(len(s.Catalog.PriceSources()), "price source"))
	if !strings.Contains(md, row) {
		t.Errorf("K3's sources lack the row %q", row)
	}
	if strings.Contains(md, "| hardware catalog: ") {
		t.Error("K3's sources still list parts of the hardware catalog one by one")
	}
	if !strings.Contains(md, "(../../inputs/index.html)") {
		t.Error("K3's sources do not link the inputs page")
	}
}
