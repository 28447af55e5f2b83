package hub_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"dossier/generator/hub"
	"dossier/generator/hub/hubtest"
)

func TestErrorClasses(t *testing.T) {
	open := smallRepo("acme/open", 1)
	gated := smallRepo("acme/gated", 1)
	gated.Gated, gated.Approved = true, []string{"hf_approved"}
	private := smallRepo("acme/private", 1)
	private.Private, private.Approved = true, []string{"hf_approved"}

	cases := []struct {
		name, model, rev, token string
		fault                   *hubtest.Fault
		is                      []error
		not                     []error
		status                  int
		msg                     string
	}{
		{name: "private without token", model: "acme/private", is: []error{hub.ErrUnauthorized}, not: []error{hub.ErrGated, hub.ErrNotFound},
			status: 401, msg: "no token was sent: set HF_TOKEN"},
		{name: "private with a token lacking access", model: "acme/private", token: "hf_other", is: []error{hub.ErrRepoNotFound, hub.ErrNotFound},
			status: 404, msg: "no repository acme/private"},
		{name: "missing without token", model: "acme/missing", is: []error{hub.ErrUnauthorized}, status: 401},
		{name: "missing with token", model: "acme/missing", token: "hf_other", is: []error{hub.ErrRepoNotFound}, not: []error{hub.ErrRevisionNotFound, hub.ErrEntryNotFound}, status: 404},
		{name: "gated without token", model: "acme/gated", is: []error{hub.ErrGated, hub.ErrUnauthorized}, status: 401,
			msg: "acme/gated is gated: request access on "},
		{name: "gated not approved", model: "acme/gated", token: "hf_other", is: []error{hub.ErrGated}, not: []error{hub.ErrUnauthorized, hub.ErrForbidden},
			status: 403, msg: "has not been granted access: request access on the model page"},
		{name: "invalid token", model: "acme/open", token: "hf_revoked", is: []error{hub.ErrUnauthorized}, status: 401, msg: "the token was refused"},
		{name: "revision not found", model: "acme/open", rev: "no-such-branch", is: []error{hub.ErrRevisionNotFound, hub.ErrNotFound}, not: []error{hub.ErrRepoNotFound},
			status: 404, msg: `no revision "no-such-branch"`},
		{name: "entry not found", model: "acme/open", fault: &hubtest.Fault{Path: "/config.json", Status: 404, Code: "EntryNotFound"},
			is: []error{hub.ErrEntryNotFound, hub.ErrNotFound}, status: 404, msg: `no file "config.json"`},
		{name: "forbidden", model: "acme/open", fault: &hubtest.Fault{Path: "/resolve/", Status: 403, Message: "fine-grained token lacks read access"},
			is: []error{hub.ErrForbidden}, not: []error{hub.ErrGated}, status: 403, msg: "lacks the permission"},
		{name: "plain 404", model: "acme/open", fault: &hubtest.Fault{Path: "/tree/", Status: 404}, is: []error{hub.ErrNotFound}, not: []error{hub.ErrRepoNotFound}, status: 404},
		{name: "rate limit beyond the wait cap", model: "acme/open", fault: &hubtest.Fault{Path: "/api/", Status: 429, RetryAfter: "3600"},
			is: []error{hub.ErrRateLimited}, status: 429, msg: "the Hub asks to wait 1h0m0s"},
		{name: "server keeps failing", model: "acme/open", fault: &hubtest.Fault{Path: "/api/", Status: 503}, is: []error{hub.ErrServer}, status: 503, msg: "gave up after 5 tries"},
		// Issue 15: the CDN never gets the token, so its 401 must not say
		// "no token was sent: set HF_TOKEN" to someone who has set it.
		{name: "CDN 401 with a token set", model: "acme/open", token: "hf_approved", fault: &hubtest.Fault{Host: "cdn", Status: 401},
			is: []error{hub.ErrUnauthorized}, status: 401, msg: "HF_TOKEN is set, but a token is sent only to the endpoint"},
		{name: "disabled", model: "acme/open", fault: &hubtest.Fault{Path: "/api/", Status: 403, Message: "Access to this resource is disabled."}, status: 403, msg: "disabled"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := hubtest.New(t, open, gated, private)
			srv.SetValidTokens("hf_approved", "hf_other")
			if tc.fault != nil {
				srv.AddFault(*tc.fault)
			}
			c, _ := newClient(t, srv.URL(), tc.token)
			_, err := hub.Sync(context.Background(), c, t.TempDir(), tc.model, tc.rev, hub.Options{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, target := range tc.is {
				if !errors.Is(err, target) {
					t.Errorf("%v is not %v", err, target)
				}
			}
			for _, target := range tc.not {
				if errors.Is(err, target) {
					t.Errorf("%v is %v", err, target)
				}
			}
			var he *hub.Error
			if !errors.As(err, &he) || he.Status != tc.status {
				t.Fatalf("error %v: want *hub.Error with status %d", err, tc.status)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q lacks %q", err, tc.msg)
			}
			if tc.token != "" && strings.Contains(err.Error(), tc.token) {
				t.Errorf("error shows the token: %v", err)
			}
		})
	}
}

func TestGatedApprovedSucceeds(t *testing.T) {
	gated := smallRepo("acme/gated", 2)
	gated.Gated, gated.Approved = true, []string{testToken}
	srv := hubtest.New(t, gated)
	c, _ := newClient(t, srv.URL(), testToken)
	if _, err := hub.Sync(context.Background(), c, t.TempDir(), "acme/gated", "", hub.Options{}); err != nil {
		t.Fatal(err)
	}
	if n := srv.CDNAuthorizations(); n != 0 {
		t.Fatalf("the token went to the CDN %d times", n)
	}
}

func TestRetries(t *testing.T) {
	cases := []struct {
		name  string
		fault hubtest.Fault
		want  []time.Duration
	}{
		{"429 Retry-After", hubtest.Fault{Path: "/api/models/", Times: 1, Status: 429, RetryAfter: "7"}, []time.Duration{7 * time.Second}},
		{"429 RateLimit", hubtest.Fault{Path: "/api/models/", Times: 1, Status: 429, RateLimit: `"api";r=0;t=12`}, []time.Duration{13 * time.Second}},
		{"429 bare", hubtest.Fault{Path: "/api/models/", Times: 2, Status: 429}, []time.Duration{time.Second, 2 * time.Second}},
		{"503 Retry-After", hubtest.Fault{Path: "/api/models/", Times: 1, Status: 503, RetryAfter: "3"}, []time.Duration{3 * time.Second}},
		{"500 backoff", hubtest.Fault{Path: "/tree/", Times: 4, Status: 500}, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}},
		{"502", hubtest.Fault{Path: "/resolve/", Times: 1, Status: 502}, []time.Duration{time.Second}},
		{"408", hubtest.Fault{Host: "cdn", Times: 1, Status: 408}, []time.Duration{time.Second}},
		{"dropped connection", hubtest.Fault{Path: "/api/models/", Times: 8, Drop: true}, nil},
		{"truncated JSON", hubtest.Fault{Path: "/tree/", Times: 1, Truncate: true}, []time.Duration{time.Second}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := hubtest.New(t, smallRepo("acme/toy", 2))
			srv.AddFault(tc.fault)
			c, sl := newClient(t, srv.URL(), "")
			if _, err := hub.Sync(context.Background(), c, t.TempDir(), "acme/toy", "", hub.Options{}); err != nil {
				if tc.fault.Drop {
					// Go's transport may itself retry a request dropped on a
					// reused connection; with 8 drops the client runs out of tries.
					if !strings.Contains(err.Error(), "gave up after 5 tries") {
						t.Fatalf("error %v", err)
					}
					return
				}
				t.Fatal(err)
			}
			if tc.want != nil && !equalDurations(sl.got(), tc.want) {
				t.Fatalf("sleeps %v, want %v", sl.got(), tc.want)
			}
		})
	}
}

func TestDroppedConnectionsRecover(t *testing.T) {
	srv := hubtest.New(t, smallRepo("acme/toy", 2))
	srv.AddFault(hubtest.Fault{Host: "cdn", Times: 2, Drop: true})
	c, sl := newClient(t, srv.URL(), "")
	if _, err := hub.Sync(context.Background(), c, t.TempDir(), "acme/toy", "", hub.Options{Concurrency: 1}); err != nil {
		t.Fatal(err)
	}
	if len(sl.got()) == 0 || len(sl.got()) > 2 {
		t.Fatalf("sleeps %v", sl.got())
	}
}

func TestStalledBodyTimesOut(t *testing.T) {
	srv := hubtest.New(t, smallRepo("acme/toy", 1))
	srv.SetLatency(300 * time.Millisecond)
	sl := &sleeps{}
	c, err := hub.New(hub.Config{Endpoint: srv.URL(), Timeout: 100 * time.Millisecond, MaxTries: 2, Sleep: sl.sleep})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ModelInfo(context.Background(), "acme/toy", "")
	if err == nil || !strings.Contains(err.Error(), "gave up after 2 tries") {
		t.Fatalf("error %v", err)
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
