// Package safefile reads the generator's input files: regular files that
// stay inside the directory they were found in, read up to a stated size.
// A template linked to /proc/self/environ would otherwise publish the
// build's environment (HF_TOKEN included), and a page linked to /dev/zero
// would be read until the process runs out of memory.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Limit is the most an input of one kind may hold, and what that kind is
// called in errors.
type Limit struct {
	Bytes int64
	What  string
}

// The limits of every kind of input: far above any real file (the largest
// page is 24 KB, the largest Hub snapshot 13 KB, hardware.yaml 27 KB), far
// below what would exhaust memory.
var (
	Page     = Limit{8 << 20, "a content page"}
	Catalog  = Limit{8 << 20, "a catalog"}
	Snapshot = Limit{64 << 20, "a Hub snapshot"} // as large as a Hub API answer (hub.maxInfoBytes)
	Config   = Limit{10 << 20, "a model config"} // as large as the Hub download of one (hub.maxConfigBytes)
	Site     = Limit{1 << 20, "a site configuration"}
	Template = Limit{1 << 20, "a template"}
	CacheRef = Limit{4 << 10, "a cached ref"}
	Token    = Limit{4 << 10, "a Hub token file"}
	// Largest is the largest of the above, for a reader of any input
	// (the build's hash of what its pages depend on).
	Largest = Limit{Snapshot.Bytes, "an input"}
)

// systemTrees are never inputs, wherever a link points: their files are
// the process's environment and memory, or devices without an end.
var systemTrees = []string{"/proc", "/sys", "/dev"}

// Error says why an input file was refused; Path is the file as named.
type Error struct {
	Path   string
	Reason string
}

func (e *Error) Error() string { return e.Path + ": " + e.Reason }

// Read returns the contents of the regular file at path. within is the
// directory the file was found in (a data, content or templates directory,
// the user cache): a symbolic link leading out of it is refused; "" allows
// any place but the system trees (a file named on the command line). A
// file larger than limit is refused, and so is a read that grows past it.
func Read(path, within string, limit Limit) ([]byte, error) {
	f, err := Open(path, within)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if st.Size() > limit.Bytes {
		return nil, tooLarge(path, fmt.Sprintf("%d bytes", st.Size()), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit.Bytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit.Bytes {
		return nil, tooLarge(path, "more than that", limit) // it grew while read
	}
	return b, nil
}

func tooLarge(path, size string, limit Limit) error {
	return &Error{Path: path, Reason: fmt.Sprintf("%s, above the limit of %d bytes (%s) for %s", size, limit.Bytes, mib(limit.Bytes), limit.What)}
}

func mib(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// Open opens path for reading after the checks Read describes; the
// caller bounds what it reads. A missing file is an error wrapping
// fs.ErrNotExist.
func Open(path, within string) (*os.File, error) {
	real, err := Check(path, within)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	// The file checked may have been swapped before the open.
	st, serr := f.Stat()
	want, werr := os.Stat(real)
	if serr != nil || werr != nil || !st.Mode().IsRegular() || !os.SameFile(st, want) {
		f.Close()
		return nil, &Error{Path: path, Reason: "changed while it was opened; refusing"}
	}
	return f, nil
}

// Check returns the real path of path (links resolved) when it is a
// regular file inside within (see Read), and an *Error naming path
// otherwise.
func Check(path, within string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// A dangling link is no input either, but its name is what to fix.
			if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(path)
				return "", &Error{Path: path, Reason: fmt.Sprintf("a symbolic link to %s, which does not exist", target)}
			}
		}
		return "", err
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return "", err
	}
	link := ""
	if real != absClean(path) {
		link = "a symbolic link to " + real + ", "
	}
	for _, t := range systemTrees {
		if inside(real, t) {
			return "", &Error{Path: path, Reason: link + "in " + t + ": not an input file (inputs are regular files inside the site)"}
		}
	}
	if within != "" {
		dir, err := filepath.EvalSymlinks(within)
		if err != nil {
			return "", fmt.Errorf("%s: %w", within, err)
		}
		if dir, err = filepath.Abs(dir); err != nil {
			return "", err
		}
		if !inside(real, dir) {
			return "", &Error{Path: path, Reason: link + "outside " + within + ": refusing (inputs are regular files inside the site)"}
		}
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", &Error{Path: path, Reason: link + "not a regular file (" + kind(st.Mode()) + "): refusing"}
	}
	return real, nil
}

func absClean(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return a
}

func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// FS is a read-only file system of the regular files under Dir, read
// through Read with Limit; fs.ReadFile, fs.Glob and fs.ReadDir work on it.
type FS struct {
	Dir   string
	Limit Limit
}

// ReadFile implements fs.ReadFileFS.
func (d FS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	return Read(filepath.Join(d.Dir, filepath.FromSlash(name)), d.Dir, d.Limit)
}

// Open implements fs.FS; it checks files as Read does (not their size:
// ReadFile is the bounded read).
func (d FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	p := filepath.Join(d.Dir, filepath.FromSlash(name))
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return os.DirFS(d.Dir).Open(name)
	}
	return Open(p, d.Dir)
}

// ReadDir implements fs.ReadDirFS.
func (d FS) ReadDir(name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(os.DirFS(d.Dir), name)
}

// Stat implements fs.StatFS.
func (d FS) Stat(name string) (fs.FileInfo, error) {
	return fs.Stat(os.DirFS(d.Dir), name)
}
