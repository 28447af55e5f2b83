package serve

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// A large page is streamed from disk: what the server allocates to serve
// it does not grow with its size, and the client gets the page with the
// script before </body>, whole or by range.
func TestLargePageIsStreamed(t *testing.T) {
	dir := t.TempDir()
	const size = 32 << 20
	line := strings.Repeat("<p>row of a very long table</p>", 32) + "\n"
	var page bytes.Buffer
	page.WriteString("<!DOCTYPE html><html><body>\n")
	for page.Len() < size {
		page.WriteString(line)
	}
	page.WriteString("</BODY></html>\n")
	if err := os.WriteFile(filepath.Join(dir, "big.html"), page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := Inject(page.Bytes())
	tail := string(want[len(want)-200:])
	page = bytes.Buffer{} // the test's own copy is not the server's
	s := &Server{}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const requests = 4
	for range requests {
		rec := httptest.NewRecorder()
		rec.Body = nil // discard: the recorder's buffer is not the server's memory
		s.serveFile(discarding{rec}, httptest.NewRequest(http.MethodGet, "/big.html", nil), dir)
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d", rec.Code)
		}
		if got := rec.Header().Get("Content-Length"); got != strconv.Itoa(len(want)) {
			t.Errorf("Content-Length %s, want %d", got, len(want))
		}
	}
	runtime.ReadMemStats(&after)
	grew := after.TotalAlloc - before.TotalAlloc
	t.Logf("serving a %d MB page %d times allocated %d KB", size>>20, requests, grew>>10)
	if grew > size/4 {
		t.Errorf("serving a %d MB page %d times allocated %d MB: it is read into memory", size>>20, requests, grew>>20)
	}

	// The bytes are the injected page: its end, and a range across the script.
	rec := httptest.NewRecorder()
	s.serveFile(rec, httptest.NewRequest(http.MethodGet, "/big.html", nil), dir)
	if body := rec.Body.String(); len(body) != len(want) || body[len(body)-200:] != tail {
		t.Errorf("body of %d bytes ends %q, want %d bytes ending %q", len(body), body[max(0, len(body)-200):], len(want), tail)
	}
	at := bytes.LastIndex(want, []byte(ScriptTag))
	req := httptest.NewRequest(http.MethodGet, "/big.html", nil)
	req.Header.Set("Range", "bytes="+strconv.Itoa(at-5)+"-"+strconv.Itoa(at+len(ScriptTag)+10))
	rec = httptest.NewRecorder()
	s.serveFile(rec, req, dir)
	if rec.Code != http.StatusPartialContent || rec.Body.String() != string(want[at-5:at+len(ScriptTag)+11]) {
		t.Errorf("range: status %d, %q", rec.Code, rec.Body.String())
	}
}

// discarding drops the body the handler writes and keeps the headers.
type discarding struct{ *httptest.ResponseRecorder }

func (d discarding) Write(b []byte) (int, error) { return len(b), nil }

// bodyEnd finds the last </body> in any case, across chunk boundaries,
// and nothing where there is none.
func TestBodyEnd(t *testing.T) {
	for _, tc := range []struct {
		page string
		want int64
	}{
		{"<html><body>x</body></html>", 13},
		{"<body>a</body>b</Body>", 15},
		{"no tag", -1},
		{"", -1},
		{"</body", -1},
		{strings.Repeat("x", 65534) + "</body>" + strings.Repeat("y", 70000), 65534}, // across a chunk boundary
		{"</body>" + strings.Repeat("y", 200000), 0},
	} {
		got, err := bodyEnd(strings.NewReader(tc.page), int64(len(tc.page)))
		if err != nil || got != tc.want {
			t.Errorf("bodyEnd(%.20q…) = %d, %v, want %d", tc.page, got, err, tc.want)
		}
	}
}
