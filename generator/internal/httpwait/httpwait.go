// Package httpwait says how long an HTTP client should wait before trying
// again: the server's Retry-After (or spent RateLimit quota) when it sends
// one, else an exponential backoff. The Hub client and the price clients
// share it so both honour servers the same way.
package httpwait

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// Backoff is huggingface_hub's schedule: 1 s, doubling, at most 8 s.
func Backoff(attempt int) time.Duration {
	d := time.Second << (attempt - 1)
	if d > 8*time.Second || d <= 0 {
		d = 8 * time.Second
	}
	return d
}

// rateLimitRe reads the IETF draft RateLimit header: "api";r=0;t=55 —
// remaining requests and seconds until the window resets.
var rateLimitRe = regexp.MustCompile(`"(\w+)"\s*;\s*r\s*=\s*(\d+)\s*;\s*t\s*=\s*(\d+)`)

// RetryAfter is how long the server asks us to wait: RateLimit when the
// quota is spent (plus a second, so we do not land on the window's edge),
// else Retry-After in seconds or as an HTTP date; 0 when neither says.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if m := rateLimitRe.FindStringSubmatch(h.Get("RateLimit")); m != nil && m[2] == "0" {
		if t, err := strconv.ParseInt(m[3], 10, 64); err == nil {
			return time.Duration(min(t, 1<<32)+1) * time.Second
		}
	}
	ra := h.Get("Retry-After")
	if ra == "" {
		return 0
	}
	if s, err := strconv.ParseInt(ra, 10, 64); err == nil && s >= 0 {
		return time.Duration(min(s, 1<<32)) * time.Second
	}
	if t, err := http.ParseTime(ra); err == nil && t.After(now) {
		return t.Sub(now).Round(time.Second)
	}
	return 0
}

// Sleep waits for d or until ctx is done, whichever comes first: the wait
// between tries that a cancelled sync must not sit out.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
