package hub

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
)

// ErrUnreachable is a request that never reached the Hub: its name does
// not resolve or the network has no route to it. Another try a second
// later finds the same, so the client fails at once instead of retrying.
var ErrUnreachable = errors.New("hub: unreachable")

// ErrOffline is a request made in offline mode (HF_HUB_OFFLINE).
var ErrOffline = errors.New("hub: offline mode")

// unreachableError says the endpoint cannot be reached and what to do.
type unreachableError struct {
	err      error
	endpoint string
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("%v: %s cannot be reached (no network, or its name does not resolve); set HF_ENDPOINT to a mirror that can be, or HF_HUB_OFFLINE=1 to make no request", e.err, e.endpoint)
}

func (e *unreachableError) Unwrap() error { return e.err }

func (e *unreachableError) Is(target error) bool { return target == ErrUnreachable }

// unreachable reports whether a failed round trip never reached a server:
// a DNS failure (the lookup itself needs the network) or no route.
func unreachable(err error) bool {
	var dns *net.DNSError
	return errors.As(err, &dns) || errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH)
}

// OfflineFromEnv is the variable setting offline mode as huggingface_hub
// reads it ("HF_HUB_OFFLINE=1"), or "" when online: HF_HUB_OFFLINE, or
// when that is unset or empty TRANSFORMERS_OFFLINE, is true when it is 1,
// ON, YES or TRUE in any case. Source: huggingface_hub
// src/huggingface_hub/constants.py, HF_HUB_OFFLINE =
// _is_true(HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE) with ENV_VARS_TRUE_VALUES
// (https://github.com/huggingface/huggingface_hub, read 2026-12-04).
func OfflineFromEnv(env Env) string {
	for _, k := range []string{"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"} {
		v := env(k)
		if v == "" {
			continue
		}
		switch strings.ToUpper(v) {
		case "1", "ON", "YES", "TRUE":
			return k + "=" + v
		}
		return ""
	}
	return ""
}
