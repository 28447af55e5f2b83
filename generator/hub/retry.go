package hub

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// transientError is a failure worth another try: a dropped connection, a
// truncated body, a stall.
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

// backoff is huggingface_hub's schedule: 1 s, doubling, at most 8 s.
func backoff(attempt int) time.Duration {
	d := time.Second << (attempt - 1)
	if d > 8*time.Second || d <= 0 {
		d = 8 * time.Second
	}
	return d
}

// retryWait says whether err is worth another try and how long to wait.
func (c *Client) retryWait(err error, attempt int) (time.Duration, bool) {
	var he *Error
	if errors.As(err, &he) {
		switch he.Status {
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			if he.RetryAfter > c.maxWait {
				return 0, false
			}
			if he.RetryAfter > 0 {
				return he.RetryAfter, true
			}
			return backoff(attempt), true
		case http.StatusRequestTimeout, http.StatusInternalServerError,
			http.StatusBadGateway, http.StatusGatewayTimeout:
			return backoff(attempt), true
		}
		return 0, false
	}
	var te *transientError
	if errors.As(err, &te) {
		return backoff(attempt), true
	}
	return 0, false
}

// rateLimitRe reads the IETF draft RateLimit header the Hub sends:
// "api";r=0;t=55 — remaining requests and seconds until the window resets.
var rateLimitRe = regexp.MustCompile(`"(\w+)"\s*;\s*r\s*=\s*(\d+)\s*;\s*t\s*=\s*(\d+)`)

// retryAfter is how long the server asks us to wait: RateLimit when the
// quota is spent (plus a second, so we do not land on the window's edge),
// else Retry-After in seconds or as an HTTP date; 0 when neither says.
func retryAfter(h http.Header, now time.Time) time.Duration {
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
