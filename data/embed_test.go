package data

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"dossier/generator/catalog"
)

// TestEmbeddedCatalogsAreComplete: every catalog file of this directory is
// embedded (a new price list under another pattern would otherwise be
// missing from plan outside a site), and the embedded set loads.
func TestEmbeddedCatalogsAreComplete(t *testing.T) {
	var onDisk []string
	for _, pattern := range []string{"*.yaml", "pricing/*", "pricing/*/*"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		onDisk = append(onDisk, m...)
	}
	for _, name := range onDisk {
		if st, err := os.Stat(name); err != nil || st.IsDir() {
			continue
		}
		if _, err := fs.Stat(Catalogs, filepath.ToSlash(name)); err != nil {
			t.Errorf("%s is not embedded: extend the go:embed patterns in embed.go", name)
		}
	}
	cat, err := catalog.LoadFS(Catalogs, Label)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Accelerators) == 0 || len(cat.PriceLists) == 0 {
		t.Errorf("embedded catalog has %d accelerators and %d price lists", len(cat.Accelerators), len(cat.PriceLists))
	}
}
