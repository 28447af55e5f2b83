package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"dossier/generator/internal/safefile"
)

// DefaultEndpoint is the Hub used when HF_ENDPOINT is not set.
const DefaultEndpoint = "https://huggingface.co"

// Env looks up an environment variable, returning "" when it is unset;
// os.Getenv fits. The client never reads the process environment itself.
type Env func(key string) string

// Token is a Hub access token. It prints as "[redacted]" under every fmt
// verb and marshals the same way, so it cannot leak through an error, a
// log line or a JSON file by accident.
type Token struct{ v string }

// NewToken wraps a token string; surrounding whitespace is dropped.
func NewToken(s string) Token { return Token{strings.TrimSpace(s)} }

// IsSet reports whether there is a token to send.
func (t Token) IsSet() bool { return t.v != "" }

func (t Token) String() string {
	if t.v == "" {
		return "[none]"
	}
	return "[redacted]"
}

// Format keeps %v, %#v, %q and friends from printing the value.
func (t Token) Format(f fmt.State, _ rune) { io.WriteString(f, t.String()) }

// MarshalText keeps encoders from writing the value.
func (t Token) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Config is what a Client needs. The zero value talks to the public Hub
// anonymously with the defaults below.
type Config struct {
	Endpoint  string        // Hub base URL; "" means DefaultEndpoint
	Token     Token         // sent to the endpoint host only, never to the CDN
	UserAgent string        // "" means "dossier/dev"
	Timeout   time.Duration // connect, first byte, and any stall in a body; default 10 s
	MaxTries  int           // attempts per request, retries included; default 5
	// MaxWait is the longest Retry-After honoured; a 429 asking for more
	// fails at once rather than hanging the sync. Default the Hub's
	// five-minute rate-limit window and two seconds.
	MaxWait time.Duration
	// Sleep waits between retries; tests inject a recorder. Default: a
	// timer that returns early with ctx.Err() when ctx is done.
	Sleep func(ctx context.Context, d time.Duration) error
	// Transport overrides the HTTP transport (tests, proxies).
	Transport http.RoundTripper
	// Offline is the variable that set offline mode ("HF_HUB_OFFLINE=1",
	// see OfflineFromEnv); every request then fails with ErrOffline.
	Offline string
}

// ConfigFromEnv builds a Config the way huggingface_hub reads its
// environment: HF_ENDPOINT (trailing "/" stripped), offline mode
// (OfflineFromEnv), then the token from
// HF_TOKEN, HUGGING_FACE_HUB_TOKEN, or the token file ($HF_TOKEN_PATH, else
// $HF_HOME/token, else $XDG_CACHE_HOME/huggingface/token, else
// ~/.cache/huggingface/token). version goes into the User-Agent.
func ConfigFromEnv(env Env, version string) (Config, error) {
	cfg := Config{Endpoint: strings.TrimRight(strings.TrimSpace(env("HF_ENDPOINT")), "/")}
	if cfg.Endpoint != "" {
		if _, err := parseEndpoint(cfg.Endpoint); err != nil {
			return Config{}, fmt.Errorf("HF_ENDPOINT: %w", err)
		}
	}
	if version == "" {
		version = "dev"
	}
	cfg.UserAgent = "dossier/" + version
	cfg.Offline = OfflineFromEnv(env)
	tok, _, err := TokenFromEnv(env)
	if err != nil {
		return Config{}, err
	}
	cfg.Token = tok
	return cfg, nil
}

// TokenFromEnv finds the token and says where it came from (a variable
// name or a file path) so the CLI can tell the user; source is "" when
// there is none. A missing token file is not an error.
func TokenFromEnv(env Env) (tok Token, source string, err error) {
	for _, k := range []string{"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"} {
		if t := NewToken(env(k)); t.IsSet() {
			return t, k, nil
		}
	}
	path := tokenPath(env)
	if path == "" {
		return Token{}, "", nil
	}
	b, err := safefile.Read(path, "", safefile.Token)
	if errors.Is(err, fs.ErrNotExist) {
		return Token{}, "", nil
	}
	if err != nil {
		// The path is safe to print; the contents are not read into the message.
		var refused *safefile.Error
		if errors.As(err, &refused) {
			return Token{}, "", fmt.Errorf("read token file: %w", err)
		}
		return Token{}, "", fmt.Errorf("read token file %s: %w", path, errors.Unwrap(err))
	}
	t := NewToken(string(b))
	if !t.IsSet() {
		return Token{}, "", nil
	}
	return t, path, nil
}

func tokenPath(env Env) string {
	if p := env("HF_TOKEN_PATH"); p != "" {
		return expandHome(p, env)
	}
	if h := env("HF_HOME"); h != "" {
		return filepath.Join(expandHome(h, env), "token")
	}
	if x := env("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(x, "huggingface", "token")
	}
	if home := env("HOME"); home != "" {
		return filepath.Join(home, ".cache", "huggingface", "token")
	}
	return ""
}

func expandHome(p string, env Env) string {
	if home := env("HOME"); home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		return filepath.Join(home, p[1:])
	}
	return p
}

func parseEndpoint(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("invalid endpoint URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q: expected an absolute http(s) URL", redactURL(u))
	}
	if u.User != nil {
		return nil, fmt.Errorf("endpoint %q: credentials in the URL are not supported; use HF_TOKEN", redactURL(u))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("endpoint %q: expected no query or fragment", redactURL(u))
	}
	return u, nil
}

// redactURL prints a URL without credentials, query or fragment: CDN
// URLs carry signatures in the query, and userinfo may carry a password.
func redactURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}
