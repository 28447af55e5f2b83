package site

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"syscall"
)

// A build writes its output into a staging directory beside the
// destination and then exchanges the two, so that an error before the
// exchange leaves the destination as it was. The staging directory is
// the spare when there is one: the output before last, which the
// previous build kept as .NAME.spare instead of removing it. Most of its
// files already hold what this build publishes (a build keeps them, after
// checking their stamps), and a file that changed is written over where
// only the spare holds it; so an incremental build creates and frees few
// files and directories. On the development VM's ext4 (no journal)
// creating a file right after thousands were freed cost up to 0.5 ms,
// and creating the staging tree and removing the previous one were most
// of a one-model rebuild (README, Performance).

// spareOf is where dest's previous output waits to become the next
// build's staging directory.
func spareOf(dest string) string {
	return filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".spare")
}

// filed is what a stamps file records of a published file: its stamp,
// and its sum, so that a later build can keep the file when it stages
// into this output as its spare.
type filed struct {
	stamp
	Sum string `json:"sum"`
}

type staging struct {
	ledger
	dest, dir string
	// held is what the spare held when it was claimed, as its own build
	// recorded it; nil when nothing in it may be kept (no spare, no
	// record, or a build that trusts nothing from earlier builds).
	held      map[string]filed
	claimed   bool // dir is the spare, not a new directory
	committed bool
	swap      func(a, b string) error // exchange, but in tests
	// made is the directories known to exist: a model's seven files
	// share one, and a mkdir per file was a third of a one-model build.
	mu   sync.Mutex
	made map[string]bool
}

// stage claims dest's spare as the staging directory, or creates a new
// one. trust says whether the spare's files may be kept (not in a --full
// build, which writes every byte).
func stage(dest string, trust bool) (*staging, error) {
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
	st := &staging{dest: dest, dir: dir, swap: exchange, made: map[string]bool{dir: true}}
	// Renamed to a name of its own, the spare is this build's alone: a
	// build beside it finds none and starts afresh. (os.Rename does not
	// replace a directory, so the new one makes way.) Only a directory a
	// build wrote is claimed: prune would delete anything else in it.
	if !isSpare(spareOf(dest)) || os.Remove(dir) != nil || os.Rename(spareOf(dest), dir) != nil {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create staging directory: %w", err)
		}
		spread(dir)
		return st, nil
	}
	st.claimed = true
	if trust {
		st.held = readFiled(dir)
	}
	return st, nil
}

// isSpare says whether p is a directory, not a link, that holds a
// build's output marker.
func isSpare(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir() && fileExists(filepath.Join(p, filepath.FromSlash(OutputMarker)))
}

// readFiled reads the stamps file of an output; nil when it has none
// that reads (then nothing in it is kept, all is written again).
func readFiled(dir string) map[string]filed {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(StampsPath)))
	if err != nil {
		return nil
	}
	var held map[string]filed
	if json.Unmarshal(b, &held) != nil {
		return nil
	}
	return held
}

// file is where name goes in the staging directory, and what is there
// now (nil when nothing is).
func (st *staging) file(name string) (string, os.FileInfo) {
	p := filepath.Join(st.dir, filepath.FromSlash(name))
	fi, err := os.Lstat(p)
	if err != nil {
		return p, nil
	}
	return p, fi
}

// keep says whether the file at hand (fi) is the spare's copy of name
// with the sum to publish, unchanged since its build recorded it.
func (st *staging) keep(name, sum string, fi os.FileInfo) bool {
	h, ok := st.held[name]
	if !ok || h.Sum != sum || fi == nil || !fi.Mode().IsRegular() || stampOf(fi) != h.stamp {
		return false
	}
	st.keepStamp(name, h.stamp)
	return true
}

// mkdir creates dir and its missing parents inside the staging directory.
func (st *staging) mkdir(dir string) error {
	st.mu.Lock()
	made := st.made[dir]
	st.mu.Unlock()
	if made {
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := st.mkdir(parent); err != nil {
			return err
		}
	}
	// Another worker may have made it meanwhile; the spare may hold a
	// file where this build wants a directory.
	if err := os.Mkdir(dir, 0o755); err != nil {
		if fi, serr := os.Lstat(dir); serr != nil || !fi.IsDir() {
			if serr == nil {
				os.Remove(dir)
				err = os.Mkdir(dir, 0o755)
			}
			if err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("create %s: %w", dir, err)
			}
		}
	}
	st.mu.Lock()
	st.made[dir] = true
	st.mu.Unlock()
	return nil
}

// clear removes what the spare has at p (fi), which is to be replaced.
func clear(p string, fi os.FileInfo) error {
	if fi == nil {
		return nil
	}
	if err := os.RemoveAll(p); err != nil {
		return fmt.Errorf("replace %s: %w", p, err)
	}
	return nil
}

// create opens p to be written from its first byte. A spare's regular
// file that no other directory links (not the destination's, which
// shares the files it did not change) is written over: no inode is
// freed or allocated. Anything else at p is removed first. inPlace says
// which it was; the caller truncates what an overwrite leaves beyond its
// end.
func (st *staging) create(p string, fi os.FileInfo) (f *os.File, inPlace bool, err error) {
	if fi != nil && fi.Mode().IsRegular() && soleLink(fi) {
		if f, err = os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			return f, true, nil
		}
	}
	if err := clear(p, fi); err != nil {
		return nil, false, err
	}
	const flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	f, err = os.OpenFile(p, flags, 0o644)
	if needsDir(err) {
		if err = st.mkdir(filepath.Dir(p)); err != nil {
			return nil, false, err
		}
		f, err = os.OpenFile(p, flags, 0o644)
	}
	if err != nil {
		return nil, false, fmt.Errorf("write %s: %w", p, err)
	}
	return f, false, nil
}

// needsDir says whether err is that of a file created where its
// directory is missing, or where the spare has a file in its place.
func needsDir(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// finish ends a write of n bytes at p: it cuts what an overwrite left
// beyond them, records the file's stamp, and closes it.
func (st *staging) finish(name, p string, f *os.File, n int64, inPlace bool, was os.FileInfo) error {
	if inPlace && was.Size() > n {
		if err := f.Truncate(n); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("stat %s: %w", p, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	st.keepStamp(name, stampOf(fi))
	return nil
}

func (st *staging) put(name string, b []byte) error { return st.putSum(name, b, sumOf(b)) }

func (st *staging) putSum(name string, b []byte, sum string) error {
	if err := st.record(name, sum); err != nil {
		return err
	}
	p, fi := st.file(name)
	if st.keep(name, sum, fi) {
		return nil
	}
	f, inPlace, err := st.create(p, fi)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", p, err)
	}
	return st.finish(name, p, f, int64(len(b)), inPlace, fi)
}

func (st *staging) write(name string, fill func(io.Writer) error) error {
	p, fi := st.file(name)
	f, inPlace, err := st.create(p, fi)
	if err != nil {
		return err
	}
	h := newSum()
	cw := &countingWriter{w: io.MultiWriter(f, h)}
	bw := bufio.NewWriterSize(cw, 64<<10)
	if err := fill(bw); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := st.record(name, sumString(h)); err != nil {
		f.Close()
		return err
	}
	return st.finish(name, p, f, cw.n, inPlace, fi)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (cw *countingWriter) Write(b []byte) (int, error) {
	n, err := cw.w.Write(b)
	cw.n += int64(n)
	return n, err
}

// reuse publishes the previous output's file: the spare's copy when it
// has the same sum, else a hardlink (both directories are siblings, so on
// one file system), else a copy made without holding it in memory.
func (st *staging) reuse(name, from, sum string, known *stamp) error {
	if err := st.record(name, sum); err != nil {
		return err
	}
	p, fi := st.file(name)
	if st.keep(name, sum, fi) {
		return nil
	}
	if err := clear(p, fi); err != nil {
		return err
	}
	err := os.Link(from, p)
	if needsDir(err) {
		if err = st.mkdir(filepath.Dir(p)); err != nil {
			return err
		}
		err = os.Link(from, p)
	}
	if err != nil {
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

// commit removes from the staging directory what this build did not
// publish (the spare's other files), runs finish on it (the search
// index), exchanges it with the destination and keeps the previous
// output as the next spare. It returns the published paths, sorted.
func (st *staging) commit(finish func(staged string) error) ([]string, error) {
	sums := st.sums()
	if err := prune(st.dir, sums); err != nil {
		return nil, err
	}
	if finish != nil {
		if err := finish(st.dir); err != nil {
			return nil, err
		}
	}
	if err := os.Chmod(st.dir, 0o755); err != nil {
		return nil, fmt.Errorf("chmod %s: %w", st.dir, err)
	}
	if _, err := os.Lstat(st.dest); err != nil {
		if err := os.Rename(st.dir, st.dest); err != nil {
			return nil, fmt.Errorf("publish %s: %w", st.dest, err)
		}
		st.committed = true
		return sortedNames(sums), nil
	}
	if st.swap(st.dir, st.dest) != nil {
		// Without an atomic exchange: two renames, which repairSwap
		// completes if the build dies between them.
		old := st.dir + ".old"
		if err := os.Rename(st.dest, old); err != nil {
			return nil, fmt.Errorf("move previous output aside: %w", err)
		}
		if err := os.Rename(st.dir, st.dest); err != nil {
			os.Rename(old, st.dest) // put the previous output back
			return nil, fmt.Errorf("swap in new output: %w", err)
		}
		if err := os.Rename(old, st.dir); err != nil {
			return nil, fmt.Errorf("keep previous output: %w", err)
		}
	}
	st.committed = true
	// st.dir holds the previous output now. A spare that appeared
	// meanwhile (a build beside this one) is kept instead.
	if os.Rename(st.dir, spareOf(st.dest)) != nil {
		if err := removeTree(st.dir); err != nil {
			return nil, fmt.Errorf("remove previous output: %w", err)
		}
	}
	return sortedNames(sums), nil
}

// discard gives back the spare a failed build claimed, for the next
// build (what it changed there has new stamps, so none of it is kept
// unchecked), or removes a new staging directory: a failed build leaves
// nothing that was not there. A no-op after a commit.
func (st *staging) discard() {
	if st.committed {
		return
	}
	if !st.claimed || os.Rename(st.dir, spareOf(st.dest)) != nil {
		os.RemoveAll(st.dir)
	}
}

// prune removes from dir every file and directory that is not, or does
// not hold, one of names: level by level, each level's directories at
// once (see removeWorkers).
func prune(dir string, names map[string]string) error {
	holds := map[string]bool{"": true} // directories that hold a published file
	for n := range names {
		for d := path.Dir(n); d != "."; d = path.Dir(d) {
			if holds[d] {
				break
			}
			holds[d] = true
		}
	}
	level := []string{""}
	for len(level) > 0 {
		next := make([][]string, len(level))
		errs := make([]error, len(level))
		parallelN(len(level), removeWorkers, func(i int) {
			next[i], errs[i] = pruneDir(dir, level[i], names, holds)
		})
		if err := firstError(errs); err != nil {
			return err
		}
		level = level[:0]
		for _, n := range next {
			level = append(level, n...)
		}
	}
	return nil
}

// pruneDir prunes the directory rel of dir and returns its
// subdirectories that stay.
func pruneDir(dir, rel string, names map[string]string, holds map[string]bool) ([]string, error) {
	abs := filepath.Join(dir, filepath.FromSlash(rel))
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, fmt.Errorf("prune %s: %w", abs, err)
	}
	var stay []string
	for _, e := range entries {
		r := path.Join(rel, e.Name())
		if e.IsDir() && holds[r] {
			stay = append(stay, r)
			continue
		}
		if _, ok := names[r]; ok && e.Type().IsRegular() {
			continue
		}
		if err := os.RemoveAll(filepath.Join(abs, e.Name())); err != nil {
			return nil, fmt.Errorf("prune %s: %w", abs, err)
		}
	}
	return stay, nil
}

// removeWorkers is how many directories removeTree and prune work on at
// once. An unlink mostly waits: on a file system mounted with discard
// (the development VM's), freeing a file's blocks waits for the device,
// which takes many such requests at once. Removing a 1 GB output took
// 1.9 s one directory at a time, 1.1 s two at a time and 0.7 s sixteen at
// a time.
const removeWorkers = 16

// removeTree is os.RemoveAll over the directories two levels down at
// once: an output has a directory per model under models/.
func removeTree(dir string) error {
	subdirs, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	errs := make([]error, len(subdirs))
	parallelN(len(subdirs), removeWorkers, func(i int) { errs[i] = os.RemoveAll(subdirs[i]) })
	if err := firstError(errs); err != nil {
		return err
	}
	return os.RemoveAll(dir)
}
