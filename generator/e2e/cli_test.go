package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"dossier/generator/cli"
	"dossier/generator/serve"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var servingLine = regexp.MustCompile(`serving .* at (http://127\.0\.0\.1:\d+/) \(Ctrl\+C to stop; builds in (\S+)\)`)

// TestServeCommand runs `dossier serve --port 0` through the command line,
// fetches a page and stops it by canceling its context, as Ctrl+C does.
func TestServeCommand(t *testing.T) {
	root := copySite(t)
	var stdout, stderr syncBuffer
	cmd := cli.New(&stdout, &stderr)
	cmd.SetArgs([]string{"serve", "--port", "0", "--source", root})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()

	var m []string
	for deadline := time.Now().Add(20 * time.Second); m == nil; {
		if m = servingLine.FindStringSubmatch(stdout.String()); m != nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited early: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no URL printed within 20s\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
		}
	}
	url, tmp := m[1], m[2]
	resp, err := http.Get(url + "models/kimi-k3/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), serve.ScriptTag) {
		t.Errorf("GET %smodels/kimi-k3/: %d, reload script %v", url, resp.StatusCode, strings.Contains(string(body), serve.ScriptTag))
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("build directory: %v", err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10s of the cancel")
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("build directory %s left after exit (%v)", tmp, err)
	}
	if !strings.Contains(stderr.String(), "dossier serve: built") {
		t.Errorf("no build line on stderr: %q", stderr.String())
	}
}

func TestServeCommandRejectsBadPort(t *testing.T) {
	var out bytes.Buffer
	if code := cli.Execute([]string{"serve", "--port", "70000", "--source", copySite(t)}, &out, &out); code != 2 {
		t.Errorf("--port 70000: exit %d, want 2 (%s)", code, out.String())
	}
}
