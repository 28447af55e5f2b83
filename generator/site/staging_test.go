package site

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestPublishKeepsTheSpare publishes a run of random sites into one
// destination, over spares whose files are kept, written over, replaced
// by directories and pruned. After each, the destination holds exactly
// that site and the spare exactly the one before it.
func TestPublishKeepsTheSpare(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "public")
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"a.txt", "b/index.html", "b/c/deep.json", "m/x/index.md", "m/x/facts.json", "m/y/index.md", "m/y", "b"}
	var prev map[string][]byte
	for round := range 40 {
		site := map[string][]byte{}
		for _, n := range names {
			if rng.IntN(3) == 0 {
				continue
			}
			// Short and long bytes, so an overwrite leaves a tail to cut.
			site[n] = fmt.Appendf(nil, "%s %d %s", n, rng.IntN(3), make([]byte, rng.IntN(2)*100))
		}
		dropConflicts(site)
		if _, err := Publish(dest, maps.Clone(site)); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		site[OutputMarker] = []byte(markerText)
		holdsExactly(t, fmt.Sprintf("round %d: public/", round), dest, site)
		if prev != nil {
			holdsExactly(t, fmt.Sprintf("round %d: the spare", round), spareOf(dest), prev)
			spareIsTrue(t, fmt.Sprintf("round %d", round), dest)
		}
		prev = site
	}
}

// dropConflicts removes from site each file that is also another's
// directory (m/y beside m/y/index.md).
func dropConflicts(site map[string][]byte) {
	for n := range site {
		for d := filepath.Dir(n); d != "."; d = filepath.Dir(d) {
			delete(site, filepath.ToSlash(d))
		}
	}
}

// holdsExactly fails t unless dir holds files, no more, byte for byte
// (the stamps file aside).
func holdsExactly(t *testing.T, what, dir string, files map[string][]byte) {
	t.Helper()
	got := snapshotDir(t, dir)
	delete(got, filepath.FromSlash(StampsPath))
	if len(got) != len(files) {
		t.Errorf("%s holds %d files, want %d", what, len(got), len(files))
	}
	for n, b := range files {
		if got[filepath.FromSlash(n)] != string(b) {
			t.Errorf("%s: %s = %q, want %q", what, n, got[filepath.FromSlash(n)], b)
		}
	}
}

// spareIsTrue checks that each file dest's spare records holds the bytes
// recorded: a build that wrote over a file the spare shares with the
// published output would fail it.
func spareIsTrue(t *testing.T, what, dest string) {
	t.Helper()
	spare := spareOf(dest)
	b, err := os.ReadFile(filepath.Join(spare, filepath.FromSlash(StampsPath)))
	if errors.Is(err, os.ErrNotExist) {
		return // no spare yet, or one without a record (never kept)
	}
	var held map[string]filed
	if err := json.Unmarshal(b, &held); err != nil {
		t.Fatal(err)
	}
	for name, f := range held {
		sum, err := fileSum(filepath.Join(spare, filepath.FromSlash(name)))
		if err != nil || sum != f.Sum {
			t.Errorf("%s: the spare's %s has sum %s, recorded %s (%v)", what, name, sum, f.Sum, err)
		}
	}
}

// A file of the spare edited by hand (same size, so only its time shows
// it) or added to it is not published.
func TestSpareEditsAreNotKept(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "public")
	site := map[string][]byte{"a.txt": []byte("alpha"), "d/b.txt": []byte("beta")}
	publish(t, dest, site, 2)
	spare := spareOf(dest)
	for name, b := range map[string]string{"a.txt": "ALPHA", "d/stray.txt": "stray", "stray/x": "x"} {
		p := filepath.Join(spare, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	publish(t, dest, site, 1)
	site[OutputMarker] = []byte(markerText)
	holdsExactly(t, "public/", dest, site)
}

// A build that fails after claiming the spare gives it back: the next
// one keeps what the failed one did not touch and publishes right.
func TestFailedBuildGivesBackTheSpare(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "public")
	site := map[string][]byte{"a.txt": []byte("alpha"), "b.txt": []byte("beta")}
	publish(t, dest, site, 2)
	st, err := stage(dest, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.put("a.txt", []byte("ALPHA")); err != nil { // written over, then the build fails
		t.Fatal(err)
	}
	keptB := st.keep("b.txt", sumOf([]byte("beta")), mustStat(t, filepath.Join(st.dir, "b.txt")))
	st.discard()
	if !keptB {
		t.Error("the spare's unchanged b.txt was not kept")
	}
	if _, err := os.Stat(spareOf(dest)); err != nil {
		t.Fatalf("the failed build did not give back the spare: %v", err)
	}
	publish(t, dest, site, 1)
	site[OutputMarker] = []byte(markerText)
	holdsExactly(t, "public/", dest, site)
}

// Where directories cannot be exchanged at once, commit renames twice
// and still keeps the previous output as the spare.
func TestSwapWithoutExchange(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "public")
	one := map[string][]byte{"a.txt": []byte("one"), OutputMarker: []byte(markerText)}
	if _, err := Publish(dest, maps.Clone(one)); err != nil {
		t.Fatal(err)
	}
	st, err := stage(dest, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.discard()
	st.swap = func(string, string) error { return errors.ErrUnsupported }
	two := map[string][]byte{"a.txt": []byte("two"), OutputMarker: []byte(markerText)}
	for n, b := range two {
		if err := st.put(n, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.commit(nil); err != nil {
		t.Fatal(err)
	}
	holdsExactly(t, "public/", dest, two)
	holdsExactly(t, "the spare", spareOf(dest), one)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d entries beside public/, want it and the spare", len(entries))
	}
}

func mustStat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// A directory named like the spare that no build wrote (no output
// marker), or a link, is neither claimed nor pruned.
func TestForeignSpareIsLeftAlone(t *testing.T) {
	for _, kind := range []string{"directory", "link"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			dest := filepath.Join(dir, "public")
			site := map[string][]byte{"a.txt": []byte("alpha")}
			publish(t, dest, site, 1)
			mine := filepath.Join(dir, "mine")
			if err := os.MkdirAll(mine, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(mine, "keep.txt"), []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			foreign := mine
			if kind == "link" {
				if err := os.Symlink(mine, spareOf(dest)); err != nil {
					t.Fatal(err)
				}
			} else {
				foreign = spareOf(dest)
				if err := os.Rename(mine, foreign); err != nil {
					t.Fatal(err)
				}
			}
			site["b.txt"] = []byte("beta")
			publish(t, dest, site, 1)
			site[OutputMarker] = []byte(markerText)
			holdsExactly(t, "public/", dest, site)
			holdsExactly(t, "the foreign directory", foreign, map[string][]byte{"keep.txt": []byte("mine")})
		})
	}
}

// publish publishes a copy of site into dest n times, failing t on error.
func publish(t *testing.T, dest string, site map[string][]byte, n int) {
	t.Helper()
	for range n {
		if _, err := Publish(dest, maps.Clone(site)); err != nil {
			t.Fatal(err)
		}
	}
}
