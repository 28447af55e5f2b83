package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// secretToken is in the environment of every bad-input case: no message
// and no published file may hold it.
const secretToken = "hf_badinputSecretToken36"

// outsideText is what a file outside the site holds: a link to it must
// not publish it.
const outsideText = "OUTSIDE-THE-SITE-36"

// cachedSHA is the commit of the user-cache entries the cases break.
const cachedSHA = "0123456789abcdef0123456789abcdef01234567"

// linkTo replaces file with a symbolic link to target; "outside" is a
// regular file outside the site holding outsideText.
func linkTo(file, target string) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		t.Helper()
		if target == "outside" {
			target = filepath.Join(t.TempDir(), "outside.txt")
			if err := os.WriteFile(target, []byte(outsideText+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p := filepath.Join(root, file)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
}

// fifoAt replaces file with a named pipe nobody writes to: reading it
// would wait for ever.
func fifoAt(file string) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		t.Helper()
		p := filepath.Join(root, file)
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
	}
}

// grow appends n bytes of YAML comment to file.
func grow(file string, n int) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(root, file), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		line := "# " + strings.Repeat("x", 1021) + "\n"
		for range n / len(line) {
			if _, err := f.WriteString(line); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// issue36Cases are the bad inputs of issue 36, counted apart: see the
// closing note of the issue for how many the code before it mishandled.
func issue36Cases() []badCase {
	cacheDir := "usercache"
	cacheEnv := map[string]string{"DOSSIER_CACHE": cacheDir}
	cachedSnap := cacheDir + "/hub/acme/tiny/" + cachedSHA + ".json"
	cachedRef := cacheDir + "/hub/acme/tiny/refs/main"
	planCached := []string{"plan", "acme/tiny@" + cachedSHA, "--offline"}
	planRef := []string{"plan", "acme/tiny", "--offline"}
	inputs := []struct{ kind, file string }{
		{"template", "templates/dossier.md"},
		{"html template", "templates/base.html"},
		{"stylesheet", "templates/style.css"},
		{"page", llamaPage},
		{"section page", "content/_index.md"},
		{"hardware catalog", hwFile},
		{"price list", priceFile},
		{"price snapshot", "data/pricing/lambda.json"},
		{"software windows", "data/software.yaml"},
		{"Hub snapshot", llamaSnap},
		{"site configuration", siteFile},
	}
	var cs []badCase
	for _, in := range inputs {
		base := filepath.Base(in.file)
		cs = append(cs,
			badCase{name: in.kind + " linked to proc-self-environ (36.1)", prepare: linkTo(in.file, "/proc/self/environ"), code: 1, want: []string{base, "/proc"}},
			badCase{name: in.kind + " linked to dev-zero (36.1)", prepare: linkTo(in.file, "/dev/zero"), code: 1, want: []string{base, "/dev"}},
			badCase{name: in.kind + " linked outside the site (36.1)", prepare: linkTo(in.file, "outside"), code: 1, want: []string{base, "outside"}},
		)
	}
	cs = append(cs,
		// Other kinds of files where an input belongs.
		badCase{name: "page linked to dev-urandom (36.1)", prepare: linkTo(llamaPage, "/dev/urandom"), code: 1, want: []string{"llama-3-1-8b.md", "/dev"}},
		badCase{name: "page is a named pipe (36.1)", prepare: fifoAt(llamaPage), code: 1, want: []string{"llama-3-1-8b.md", "named pipe"}},
		badCase{name: "hardware catalog is a named pipe (36.1)", prepare: fifoAt(hwFile), code: 1, want: []string{"hardware.yaml", "named pipe"}},
		badCase{name: "template is a named pipe (36.1)", prepare: fifoAt("templates/dossier.md"), code: 1, want: []string{"dossier.md", "named pipe"}},
		badCase{name: "page linked to nothing (36.1)", prepare: linkTo(llamaPage, "/nonexistent/page.md"), code: 1, want: []string{"llama-3-1-8b.md", "does not exist"}},
		badCase{name: "page is a directory (36.1)", prepare: func(t *testing.T, root string) {
			p := filepath.Join(root, llamaPage)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, code: 1, want: []string{"llama-3-1-8b.md", "directory"}},
		badCase{name: "site configuration past its limit (36.1)", prepare: grow(siteFile, 1100<<10), code: 1, want: []string{"hugo-like.yaml", "limit of 1048576 bytes"}},
		badCase{name: "hardware catalog past its limit (36.1)", prepare: grow(hwFile, 9<<20), code: 1, want: []string{"hardware.yaml", "limit of 8388608 bytes"}},
		badCase{name: "template past its limit (36.1)", prepare: grow("templates/style.css", 1100<<10), code: 1, want: []string{"style.css", "limit of 1048576 bytes"}},
		badCase{name: "plan config linked to proc-self-environ (36.1)", prepare: linkTo(planConf, "/proc/self/environ"), args: []string{"plan", "--config", planConf}, code: 1, want: []string{planConf, "/proc"}},
		badCase{name: "plan config linked to dev-zero (36.1)", prepare: linkTo(planConf, "/dev/zero"), args: []string{"plan", "--config", planConf}, code: 1, want: []string{planConf, "/dev"}},
		badCase{name: "plan config is a named pipe (36.1)", prepare: fifoAt(planConf), args: []string{"plan", "--config", planConf}, code: 1, want: []string{planConf, "named pipe"}},
		badCase{name: "plan hardware catalog linked to dev-zero (36.1)", prepare: linkTo(hwFile, "/dev/zero"), args: []string{"plan", "--config", planConf}, code: 1, want: []string{"hardware.yaml", "/dev"}},
		badCase{name: "plan site snapshot linked to proc-self-environ (36.1)", prepare: linkTo(llamaSnap, "/proc/self/environ"), args: []string{"plan", "meta-llama/Llama-3.1-8B"}, code: 1, want: []string{"snapshot.json", "/proc"}},
		badCase{name: "cached snapshot linked to proc-self-environ (36.1)", env: cacheEnv, prepare: linkTo(cachedSnap, "/proc/self/environ"), args: planCached, code: 1, want: []string{cachedSHA + ".json", "/proc"}},
		badCase{name: "cached snapshot linked to dev-zero (36.1)", env: cacheEnv, prepare: linkTo(cachedSnap, "/dev/zero"), args: planCached, code: 1, want: []string{cachedSHA + ".json", "/dev"}},
		badCase{name: "cached snapshot linked outside the cache (36.1)", env: cacheEnv, prepare: linkTo(cachedSnap, "outside"), args: planCached, code: 1, want: []string{cachedSHA + ".json", "outside"}},
		badCase{name: "cached ref linked to proc-self-environ (36.1)", env: cacheEnv, prepare: linkTo(cachedRef, "/proc/self/environ"), args: planRef, code: 1, want: []string{"refs/main", "/proc"}},
		badCase{name: "cached ref linked to dev-zero (36.1)", env: cacheEnv, prepare: linkTo(cachedRef, "/dev/zero"), args: planRef, code: 1, want: []string{"refs/main", "/dev"}},
	)
	return cs
}
