package serve

import (
	"bufio"
	"bytes"
	"context"
	"dossier/generator/internal/sitetest"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	k3Page     = "/models/kimi-k3/"
	k3Source   = "content/models/kimi-k3.md"
	titleLine  = `title: "Kimi K3"`
	eventLimit = 15 * time.Second
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

// start builds root and serves it with httptest.
func start(t *testing.T, root string) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(Options{Source: root, Debounce: 30 * time.Millisecond, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Err(); err != nil {
		s.Close()
		t.Fatalf("first build: %v", err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close) // runs after s.Close, which ends the event streams
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, ts
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

type sse struct {
	name, data string
}

// listen opens the event stream and returns its events. The stream has
// been answered (headers read) when listen returns.
func listen(t *testing.T, base string) <-chan sse {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+EventsPath, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("events: status %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("events: Content-Type %q", ct)
	}
	out := make(chan sse, 16)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		var ev sse
		var data []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" || data != nil {
					ev.data = strings.Join(data, "\n")
					select {
					case out <- ev:
					case <-ctx.Done():
						return
					}
				}
				ev, data = sse{}, nil
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = append(data, strings.TrimPrefix(line, "data: "))
			}
		}
	}()
	return out
}

// next waits for the next event named name, skipping others.
func next(t *testing.T, events <-chan sse, name string) sse {
	t.Helper()
	deadline := time.After(eventLimit)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("event stream ended before a %q event", name)
			}
			if ev.name == name {
				return ev
			}
			t.Logf("skipping event %q: %q", ev.name, ev.data)
		case <-deadline:
			t.Fatalf("no %q event within %s", name, eventLimit)
		}
	}
}

func TestEditIsRebuiltAndServed(t *testing.T) {
	root := copySite(t)
	_, ts := start(t, root)
	code, _, body := get(t, ts.URL+k3Page)
	if code != 200 || !strings.Contains(body, "<h1") || !strings.Contains(body, "Kimi K3") {
		t.Fatalf("GET %s: %d, page without the K3 title", k3Page, code)
	}
	events := listen(t, ts.URL)
	editFile(t, root, k3Source, titleLine, `title: "Kimi K3, edited"`)
	next(t, events, EventReload) // from the watcher, not a direct Rebuild
	_, _, body = get(t, ts.URL+k3Page)
	if !strings.Contains(body, "Kimi K3, edited") {
		t.Fatalf("after the edit, %s does not show the new title", k3Page)
	}
}

func TestBrokenEditKeepsLastGoodBuild(t *testing.T) {
	root := copySite(t)
	s, ts := start(t, root)
	_, _, good := get(t, ts.URL+k3Page)
	events := listen(t, ts.URL)

	editFile(t, root, k3Source, titleLine, titleLine+"\nnotAField: 1")
	ev := next(t, events, EventError)
	if !strings.Contains(ev.data, "kimi-k3.md") {
		t.Errorf("error event does not name the file: %q", ev.data)
	}
	if s.Err() == nil {
		t.Error("Err() is nil after a failed build")
	}
	code, _, body := get(t, ts.URL+k3Page)
	if code != 200 || body != good {
		t.Errorf("after a broken edit, %s is not the last good page (status %d)", k3Page, code)
	}

	// A page opened while the build is broken gets the error at once.
	late := listen(t, ts.URL)
	if ev2 := next(t, late, EventError); ev2.data != s.Err().Error() {
		t.Errorf("late subscriber got %q, want the current error %q", ev2.data, s.Err())
	}

	// Fixing the file reloads.
	editFile(t, root, k3Source, titleLine+"\nnotAField: 1", `title: "Kimi K3 fixed"`)
	next(t, events, EventReload)
	if s.Err() != nil {
		t.Errorf("Err() after the fix: %v", s.Err())
	}
	if _, _, body := get(t, ts.URL+k3Page); !strings.Contains(body, "Kimi K3 fixed") {
		t.Error("the fixed build is not served")
	}
}

func TestScriptInjectedInHTMLOnly(t *testing.T) {
	s, ts := start(t, copySite(t))
	for _, p := range []string{"/", "/index.html", k3Page, k3Page + "index.html"} {
		code, h, body := get(t, ts.URL+p)
		if code != 200 {
			t.Errorf("GET %s: status %d", p, code)
			continue
		}
		if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("GET %s: Content-Type %q", p, ct)
		}
		if n := strings.Count(body, ScriptTag); n != 1 {
			t.Errorf("GET %s: reload script %d times, want 1", p, n)
		}
		if !strings.Contains(body, ScriptTag+"\n</body>") {
			t.Errorf("GET %s: reload script not right before </body>", p)
		}
	}
	for _, p := range []string{"/style.css", "/index.md", k3Page + "index.md", k3Page + "facts.json"} {
		code, _, body := get(t, ts.URL+p)
		if code != 200 {
			t.Errorf("GET %s: status %d", p, code)
		}
		if strings.Contains(body, Prefix) {
			t.Errorf("GET %s: non-HTML response carries the reload script", p)
		}
	}
	// Not in the files on disk.
	err := filepath.WalkDir(s.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(Prefix)) {
			t.Errorf("%s on disk carries the reload script", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The script itself, a directory without its slash, a missing page.
	code, h, js := get(t, ts.URL+ScriptPath)
	if code != 200 || !strings.Contains(h.Get("Content-Type"), "javascript") || !strings.Contains(js, EventsPath) {
		t.Errorf("GET %s: %d %q", ScriptPath, code, h.Get("Content-Type"))
	}
	if strings.Contains(js, "innerHTML") {
		t.Error("reload script uses innerHTML")
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(ts.URL + strings.TrimSuffix(k3Page, "/"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusMovedPermanently || loc != k3Page {
		t.Errorf("directory without slash: %d Location %q, want 301 %s", resp.StatusCode, loc, k3Page)
	}
	if code, _, body := get(t, ts.URL+"/no/such/page/"); code != 404 || !strings.Contains(body, ScriptTag) {
		t.Errorf("missing page: status %d, script %v", code, strings.Contains(body, ScriptTag))
	}
	if code, _, _ := get(t, ts.URL+"/../../../etc/passwd"); code != 404 {
		t.Errorf("path outside the build: status %d", code)
	}
}

func TestEventsOverSSE(t *testing.T) {
	s, ts := start(t, copySite(t))
	a, b := listen(t, ts.URL), listen(t, ts.URL)
	if err := s.Rebuild(); err != nil {
		t.Fatal(err)
	}
	ra, rb := next(t, a, EventReload), next(t, b, EventReload)
	if ra.data != "2" || rb.data != "2" {
		t.Errorf("reload data %q and %q, want the build number 2", ra.data, rb.data)
	}
	// A multi-line message arrives whole.
	s.broadcast(event{EventError, "line one\nline two\r\nline three"})
	if ev := next(t, a, EventError); ev.data != "line one\nline two\nline three" {
		t.Errorf("multi-line data %q", ev.data)
	}
	// Close ends the streams.
	s.Close()
	select {
	case _, ok := <-b:
		for ok {
			_, ok = <-b
		}
	case <-time.After(5 * time.Second):
		t.Error("event stream still open after Close")
	}
}

func TestInject(t *testing.T) {
	for in, want := range map[string]string{
		"<html><body><p>x</p></body></html>": "<html><body><p>x</p>" + ScriptTag + "\n</body></html>",
		"<BODY>x</BODY>":                     "<BODY>x" + ScriptTag + "\n</BODY>",
		"<p>no body":                         "<p>no body\n" + ScriptTag,
		"<p>&lt;/body&gt;</p></body>":        "<p>&lt;/body&gt;</p>" + ScriptTag + "\n</body>",
	} {
		if got := string(Inject([]byte(in))); got != want {
			t.Errorf("Inject(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestServeOnListenerAndClose(t *testing.T) {
	s, err := New(Options{Source: copySite(t)})
	if err != nil {
		t.Fatal(err)
	}
	tmp := s.tmp
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	if code, _, _ := get(t, base+k3Page); code != 200 {
		t.Fatalf("GET %s: %d", k3Page, code)
	}
	events := listen(t, base) // an open stream must not block the stop
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	for range events {
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("build directory %s left after Close (%v)", tmp, err)
	}
	if s.Close() != nil {
		t.Error("second Close failed")
	}
}

func TestBadSourceFails(t *testing.T) {
	if _, err := New(Options{Source: t.TempDir()}); err == nil {
		t.Fatal("New on a directory without hugo-like.yaml: no error")
	}
}

func TestConfigAndTemplateEditsRebuild(t *testing.T) {
	root := copySite(t)
	_, ts := start(t, root)
	events := listen(t, ts.URL)

	editFile(t, root, "hugo-like.yaml", `title: "dossier: fact-checked model dossiers"`, `title: "dossier: edited site title"`)
	next(t, events, EventReload)
	if _, _, body := get(t, ts.URL+"/"); !strings.Contains(body, "dossier: edited site title") {
		t.Error("a hugo-like.yaml edit is not served")
	}

	css := filepath.Join(root, "templates", "style.css")
	b, err := os.ReadFile(css)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(css, append(b, "\n/* edited */\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	next(t, events, EventReload)
	if _, _, body := get(t, ts.URL+"/style.css"); !strings.Contains(body, "/* edited */") {
		t.Error("a templates/ edit is not served")
	}

	// A file in a directory made after the start is watched too.
	sub := filepath.Join(root, "data", "pricing", "later")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	next(t, events, EventReload) // the new directory
	if err := os.WriteFile(filepath.Join(sub, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	next(t, events, EventReload)
}

func TestStartsWithBrokenSite(t *testing.T) {
	root := copySite(t)
	editFile(t, root, k3Source, titleLine, titleLine+"\nnotAField: 1")
	s, err := New(Options{Source: root, Debounce: 30 * time.Millisecond, Log: testLog{t}})
	if err != nil {
		t.Fatalf("New with a broken page: %v (want a server that reports the error)", err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { s.Close() })
	if s.Err() == nil || s.Dir() != "" {
		t.Fatalf("Err %v, Dir %q: want an error and no build", s.Err(), s.Dir())
	}
	code, _, body := get(t, ts.URL+k3Page)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "kimi-k3.md") || !strings.Contains(body, ScriptTag) {
		t.Errorf("before a good build: status %d, body %q", code, body)
	}
	events := listen(t, ts.URL)
	next(t, events, EventError) // sent on connect
	editFile(t, root, k3Source, titleLine+"\nnotAField: 1", titleLine)
	next(t, events, EventReload)
	if code, _, _ := get(t, ts.URL+k3Page); code != 200 {
		t.Errorf("after the fix: status %d", code)
	}
}
