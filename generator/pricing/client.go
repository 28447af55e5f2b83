package pricing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"dossier/generator/internal/httpwait"
)

// Config is how the price clients talk HTTP. The zero value works.
type Config struct {
	Transport http.RoundTripper // nil: the default transport
	UserAgent string
	Timeout   time.Duration // per request; default 30 s
	MaxTries  int           // default 5
	MaxWait   time.Duration // longest Retry-After honoured; default 5 min
	// Sleep waits between tries; tests replace it to run without delay.
	Sleep func(context.Context, time.Duration) error
	Now   func() time.Time
}

// client runs requests for one provider, retrying 408/429/5xx and dropped
// connections, honouring Retry-After.
type client struct {
	provider string
	http     *http.Client
	ua       string
	tries    int
	maxWait  time.Duration
	sleep    func(context.Context, time.Duration) error
	now      func() time.Time
	// secrets never appear in an error: a server that echoes a header
	// back in its error body does not leak it into the report.
	secrets []string
}

func newClient(provider string, cfg Config) *client {
	c := &client{provider: provider, ua: cfg.UserAgent, tries: cfg.MaxTries, maxWait: cfg.MaxWait, sleep: cfg.Sleep, now: cfg.Now}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	c.http = &http.Client{Transport: cfg.Transport, Timeout: timeout}
	if c.ua == "" {
		c.ua = "dossier/dev"
	}
	if c.tries <= 0 {
		c.tries = 5
	}
	if c.maxWait <= 0 {
		c.maxWait = 5 * time.Minute
	}
	if c.sleep == nil {
		c.sleep = httpwait.Sleep
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// Error is a price request that failed, naming the provider and the
// request; Status is 0 when no HTTP answer came back.
type Error struct {
	Provider   string
	Request    string // "GET https://…" without credentials
	Status     int
	Detail     string // the start of the server's answer, or the transport error
	RetryAfter time.Duration
	Tries      int
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: %s: ", e.Provider, e.Request)
	if e.Status != 0 {
		msg += fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))
		if e.Detail != "" {
			msg += ": " + e.Detail
		}
	} else {
		msg += e.Detail
	}
	if e.Tries > 1 {
		msg += fmt.Sprintf(" (gave up after %d tries)", e.Tries)
	}
	return msg
}

const maxBody = 64 << 20 // a price listing page is well under a megabyte

// do sends one request, retried as a unit, and returns the 2xx body.
func (c *client) do(ctx context.Context, method, rawURL string, body []byte, header http.Header) ([]byte, error) {
	show := c.redact(method + " " + showURL(rawURL))
	for attempt := 1; ; attempt++ {
		b, err := c.attempt(ctx, method, rawURL, body, header, show)
		if err == nil {
			return b, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %s: %w", c.provider, show, context.Cause(ctx))
		}
		wait, retry := c.retryWait(err, attempt)
		if !retry || attempt >= c.tries {
			err.Tries = attempt
			return nil, err
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("%w (while waiting to retry: %v)", err, serr)
		}
	}
}

func (c *client) attempt(ctx context.Context, method, rawURL string, body []byte, header http.Header, show string) ([]byte, *Error) {
	fail := func(status int, detail string) *Error {
		return &Error{Provider: c.provider, Request: show, Status: status, Detail: c.redact(detail)}
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, bytes.NewReader(body))
	if err != nil {
		return nil, fail(0, "build request: "+err.Error())
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", c.ua)
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message repeats the URL
		}
		return nil, fail(0, err.Error())
	}
	defer resp.Body.Close()
	b, rerr := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := fail(resp.StatusCode, snippet(b))
		e.RetryAfter = httpwait.RetryAfter(resp.Header, c.now())
		return nil, e
	}
	if rerr != nil {
		return nil, fail(0, "read body: "+rerr.Error())
	}
	if len(b) > maxBody {
		return nil, fail(0, fmt.Sprintf("answer larger than %d bytes", maxBody))
	}
	return b, nil
}

// retryWait says whether a failure is worth another try and how long to
// wait first: a Retry-After longer than MaxWait is not waited for.
func (c *client) retryWait(e *Error, attempt int) (time.Duration, bool) {
	switch e.Status {
	case 0:
		return httpwait.Backoff(attempt), true // connection refused, reset, timeout
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		if e.RetryAfter > c.maxWait {
			return 0, false
		}
		if e.RetryAfter > 0 {
			return e.RetryAfter, true
		}
		return httpwait.Backoff(attempt), true
	case http.StatusRequestTimeout, http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return httpwait.Backoff(attempt), true
	}
	return 0, false
}

func (c *client) redact(s string) string {
	for _, sec := range c.secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// showURL prints a URL for a message: without user credentials, and the
// query decoded so an OData filter reads as written.
func showURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	q := u.RawQuery
	u.RawQuery = ""
	s := u.String()
	if q != "" {
		if dq, err := url.QueryUnescape(q); err == nil {
			q = dq
		}
		s += "?" + q
	}
	return s
}

// snippet is the start of an error body, on one line.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
