package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kind classifies a failed Hub answer.
type Kind int

const (
	KindOther            Kind = iota
	KindUnauthorized          // 401: no token, a bad token, or a private repo
	KindGated                 // X-Error-Code GatedRepo: access not granted (yet)
	KindForbidden             // 403 for another reason: the token lacks a permission
	KindRepoNotFound          // 404 X-Error-Code RepoNotFound
	KindRevisionNotFound      // 404 X-Error-Code RevisionNotFound
	KindEntryNotFound         // 404 X-Error-Code EntryNotFound
	KindNotFound              // 404 without a code
	KindDisabled              // the repository was disabled
	KindRange                 // 416: the file is shorter than the range
	KindRateLimited           // 429
	KindServer                // 408 or 5xx
	KindBadRequest            // 400
)

// Sentinels for errors.Is. An *Error matches every sentinel that applies:
// a 401 GatedRepo answer is both ErrUnauthorized and ErrGated, and each of
// the three coded 404s is also ErrNotFound.
var (
	ErrUnauthorized     = errors.New("hub: unauthorized")
	ErrGated            = errors.New("hub: gated repository")
	ErrForbidden        = errors.New("hub: forbidden")
	ErrNotFound         = errors.New("hub: not found")
	ErrRepoNotFound     = errors.New("hub: repository not found")
	ErrRevisionNotFound = errors.New("hub: revision not found")
	ErrEntryNotFound    = errors.New("hub: file not found")
	ErrRateLimited      = errors.New("hub: rate limited")
	ErrServer           = errors.New("hub: server error")
	ErrRange            = errors.New("hub: range not satisfiable")
)

// Error is a non-2xx answer from the Hub or the CDN.
type Error struct {
	Kind     Kind
	Status   int
	Code     string // X-Error-Code
	Message  string // X-Error-Message or the body's "error", token removed
	Method   string
	URL      string // without query or credentials
	Model    string
	Revision string
	File     string // path inside the repository, for resolve requests
	Endpoint string
	// TokenSent says whether the request carried a token, which changes
	// what a 401 means.
	TokenSent  bool
	RetryAfter time.Duration // what the server asked for on 429 or 503
	// TokenHeld says the client has a token it kept off this request: a
	// CDN a download redirected to never gets it.
	TokenHeld bool
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Model != "" {
		b.WriteString(e.Model + ": ")
	}
	fmt.Fprintf(&b, "%s %s: %d %s", e.Method, e.URL, e.Status, http.StatusText(e.Status))
	if e.Code != "" {
		b.WriteString(" (" + e.Code + ")")
	}
	if h := e.hint(); h != "" {
		b.WriteString(": " + h)
	}
	if e.Message != "" {
		b.WriteString(" [server: " + e.Message + "]")
	}
	return b.String()
}

// hint says what the answer means for the user and what to do.
func (e *Error) hint() string {
	page := e.Endpoint + "/" + e.Model
	switch {
	case e.Kind == KindGated && !e.TokenSent:
		return fmt.Sprintf("%s is gated: request access on %s, then set HF_TOKEN to a token of the approved account", e.Model, page)
	case e.Kind == KindGated:
		return fmt.Sprintf("%s is gated and this account has not been granted access: request access on the model page %s (log in, accept the conditions) and sync again once approved", e.Model, page)
	case e.Kind == KindUnauthorized && !e.TokenSent && e.TokenHeld:
		return "the download host refused the redirected request; HF_TOKEN is set, but a token is sent only to the endpoint, never to the host a download redirects to: the signed redirect may have expired (sync again), or the endpoint redirected to a host that wants its own credentials"
	case e.Kind == KindUnauthorized && !e.TokenSent:
		return "the repository is private, gated or does not exist, and no token was sent: set HF_TOKEN"
	case e.Kind == KindUnauthorized && strings.Contains(e.Message, "Invalid credentials"):
		return "the token was refused: check HF_TOKEN"
	case e.Kind == KindUnauthorized:
		return "the token has no access: the repository is private or does not exist"
	case e.Kind == KindForbidden:
		return "the token lacks the permission this needs"
	case e.Kind == KindRepoNotFound:
		return fmt.Sprintf("no repository %s at %s", e.Model, e.Endpoint)
	case e.Kind == KindRevisionNotFound:
		return fmt.Sprintf("no revision %q in %s", e.Revision, e.Model)
	case e.Kind == KindEntryNotFound:
		return fmt.Sprintf("no file %q at revision %s", e.File, e.Revision)
	case e.Kind == KindDisabled:
		return "the repository has been disabled"
	case e.Kind == KindRange:
		return "the file is shorter than the range asked for"
	case e.Kind == KindRateLimited && e.RetryAfter > 0:
		return fmt.Sprintf("rate limited; the Hub asks to wait %s", e.RetryAfter)
	case e.Kind == KindRateLimited:
		return "rate limited; a token raises the quota"
	}
	return ""
}

// Is matches the sentinels above.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized
	case ErrGated:
		return e.Kind == KindGated
	case ErrForbidden:
		return e.Status == http.StatusForbidden && e.Kind != KindGated
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	case ErrRepoNotFound:
		return e.Kind == KindRepoNotFound
	case ErrRevisionNotFound:
		return e.Kind == KindRevisionNotFound
	case ErrEntryNotFound:
		return e.Kind == KindEntryNotFound
	case ErrRateLimited:
		return e.Kind == KindRateLimited
	case ErrServer:
		return e.Kind == KindServer
	case ErrRange:
		return e.Kind == KindRange
	}
	return false
}

func classify(status int, code, msg string) Kind {
	switch {
	case code == "GatedRepo":
		return KindGated
	case status == http.StatusUnauthorized:
		// huggingface_hub: a 401 is returned for private, gated and missing
		// repositories alike when the caller is not authenticated.
		return KindUnauthorized
	case code == "RepoNotFound":
		return KindRepoNotFound
	case code == "RevisionNotFound":
		return KindRevisionNotFound
	case code == "EntryNotFound":
		return KindEntryNotFound
	case msg == "Access to this resource is disabled.":
		return KindDisabled
	case status == http.StatusForbidden:
		return KindForbidden
	case status == http.StatusNotFound:
		return KindNotFound
	case status == http.StatusRequestedRangeNotSatisfiable:
		return KindRange
	case status == http.StatusTooManyRequests:
		return KindRateLimited
	case status == http.StatusRequestTimeout || status >= 500:
		return KindServer
	case status == http.StatusBadRequest:
		return KindBadRequest
	}
	return KindOther
}

// statusError reads a little of the body for the server's message and
// builds the typed error. Anything the server says is scrubbed of the
// token and of control characters before it is kept.
func (c *Client) statusError(rq *request, resp *http.Response) *Error {
	e := &Error{
		Status:    resp.StatusCode,
		Code:      resp.Header.Get("X-Error-Code"),
		Method:    rq.method,
		URL:       redactURL(resp.Request.URL),
		Model:     rq.model,
		Revision:  rq.revision,
		File:      rq.file,
		Endpoint:  c.base,
		TokenSent: resp.Request.Header.Get("Authorization") != "",
	}
	e.TokenHeld = !e.TokenSent && c.token.IsSet()
	msg := resp.Header.Get("X-Error-Message")
	if msg == "" {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		var j struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &j) == nil && j.Error != "" {
			msg = j.Error
		} else if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
			msg = string(body)
		}
	}
	e.Message = c.scrub(msg)
	e.Kind = classify(e.Status, e.Code, e.Message)
	if e.Kind == KindRateLimited || e.Status == http.StatusServiceUnavailable {
		e.RetryAfter = retryAfter(resp.Header, c.now())
	}
	return e
}

// scrub removes the token and control characters from server text and
// keeps it to one short line.
func (c *Client) scrub(s string) string {
	if c.token.IsSet() {
		s = strings.ReplaceAll(s, c.token.v, "[redacted]")
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		n := 300
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}
