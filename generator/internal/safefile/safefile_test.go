package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

var small = Limit{16, "a test file"}

func TestRead(t *testing.T) {
	site := t.TempDir()
	outside := t.TempDir()
	dir := filepath.Join(site, "data")
	write(t, filepath.Join(dir, "a.yaml"), "a: 1\n")
	write(t, filepath.Join(dir, "sub", "b.yaml"), "b: 2\n")
	write(t, filepath.Join(dir, "big.yaml"), strings.Repeat("x", 17))
	write(t, filepath.Join(outside, "secret"), "s3cret\n")
	write(t, filepath.Join(site, "other.yaml"), "o: 3\n")
	link(t, "sub/b.yaml", filepath.Join(dir, "inside-link.yaml"))
	link(t, filepath.Join(outside, "secret"), filepath.Join(dir, "outside-link.yaml"))
	link(t, "../other.yaml", filepath.Join(dir, "up-link.yaml"))
	link(t, "/proc/self/environ", filepath.Join(dir, "environ.yaml"))
	link(t, "/dev/zero", filepath.Join(dir, "zero.yaml"))
	link(t, "nowhere.yaml", filepath.Join(dir, "dangling.yaml"))
	pipe := mkfifo(filepath.Join(dir, "pipe.yaml")) == nil
	// A data directory that is itself a link elsewhere is still "inside".
	link(t, dir, filepath.Join(site, "data-link"))

	for _, tc := range []struct {
		path, within string
		want         string // the contents, or "error: " and a substring of the message
	}{
		{filepath.Join(dir, "a.yaml"), dir, "a: 1\n"},
		{filepath.Join(dir, "inside-link.yaml"), dir, "b: 2\n"},
		{filepath.Join(site, "data-link", "a.yaml"), filepath.Join(site, "data-link"), "a: 1\n"},
		{filepath.Join(dir, "up-link.yaml"), site, "o: 3\n"},
		{filepath.Join(dir, "outside-link.yaml"), "", "s3cret\n"}, // a file named on the command line
		{filepath.Join(dir, "up-link.yaml"), dir, "error: outside " + dir},
		{filepath.Join(dir, "outside-link.yaml"), dir, "error: a symbolic link to " + filepath.Join(outside, "secret") + ", outside"},
		{filepath.Join(dir, "environ.yaml"), dir, "error: in /proc"},
		{filepath.Join(dir, "environ.yaml"), "", "error: in /proc"},
		{filepath.Join(dir, "zero.yaml"), "", "error: in /dev"},
		{"/dev/zero", "", "error: /dev/zero: in /dev"},
		{filepath.Join(dir, "pipe.yaml"), dir, "error: not a regular file (a named pipe)"},
		{filepath.Join(dir, "sub"), dir, "error: not a regular file (a directory)"},
		{filepath.Join(dir, "dangling.yaml"), dir, "error: a symbolic link to nowhere.yaml, which does not exist"},
		{filepath.Join(dir, "big.yaml"), dir, "error: 17 bytes, above the limit of 16 bytes (16 B) for a test file"},
	} {
		if strings.HasSuffix(tc.path, "pipe.yaml") && !pipe {
			continue // no named pipes on this system
		}
		b, err := Read(tc.path, tc.within, small)
		got := string(b)
		if err != nil {
			got = "error: " + err.Error()
			if !strings.Contains(got, tc.path) {
				t.Errorf("Read(%s): %q does not name the file", tc.path, got)
			}
		}
		if want, isErr := strings.CutPrefix(tc.want, "error: "); isErr {
			if err == nil || !strings.Contains(got, want) {
				t.Errorf("Read(%s, %s) = %q, want an error with %q", tc.path, tc.within, got, want)
			}
			if strings.Contains(got, "s3cret") {
				t.Errorf("Read(%s): the error holds the file's contents", tc.path)
			}
		} else if got != tc.want {
			t.Errorf("Read(%s, %s) = %q, want %q", tc.path, tc.within, got, tc.want)
		}
	}
	if _, err := Read(filepath.Join(dir, "missing.yaml"), dir, small); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}

// FS lists what os.DirFS lists and reads through Read.
func TestFS(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "pricing", "a.json"), "{}")
	link(t, "/proc/self/environ", filepath.Join(dir, "pricing", "b.json"))
	fsys := FS{Dir: dir, Limit: small}
	names, err := fs.Glob(fsys, "pricing/*.json")
	if err != nil || strings.Join(names, " ") != "pricing/a.json pricing/b.json" {
		t.Fatalf("Glob = %v, %v", names, err)
	}
	if b, err := fs.ReadFile(fsys, "pricing/a.json"); err != nil || string(b) != "{}" {
		t.Errorf("ReadFile(a.json) = %q, %v", b, err)
	}
	if _, err := fs.ReadFile(fsys, "pricing/b.json"); err == nil || !strings.Contains(err.Error(), "/proc") {
		t.Errorf("ReadFile(b.json) = %v, want a refusal", err)
	}
	if _, err := fs.ReadFile(fsys, "../x"); err == nil {
		t.Error("ReadFile(../x) succeeded")
	}
}
