package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func site(t *testing.T, yaml string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPrecedenceFlagOverEnvOverFile(t *testing.T) {
	dir := site(t, "publishDir: from-file\nsizing:\n  concurrency: 2\n  gpuMemoryUtilization: 0.8\n")
	s, err := Load(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.PublishDir != "from-file" || s.Sizing.Concurrency != 2 || s.Sizing.GPUMemoryUtilization != 0.8 {
		t.Fatalf("file values not read: %+v", s)
	}
	if s.Sizing.KVDTypeBytes != 2 || s.ContentDir != "content" {
		t.Errorf("defaults lost: %+v", s)
	}
	t.Setenv("DOSSIER_PUBLISHDIR", "from-env")
	t.Setenv("DOSSIER_SIZING_CONCURRENCY", "8")
	s, err = Load(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.PublishDir != "from-env" || s.Sizing.Concurrency != 8 {
		t.Errorf("environment did not override the file: %q %d", s.PublishDir, s.Sizing.Concurrency)
	}
	flags := pflag.NewFlagSet("build", pflag.ContinueOnError)
	flags.String("destination", "", "")
	if err := flags.Parse([]string{"--destination", "from-flag"}); err != nil {
		t.Fatal(err)
	}
	s, err = Load(dir, flags, map[string]string{"destination": "publishdir"})
	if err != nil {
		t.Fatal(err)
	}
	if s.PublishDir != "from-flag" {
		t.Errorf("flag did not override the environment: %q", s.PublishDir)
	}
	if got := s.Dir(s.PublishDir); got != filepath.Join(dir, "from-flag") {
		t.Errorf("Dir = %s", got)
	}
}

func TestUnsetFlagDoesNotOverride(t *testing.T) {
	dir := site(t, "publishDir: from-file\n")
	flags := pflag.NewFlagSet("build", pflag.ContinueOnError)
	flags.String("destination", "", "")
	s, err := Load(dir, flags, map[string]string{"destination": "publishdir"})
	if err != nil {
		t.Fatal(err)
	}
	if s.PublishDir != "from-file" {
		t.Errorf("an unset flag overrode the file: %q", s.PublishDir)
	}
}

func TestBadConfigNamesFileAndKey(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"titel: typo\n", `unknown key "titel"`},
		{"sizing:\n  concurency: 2\n", `unknown key "sizing.concurency"`},
		{"sizing:\n  gpuMemoryUtilization: 1.5\n", "sizing.gpuMemoryUtilization"},
		{"hardware: [eightB200]\n", "hardware[0]"},
		{"sizing:\n  concurrency: many\n", "concurrency"},
		{"title: [unclosed\n", FileName},
	} {
		dir := site(t, tc.yaml)
		_, err := Load(dir, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), FileName) {
			t.Errorf("%q: error %v, want one naming %s and %q", tc.yaml, err, FileName, tc.want)
		}
	}
	if _, err := Load(t.TempDir(), nil, nil); err == nil || !strings.Contains(err.Error(), "--source") {
		t.Errorf("missing config: %v", err)
	}
}

func TestBadValuesNameKeyAndExpectation(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"freshness:\n  today: 2026/01/02\n", `field freshness.today: expected a calendar date YYYY-MM-DD (or empty for the clock), found "2026/01/02"`},
		{"freshness:\n  today: \"2026-13-40\"\n", `field freshness.today: expected a calendar date YYYY-MM-DD (or empty for the clock), found "2026-13-40"`},
		{"freshness:\n  maxAgeDays: -1\n", "field freshness.maxAgeDays: expected from 0 to 36500 days (0: no limit), found -1"},
		{"sizing:\n  reservePerGpuBytes: -1\n", "field sizing.reservePerGpuBytes: expected from 0 to 10000000000000 bytes, found -1"},
		{"sizing:\n  tensorParallelSizes: [1, 2, 0, 8]\n", "field sizing.tensorParallelSizes[2]: expected from 1 to 65536 GPUs, found 0"},
		{"sizing:\n  tensorParallelSizes: [-4]\n", "field sizing.tensorParallelSizes[0]: expected from 1 to 65536 GPUs, found -4"},
		{"sizing:\n  downloadBytesPerSecond: -1\n", "field sizing.downloadBytesPerSecond: expected from 1 to 1e+12 bytes per second, found -1"},
		{"sizing:\n  downloadBytesPerSecond: .nan\n", "field sizing.downloadBytesPerSecond: expected from 1 to 1e+12 bytes per second, found NaN"},
		{"sizing:\n  waitWindowSeconds: -60\n", "field sizing.waitWindowSeconds: expected from 0 to 1e9 seconds, found -60"},
		{"sizing:\n  gpuMemoryUtilization: .nan\n", "field sizing.gpuMemoryUtilization: expected a fraction in (0, 1], found NaN"},
		{"sizing:\n  contexts: [8192, 0]\n", "field sizing.contexts[1]: expected from 1 to 4294967296 tokens, found 0"},
		{"publisher:\n  url: checks.example.org\n", `field publisher.url: expected an http(s) address, found "checks.example.org"`},
	} {
		dir := site(t, tc.yaml)
		_, err := Load(dir, nil, nil)
		want := filepath.Join(dir, FileName) + ": " + tc.want
		if err == nil || err.Error() != want {
			t.Errorf("%q: error %v\nwant %s", tc.yaml, err, want)
		}
	}
}

func TestGoodFreshnessAndSizingValues(t *testing.T) {
	dir := site(t, "freshness:\n  today: \"2026-02-28\"\n  maxAgeDays: 0\nsizing:\n  reservePerGpuBytes: 0\n  waitWindowSeconds: 0\n")
	s, err := Load(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Freshness.Today != "2026-02-28" {
		t.Errorf("today = %q", s.Freshness.Today)
	}
	t.Setenv("DOSSIER_FRESHNESS_TODAY", "yesterday")
	if _, err := Load(dir, nil, nil); err == nil || !strings.Contains(err.Error(), "field freshness.today") {
		t.Errorf("a bad date from the environment: %v", err)
	}
}

// The publisher keys are read as given; an unset name falls back to the
// author, and a misspelt key is refused.
func TestPublisher(t *testing.T) {
	s, err := Load(site(t, "author: Example\npublisher:\n  funding: \"reader donations.\"\n  reviewer: A. Reviewer\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Organisation() != "Example" || s.Publisher.Funding != "reader donations." || s.Publisher.Reviewer != "A. Reviewer" {
		t.Errorf("publisher %+v, organisation %q", s.Publisher, s.Organisation())
	}
	if s, err = Load(site(t, "publisher:\n  name: Example Checks\n"), nil, nil); err != nil || s.Organisation() != "Example Checks" {
		t.Errorf("organisation %v, %v", s, err)
	}
	if _, err := Load(site(t, "publisher:\n  funder: x\n"), nil, nil); err == nil || !strings.Contains(err.Error(), `unknown key "publisher.funder"`) {
		t.Errorf("misspelt key: %v", err)
	}
}

func TestParseHardware(t *testing.T) {
	if n, id, ok := ParseHardware("8xB200"); !ok || n != 8 || id != "B200" {
		t.Errorf("8xB200 = %d %q %v", n, id, ok)
	}
	for _, bad := range []string{"B200", "0xB200", "8x", "x8"} {
		if _, _, ok := ParseHardware(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Outside a site plan uses the built-in settings: the same per-GPU reserve
// and memory share as the shipped site, so one model on one GPU gets the
// same margin in any directory.
func TestBuiltinReserveMatchesShippedSite(t *testing.T) {
	s, err := Builtin(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Sizing.ReservePerGPUBytes != 2<<30 || s.Sizing.GPUMemoryUtilization != 0.9 {
		t.Errorf("built-in reserve %d B, utilization %v; want 2 GiB and 0.90", s.Sizing.ReservePerGPUBytes, s.Sizing.GPUMemoryUtilization)
	}
}

// A whole number written as a float is an integer; a fraction or a
// boolean where an integer or a ratio belongs is an error naming the key.
func TestStrictNumbers(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"sizing:\n  concurrency: 4.0\n", ""},
		{"sizing:\n  concurrency: \"4\"\n", ""},
		{"sizing:\n  servingContext: 1e6\n", ""},
		{"sizing:\n  concurrency: 4.5\n", "field sizing.concurrency: expected an integer, found 4.5"},
		{"sizing:\n  kvDtypeBytes: true\n", "field sizing.kvDtypeBytes: expected an integer, found true"},
		{"sizing:\n  gpuMemoryUtilization: false\n", "field sizing.gpuMemoryUtilization: expected a number, found false"},
		{"sizing:\n  contexts: [1024, 1.5]\n", "field sizing.contexts[1]: expected an integer"},
		{"search: 0\n", "field search: expected true or false, found 0"},
	} {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, FileName), []byte(tc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(root, nil, nil)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.yaml, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
