package hub_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"dossier/generator/hub"
	"dossier/generator/hub/hubtest"
)

// listRepos is one author's models with creation dates out of order, one
// from before the Hub stored dates, a private one, and another author's.
func listRepos() []*hubtest.Repo {
	return []*hubtest.Repo{
		{ID: "acme/a", CreatedAt: "2026-01-01T00:00:00.000Z"},
		{ID: "acme/b", CreatedAt: "2026-03-01T10:00:00.000Z"},
		{ID: "acme/c", CreatedAt: "2025-12-01T00:00:00.000Z"},
		{ID: "acme/legacy", CreatedAt: hub.CreatedUnknown},
		{ID: "acme/secret", CreatedAt: "2026-06-01T00:00:00.000Z", Private: true, Approved: []string{testToken}},
		{ID: "other/x", CreatedAt: "2026-05-01T00:00:00.000Z"},
	}
}

func ids(ms []hub.ListedModel) string {
	var s []string
	for _, m := range ms {
		s = append(s, m.ID)
	}
	return strings.Join(s, " ")
}

// TestListModelsNewestFirstThroughMirror lists an author across pages
// whose Link next URLs name another host, directly and through a mirror
// under a path prefix: newest first, the undated last, nobody else's
// models, no private ones without a token, and no request off the
// endpoint.
func TestListModelsNewestFirstThroughMirror(t *testing.T) {
	srv := hubtest.New(t, listRepos()...)
	srv.SetListPageSize(2)
	mirror := httptest.NewServer(http.StripPrefix("/hf", srv.Hub.Config.Handler))
	defer mirror.Close()
	for _, endpoint := range []string{srv.URL(), mirror.URL + "/hf"} {
		srv.ResetCounts()
		c, _ := newClient(t, endpoint, "")
		ms, err := c.ListModels(context.Background(), "acme", 0)
		if err != nil {
			t.Fatalf("%s: %v", endpoint, err)
		}
		if got := ids(ms); got != "acme/b acme/a acme/c acme/legacy" {
			t.Fatalf("%s: listed %s", endpoint, got)
		}
		if ms[0].CreatedAt != "2026-03-01T10:00:00.000Z" || ms[0].SHA != "" || ms[0].LastModified != "" {
			t.Errorf("%s: first entry %+v (the default answer has createdAt, not sha or lastModified)", endpoint, ms[0])
		}
		if _, ok := ms[3].Created(); ok {
			t.Errorf("%s: the sentinel date %s reads as known", endpoint, ms[3].CreatedAt)
		}
		if n := srv.Count("hub", "/api/models"); n != 2 {
			t.Errorf("%s: %d listing requests, want 2 pages of 2", endpoint, n)
		}
		if n := srv.HostRequests("upstream"); n != 0 {
			t.Errorf("%s: followed the Link to the upstream host %d times", endpoint, n)
		}
	}

	// With a token that may see it, the private model is listed too.
	c, _ := newClient(t, srv.URL(), testToken)
	ms, err := c.ListModels(context.Background(), "ACME", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(ms); got != "acme/secret acme/b acme/a acme/c acme/legacy" {
		t.Fatalf("with a token: %s", got)
	}
}

// TestListModelsLimit stops paging once it has limit models, and asks
// for no more than limit per page.
func TestListModelsLimit(t *testing.T) {
	srv := hubtest.New(t, listRepos()...)
	srv.SetListPageSize(2)
	var queries []url.Values
	var mu sync.Mutex
	spy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.Query())
		mu.Unlock()
		srv.Hub.Config.Handler.ServeHTTP(w, r)
	}))
	defer spy.Close()
	c, _ := newClient(t, spy.URL, "")
	for _, tc := range []struct {
		limit int
		want  string
		pages int
	}{
		{1, "acme/b", 1},
		{3, "acme/b acme/a acme/c", 2},
		{4, "acme/b acme/a acme/c acme/legacy", 2},
		{10, "acme/b acme/a acme/c acme/legacy", 2},
	} {
		queries = nil
		ms, err := c.ListModels(context.Background(), "acme", tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(ms); got != tc.want || len(queries) != tc.pages {
			t.Errorf("limit %d: %s in %d requests, want %s in %d", tc.limit, got, len(queries), tc.want, tc.pages)
		}
		q := queries[0]
		if q.Get("author") != "acme" || q.Get("sort") != "createdAt" || q.Get("direction") != "-1" || q.Get("limit") != strconv.Itoa(min(tc.limit, 500)) {
			t.Errorf("limit %d: first query %v", tc.limit, q)
		}
	}
}

// TestListModelsRefusesOtherAuthors: an endpoint that ignores author=
// would hand back the whole Hub, and every model in it would look new.
func TestListModelsRefusesOtherAuthors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`[{"id":"acme/a","createdAt":"2026-01-01T00:00:00.000Z"},{"id":"someone/else","createdAt":"2026-01-02T00:00:00.000Z"}]`))
	}))
	defer srv.Close()
	c, _ := newClient(t, srv.URL, "")
	_, err := c.ListModels(context.Background(), "acme", 0)
	if err == nil || !strings.Contains(err.Error(), `"someone/else"`) || !strings.Contains(err.Error(), "ignore author=") {
		t.Fatalf("err = %v", err)
	}
	for _, bad := range []string{"", "acme/x", "../etc", "-x", "a b"} {
		if _, err := c.ListModels(context.Background(), bad, 0); err == nil {
			t.Errorf("author %q accepted", bad)
		}
	}
}

// TestListModelsOptionalFields keeps sha, lastModified and gated when the
// endpoint sends them, drops a repeat across pages, and stops a Link that
// leads back to a page already read.
func TestListModelsOptionalFields(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Query().Get("cursor") {
		case "":
			w.Header().Set("Link", `<https://huggingface.co/api/models?author=acme&cursor=2>; rel="next"`)
			w.Write([]byte(`[{"id":"acme/a","createdAt":"2026-01-01T00:00:00.000Z","sha":"` + strings.Repeat("a", 40) + `","lastModified":"2026-02-01T00:00:00.000Z","gated":"auto"}]`))
		case "2":
			w.Write([]byte(`[{"id":"acme/a","createdAt":"2026-01-01T00:00:00.000Z"},{"id":"acme/b","createdAt":"2026-01-03T00:00:00.000Z","gated":false}]`))
		}
	}))
	defer srv.Close()
	c, _ := newClient(t, srv.URL, "")
	ms, err := c.ListModels(context.Background(), "acme", 0)
	if err != nil {
		t.Fatal(err)
	}
	if ids(ms) != "acme/b acme/a" || ms[1].SHA != strings.Repeat("a", 40) || ms[1].LastModified != "2026-02-01T00:00:00.000Z" || ms[1].Gated != "auto" || ms[0].Gated != "" {
		t.Fatalf("listed %+v", ms)
	}

	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `</api/models?author=acme&cursor=same>; rel="next"`)
		w.Write([]byte(`[]`))
	}))
	defer loop.Close()
	c, _ = newClient(t, loop.URL, "")
	if _, err := c.ListModels(context.Background(), "acme", 0); err == nil || !strings.Contains(err.Error(), "pagination does not end") {
		t.Fatalf("looping Link: %v", err)
	}

	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"nope"}`, http.StatusBadRequest)
	}))
	defer gone.Close()
	c, _ = newClient(t, gone.URL, "")
	var he *hub.Error
	if _, err := c.ListModels(context.Background(), "acme", 0); !errors.As(err, &he) || he.Status != http.StatusBadRequest {
		t.Fatalf("400: %v", err)
	}
}
