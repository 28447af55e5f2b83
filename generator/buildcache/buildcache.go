// Package buildcache is the build's one cache: a directory (the site's
// .dossier-cache/) of immutable entries, like the Go build cache. It knows
// nothing of sites or pages; generator/site declares the stages, their keys
// and what invalidates them (see its package doc).
//
// It holds two kinds of entries, each created at its own name, written,
// and then made read-only, which marks it whole: a reader takes only a
// read-only entry, so it sees a whole entry or none, and two builds
// writing one entry at once both succeed:
//
//   - objects/XX/SUM: file contents named by their own sha256 (Put).
//     A build links them into its staging directory; being read-only, an
//     edit of a published copy needs a chmod first, which makes the entry
//     a miss.
//   - records/STAGE/KEY: a small JSON document named by the sha256 of
//     every input it was computed from (Get, Set).
package buildcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// MaxRecord bounds what Get reads of one record: a record is a page's
// summary and file list, kilobytes; a larger one is damaged.
const MaxRecord = 16 << 20

// Cache is one cache directory.
type Cache struct {
	dir string
	// Check makes Put read an object that is already there and replace it
	// when its bytes are not the ones stored: a --full build
	// trusts no entry (an object is read-only, but root can write it, and
	// a published hard link is the same file).
	Check bool
}

// Open opens the cache in dir, creating it.
func Open(dir string) (*Cache, error) {
	for _, d := range []string{"objects", "records"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("build cache: %w", err)
		}
	}
	tag := filepath.Join(dir, "CACHEDIR.TAG")
	if _, err := os.Stat(tag); errors.Is(err, fs.ErrNotExist) {
		// The standard tag, so backup tools skip the directory.
		os.WriteFile(tag, []byte("Signature: 8a477f597d28d172789f06886806bc55\n# dossier's build cache; safe to delete\n"), 0o644)
	}
	return &Cache{dir: dir}, nil
}

// Dir is the cache directory.
func (c *Cache) Dir() string { return c.dir }

// Key hashes the parts, each framed by its length, into an entry key.
func Key(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		io.WriteString(h, p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Sum is the object name of b.
func Sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Path is where the object sum is.
func (c *Cache) Path(sum string) string {
	if len(sum) < 3 {
		return filepath.Join(c.dir, "objects", "invalid")
	}
	return filepath.Join(c.dir, "objects", sum[:2], sum[2:])
}

// Has says whether the object sum is present.
func (c *Cache) Has(sum string) bool {
	fi, err := os.Lstat(c.Path(sum))
	return err == nil && whole(fi)
}

// whole says whether fi is an entry written to its end: a regular file
// nobody may write (create makes it so last).
func whole(fi fs.FileInfo) bool { return fi.Mode().IsRegular() && fi.Mode().Perm()&0o222 == 0 }

// Put stores b and returns its sum.
func (c *Cache) Put(b []byte) (string, error) {
	sum := Sum(b)
	if c.intact(sum) {
		return sum, nil
	}
	return sum, c.create(c.Path(sum), b) // over a damaged one
}

// intact says whether the object sum is there and, with Check, holds the
// bytes its name says.
func (c *Cache) intact(sum string) bool {
	if !c.Check || !c.Has(sum) {
		return c.Has(sum)
	}
	f, err := os.Open(c.Path(sum))
	if err != nil {
		return false
	}
	defer f.Close()
	h := sha256.New()
	_, err = io.Copy(h, f)
	return err == nil && hex.EncodeToString(h.Sum(nil)) == sum
}

// Writer is an object written in pieces (Create), for a file too large
// to hold whole.
type Writer struct {
	f    *os.File
	c    *Cache
	hash hash.Hash
}

// Create starts an object; Store names it by the sum of what was written.
func (c *Cache) Create() (*Writer, error) {
	f, err := os.CreateTemp(filepath.Join(c.dir, "objects"), "tmp-")
	if err != nil {
		return nil, fmt.Errorf("build cache: %w", err)
	}
	return &Writer{f: f, c: c, hash: sha256.New()}, nil
}

func (w *Writer) Write(b []byte) (int, error) {
	w.hash.Write(b)
	return w.f.Write(b)
}

// Store stores what was written, unless the cache holds it already, and
// returns its sum. A Writer not stored leaves a temporary file, which
// Trim removes.
func (w *Writer) Store() (string, error) {
	defer os.Remove(w.f.Name())
	sum := hex.EncodeToString(w.hash.Sum(nil))
	err := w.f.Chmod(0o444)
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if p := w.c.Path(sum); err == nil && !w.c.intact(sum) {
		if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			err = os.Rename(w.f.Name(), p)
		}
	}
	if err != nil {
		return "", fmt.Errorf("build cache: %w", err)
	}
	return sum, nil
}

// Get decodes the record key of stage into v; false when there is none or
// it does not decode (a damaged record is a miss, never an error). A
// record read is marked used, at most once an hour, for Trim.
func (c *Cache) Get(stage, key string, v any) bool {
	f, err := os.Open(c.record(stage, key))
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !whole(fi) {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxRecord+1))
	if err != nil || len(b) > MaxRecord || json.Unmarshal(b, v) != nil {
		return false
	}
	if time.Since(fi.ModTime()) > time.Hour {
		os.Chtimes(f.Name(), time.Now(), time.Now())
	}
	return true
}

// Set stores v as the record key of stage, unless that record holds it
// already: a build reads back the records it wrote, so one that holds
// anything else (damaged, or not decoded) is replaced.
func (c *Cache) Set(stage, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("build cache record %s/%s: %w", stage, key, err)
	}
	p := c.record(stage, key)
	if fi, err := os.Lstat(p); err == nil && whole(fi) {
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, b) {
			return nil // the same inputs give the same record: nothing to write
		}
	}
	return c.create(p, b)
}

func (c *Cache) record(stage, key string) string {
	return filepath.Join(c.dir, "records", stage, key)
}

// create writes b as the entry p: it creates p, writable, and makes it
// read-only once written, so no temporary name or link is needed. When p
// is there but not whole (a build writing it now, or one that stopped
// half-way), b is written under a temporary name beside it and renamed
// over it: an entry's name says what its bytes are, so either is right.
func (c *Cache) create(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		}
	}
	if errors.Is(err, fs.ErrExist) {
		if f, err = os.CreateTemp(filepath.Dir(p), "tmp-"); err == nil {
			defer os.Remove(f.Name())
		}
	}
	if err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(0o444)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && f.Name() != p {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		return fmt.Errorf("build cache: write %s: %w", p, err)
	}
	return nil
}

// trimEvery is how often Trim looks at the entries; unusedFor is how long
// an entry stays unused before it goes.
const (
	trimEvery = 24 * time.Hour
	unusedFor = 5 * 24 * time.Hour
)

// Trim removes, at most once a day, the entries unused for five days: an
// object no published output links (its link count is one) that was last
// linked or unlinked that long ago, and a record not read that long
// (Get). A record whose objects are gone is a miss, so no order matters.
func (c *Cache) Trim(now time.Time) error {
	mark := filepath.Join(c.dir, "trimmed")
	if fi, err := os.Stat(mark); err == nil && now.Sub(fi.ModTime()) < trimEvery {
		return nil
	}
	if err := os.WriteFile(mark, nil, 0o644); err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	os.Chtimes(mark, now, now)
	return filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == mark || filepath.Base(p) == "CACHEDIR.TAG" {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if last, single := lastUse(fi); single && now.Sub(last) > unusedFor {
			os.Remove(p)
		}
		return nil
	})
}
