// Package sitetest helps tests work on a copy of a site: copy its inputs
// into a temporary root, then edit files the way an editor saves them.
//
// Tests that assert numbers build the frozen fixture site under the
// repository's testdata/site (Fixture), never the live content/ and data/,
// which change with every release. Captured inputs (config.json files of
// real models) are under testdata/configs (Testdata).
package sitetest

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Inputs are the parts of a site root a build reads.
var Inputs = []string{"hugo-like.yaml", "content", "data", "templates"}

// RepoRoot returns the repository root: the nearest directory above the
// test's working directory (its package) holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("sitetest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Testdata returns the path of elem under the repository's testdata/.
func Testdata(t testing.TB, elem ...string) string {
	t.Helper()
	return filepath.Join(append([]string{RepoRoot(t), "testdata"}, elem...)...)
}

// Fixture copies the frozen fixture site into a new temporary root and
// returns it; keep chooses model pages as in Copy.
func Fixture(t testing.TB, keep func(rel string) bool) string {
	t.Helper()
	dst := t.TempDir()
	if err := CopyFixture(dst, keep); err != nil {
		t.Fatal(err)
	}
	return dst
}

// CopyFixture copies the frozen fixture site (testdata/site: configuration,
// content and data) into dst with the repository's templates, which are
// part of the engine rather than of the data. For TestMain, which has no
// testing.TB; tests call Fixture.
func CopyFixture(dst string, keep func(rel string) bool) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	if err := copyInputs(filepath.Join(root, "testdata", "site"), dst, keep); err != nil {
		return err
	}
	return copyTree(filepath.Join(root, "templates"), filepath.Join(dst, "templates"), nil)
}

// Live copies the inputs of the live site at the repository root (its
// content/, data/ and templates) into a new temporary root. Only the
// live-site checks use it: they assert properties, never numbers.
func Live(t testing.TB) string {
	t.Helper()
	return Copy(t, RepoRoot(t), nil)
}

// Copy copies the inputs of the site at src into a new temporary root and
// returns it. keep, when not nil, chooses which files under content/models
// to copy (by path relative to the root), so a test can build one model.
func Copy(t testing.TB, src string, keep func(rel string) bool) string {
	t.Helper()
	dst := t.TempDir()
	if err := copyInputs(src, dst, keep); err != nil {
		t.Fatal(err)
	}
	return dst
}

// copyInputs copies the Inputs present under src to dst.
func copyInputs(src, dst string, keep func(rel string) bool) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, in := range Inputs {
		if _, err := os.Stat(filepath.Join(src, in)); errors.Is(err, fs.ErrNotExist) {
			continue // the fixture takes its templates from the repository
		}
		err := copyTree(filepath.Join(src, in), filepath.Join(dst, in), func(rel string) bool {
			rel = filepath.Join(in, rel)
			return keep == nil || filepath.Dir(rel) != filepath.Join("content", "models") || keep(filepath.ToSlash(rel))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// copyTree copies the file or directory src to dst; keep, when not nil,
// chooses files by their path relative to src.
func copyTree(src, dst string, keep func(rel string) bool) error {
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
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
		if keep != nil && !keep(rel) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
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

// StaleOutputs compares the reviewed outputs of a fresh build (Markdown,
// facts.json, claims.csv; not the charts, drawn from the facts, nor the
// build manifest) with those committed,
// and returns one line per file that differs, is missing or is extra.
// It is the "committed outputs are current" check of a live site.
func StaleOutputs(t testing.TB, built, committed string) []string {
	t.Helper()
	reviewed := func(dir string) map[string][]byte {
		out := map[string][]byte{}
		err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			switch ext := filepath.Ext(rel); {
			case strings.HasPrefix(rel, ".dossier"):
				return nil
			case ext != ".md" && ext != ".json" && ext != ".csv":
				return nil
			}
			b, err := os.ReadFile(p)
			out[rel] = b
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	b, c := reviewed(built), reviewed(committed)
	var stale []string
	for _, name := range sortedKeys(b) {
		if old, ok := c[name]; !ok {
			stale = append(stale, "public/"+name+" is built but not committed: run dossier build")
		} else if !bytes.Equal(old, b[name]) {
			stale = append(stale, "public/"+name+" is out of date: run dossier build")
		}
	}
	for _, name := range sortedKeys(c) {
		if _, ok := b[name]; !ok {
			stale = append(stale, "public/"+name+" is no longer built: remove it")
		}
	}
	return stale
}

func sortedKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// FirstDiff shows the first line where got differs from want, or "" when
// the texts are equal.
func FirstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n- " + w + "\n+ " + g
		}
	}
	return ""
}

// Golden compares got with the golden file at path (relative to the
// test's package), or rewrites the file when update is set (the
// package's -update flag).
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the package's tests with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs; run with -update if the change is intended.\n%s", path, FirstDiff(string(want), string(got)))
	}
}
