package hubtest

import (
	"fmt"
	"net/http"
	"time"
)

// quota is a fixed-window request limit on the Hub host, as the Hub
// applies one per token or IP: every request in a window counts, and once
// the window's requests are spent the answer is 429 with the RateLimit
// headers the Hub sends until the window ends. The CDN has no quota.
type quota struct {
	limit   int
	window  time.Duration
	now     func() time.Time
	start   time.Time // of the current window
	used    int
	refused int
}

// SetQuota limits the Hub host to limit requests per window, measured on
// now (a test clock the client's sleep advances, so a test waits no real
// time). limit 0 removes the quota.
func (s *Server) SetQuota(limit int, window time.Duration, now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if limit <= 0 {
		s.quota = nil
		return
	}
	s.quota = &quota{limit: limit, window: window, now: now, start: now()}
}

// Refused is how many Hub requests the quota turned away with a 429.
func (s *Server) Refused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.quota == nil {
		return 0
	}
	return s.quota.refused
}

// admit counts one request (called with s.mu held) and reports whether
// the window has room; when it has not, it writes the headers of a 429.
func (q *quota) admit(h http.Header) bool {
	now := q.now()
	if !now.Before(q.start.Add(q.window)) {
		// A new window starts at the first request after the old one ends.
		q.start, q.used = now, 0
	}
	reset := int64((q.start.Add(q.window).Sub(now) + time.Second - 1) / time.Second)
	policy := fmt.Sprintf(`"fixed window";"api";q=%d;w=%d`, q.limit, int64(q.window/time.Second))
	h.Set("RateLimit-Policy", policy)
	if q.used >= q.limit {
		q.refused++
		h.Set("RateLimit", fmt.Sprintf(`"api";r=0;t=%d`, reset))
		return false
	}
	q.used++
	h.Set("RateLimit", fmt.Sprintf(`"api";r=%d;t=%d`, q.limit-q.used, reset))
	return true
}
