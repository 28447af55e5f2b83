package config

import (
	"strings"
	"testing"
)

// A DOSSIER_* variable is an error when it looks meant for the site
// configuration (under a section of it, or a typo away from a key) and
// names none; variables other tools read pass.
func TestCheckEnviron(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"DOSSIER_SIZING_CONCURRENCY=4", ""},
		{"DOSSIER_SIZNG_CONCURRENCY=4", "did you mean DOSSIER_SIZING_CONCURRENCY?"},
		{"DOSSIER_SIZING_WHATEVER=4", "DOSSIER_SIZING_WHATEVER names no setting"},
		{"DOSSIER_PUBLISHDR=x", "did you mean DOSSIER_PUBLISHDIR?"},
		{"DOSSIER_PAGEFIND=/bin/pagefind", ""},
		{"DOSSIER_CACHE=/tmp/c", ""},
		{"DOSSIER_PRICING_RUNPOD_ENDPOINT=http://127.0.0.1:1", ""},
		{"DOSSIER_SOMETHING_ELSE_ENTIRELY=1", ""},
		{"HOME=/root", ""},
	} {
		err := checkEnviron([]string{tc.env})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.env, got, tc.want)
		}
	}
}
