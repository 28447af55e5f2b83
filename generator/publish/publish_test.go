package publish

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// begin locks dest and stages.
func begin(t *testing.T, dest string) (*Staging, *Lock, error) {
	t.Helper()
	lock, err := Acquire(dest, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Cleanup(dest); err != nil {
		t.Fatal(err)
	}
	st, err := lock.Stage()
	if err != nil {
		lock.Release()
	}
	return st, lock, err
}

// put publishes text as name in st, from a file of its own.
func put(t *testing.T, st *Staging, name, text string) {
	t.Helper()
	from := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(from, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := st.Link(name, from); err != nil {
		t.Fatal(err)
	}
}

// stage publishes files into dest through a staging directory.
func stage(t *testing.T, dest string, files map[string]string) {
	t.Helper()
	st, lock, err := begin(t, dest)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	defer st.Discard()
	files[Marker] = MarkerText
	for name, text := range files {
		put(t, st, name, text)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
}

func holds(t *testing.T, dest string, want map[string]string) {
	t.Helper()
	n := 0
	filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dest, p)
		b, _ := os.ReadFile(p)
		if w, ok := want[filepath.ToSlash(rel)]; !ok || w != string(b) {
			t.Errorf("%s holds %q, want %q", rel, b, w)
		}
		n++
		return nil
	})
	if n != len(want) {
		t.Errorf("%s holds %d files, want %d", dest, n, len(want))
	}
}

// leftovers lists what a build left beside dest but the lock file.
func leftovers(t *testing.T, dest string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(filepath.Dir(dest), ".*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range names {
		if n != LockPath(dest) {
			out = append(out, filepath.Base(n))
		}
	}
	return out
}

func TestCommitReplacesTheWhole(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "public")
	stage(t, dest, map[string]string{"a/index.html": "one", "b.txt": "b"})
	stage(t, dest, map[string]string{"a/index.html": "two", "c/d/e.txt": "e"})
	holds(t, dest, map[string]string{"a/index.html": "two", "c/d/e.txt": "e", Marker: MarkerText})
	if l := leftovers(t, dest); len(l) != 0 {
		t.Errorf("left beside the output: %v", l)
	}
}

// Without an atomic exchange, two renames; a build killed between them is
// completed by the next one, which puts the previous output back.
func TestSwapWithoutExchangeAndRepair(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "public")
	stage(t, dest, map[string]string{"x": "1"})
	st, lock, err := begin(t, dest)
	if err != nil {
		t.Fatal(err)
	}
	st.exchange = func(string, string) error { return errors.ErrUnsupported }
	put(t, st, Marker, MarkerText)
	put(t, st, "x", "2")
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	lock.Release()
	holds(t, dest, map[string]string{"x": "2", Marker: MarkerText})

	// Killed between the renames: no dest, the previous output in .old.
	dead := filepath.Join(filepath.Dir(dest), ".public.new-999999999-1-0")
	if err := os.Rename(dest, dead+".old"); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dead, "half"), 0o755)
	did, err := Cleanup(dest)
	if err != nil {
		t.Fatal(err)
	}
	if len(did) != 2 || !strings.HasPrefix(did[0], "restored") {
		t.Errorf("cleanup did %q", did)
	}
	holds(t, dest, map[string]string{"x": "2", Marker: MarkerText})
	if l := leftovers(t, dest); len(l) != 0 {
		t.Errorf("left beside the output: %v", l)
	}
}

// A staging directory is removed only when its owner is gone: this
// process's and a running child's stay, a dead process's and one whose
// id was reused (another start time) go, and so do an earlier version's.
func TestCleanupRemovesOnlyDeadOwners(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("start times are read from /proc")
	}
	dest := filepath.Join(t.TempDir(), "public")
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	defer child.Process.Kill()
	self := Self()
	start := startTime(child.Process.Pid)
	if start == 0 {
		t.Fatal("no start time for a running child")
	}
	name := func(pid int, start uint64) string {
		return filepath.Join(filepath.Dir(dest), fmt.Sprintf(".public.new-%d-%d-0", pid, start))
	}
	live := []string{name(self.PID, self.Start), name(child.Process.Pid, start)}
	dead := []string{name(999999999, 5), name(child.Process.Pid, start+1), filepath.Join(filepath.Dir(dest), ".public.new-7")}
	for _, d := range append(live, dead...) {
		if err := os.MkdirAll(filepath.Join(d, "models"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Cleanup(dest); err != nil {
		t.Fatal(err)
	}
	for _, d := range live {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("a running owner's staging directory was removed: %s", d)
		}
	}
	for _, d := range dead {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("a dead owner's staging directory stayed: %s", d)
		}
	}
	child.Process.Kill()
	child.Wait()
	if _, err := Cleanup(dest); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(live[1]); err == nil {
		t.Error("the staging directory of a child that died stayed")
	}
}

// A second build fails naming the holder, or waits and says so.
func TestLockNamesTheHolder(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "public")
	first, err := Acquire(dest, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(dest, nil)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("held by build pid %d, locked at ", os.Getpid())) || !strings.Contains(err.Error(), LockPath(dest)) {
		t.Fatalf("second lock: %v", err)
	}
	told := make(chan string, 1)
	got := make(chan *Lock)
	go func() {
		l, err := Acquire(dest, func(holder string) { told <- holder })
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	holder := <-told
	if !strings.Contains(holder, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("waiting, told %q", holder)
	}
	select {
	case <-got:
		t.Fatal("the second build did not wait")
	case <-time.After(50 * time.Millisecond):
	}
	first.Release()
	(<-got).Release()
}

func TestUnchanged(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "objects")
	os.MkdirAll(src, 0o755)
	want := map[string]string{}
	for _, n := range []string{"a", "b"} {
		os.WriteFile(filepath.Join(src, n), []byte(n), 0o444)
	}
	dest := filepath.Join(dir, "public")
	st, lock, err := begin(t, dest)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"x/a", "b"} {
		from := filepath.Join(src, filepath.Base(name))
		want[name] = from
		if err := st.Link(name, from); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	lock.Release()
	if !Unchanged(dest, want) {
		t.Error("the same files are not unchanged")
	}
	os.WriteFile(filepath.Join(dest, "extra"), nil, 0o644)
	if Unchanged(dest, want) {
		t.Error("an extra file is unchanged")
	}
	os.Remove(filepath.Join(dest, "extra"))
	// A copy with the same bytes is another file: publish again.
	os.Remove(filepath.Join(dest, "b"))
	os.WriteFile(filepath.Join(dest, "b"), []byte("b"), 0o644)
	if Unchanged(dest, want) {
		t.Error("a replaced file is unchanged")
	}
}

func TestRefusesForeignDirectory(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "mine")
	os.MkdirAll(dest, 0o755)
	os.WriteFile(filepath.Join(dest, "thesis.tex"), []byte("x"), 0o644)
	if _, _, err := begin(t, dest); err == nil || !strings.Contains(err.Error(), "not written by dossier") {
		t.Fatalf("foreign directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, "thesis.tex")); err != nil {
		t.Error(err)
	}
}
