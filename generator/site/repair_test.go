package site

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A build killed between the two renames of its swap leaves no public/,
// the previous output in .public.new-N.old and the new one in
// .public.new-N. The next publish puts the previous output back, removes
// both leftovers, and then publishes as usual.
func TestPublishRepairsACrashedSwap(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "public")
	if _, err := Publish(dest, map[string][]byte{"a.txt": []byte("one")}); err != nil {
		t.Fatal(err)
	}
	// Simulate the crash: dest moved aside, the staged copy not yet renamed.
	old := filepath.Join(dir, ".public.new-123.old")
	if err := os.Rename(dest, old); err != nil {
		t.Fatal(err)
	}
	staged := filepath.Join(dir, ".public.new-123")
	if err := os.MkdirAll(staged, 0o755); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(dir, ".public.new-456") // killed while staging
	if err := os.MkdirAll(stray, 0o755); err != nil {
		t.Fatal(err)
	}
	did, err := repairSwap(dest)
	if err != nil {
		t.Fatal(err)
	}
	if len(did) != 3 {
		t.Errorf("repair did %q, want a restore and two removals", did)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "a.txt")); err != nil || string(b) != "one" {
		t.Fatalf("previous output not restored: %q, %v", b, err)
	}
	if _, err := Publish(dest, map[string][]byte{"a.txt": []byte("two")}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 || entries[0].Name() != ".public.spare" || entries[1].Name() != "public" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left beside public/: %q, want only the spare", names)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".public.spare", "a.txt")); string(b) != "one" {
		t.Errorf("the spare's a.txt = %q, want the previous output's", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "a.txt")); string(b) != "two" {
		t.Errorf("a.txt = %q after the next publish", b)
	}
}

// A directory that merely looks like a leftover but is not dossier's
// (no output marker) is not restored as the site.
func TestRepairDoesNotRestoreForeignDirectories(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "public")
	if err := os.MkdirAll(filepath.Join(dir, ".public.new-1.old"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := repairSwap(dest); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Error("restored a directory without the output marker")
	}
}

// TestRemoveTree: the previous output goes whole, whatever sits at which
// depth, with more directories than removal workers.
func TestRemoveTree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".public.new-7.old")
	var files []string
	for i := range 2*removeWorkers + 3 {
		files = append(files, filepath.Join("models", fmt.Sprintf("m%02d", i), "index.html"), filepath.Join("models", fmt.Sprintf("m%02d", i), "deep", "x.svg"))
	}
	files = append(files, "index.html", filepath.Join(".dossier", "manifest.json"), filepath.Join(".dossier", "model-side", "a.bin"))
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A link, as a reused page's files are, goes without its target.
	kept := filepath.Join(t.TempDir(), "kept.html")
	if err := os.Link(filepath.Join(dir, "index.html"), kept); err != nil {
		t.Fatal(err)
	}
	if err := removeTree(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s still there: %v", dir, err)
	}
	if b, err := os.ReadFile(kept); err != nil || string(b) != "index.html" {
		t.Errorf("a link into the removed tree lost its content: %q, %v", b, err)
	}
	if err := removeTree(dir); err != nil {
		t.Errorf("removing what is gone: %v", err)
	}
}

// TestParallelN: every index runs once, with fewer and more workers than
// indexes.
func TestParallelN(t *testing.T) {
	for _, workers := range []int{1, 3, 16, 100} {
		ran := make([]int, 40)
		parallelN(len(ran), workers, func(i int) { ran[i]++ })
		for i, n := range ran {
			if n != 1 {
				t.Errorf("%d workers: index %d ran %d times", workers, i, n)
			}
		}
	}
}
