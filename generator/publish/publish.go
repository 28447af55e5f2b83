// Package publish replaces a directory with a new one as a whole.
//
// Acquire takes an advisory lock on the destination (a file .NAME.lock
// beside it, which records the holder); Cleanup repairs what a build
// killed during an exchange left and removes the staging directories of
// builds that are no longer running; Lock.Stage creates a staging
// directory beside the destination. The caller fills it (Link); Commit
// exchanges it with the destination at once (renameat2 RENAME_EXCHANGE
// where the file system has it, else two renames that the next Stage
// completes after a crash) and removes the previous output. A build that
// fails before Commit leaves the destination as it was (Discard). Release
// unlocks.
//
// Staging directories are named .NAME.new-PID-START-N: the owner's process
// id and its start time, so a leftover is removed only when its owner is
// gone (a process id reused by another program does not keep it).
package publish

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync"
)

// Marker is written into every output; a directory that exists, is not
// empty and lacks it was not written by a build and is never replaced: a
// mistyped destination must not delete someone's files.
const Marker = ".dossier/OUTPUT"

// MarkerText is the marker's content.
const MarkerText = "Written by dossier. This directory is replaced as a whole on every build.\n"

// Staging is a directory being filled to replace Dest.
type Staging struct {
	Dest, Dir string
	committed bool
	exchange  func(a, b string) error // exchange, but in tests
	// made holds the directories made so far: a page's files share one,
	// and a mkdir per file is a system call per file.
	made sync.Map
}

// Stage creates a staging directory beside the locked destination; the
// caller has run Cleanup under the lock.
func (l *Lock) Stage() (*Staging, error) {
	dest := l.dest
	if err := CheckReplaceable(dest); err != nil {
		return nil, err
	}
	self := Self()
	for n := 0; ; n++ {
		dir := filepath.Join(filepath.Dir(dest), fmt.Sprintf(".%s.new-%d-%d-%d", filepath.Base(dest), self.PID, self.Start, n))
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			return &Staging{Dest: dest, Dir: dir, exchange: exchange}, nil
		}
		if !errors.Is(err, fs.ErrExist) || n > 100 {
			return nil, fmt.Errorf("create staging directory: %w", err)
		}
	}
}

// CheckReplaceable refuses to replace an existing directory that a build
// did not write.
func CheckReplaceable(dest string) error {
	st, err := os.Stat(dest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("destination %s: %w", dest, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("destination %s exists and is not a directory", dest)
	}
	if _, err := os.Stat(filepath.Join(dest, filepath.FromSlash(Marker))); err == nil {
		return nil
	}
	entries, err := os.ReadDir(dest)
	if err != nil {
		return fmt.Errorf("destination %s: %w", dest, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("destination %s is not empty and was not written by dossier (no %s): refusing to replace it; remove it or choose another directory", dest, Marker)
	}
	return nil
}

// path is where name goes in the staging directory, its directory made.
func (st *Staging) path(name string) (string, error) {
	if !filepath.IsLocal(name) {
		return "", fmt.Errorf("output path %q escapes the publish directory", name)
	}
	p := filepath.Join(st.Dir, filepath.FromSlash(name))
	dir := filepath.Dir(p)
	if _, ok := st.made.Load(dir); !ok {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("create %s: %w", dir, err)
		}
		st.made.Store(dir, true)
	}
	return p, nil
}

// Link publishes the file at from as name: a hard link (a file unchanged
// since the last build is the same file), else a copy.
func (st *Staging) Link(name, from string) error {
	p, err := st.path(name)
	if err != nil {
		return err
	}
	err = os.Link(from, p)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("output path %q is written twice", name)
	}
	if err == nil {
		return nil
	}
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("publish %s: %w", name, err)
	}
	defer in.Close()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("output path %q is written twice", name)
	}
	if err == nil {
		_, err = io.Copy(f, in)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// Commit replaces the destination with the staging directory and removes
// the previous output.
func (st *Staging) Commit() error {
	if err := os.Chmod(st.Dir, 0o755); err != nil {
		return fmt.Errorf("chmod %s: %w", st.Dir, err)
	}
	if _, err := os.Lstat(st.Dest); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(st.Dir, st.Dest); err != nil {
			return fmt.Errorf("publish %s: %w", st.Dest, err)
		}
		st.committed = true
		return nil
	}
	if st.exchange(st.Dir, st.Dest) != nil {
		// Without an atomic exchange: two renames, which Cleanup
		// completes if the build dies between them.
		old := st.Dir + ".old"
		if err := os.Rename(st.Dest, old); err != nil {
			return fmt.Errorf("move previous output aside: %w", err)
		}
		if err := os.Rename(st.Dir, st.Dest); err != nil {
			os.Rename(old, st.Dest) // put the previous output back
			return fmt.Errorf("swap in new output: %w", err)
		}
		st.Dir = old
	}
	st.committed = true
	// st.Dir holds the previous output now.
	if err := os.RemoveAll(st.Dir); err != nil {
		return fmt.Errorf("remove previous output %s: %w", st.Dir, err)
	}
	return nil
}

// Discard removes an uncommitted staging directory: a failed build leaves
// nothing that was not there. A no-op after Commit.
func (st *Staging) Discard() {
	if !st.committed {
		os.RemoveAll(st.Dir)
	}
}

// Cleanup finishes what a build killed during an exchange left behind and
// removes the staging directories of builds no longer running. Where the
// file system cannot exchange two directories, a build moves dest aside to
// its staging name + ".old" and then renames the staging directory to
// dest: killed between the two renames there is no dest, and the previous
// output, whole, is put back. The caller holds the lock. It returns what
// it did.
func Cleanup(dest string) ([]string, error) {
	parent, base := filepath.Dir(dest), filepath.Base(dest)
	entries, err := os.ReadDir(parent)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look for an interrupted build beside %s: %w", dest, err)
	}
	// Earlier versions named staging directories .NAME.new-N, without an
	// owner, and kept the output before last as .NAME.spare.
	re := regexp.MustCompile(`^\.` + regexp.QuoteMeta(base) + `\.new-([0-9]+)(?:-([0-9]+)-[0-9]+)?(\.old)?$`)
	var olds, dead []string
	if spare := filepath.Join(parent, "."+base+".spare"); fileExists(filepath.Join(spare, filepath.FromSlash(Marker))) {
		dead = append(dead, spare)
	}
	for _, e := range entries {
		m := re.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		pid, _ := strconv.Atoi(m[1])
		start, _ := strconv.ParseUint(m[2], 10, 64)
		if m[2] != "" && Running(Owner{PID: pid, Start: start}) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		if m[3] != "" {
			olds = append(olds, p)
		} else {
			dead = append(dead, p)
		}
	}
	sort.Strings(olds)
	var did []string
	if _, err := os.Lstat(dest); errors.Is(err, fs.ErrNotExist) && len(olds) > 0 {
		last := olds[len(olds)-1]
		if _, err := os.Stat(filepath.Join(last, filepath.FromSlash(Marker))); err == nil {
			if err := os.Rename(last, dest); err != nil {
				return nil, fmt.Errorf("restore the output an interrupted build moved aside (%s): %w", last, err)
			}
			did = append(did, "restored "+dest+" from "+last)
			olds = olds[:len(olds)-1]
		}
	}
	for _, p := range append(olds, dead...) {
		if err := os.RemoveAll(p); err != nil {
			return nil, fmt.Errorf("remove %s left by an interrupted build: %w", p, err)
		}
		did = append(did, "removed "+p)
	}
	return did, nil
}

// Unchanged says whether dest holds exactly the files of want (published
// path → the file it is to be), each the very same file, as a hard link
// from the cache makes it: then publishing would change nothing.
func Unchanged(dest string, want map[string]string) bool {
	n := 0
	same := true
	err := filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dest, p)
		rel = filepath.ToSlash(rel)
		from, ok := want[rel]
		if !ok || !d.Type().IsRegular() {
			same = false
			return filepath.SkipAll
		}
		a, errA := d.Info()
		b, errB := os.Stat(from)
		if errA != nil || errB != nil || !os.SameFile(a, b) {
			same = false
			return filepath.SkipAll
		}
		n++
		return nil
	})
	return err == nil && same && n == len(want)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
