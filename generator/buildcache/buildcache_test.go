package buildcache

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

func open(t *testing.T) *Cache {
	t.Helper()
	c, err := Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestObjectsAreNamedByTheirBytes(t *testing.T) {
	c := open(t)
	sum, err := c.Put([]byte("hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sum != Sum([]byte("hello\n")) || !c.Has(sum) {
		t.Fatalf("Put gave %s", sum)
	}
	fi, err := os.Stat(c.Path(sum))
	if err != nil || fi.Mode().Perm()&0o222 != 0 {
		t.Errorf("an object is writable: %v %v", fi.Mode(), err)
	}
	if c.Has(Sum([]byte("other"))) {
		t.Error("Has an object never put")
	}
	// Nothing but entries is left: no temporary file.
	tmps, _ := filepath.Glob(filepath.Join(c.Dir(), "objects", "*", "tmp-*"))
	if len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// Many writers of one entry at once: each succeeds, the entry is whole.
func TestConcurrentWritersOfOneEntry(t *testing.T) {
	c := open(t)
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = byte(i)
	}
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = c.Put(b)
			if errs[i] == nil {
				errs[i] = c.Set("page", "k", map[string]int{"n": 1})
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(c.Path(Sum(b)))
	if err != nil || string(got) != string(b) {
		t.Fatalf("object damaged: %d bytes, %v", len(got), err)
	}
}

func TestRecordsAreReplaced(t *testing.T) {
	c := open(t)
	key := Key("page", "a", "b")
	if key == Key("page", "ab") || key == Key("page", "a", "b", "") {
		t.Error("keys of different parts collide")
	}
	var v struct{ N int }
	if c.Get("page", key, &v) {
		t.Fatal("a record before it was set")
	}
	if err := c.Set("page", key, struct{ N int }{1}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(c.Dir(), "records", "page", key)
	first, _ := os.Stat(p)
	if err := c.Set("page", key, struct{ N int }{1}); err != nil {
		t.Fatal(err)
	}
	// A record that holds what Set would write is not written again.
	if again, _ := os.Stat(p); !os.SameFile(first, again) {
		t.Error("the same record was written again")
	}
	if err := c.Set("page", key, struct{ N int }{2}); err != nil {
		t.Fatal(err)
	}
	if !c.Get("page", key, &v) || v.N != 2 {
		t.Errorf("record %+v, want the last written (a build reads back what it wrote)", v)
	}
	// A damaged record is a miss, not an error.
	os.Chmod(p, 0o644)
	os.WriteFile(p, []byte("{\"N\": "), 0o644)
	if c.Get("page", key, &v) {
		t.Error("a damaged record was read")
	}
	if err := c.Set("page", key, struct{ N int }{3}); err != nil || !c.Get("page", key, &v) || v.N != 3 {
		t.Errorf("a damaged record was not replaced: %v, %+v", err, v)
	}
}

func TestTrimKeepsWhatIsLinked(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("link counts are read on Linux")
	}
	c := open(t)
	kept, err := c.Put([]byte("published"))
	if err != nil {
		t.Fatal(err)
	}
	gone, err := c.Put([]byte("unpublished"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(c.Path(kept), filepath.Join(t.TempDir(), "index.html")); err != nil {
		t.Fatal(err)
	}
	c.Set("page", "old", 1)
	if err := c.Trim(time.Now()); err != nil {
		t.Fatal(err)
	}
	if !c.Has(gone) {
		t.Fatal("trimmed an entry just written")
	}
	later := time.Now().Add(unusedFor + time.Hour)
	os.Chtimes(filepath.Join(c.Dir(), "trimmed"), time.Now().Add(-2*trimEvery), time.Now().Add(-2*trimEvery))
	if err := c.Trim(later); err != nil {
		t.Fatal(err)
	}
	var n int
	if !c.Has(kept) || c.Has(gone) || c.Get("page", "old", &n) {
		t.Errorf("after trim: published %v, unpublished %v, old record %v", c.Has(kept), c.Has(gone), n)
	}
}

// With Check, an object edited in place is replaced by a new file with the
// right bytes; without, it is trusted.
func TestCheckReplacesADamagedObject(t *testing.T) {
	want := []byte("the right bytes\n")
	ways := map[string]func(c *Cache) (string, error){
		"Put": func(c *Cache) (string, error) { return c.Put(want) },
		"Create": func(c *Cache) (string, error) { // in two pieces
			w, err := c.Create()
			if err != nil {
				return "", err
			}
			w.Write(want[:4])
			w.Write(want[4:])
			return w.Store()
		},
	}
	for name, store := range ways {
		c := open(t)
		put := func() string {
			t.Helper()
			sum, err := store(c)
			if err != nil || sum != Sum(want) {
				t.Fatalf("%s: sum %s, %v; want %s", name, sum, err, Sum(want))
			}
			return sum
		}
		p := c.Path(put())
		if got, _ := os.ReadFile(p); string(got) != string(want) || !c.Has(Sum(want)) {
			t.Fatalf("%s: the object holds %q", name, got)
		}
		// Damaged as root could, through a published link: still read-only.
		os.Chmod(p, 0o644)
		os.WriteFile(p, []byte("damaged\n"), 0o644)
		os.Chmod(p, 0o444)
		put()
		if got, _ := os.ReadFile(p); string(got) == string(want) {
			t.Fatalf("%s: without Check a damaged object was rewritten", name)
		}
		c.Check = true
		put()
		before, _ := os.Stat(p)
		if got, _ := os.ReadFile(p); string(got) != string(want) {
			t.Errorf("%s: with Check the object holds %q", name, got)
		}
		// An intact object stays the same file, so published links to it
		// still say nothing changed.
		put()
		if after, _ := os.Stat(p); !os.SameFile(before, after) {
			t.Errorf("%s: with Check an intact object was replaced", name)
		}
		if tmps, _ := filepath.Glob(filepath.Join(c.Dir(), "objects", "tmp-*")); len(tmps) != 0 {
			t.Errorf("%s: temporary files left: %v", name, tmps)
		}
	}
}

// An entry that is still writable was not written to its end (a build
// stopped half-way, or one is writing it now): it is a miss, and the next
// writer replaces it with a whole one.
func TestAWritableEntryIsNotWhole(t *testing.T) {
	c := open(t)
	b := []byte("the whole object\n")
	sum := Sum(b)
	key := Key("page", "half")
	half := map[string]string{c.Path(sum): "the wh", filepath.Join(c.Dir(), "records", "page", key): `{"N": 1}`}
	for p, text := range half {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var v struct{ N int }
	if c.Has(sum) || c.Get("page", key, &v) {
		t.Fatalf("a writable entry was taken: object %v, record %+v", c.Has(sum), v)
	}
	if _, err := c.Put(b); err != nil {
		t.Fatal(err)
	}
	if err := c.Set("page", key, struct{ N int }{2}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(c.Path(sum)); !c.Has(sum) || string(got) != string(b) {
		t.Errorf("the object was not replaced: %q", got)
	}
	if !c.Get("page", key, &v) || v.N != 2 {
		t.Errorf("the record was not replaced: %+v", v)
	}
	tmps, _ := filepath.Glob(filepath.Join(c.Dir(), "*", "*", "tmp-*"))
	if len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}
