package hubtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"dossier/generator/safetensors"
)

func get(t *testing.T, url, rng string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestServesGeneratedSafetensors(t *testing.T) {
	ts := []Tensor{{"a", "BF16", []int64{1 << 30}}, {"b", "F4", []int64{4}}}
	s := New(t, &Repo{ID: "o/m", Files: []File{{Path: "model.safetensors", Tensors: ts}}})
	h, _ := safetensors.Build([]safetensors.TensorInfo{{Name: "a", DType: "BF16", Shape: []int64{1 << 30}}, {Name: "b", DType: "F4", Shape: []int64{4}}}, nil)
	want, _ := h.Encode()

	resp := get(t, s.URL()+"/o/m/resolve/main/model.safetensors", "bytes=0-99")
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 206 || !bytes.Equal(body, want[:100]) || resp.Request.URL.Host != s.CDN.Listener.Addr().String() {
		t.Fatalf("status %d from %s, body %q", resp.StatusCode, resp.Request.URL.Host, body)
	}
	if cr := resp.Header.Get("Content-Range"); cr != "bytes 0-99/"+itoa(h.FileLen()) {
		t.Fatalf("Content-Range %q", cr)
	}
	// Data bytes read as zeros, at the far end of a 2 GB file.
	resp = get(t, s.URL()+"/o/m/resolve/main/model.safetensors", "bytes=-4")
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 206 || !bytes.Equal(body, make([]byte, 4)) {
		t.Fatalf("tail: %d %q", resp.StatusCode, body)
	}
	if r, c := s.FileRequests("o/m", "model.safetensors"); r != 2 || c != 2 {
		t.Fatalf("counts %d %d", r, c)
	}
	if r, c := s.FileRanges("o/m", "model.safetensors"); r != 2 || c != 2 {
		t.Fatalf("range counts %d %d", r, c)
	}
	// Only the ranges asked for were served, not the 2 GB.
	if n := s.FileBytesServed(); n != 104 {
		t.Fatalf("%d file bytes served", n)
	}
	io.ReadAll(get(t, s.URL()+"/o/m/resolve/main/model.safetensors", "bytes=0-9").Body)
	s.ResetCounts()
	if r, c := s.FileRanges("o/m", "model.safetensors"); r != 0 || c != 0 || s.FileBytesServed() != 0 {
		t.Fatalf("after reset: %d %d %d", r, c, s.FileBytesServed())
	}
}

func TestTreeLinkPointsElsewhere(t *testing.T) {
	s := New(t, &Repo{ID: "o/m", Files: []File{{Path: "a", Content: []byte("1")}, {Path: "d/b", Content: []byte("2")}, {Path: "c", Content: []byte("3")}}})
	s.SetPageSize(2)
	resp := get(t, s.URL()+"/api/models/o/m/tree/main?recursive=true", "")
	var page []map[string]any
	json.NewDecoder(resp.Body).Decode(&page)
	link := resp.Header.Get("Link")
	if len(page) != 2 || !strings.HasPrefix(link, "<"+s.Upstream.URL+"/api/models/o/m/tree/main?") || !strings.HasSuffix(link, `>; rel="next"`) {
		t.Fatalf("page %v, Link %q", page, link)
	}
	next := strings.TrimPrefix(strings.Split(link, ">")[0], "<"+s.Upstream.URL)
	resp = get(t, s.URL()+next, "")
	json.NewDecoder(resp.Body).Decode(&page)
	if len(page) != 2 || resp.Header.Get("Link") != "" {
		t.Fatalf("second page %v, Link %q", page, resp.Header.Get("Link"))
	}
	if resp := get(t, s.Upstream.URL+next, ""); resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("upstream answered %d", resp.StatusCode)
	}
}

func TestFaultsAndAccess(t *testing.T) {
	s := New(t, &Repo{ID: "o/gated", Gated: true, Approved: []string{"ok"}, Files: []File{{Path: "f", Content: []byte("x")}}})
	if resp := get(t, s.URL()+"/o/gated/resolve/main/f", ""); resp.StatusCode != 401 || resp.Header.Get("X-Error-Code") != "GatedRepo" {
		t.Fatalf("anonymous: %d %q", resp.StatusCode, resp.Header.Get("X-Error-Code"))
	}
	s.AddFault(Fault{Path: "/api/", Times: 1, Status: 429, RetryAfter: "3"})
	resp := get(t, s.URL()+"/api/models/o/gated", "")
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" {
		t.Fatalf("fault: %d", resp.StatusCode)
	}
	if resp := get(t, s.URL()+"/api/models/o/gated", ""); resp.StatusCode != 200 {
		t.Fatalf("after the fault: %d", resp.StatusCode)
	}
	if resp := get(t, s.URL()+"/api/models/o/gated/revision/nope", ""); resp.StatusCode != 404 || resp.Header.Get("X-Error-Code") != "RevisionNotFound" {
		t.Fatalf("revision: %d", resp.StatusCode)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestListModels(t *testing.T) {
	s := New(t,
		&Repo{ID: "o/old", CreatedAt: "2025-01-01T00:00:00.000Z", LastModified: "2026-09-01T00:00:00.000Z"},
		&Repo{ID: "o/new", CreatedAt: "2026-01-01T00:00:00.000Z"},
		&Repo{ID: "p/other"})
	list := func(query string) ([]map[string]any, *http.Response) {
		resp := get(t, s.URL()+"/api/models?"+query, "")
		var page []map[string]any
		json.NewDecoder(resp.Body).Decode(&page)
		return page, resp
	}
	page, resp := list("author=O&sort=createdAt&limit=1")
	link := resp.Header.Get("Link")
	if len(page) != 1 || page[0]["id"] != "o/new" || page[0]["createdAt"] != "2026-01-01T00:00:00.000Z" || page[0]["sha"] != nil ||
		!strings.HasPrefix(link, "<"+s.Upstream.URL+"/api/models?") {
		t.Fatalf("page %v, Link %q", page, link)
	}
	next := strings.TrimPrefix(strings.Split(link, ">")[0], "<"+s.Upstream.URL)
	page, resp = list(strings.TrimPrefix(next, "/api/models?"))
	if len(page) != 1 || page[0]["id"] != "o/old" || resp.Header.Get("Link") != "" {
		t.Fatalf("second page %v, Link %q", page, resp.Header.Get("Link"))
	}
	if page, _ := list("author=o&sort=lastModified&expand=sha&expand[]=lastModified"); len(page) != 2 || page[0]["id"] != "o/old" ||
		page[0]["sha"] != SHAFor("o/old") || page[0]["lastModified"] != "2026-09-01T00:00:00.000Z" || page[0]["createdAt"] != nil {
		t.Fatalf("expanded %v", page)
	}
	if _, resp := list("author=o&sort=stars"); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("unknown sort: %d", resp.StatusCode)
	}
	if page, _ := list(""); len(page) != 3 {
		t.Fatalf("everyone's: %v", page)
	}
}
