package hub

import (
	"context"
	"dossier/generator/internal/httpwait"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// Client is a Hub client. It is safe for concurrent use.
type Client struct {
	endpoint *url.URL
	base     string // endpoint without trailing "/"
	// token is behind a pointer so that printing a Client with %+v shows
	// an address: fmt cannot call Token's Format on an unexported field.
	token   *Token
	ua      string
	http    *http.Client
	timeout time.Duration
	tries   int
	maxWait time.Duration
	sleep   func(context.Context, time.Duration) error
	now     func() time.Time
	// hubRequests counts the requests sent to the endpoint's host, the
	// ones the Hub's quota counts (the CDN's are not).
	hubRequests atomic.Int64
	offline     string // Config.Offline
}

// New checks cfg and returns a client.
func New(cfg Config) (*Client, error) {
	base := strings.TrimRight(cfg.Endpoint, "/")
	if base == "" {
		base = DefaultEndpoint
	}
	ep, err := parseEndpoint(base)
	if err != nil {
		return nil, err
	}
	c := &Client{
		endpoint: ep,
		base:     base,
		token:    &cfg.Token,
		ua:       cfg.UserAgent,
		timeout:  cfg.Timeout,
		tries:    cfg.MaxTries,
		maxWait:  cfg.MaxWait,
		sleep:    cfg.Sleep,
		now:      time.Now,
		offline:  cfg.Offline,
	}
	if c.ua == "" {
		c.ua = "dossier/dev"
	}
	if c.timeout <= 0 {
		c.timeout = 10 * time.Second
	}
	if c.tries <= 0 {
		c.tries = 5
	}
	if c.maxWait <= 0 {
		// The Hub's quota windows are five minutes; RateLimit's wait
		// for a spent window is at most that plus the margin RetryAfter adds.
		c.maxWait = 5*time.Minute + 2*time.Second
	}
	if c.sleep == nil {
		c.sleep = httpwait.Sleep
	}
	rt := cfg.Transport
	if rt == nil {
		rt = newTransport(c.timeout)
	}
	c.http = &http.Client{
		Transport: rt,
		// Redirects are followed by hand: to keep the token off other
		// hosts, to see X-Repo-Commit on the Hub's hop, and to know the
		// CDN URL a second Range request can go to directly.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c, nil
}

// HubRequests is how many requests the client has sent to the endpoint's
// host, retries included: what the Hub's rate limit counts.
func (c *Client) HubRequests() int64 { return c.hubRequests.Load() }

// Endpoint is the base URL the client talks to.
func (c *Client) Endpoint() string { return c.base }

func newTransport(timeout time.Duration) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = timeout
	t.ResponseHeaderTimeout = timeout
	// Header reads run 16 at a time against two hosts; the default of 2
	// idle connections per host would reopen a connection per request.
	t.MaxIdleConnsPerHost = 64
	return t
}

// request is one logical GET, retried and redirected as a unit.
type request struct {
	method   string
	url      string
	rng      string // Range header value, or ""
	model    string // for error messages
	revision string
	file     string
	onBytes  func(int64) // progress: body bytes as they arrive
}

// response is a 2xx answer after redirects.
type response struct {
	*http.Response
	final  *url.URL // where the body came from (the CDN, after a resolve)
	commit string   // X-Repo-Commit from any hop
}

// do runs rq, retrying what is worth retrying, and hands a 2xx response
// to handle. A body read error inside handle is retried like a dropped
// connection, so handle must be safe to run again.
func (c *Client) do(ctx context.Context, rq *request, handle func(*response) error) error {
	for attempt := 1; ; attempt++ {
		err := c.attempt(ctx, rq, handle)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s %s: %w", rq.method, c.show(rq.url), context.Cause(ctx))
		}
		wait, retry := c.retryWait(err, attempt)
		if !retry {
			return err
		}
		if attempt >= c.tries {
			return fmt.Errorf("%w (gave up after %d tries)", err, attempt)
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w (while waiting to retry: %v)", err, serr)
		}
	}
}

const maxRedirects = 10

var errStalled = errors.New("no data received within the timeout")

func (c *Client) attempt(ctx context.Context, rq *request, handle func(*response) error) error {
	if c.offline != "" {
		return fmt.Errorf("%s %s: %w: %s is set, so no request is made", rq.method, c.show(rq.url), ErrOffline, c.offline)
	}
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// One timer covers connecting, the first byte and every stall in the
	// body: it is pushed back whenever bytes arrive.
	stall := time.AfterFunc(c.timeout, func() { cancel(errStalled) })
	defer stall.Stop()
	stalled := func(err error) error {
		if ctx.Err() == nil && errors.Is(context.Cause(actx), errStalled) {
			return &transientError{fmt.Errorf("%s %s: %w after %s", rq.method, c.show(rq.url), errStalled, c.timeout)}
		}
		return err
	}

	target := rq.url
	var commit string
	for hop := 0; ; hop++ {
		req, err := http.NewRequestWithContext(actx, rq.method, target, nil)
		if err != nil {
			return fmt.Errorf("build request for %s: %w", c.show(target), err)
		}
		req.Header.Set("User-Agent", c.ua)
		if rq.rng != "" {
			req.Header.Set("Range", rq.rng)
		}
		onHub := sameOrigin(req.URL, c.endpoint)
		if c.token.IsSet() && onHub {
			req.Header.Set("Authorization", "Bearer "+c.token.v)
		}
		if onHub {
			c.hubRequests.Add(1)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // its message repeats the full URL, query included
			}
			if ctx.Err() == nil && context.Cause(actx) == nil && unreachable(err) {
				return &unreachableError{fmt.Errorf("%s %s: %w", rq.method, c.show(target), err), c.base}
			}
			return stalled(&transientError{fmt.Errorf("%s %s: %w", rq.method, c.show(target), err)})
		}
		if commit == "" {
			commit = resp.Header.Get("X-Repo-Commit")
		}
		if isRedirect(resp.StatusCode) {
			loc, err := resp.Location() // resolves a relative Location against the request
			drain(resp.Body)
			if err != nil {
				return fmt.Errorf("%s %s: redirect without a usable Location: %w", rq.method, c.show(target), err)
			}
			if hop >= maxRedirects {
				return fmt.Errorf("%s %s: more than %d redirects", rq.method, c.show(rq.url), maxRedirects)
			}
			target = loc.String()
			continue
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			e := c.statusError(rq, resp)
			drain(resp.Body)
			return e
		}
		resp.Body = &watchedBody{r: resp.Body, timer: stall, d: c.timeout, onBytes: rq.onBytes}
		err = handle(&response{Response: resp, final: req.URL, commit: commit})
		drain(resp.Body)
		if err != nil {
			return stalled(err)
		}
		return nil
	}
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}

// drain reads a little of what is left so the connection can be reused,
// then closes; a large unread body just closes the connection.
func drain(body io.ReadCloser) {
	io.CopyN(io.Discard, body, 4096)
	body.Close()
}

// show prints a URL for a message: no query, no credentials.
func (c *Client) show(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return redactURL(u)
}

// watchedBody pushes the stall timer back as bytes arrive, reports them
// for progress, and marks read failures as worth a retry.
type watchedBody struct {
	r       io.ReadCloser
	timer   *time.Timer
	d       time.Duration
	onBytes func(int64)
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		b.timer.Reset(b.d)
		if b.onBytes != nil {
			b.onBytes(int64(n))
		}
	}
	if err != nil && err != io.EOF {
		err = &transientError{fmt.Errorf("read body: %w", err)}
	}
	return n, err
}

func (b *watchedBody) Close() error { return b.r.Close() }
