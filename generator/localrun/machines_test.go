package localrun_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/localrun"
)

// Bad input in local.yaml is one error naming the file and the field.
func TestLoadHostsRefuses(t *testing.T) {
	good, err := os.ReadFile("testdata/local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ from, to, want string }{
		"unknown field":  {"    max_gpus: 2\n", "    max_gpu: 2\n", "max_gpu"},
		"kind":           {"kind: desktop", "kind: laptop", "hosts[0].kind: expected one of"},
		"memory":         {"memory_bytes: 68719476736", "memory_bytes: -1", "hosts[0].memory_bytes"},
		"no bandwidth":   {"value: 5.12e+10", "value: 0", "hosts[0].memory_bandwidth"},
		"mac not in hw":  {"accelerator: M4Max128", "accelerator: RTX4090", "accelerator: \"RTX4090\" is not a unified-memory accelerator"},
		"id":             {"id: DDR4Desktop64", "id: DDR4-Desktop", "hosts[0].id"},
		"duplicate host": {"id: DDR4Desktop128", "id: DDR4Desktop64", "duplicate id"},
	} {
		b := strings.Replace(string(good), c.from, c.to, 1)
		if b == string(good) {
			t.Fatalf("%s: %q not in the fixture", name, c.from)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "local.yaml"), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := localrun.LoadHosts(os.DirFS(dir), dir, testCatalog())
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "local.yaml")) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want the file and %q", name, err, c.want)
		}
	}
}
