package site

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// A file's sum is what a manifest records of its bytes: whether a build
// would change the file, and whether the previous output's copy is still
// what was published. It guards against accident (a hand edit, a torn
// copy), not against an adversary, since the output is the generator's
// own, so it is xxHash64 (9.5 GB/s here) rather than sha256 (1.5 GB/s),
// which was a tenth of a price build's CPU time.
func newSum() *xxhash.Digest { return xxhash.New() }

func sumOf(b []byte) string {
	return hex.EncodeToString(binary.BigEndian.AppendUint64(nil, xxhash.Sum64(b)))
}

func sumString(h *xxhash.Digest) string { return hex.EncodeToString(h.Sum(nil)) }

// output receives a build's files as they are produced; a model's files
// go out as soon as it is rendered, so the site is never held in memory
// whole. Implementations are safe for concurrent use.
type output interface {
	sink
	// putSum is put of bytes whose sum is already known.
	putSum(name string, b []byte, sum string) error
	// sums is every file published so far and its sum.
	sums() map[string]string
	// stamps is the size, modification time and sum of every file on
	// disk.
	stamps() map[string]filed
}

// sink receives files as they are rendered. Implementations are safe for
// concurrent use.
type sink interface {
	// put publishes new bytes.
	put(name string, b []byte) error
	// write publishes what fill writes: a file that lists every model
	// (the manifest, models.json) goes out as it is encoded, never whole
	// in memory.
	write(name string, fill func(io.Writer) error) error
	// reuse publishes the previous output's file at from unchanged; sum is
	// the sum it was verified to have.
	// known, when not nil, is the file's stamp, which a hardlink keeps.
	reuse(name, from, sum string, known *stamp) error
}

// sumSink keeps only the sum of each file, for a build that asks
// whether publishing would change anything.
type sumSink struct {
	mu   sync.Mutex
	sums map[string]string
}

func (ss *sumSink) put(name string, b []byte) error { return ss.set(name, sumOf(b)) }

func (ss *sumSink) reuse(name, _, sum string, _ *stamp) error { return ss.set(name, sum) }

func (ss *sumSink) write(name string, fill func(io.Writer) error) error {
	sum, err := streamSum(fill)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return ss.set(name, sum)
}

func (ss *sumSink) set(name, sum string) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.sums == nil {
		ss.sums = map[string]string{}
	}
	ss.sums[name] = sum
	return nil
}

// pageSink passes files on and notes the directories of the HTML pages
// among them, for the sitemap.
type pageSink struct {
	sink
	mu    sync.Mutex
	pages []string
}

func (ps *pageSink) put(name string, b []byte) error {
	ps.add(name)
	return ps.sink.put(name, b)
}

func (ps *pageSink) reuse(name, from, sum string, known *stamp) error {
	ps.add(name)
	return ps.sink.reuse(name, from, sum, known)
}

func (ps *pageSink) add(name string) {
	if dir, ok := strings.CutSuffix(name, "index.html"); ok {
		ps.mu.Lock()
		ps.pages = append(ps.pages, dir)
		ps.mu.Unlock()
	}
}

// stamp is what a later build compares with a file's os.Stat before
// trusting its recorded sum without reading it (as make does); a file
// whose stamp differs is hashed again.
type stamp struct {
	Size int64 `json:"size"`
	Mod  int64 `json:"mod"` // modification time, Unix nanoseconds
}

func stampOf(fi os.FileInfo) stamp { return stamp{Size: fi.Size(), Mod: fi.ModTime().UnixNano()} }

// ledger records what an output published.
type ledger struct {
	mu  sync.Mutex
	sum map[string]string
	st  map[string]stamp
}

func (l *ledger) setStamp(name, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	l.keepStamp(name, stampOf(fi))
	return nil
}

func (l *ledger) keepStamp(name string, st stamp) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.st == nil {
		l.st = map[string]stamp{}
	}
	l.st[name] = st
}

func (l *ledger) stamps() map[string]filed {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]filed, len(l.st))
	for name, st := range l.st {
		out[name] = filed{st, l.sum[name]}
	}
	return out
}

func (l *ledger) record(name, sum string) error {
	if !filepath.IsLocal(name) {
		return fmt.Errorf("output path %q escapes the publish directory", name)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sum == nil {
		l.sum = map[string]string{}
	}
	if _, dup := l.sum[name]; dup {
		return fmt.Errorf("output path %q is written twice", name)
	}
	l.sum[name] = sum
	return nil
}

func (l *ledger) sums() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.sum)
}

// memory keeps the files in a map, for a build compared rather than
// published (dossier diff).
type memory struct {
	ledger
	mu    sync.Mutex
	files map[string][]byte
}

func (m *memory) put(name string, b []byte) error { return m.putSum(name, b, sumOf(b)) }

func (m *memory) putSum(name string, b []byte, sum string) error {
	if err := m.record(name, sum); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = map[string][]byte{}
	}
	m.files[name] = b
	return nil
}

func (m *memory) write(name string, fill func(io.Writer) error) error {
	var b bytes.Buffer
	if err := fill(&b); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return m.put(name, b.Bytes())
}

// streamSum is the sum of what fill writes, without keeping it.
func streamSum(fill func(io.Writer) error) (string, error) {
	h := newSum()
	bw := bufio.NewWriterSize(h, 64<<10)
	if err := fill(bw); err != nil {
		return "", err
	}
	if err := bw.Flush(); err != nil {
		return "", err
	}
	return sumString(h), nil
}

func (m *memory) reuse(name, from, _ string, _ *stamp) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("reuse %s: %w", from, err)
	}
	return m.put(name, b)
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// fileSum is the sum of a file, read in a stream.
func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := newSum()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return sumString(h), nil
}
