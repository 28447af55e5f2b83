package cli

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/internal/sitetest"
	"dossier/generator/site"
)

// TestDeployChangedPutsOnlyWhatChanged deploys the fixture site to a
// directory standing for a static host, changes one price, and deploys
// again with scripts/deploy-changed: the second deploy puts only files
// whose bytes changed (never every file), deletes none, and leaves the
// host equal to the new build, manifest included.
func TestDeployChangedPutsOnlyWhatChanged(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root := newSite(t)
	tmp := t.TempDir()
	first, second, host := filepath.Join(tmp, "first"), filepath.Join(tmp, "second"), filepath.Join(tmp, "host")
	if code, o, e := run("--source", root, "build", "--destination", first); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, o, e)
	}
	edit(t, filepath.Join(root, "data", "pricing", "runpod.yaml"), "usd_per_hour: 29\n", "usd_per_hour: 290\n")
	if code, o, e := run("--source", root, "build", "--destination", second); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, o, e)
	}
	put := filepath.Join(tmp, "put")
	del := filepath.Join(tmp, "del")
	if err := os.WriteFile(put, []byte("#!/bin/sh\nmkdir -p \"$(dirname \""+host+"/$2\")\" && cp \"$1\" \""+host+"/$2\" && echo \"$2\" >>"+filepath.Join(tmp, "puts")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(del, []byte("#!/bin/sh\nrm \""+host+"/$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	deploy := func(siteDir string) []string {
		t.Helper()
		os.Remove(filepath.Join(tmp, "puts"))
		cmd := exec.Command("bash", filepath.Join(sitetest.RepoRoot(t), "scripts", "deploy-changed"), siteDir, filepath.Join(host, ".dossier", "files.json"))
		cmd.Env = append(os.Environ(), asDossier+"=1", "DOSSIER="+os.Args[0], "DEPLOY_PUT="+put, "DEPLOY_DELETE="+del)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("deploy-changed: %v\n%s", err, out)
		}
		b, _ := os.ReadFile(filepath.Join(tmp, "puts"))
		return strings.Fields(string(b))
	}
	all := deploy(first) // nothing deployed: every file is put
	sameFiles(t, first, host)
	puts := deploy(second)
	sameFiles(t, second, host)
	if len(puts) == 0 || len(puts) >= len(all) {
		t.Fatalf("the second deploy put %d of %d files, want some but not all", len(puts), len(all))
	}
	t.Logf("a price change: %d of %d files put", len(puts), len(all))
	if puts[len(puts)-1] != site.FilesManifestPath {
		t.Errorf("the manifest is put at %d, not last: %v", len(puts), puts)
	}
	for _, p := range puts {
		if a, b := readOr(filepath.Join(first, p)), readOr(filepath.Join(second, p)); bytes.Equal(a, b) {
			t.Errorf("%s was put but did not change", p)
		}
	}
}

func readOr(p string) []byte { b, _ := os.ReadFile(p); return b }

// sameFiles fails unless the two trees hold the same files with the same
// bytes.
func sameFiles(t *testing.T, want, got string) {
	t.Helper()
	list := func(root string) map[string]bool {
		m := map[string]bool{}
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				m[rel] = true
			}
			return nil
		})
		return m
	}
	w, g := list(want), list(got)
	for p := range w {
		if !g[p] {
			t.Errorf("%s missing on the host", p)
		} else if !bytes.Equal(readOr(filepath.Join(want, p)), readOr(filepath.Join(got, p))) {
			t.Errorf("%s differs on the host", p)
		}
	}
	for p := range g {
		if !w[p] {
			t.Errorf("%s on the host but not in the site", p)
		}
	}
}

func TestChangesOrder(t *testing.T) {
	m := site.FilesManifestPath
	a := strings.Repeat("a", 64)
	b := strings.Repeat("b", 64)
	got := changes(map[string]string{"x": a, "y": a}, map[string]string{"x": a, "y": b, "z": a})
	want := []string{"put y", "put z", "put " + m}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("changes = %v, want %v", got, want)
	}
	got = changes(map[string]string{"gone": a}, map[string]string{})
	if strings.Join(got, "|") != "delete gone|put "+m {
		t.Errorf("changes = %v", got)
	}
}
