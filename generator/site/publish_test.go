package site

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"dossier/generator/internal/sitetest"
	"dossier/generator/publish"
)

// Two builds into one destination at once, twenty times: from two site
// roots whose prices differ, so that each must publish. Every time both
// succeed and the destination holds exactly what a clean build of one of
// the two publishes, with nothing left beside it.
func TestConcurrentBuildsIntoOneDestination(t *testing.T) {
	keep := []string{"content/models/llama-3-1-8b.md", "content/models/gpt-oss-20b.md"}
	roots := []string{
		sitetest.Fixture(t, func(rel string) bool { return slices.Contains(keep, rel) }),
		sitetest.Fixture(t, func(rel string) bool { return slices.Contains(keep, rel) }),
	}
	sitetest.Edit(t, filepath.Join(roots[1], "data/pricing/runpod.yaml"), "usd_per_gpu_hour: 5.98", "usd_per_gpu_hour: 6.10")
	clean := make([]map[string]string, 2)
	for i, root := range roots {
		dir := filepath.Join(t.TempDir(), "clean")
		if _, err := Build(loadSite(t, root, Options{Full: true}), Options{Destination: dir}); err != nil {
			t.Fatal(err)
		}
		clean[i] = snapshotDir(t, dir)
	}
	if clean[0]["models/llama-3-1-8b/facts.json"] == clean[1]["models/llama-3-1-8b/facts.json"] {
		t.Fatal("the two sites publish the same facts: the rounds cannot tell them apart")
	}
	dest := filepath.Join(t.TempDir(), "public")
	var waited atomic.Int64
	for round := range 20 {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, root := range roots {
			s := loadSite(t, root, Options{})
			wg.Go(func() {
				_, errs[i] = Build(s, Options{Destination: dest, Wait: func(string) { waited.Add(1) }})
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, build %d: %v", round, i, err)
			}
		}
		got := snapshotDir(t, dest)
		which := 0
		if got["models/llama-3-1-8b/facts.json"] != clean[0]["models/llama-3-1-8b/facts.json"] {
			which = 1
		}
		sameFiles(t, fmt.Sprintf("round %d (site %d)", round, which), got, clean[which])
		beside, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), ".*"))
		if len(beside) != 1 || beside[0] != publish.LockPath(dest) {
			t.Errorf("round %d: beside the output: %v", round, beside)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("a build waited for the lock %d times in 20 rounds", waited.Load())
}

// TestVerifyFindsADamagedCacheEntry: a cache object edited in place (as
// root can, read-only or not) is reported by --verify with the published
// path and the first line that differs, and nothing is published.
func TestVerifyFindsADamagedCacheEntry(t *testing.T) {
	keep := []string{"content/models/llama-3-1-8b.md"}
	root := sitetest.Fixture(t, func(rel string) bool { return slices.Contains(keep, rel) })
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := Build(loadSite(t, root, Options{}), Options{Destination: dest}); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dest, "models/llama-3-1-8b/index.md")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[4] = "a damaged line\n"
	// Damaged as root could, keeping the mode: a writable entry would be
	// a miss (buildcache), not a damaged entry.
	os.Chmod(page, 0o644)
	if err := os.WriteFile(page, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(page, 0o444)
	before := snapshotDir(t, dest)
	_, err = Build(loadSite(t, root, Options{Verify: true}), Options{Destination: dest})
	if err == nil || !strings.Contains(err.Error(), "models/llama-3-1-8b/index.md:5: cached \"a damaged line\"") {
		t.Fatalf("--verify over a damaged entry: %v", err)
	}
	after := snapshotDir(t, dest)
	for name, text := range before {
		if after[name] != text {
			t.Errorf("a failed --verify changed %s", name)
		}
	}
	// --full does not read the damaged entry; its object is the right bytes
	// again only once the damaged file is gone.
	if _, err := Build(loadSite(t, root, Options{Full: true}), Options{Destination: dest}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(page); strings.Contains(string(got), "a damaged line") {
		t.Error("--full published the damaged entry")
	}
}

// A dead build's staging directory is removed by the next build, even one
// that finds nothing changed and writes nothing.
func TestNothingChangedStillCleansUp(t *testing.T) {
	keep := []string{"content/models/llama-3-1-8b.md"}
	root := sitetest.Fixture(t, func(rel string) bool { return slices.Contains(keep, rel) })
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := Build(loadSite(t, root, Options{}), Options{Destination: dest}); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(filepath.Dir(dest), ".public.new-999999999-1-0")
	if err := os.MkdirAll(filepath.Join(dead, "models", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Build(loadSite(t, root, Options{}), Options{Destination: dest})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !r.Unchanged || err == nil {
		t.Errorf("unchanged %v; the dead build's staging directory: %v", r.Unchanged, err)
	}
}

// Another publish directory (build -d) is not another input: the cache
// built for public/ serves it.
func TestAnotherDestinationReusesTheCache(t *testing.T) {
	keep := []string{"content/models/llama-3-1-8b.md"}
	root := sitetest.Fixture(t, func(rel string) bool { return slices.Contains(keep, rel) })
	if _, err := Build(loadSite(t, root, Options{}), Options{}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOSSIER_PUBLISHDIR", "elsewhere")
	s := loadSite(t, root, Options{})
	if s.Config.PublishDir != "elsewhere" {
		t.Fatalf("publishDir %q", s.Config.PublishDir)
	}
	r, err := Build(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rebuilt) != 0 || r.Destination != filepath.Join(root, "elsewhere") {
		t.Errorf("into %s: rebuilt %v", r.Destination, r.Rebuilt)
	}
}
