package data

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"dossier/generator/audit"
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

// TestAPIChangeTableLoads: the shipped API-change table passes the strict
// loader and keeps the rows the K3 snippet audit needs.
func TestAPIChangeTableLoads(t *testing.T) {
	tb, err := audit.LoadTable(Catalogs, Label)
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Changes) < 30 {
		t.Errorf("%d rows, want at least 30", len(tb.Changes))
	}
	need := map[string]bool{"trl SFTTrainer tokenizer": false, "trl SFTTrainer max_seq_length": false, "trl SFTTrainer train_dataset": false}
	for _, c := range tb.Changes {
		if _, ok := need[c.Package+" "+c.Symbol+" "+c.Keyword]; ok {
			need[c.Package+" "+c.Symbol+" "+c.Keyword] = true
		}
	}
	for k, ok := range need {
		if !ok {
			t.Errorf("no row for %s", k)
		}
	}
}
