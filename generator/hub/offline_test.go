package hub_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"dossier/generator/hub"
)

// failingTransport fails every round trip with err and counts them.
type failingTransport struct {
	err   error
	calls int
}

func (f *failingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	f.calls++
	return nil, f.err
}

// A name that does not resolve or a network without a route fails at
// once (one round trip, no sleep) with a hint, where a dropped connection
// is retried.
func TestUnreachableFailsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		unreached bool
	}{
		{"no such host", &net.DNSError{Err: "no such host", Name: "huggingface.co", IsNotFound: true}, true},
		{"DNS timeout", &net.DNSError{Err: "i/o timeout", Name: "huggingface.co", IsTimeout: true}, true},
		{"network unreachable", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ENETUNREACH)}, true},
		{"host unreachable", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.EHOSTUNREACH)}, true},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ft := &failingTransport{err: tc.err}
			slept := 0
			c, err := hub.New(hub.Config{Transport: ft, MaxTries: 4, Sleep: func(context.Context, time.Duration) error { slept++; return nil }})
			if err != nil {
				t.Fatal(err)
			}
			_, err = hub.Resolve(context.Background(), c, "acme/tiny", "main")
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, hub.ErrUnreachable); got != tc.unreached {
				t.Errorf("errors.Is(ErrUnreachable) = %v: %v", got, err)
			}
			switch {
			case tc.unreached && (ft.calls != 1 || slept != 0):
				t.Errorf("%d round trips and %d sleeps, want 1 and 0", ft.calls, slept)
			case tc.unreached && !strings.Contains(err.Error(), "HF_ENDPOINT") || tc.unreached && !strings.Contains(err.Error(), "HF_HUB_OFFLINE"):
				t.Errorf("no hint in %q", err)
			case !tc.unreached && ft.calls != 4:
				t.Errorf("%d round trips, want 4 (retried)", ft.calls)
			}
		})
	}
}

// Offline mode makes no request at all.
func TestOfflineModeMakesNoRequest(t *testing.T) {
	ft := &failingTransport{err: errors.New("a request was made")}
	c, err := hub.New(hub.Config{Transport: ft, Offline: "HF_HUB_OFFLINE=1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = hub.Resolve(context.Background(), c, "acme/tiny", "main")
	if !errors.Is(err, hub.ErrOffline) || !strings.Contains(err.Error(), "HF_HUB_OFFLINE=1") || ft.calls != 0 {
		t.Errorf("error %v after %d round trips, want ErrOffline naming the variable and none", err, ft.calls)
	}
}

// HF_HUB_OFFLINE is read as huggingface_hub reads it: HF_HUB_OFFLINE or,
// when that is unset or empty, TRANSFORMERS_OFFLINE, true for 1, ON, YES
// or TRUE in any case.
func TestOfflineFromEnv(t *testing.T) {
	for _, tc := range []struct {
		hub, transformers string
		want              string
	}{
		{"1", "", "HF_HUB_OFFLINE=1"},
		{"on", "", "HF_HUB_OFFLINE=on"},
		{"Yes", "", "HF_HUB_OFFLINE=Yes"},
		{"TRUE", "", "HF_HUB_OFFLINE=TRUE"},
		{"0", "", ""},
		{"false", "1", ""}, // set, so TRANSFORMERS_OFFLINE is not read
		{"2", "", ""},
		{"", "1", "TRANSFORMERS_OFFLINE=1"},
		{"", "", ""},
	} {
		env := map[string]string{"HF_HUB_OFFLINE": tc.hub, "TRANSFORMERS_OFFLINE": tc.transformers}
		if got := hub.OfflineFromEnv(func(k string) string { return env[k] }); got != tc.want {
			t.Errorf("HF_HUB_OFFLINE=%q TRANSFORMERS_OFFLINE=%q: %q, want %q", tc.hub, tc.transformers, got, tc.want)
		}
		cfg, err := hub.ConfigFromEnv(func(k string) string { return env[k] }, "test")
		if err != nil || cfg.Offline != tc.want {
			t.Errorf("ConfigFromEnv: Offline %q, %v", cfg.Offline, err)
		}
	}
}
