package hubtest

import (
	"net/http"
	"strconv"
	"strings"
)

// Fault is an injected failure. A request matches when Host and Path
// match; the first matching fault with uses left applies.
type Fault struct {
	Host  string // "hub", "cdn", "upstream", or "" for any
	Path  string // a substring of the request path; "" matches every path
	Times int    // how many matching requests it affects; 0 means all

	Status     int    // answer with this status instead of serving
	Code       string // X-Error-Code, e.g. GatedRepo, RepoNotFound, RevisionNotFound, EntryNotFound
	Message    string // X-Error-Message and the JSON body's "error"
	RetryAfter string // Retry-After header
	RateLimit  string // RateLimit header, e.g. `"api";r=0;t=55`

	Drop bool // close the connection without answering
	// Truncate serves the real answer but cuts the connection after
	// TruncateAfter body bytes, short of the announced Content-Length.
	Truncate      bool
	TruncateAfter int64
	// Header overrides these answer headers (X-Repo-Commit, say) and lets
	// the real handler answer.
	Header http.Header

	used int
}

// AddFault injects f.
func (s *Server) AddFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// ClearFaults removes every fault.
func (s *Server) ClearFaults() { s.mu.Lock(); s.faults = nil; s.mu.Unlock() }

// matchFault is called with s.mu held.
func (s *Server) matchFault(host, path string) *Fault {
	for _, f := range s.faults {
		if (f.Host == "" || f.Host == host) && strings.Contains(path, f.Path) && (f.Times == 0 || f.used < f.Times) {
			f.used++
			return f
		}
	}
	return nil
}

// answer writes the fault's answer and reports whether it did; a
// truncation fault lets the real handler answer through a cutWriter.
func (f *Fault) answer(w http.ResponseWriter) bool {
	switch {
	case f.Drop:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return true
			}
		}
		panic(http.ErrAbortHandler)
	case f.Truncate || f.Header != nil:
		return false
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.RateLimit != "" {
		w.Header().Set("RateLimit", f.RateLimit)
	}
	msg := f.Message
	if msg == "" {
		msg = http.StatusText(f.Status)
	}
	hubError(w, f.Status, f.Code, msg)
	return true
}

// cutWriter passes through the first `after` body bytes (half the
// Content-Length when 0), then aborts the connection.
type cutWriter struct {
	http.ResponseWriter
	after   int64
	written int64
	set     bool
}

func (w *cutWriter) WriteHeader(code int) {
	if !w.set && w.after == 0 {
		if n, err := strconv.ParseInt(w.Header().Get("Content-Length"), 10, 64); err == nil {
			w.after = n / 2
		}
	}
	w.set = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *cutWriter) Write(p []byte) (int, error) {
	if !w.set {
		w.WriteHeader(http.StatusOK)
	}
	if left := w.after - w.written; int64(len(p)) > left {
		w.ResponseWriter.Write(p[:max(left, 0)])
		if f, ok := w.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler)
	}
	w.written += int64(len(p))
	return w.ResponseWriter.Write(p)
}

// headerWriter replaces answer headers just before they are sent.
type headerWriter struct {
	http.ResponseWriter
	h    http.Header
	sent bool
}

func (w *headerWriter) WriteHeader(code int) {
	if !w.sent {
		for k, v := range w.h {
			w.Header()[k] = v
		}
		w.sent = true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *headerWriter) Write(p []byte) (int, error) {
	if !w.sent {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}
