package e2e

import (
	"context"
	"dossier/generator/internal/sitetest"
	"net"
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

// copySite copies the fixture site (testdata/site) into a temporary root, with
// only the K3 dossier, so each build is quick.
func copySite(t *testing.T) string {
	return sitetest.Fixture(t, func(rel string) bool { return rel == k3Source })
}

// editFile replaces old with new in root/rel as an editor saves.
func editFile(t *testing.T, root, rel, old, new string) {
	sitetest.Edit(t, filepath.Join(root, filepath.FromSlash(rel)), old, new)
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
