package hub

import (
	"errors"
	"net/http"
	"time"

	"dossier/generator/internal/httpwait"
)

// transientError is a failure worth another try: a dropped connection, a
// truncated body, a stall.
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

// backoff and retryAfter are the shared schedule (see internal/httpwait).
func backoff(attempt int) time.Duration { return httpwait.Backoff(attempt) }

func retryAfter(h http.Header, now time.Time) time.Duration { return httpwait.RetryAfter(h, now) }

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
