package usercache

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/snapshot"
)

func tiny(sha string) *snapshot.Snapshot {
	size := int64(1000)
	return &snapshot.Snapshot{
		Schema: snapshot.Schema, Model: "acme/tiny", Revision: sha, Fetched: "2026-01-01", Source: "test",
		Files:  []snapshot.File{{Path: "model.safetensors", Size: &size}},
		Shards: snapshot.Shards{Count: 1, Bytes: 1000, Source: "test"},
		Config: json.RawMessage(`{"hidden_size":8}`), ConfigSource: "test",
	}
}

func TestOpenHonoursDossierCache(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(func(k string) string {
		if k == EnvVar {
			return dir
		}
		return ""
	})
	if err != nil || c.Dir != dir {
		t.Fatalf("Open = %v, %v; want %s", c, err, dir)
	}
	p, err := c.Path("acme/tiny", strings.Repeat("a", 40))
	if want := filepath.Join(dir, "hub", "acme", "tiny", strings.Repeat("a", 40)+".json"); err != nil || p != want {
		t.Errorf("Path = %s, %v; want %s", p, err, want)
	}
}

func TestPutThenRead(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	if _, err := c.Snapshot("acme/tiny", a); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("empty cache: %v, want not-exist", err)
	}
	if _, err := c.Ref("acme/tiny", "main"); !errors.Is(err, ErrNoRef) {
		t.Errorf("empty cache ref: %v, want ErrNoRef", err)
	}
	if err := c.Put(tiny(a), "main"); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(tiny(b), "refs/pr/1"); err != nil {
		t.Fatal(err)
	}
	s, err := c.Snapshot("acme/tiny", a)
	if err != nil || s.Revision != a {
		t.Fatalf("Snapshot = %v, %v", s, err)
	}
	if sha, err := c.Ref("acme/tiny", "main"); err != nil || sha != a {
		t.Errorf("Ref main = %s, %v; want %s", sha, err, a)
	}
	if sha, err := c.Ref("acme/tiny", "refs/pr/1"); err != nil || sha != b {
		t.Errorf("Ref refs/pr/1 = %s, %v; want %s", sha, err, b)
	}
	// A newer resolution of main replaces the old one.
	if err := c.Put(tiny(b), "main"); err != nil {
		t.Fatal(err)
	}
	if sha, _ := c.Ref("acme/tiny", "main"); sha != b {
		t.Errorf("Ref main after update = %s, want %s", sha, b)
	}
	// A pinned commit records no ref.
	if err := c.Put(tiny(a), a); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c.Dir, "hub", "acme", "tiny", "refs", a)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a commit got a ref file: %v", err)
	}
	if _, err := c.Ref("acme/tiny", ".."); err == nil {
		t.Error("ref .. accepted")
	}
}

func TestDamagedEntryNamesTheFile(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	a := strings.Repeat("a", 40)
	p, _ := c.Path("acme/tiny", a)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"schema":1`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Snapshot("acme/tiny", a); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("damaged entry: %v, want an error naming %s", err, p)
	}
	// An entry under another commit's name is refused, not trusted.
	if err := c.Put(tiny(strings.Repeat("b", 40)), ""); err != nil {
		t.Fatal(err)
	}
	pb, _ := c.Path("acme/tiny", strings.Repeat("b", 40))
	if err := os.Rename(pb, p); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Snapshot("acme/tiny", a); err == nil || !strings.Contains(err.Error(), "not acme/tiny@"+a) {
		t.Errorf("misfiled entry: %v", err)
	}
}
