// Package hubtest is a fake Hugging Face Hub for tests: model info, the
// paginated tree listing, the paginated listing of models by author,
// resolve with redirects to a separate CDN host that honours Range,
// safetensors files generated on the fly, and injectable faults. It never
// touches the network: all three hosts are httptest servers on 127.0.0.1.
package hubtest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is the fake Hub.
type Server struct {
	Hub *httptest.Server // the endpoint: /api/models/… and /{id}/resolve/…
	CDN *httptest.Server // where resolve redirects LFS files
	// Upstream is the host the tree's absolute Link next URLs point at,
	// as a mirror's do (they name huggingface.co). A client that follows
	// them without rewriting lands here and gets a 502.
	Upstream *httptest.Server

	mu          sync.Mutex
	repos       map[string]*builtRepo
	counts      map[string]int
	ranges      map[string]int // requests with a Range header
	served      int64          // file body bytes written
	faults      []*Fault
	pageSize    int
	listSize    int
	latency     time.Duration
	ignoreRange bool
	relative    bool
	validTokens map[string]bool
	cdnAuth     int
	inFlight    map[string]int
	maxInFlight map[string]int
	quota       *quota
}

// New starts the fake with repos and closes it when the test ends.
func New(tb testing.TB, repos ...*Repo) *Server {
	tb.Helper()
	s := &Server{repos: map[string]*builtRepo{}, counts: map[string]int{}, ranges: map[string]int{}, pageSize: 1000, listSize: 1000,
		inFlight: map[string]int{}, maxInFlight: map[string]int{}}
	for _, r := range repos {
		if err := s.SetRepo(r); err != nil {
			tb.Fatal(err)
		}
	}
	s.Hub = httptest.NewServer(s.wrap("hub", s.hub))
	s.CDN = httptest.NewServer(s.wrap("cdn", s.cdn))
	s.Upstream = httptest.NewServer(s.wrap("upstream", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "wrong host: Link next URLs must be rewritten to the endpoint", http.StatusBadGateway)
	}))
	tb.Cleanup(s.Close)
	return s
}

// URL is the endpoint to configure the client with.
func (s *Server) URL() string { return s.Hub.URL }

// Close stops the three servers.
func (s *Server) Close() {
	for _, h := range []*httptest.Server{s.Hub, s.CDN, s.Upstream} {
		if h != nil {
			h.CloseClientConnections()
			h.Close()
		}
	}
}

// SetRepo adds a repository or replaces the one with the same ID (a new
// commit, say).
func (s *Server) SetRepo(r *Repo) error {
	br, err := build(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.repos[r.ID] = br
	s.mu.Unlock()
	return nil
}

// SetPageSize sets the tree listing's entries per page (default 1000).
func (s *Server) SetPageSize(n int) { s.mu.Lock(); s.pageSize = max(n, 1); s.mu.Unlock() }

// SetListPageSize sets the most models a page of GET /api/models holds
// (default 1000); the client's limit= lowers it further.
func (s *Server) SetListPageSize(n int) { s.mu.Lock(); s.listSize = max(n, 1); s.mu.Unlock() }

// SetLatency delays every request on every host by d.
func (s *Server) SetLatency(d time.Duration) { s.mu.Lock(); s.latency = d; s.mu.Unlock() }

// SetIgnoreRange makes file answers ignore Range: 200 with the whole file.
func (s *Server) SetIgnoreRange(on bool) { s.mu.Lock(); s.ignoreRange = on; s.mu.Unlock() }

// SetRelativeRedirect makes resolve answer with a relative Location (to a
// CDN path on the Hub host) instead of an absolute CDN URL.
func (s *Server) SetRelativeRedirect(on bool) { s.mu.Lock(); s.relative = on; s.mu.Unlock() }

// SetValidTokens makes any other token a 401 "Invalid credentials".
// By default every token is valid (access is still per repository).
func (s *Server) SetValidTokens(tokens ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.validTokens = map[string]bool{}
	for _, t := range tokens {
		s.validTokens[t] = true
	}
}

// Count is the number of requests host ("hub", "cdn", "upstream") has
// had for path (unescaped, without query).
func (s *Server) Count(host, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[host+" "+path]
}

// Counts is a copy of every counter, keyed "host path".
func (s *Server) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]int, len(s.counts))
	for k, v := range s.counts {
		m[k] = v
	}
	return m
}

// HostRequests sums the requests host has had.
func (s *Server) HostRequests(host string) int {
	n := 0
	for k, v := range s.Counts() {
		if strings.HasPrefix(k, host+" ") {
			n += v
		}
	}
	return n
}

// FileRequests counts the requests for one repository file: resolve
// requests on the Hub, and reads of its bytes on the CDN (or on the Hub's
// relative-redirect CDN path).
func (s *Server) FileRequests(model, path string) (resolve, cdn int) {
	return fileCounts(s.Counts(), model, path)
}

// FileRanges is FileRequests counting only the requests that carried a
// Range header.
func (s *Server) FileRanges(model, path string) (resolve, cdn int) {
	s.mu.Lock()
	m := make(map[string]int, len(s.ranges))
	for k, v := range s.ranges {
		m[k] = v
	}
	s.mu.Unlock()
	return fileCounts(m, model, path)
}

// FileBytesServed is the number of file body bytes (headers, data, JSON
// files; not API answers) all hosts have written since the last
// ResetCounts.
func (s *Server) FileBytesServed() int64 { s.mu.Lock(); defer s.mu.Unlock(); return s.served }

func fileCounts(counts map[string]int, model, path string) (resolve, cdn int) {
	for k, v := range counts {
		host, p, _ := strings.Cut(k, " ")
		switch {
		case host == "hub" && strings.HasPrefix(p, "/"+model+"/resolve/") && strings.HasSuffix(p, "/"+path):
			resolve += v
		case (host == "cdn" && strings.HasPrefix(p, "/repos/"+model+"/") || host == "hub" && strings.HasPrefix(p, "/_cdn/"+model+"/")) &&
			strings.HasSuffix(p, "/"+path):
			cdn += v
		}
	}
	return resolve, cdn
}

// ResetCounts zeroes the counters, in-flight maxima included.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts, s.maxInFlight, s.ranges, s.served = map[string]int{}, map[string]int{}, map[string]int{}, 0
}

// MaxInFlight is the most requests host has served at once.
func (s *Server) MaxInFlight(host string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight[host]
}

// CDNAuthorizations counts CDN requests that carried an Authorization
// header: a client must not send the Hub token to another host.
func (s *Server) CDNAuthorizations() int { s.mu.Lock(); defer s.mu.Unlock(); return s.cdnAuth }

// wrap counts, delays and injects faults around a host's handler.
func (s *Server) wrap(host string, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.counts[host+" "+r.URL.Path]++
		if r.Header.Get("Range") != "" {
			s.ranges[host+" "+r.URL.Path]++
		}
		s.inFlight[host]++
		s.maxInFlight[host] = max(s.maxInFlight[host], s.inFlight[host])
		defer func() { s.mu.Lock(); s.inFlight[host]--; s.mu.Unlock() }()
		lat := s.latency
		f := s.matchFault(host, r.URL.Path)
		if host != "hub" && r.Header.Get("Authorization") != "" {
			s.cdnAuth++
		}
		admitted := host != "hub" || s.quota == nil || s.quota.admit(w.Header())
		s.mu.Unlock()
		if !admitted {
			w.Header().Set("X-Error-Message", "rate limit reached: wait for the window named in RateLimit")
			http.Error(w, `{"error":"rate limit reached"}`, http.StatusTooManyRequests)
			return
		}
		if lat > 0 {
			t := time.NewTimer(lat)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		if f != nil {
			if f.answer(w) {
				return
			}
			if f.Header != nil {
				w = &headerWriter{ResponseWriter: w, h: f.Header}
			}
			if f.Truncate {
				w = &cutWriter{ResponseWriter: w, after: f.TruncateAfter}
			}
		}
		h(w, r)
	})
}
