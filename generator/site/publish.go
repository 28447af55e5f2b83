package site

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	// stamps is the size and modification time of every file on disk.
	stamps() map[string]stamp
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

func (l *ledger) stamps() map[string]stamp {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.st)
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

// staging is a fresh sibling directory of the destination that replaces it
// with two renames once everything is written (see commit): an error
// before the swap leaves the destination as it was.
type staging struct {
	ledger
	dest, dir string
	// made is the directories created so far: a model's seven files
	// share one, and a mkdir per file was a third of a one-model build.
	mu   sync.Mutex
	made map[string]bool
}

// mkdir creates dir and its missing parents inside the staging directory
// with one mkdir each and no stat: the staging directory starts empty, so
// made knows which exist.
func (st *staging) mkdir(dir string) error {
	st.mu.Lock()
	made := st.made[dir] || dir == st.dir
	st.mu.Unlock()
	if made {
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := st.mkdir(parent); err != nil {
			return err
		}
	}
	// Another worker may have made it meanwhile.
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	st.mu.Lock()
	if st.made == nil {
		st.made = map[string]bool{}
	}
	st.made[dir] = true
	st.mu.Unlock()
	return nil
}

// stage creates the staging directory for dest.
func stage(dest string) (*staging, error) {
	dest = filepath.Clean(dest)
	if _, err := repairSwap(dest); err != nil {
		return nil, err
	}
	if err := checkReplaceable(dest); err != nil {
		return nil, err
	}
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", parent, err)
	}
	dir, err := os.MkdirTemp(parent, "."+filepath.Base(dest)+".new-")
	if err != nil {
		return nil, fmt.Errorf("create staging directory: %w", err)
	}
	spread(dir)
	return &staging{dest: dest, dir: dir}, nil
}

func (st *staging) path(name string) (string, error) {
	p := filepath.Join(st.dir, filepath.FromSlash(name))
	if err := st.mkdir(filepath.Dir(p)); err != nil {
		return "", err
	}
	return p, nil
}

func (st *staging) put(name string, b []byte) error { return st.putSum(name, b, sumOf(b)) }

func (st *staging) putSum(name string, b []byte, sum string) error {
	if err := st.record(name, sum); err != nil {
		return err
	}
	p, err := st.path(name)
	if err != nil {
		return err
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return st.setStamp(name, p)
}

func (st *staging) write(name string, fill func(io.Writer) error) error {
	p, err := st.path(name)
	if err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	h := newSum()
	bw := bufio.NewWriterSize(io.MultiWriter(f, h), 64<<10)
	if err := fill(bw); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := st.record(name, sumString(h)); err != nil {
		return err
	}
	return st.setStamp(name, p)
}

// reuse hardlinks the previous file into the staging directory (both are
// siblings, so on one file system); where links fail it copies the file
// without holding it in memory.
func (st *staging) reuse(name, from, sum string, known *stamp) error {
	if err := st.record(name, sum); err != nil {
		return err
	}
	p, err := st.path(name)
	if err != nil {
		return err
	}
	if os.Link(from, p) != nil {
		if err := copyFile(from, p); err != nil {
			return err
		}
		known = nil // a copy has a stamp of its own
	}
	if known != nil {
		st.keepStamp(name, *known)
		return nil
	}
	return st.setStamp(name, p)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("reuse %s: %w", from, err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", to, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s to %s: %w", from, to, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("write %s: %w", to, err)
	}
	return nil
}

// commit runs finish on the staged output (the search index), then swaps
// it in for the destination and returns the published paths, sorted.
func (st *staging) commit(finish func(staged string) error) ([]string, error) {
	if finish != nil {
		if err := finish(st.dir); err != nil {
			return nil, err
		}
	}
	if err := os.Chmod(st.dir, 0o755); err != nil {
		return nil, fmt.Errorf("chmod %s: %w", st.dir, err)
	}
	old := ""
	if _, err := os.Stat(st.dest); err == nil {
		old = st.dir + ".old"
		if err := os.Rename(st.dest, old); err != nil {
			return nil, fmt.Errorf("move previous output aside: %w", err)
		}
	}
	if err := os.Rename(st.dir, st.dest); err != nil {
		if old != "" {
			os.Rename(old, st.dest) // put the previous output back
		}
		return nil, fmt.Errorf("swap in new output: %w", err)
	}
	if old != "" {
		if err := removeTree(old); err != nil {
			return nil, fmt.Errorf("remove previous output: %w", err)
		}
	}
	return sortedNames(st.sums()), nil
}

// removeWorkers is how many directories removeTree removes at once. An
// unlink mostly waits: on a file system mounted with discard (the
// development VM's), freeing a file's blocks waits for the device, which
// takes many such requests at once. Removing a 1 GB output took 1.9 s one
// directory at a time, 1.1 s two at a time and 0.7 s sixteen at a time.
const removeWorkers = 16

// removeTree is os.RemoveAll over the directories two levels down at
// once: the previous output has a directory per model under models/, and
// unlinking its thousands of files one by one was a sixth of a one-model
// rebuild.
func removeTree(dir string) error {
	subdirs, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	errs := make([]error, len(subdirs))
	parallelN(len(subdirs), removeWorkers, func(i int) { errs[i] = os.RemoveAll(subdirs[i]) })
	if err := firstError(errs); err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

// discard removes the staging directory; a no-op after a commit.
func (st *staging) discard() { os.RemoveAll(st.dir) }

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
