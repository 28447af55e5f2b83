package e2e

import (
	"bytes"
	"context"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dossier/generator/serve"
)

const (
	k3Source  = "content/models/kimi-k3.md"
	titleLine = `title: "Kimi K3"`
)

// copySite copies the shipped site's inputs (hugo-like.yaml, content/,
// data/, templates/) into a temporary root. Only the K3 dossier is kept,
// so that each rebuild is quick.
func copySite(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs(siteRoot)
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	copyFile(t, filepath.Join(src, "hugo-like.yaml"), filepath.Join(dst, "hugo-like.yaml"))
	for _, d := range []string{"content", "data", "templates"} {
		err := filepath.WalkDir(filepath.Join(src, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			if e.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			if filepath.Dir(rel) == filepath.Join("content", "models") && rel != filepath.FromSlash(k3Source) {
				return nil
			}
			copyFile(t, p, filepath.Join(dst, rel))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// editFile replaces old with new in root/rel, atomically; old must occur.
func editFile(t *testing.T, root, rel, old, new string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s: no %q to replace", rel, old)
	}
	// Write a sibling and rename it over the file, as many editors save:
	// the watcher never sees a half-written file.
	tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".tmp")
	if err := os.WriteFile(tmp, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

// startServe runs `dossier serve`'s server on 127.0.0.1:0 against root and
// returns its base URL. It stops at the end of the test.
func startServe(t *testing.T, root string) string {
	t.Helper()
	s, err := serve.New(serve.Options{Source: root, Log: logWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Err(); err != nil {
		s.Close()
		t.Fatalf("first build: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("serve did not stop within 5s")
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return "http://" + ln.Addr().String()
}

type logWriter struct{ t *testing.T }

func (l logWriter) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
