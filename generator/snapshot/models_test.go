package snapshot

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestModels(t *testing.T) {
	dir := t.TempDir()
	mk := func(rel string, file bool) {
		p := filepath.Join(dir, "hub", filepath.FromSlash(rel))
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if file {
			if err := os.WriteFile(filepath.Join(p, FileName), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk("moonshotai/Kimi-K3", true)
	mk("acme/b-model", true)
	mk("acme/empty", false)           // no snapshot.json
	mk("acme/.hidden", true)          // not a valid id
	mk("acme/dir-named/nested", true) // too deep
	if err := os.MkdirAll(filepath.Join(dir, "hub", "acme", "odd", FileName), 0o755); err != nil {
		t.Fatal(err) // snapshot.json that is a directory
	}
	got, err := Models(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"acme/b-model", "moonshotai/Kimi-K3"}; !slices.Equal(got, want) {
		t.Errorf("Models = %v, want %v", got, want)
	}
	if got, err := Models(filepath.Join(dir, "missing")); err != nil || len(got) != 0 {
		t.Errorf("no data/hub: %v, %v; want none and no error", got, err)
	}
}
