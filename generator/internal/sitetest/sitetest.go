// Package sitetest helps tests work on a copy of a site: copy its inputs
// into a temporary root, then edit files the way an editor saves them.
package sitetest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Inputs are the parts of a site root a build reads.
var Inputs = []string{"hugo-like.yaml", "content", "data", "templates"}

// Copy copies the inputs of the site at src into a new temporary root and
// returns it. keep, when not nil, chooses which files under content/models
// to copy (by path relative to the root), so a test can build one model.
func Copy(t testing.TB, src string, keep func(rel string) bool) string {
	t.Helper()
	src, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	for _, in := range Inputs {
		err := filepath.WalkDir(filepath.Join(src, in), func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(src, p)
			if err != nil {
				return err
			}
			if e.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			if keep != nil && filepath.Dir(rel) == filepath.Join("content", "models") && !keep(filepath.ToSlash(rel)) {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// Edit replaces the first old with new in path, which must contain it. It
// writes a sibling and renames it over the file, as many editors save, so
// a watcher never sees a half-written file.
func Edit(t testing.TB, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
