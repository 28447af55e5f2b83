package hub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/hub"
	"dossier/generator/hub/hubtest"
	"dossier/generator/snapshot"
)

func envOf(m map[string]string) hub.Env { return func(k string) string { return m[k] } }

func TestConfigFromEnv(t *testing.T) {
	home := t.TempDir()
	hfHome := t.TempDir()
	tokPath := filepath.Join(t.TempDir(), "tok")
	os.WriteFile(tokPath, []byte("hf_fromTokenPath\n"), 0o600)
	os.WriteFile(filepath.Join(hfHome, "token"), []byte("hf_fromHFHome"), 0o600)
	os.MkdirAll(filepath.Join(home, ".cache", "huggingface"), 0o755)
	os.WriteFile(filepath.Join(home, ".cache", "huggingface", "token"), []byte("hf_fromHome"), 0o600)

	cases := []struct {
		env    map[string]string
		source string
	}{
		{map[string]string{"HF_TOKEN": "hf_a", "HUGGING_FACE_HUB_TOKEN": "hf_b", "HF_TOKEN_PATH": tokPath, "HOME": home}, "HF_TOKEN"},
		{map[string]string{"HF_TOKEN": " ", "HUGGING_FACE_HUB_TOKEN": "hf_b", "HF_TOKEN_PATH": tokPath, "HOME": home}, "HUGGING_FACE_HUB_TOKEN"},
		{map[string]string{"HF_TOKEN_PATH": tokPath, "HF_HOME": hfHome, "HOME": home}, tokPath},
		{map[string]string{"HF_HOME": hfHome, "HOME": home}, filepath.Join(hfHome, "token")},
		{map[string]string{"HOME": home}, filepath.Join(home, ".cache", "huggingface", "token")},
		{map[string]string{"HOME": t.TempDir()}, ""},
		{map[string]string{}, ""},
	}
	for _, tc := range cases {
		tok, src, err := hub.TokenFromEnv(envOf(tc.env))
		if err != nil || src != tc.source || tok.IsSet() != (tc.source != "") {
			t.Errorf("env %v: token set %v from %q (%v), want %q", tc.env, tok.IsSet(), src, err, tc.source)
		}
	}

	cfg, err := hub.ConfigFromEnv(envOf(map[string]string{"HF_ENDPOINT": "https://hf-mirror.example/", "HF_TOKEN": testToken}), "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Endpoint != "https://hf-mirror.example" || cfg.UserAgent != "dossier/1.2.3" || !cfg.Token.IsSet() {
		t.Fatalf("config %+v", cfg)
	}
	c, err := hub.New(hub.Config{})
	if err != nil || c.Endpoint() != hub.DefaultEndpoint {
		t.Fatalf("default endpoint %v %v", c, err)
	}
	for _, bad := range []string{"ftp://x", "not a url", "https://user:pw@host", "/relative"} {
		if _, err := hub.ConfigFromEnv(envOf(map[string]string{"HF_ENDPOINT": bad}), ""); err == nil {
			t.Errorf("HF_ENDPOINT %q accepted", bad)
		} else if strings.Contains(err.Error(), "pw") {
			t.Errorf("error shows the password: %v", err)
		}
	}
}

func TestTokenNeverPrinted(t *testing.T) {
	tok := hub.NewToken(testToken)
	cfg := hub.Config{Token: tok}
	// Config holds funcs and cannot be JSON-encoded; the token inside a
	// struct can, and must not show either.
	b, err := json.Marshal(struct{ Token hub.Token }{tok})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fmt.Sprint(tok), fmt.Sprintf("%v %+v %#v %s %q %x", tok, cfg, cfg, tok, tok, tok), string(b)} {
		if strings.Contains(s, testToken) || strings.Contains(s, "TESTtoken") {
			t.Fatalf("token printed: %s", s)
		}
	}
}

func TestUserAgentAndAuthorization(t *testing.T) {
	repo := smallRepo("acme/toy", 1)
	srv := hubtest.New(t, repo)
	var seen []string
	spy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("User-Agent")+" | "+r.Header.Get("Authorization"))
		srv.Hub.Config.Handler.ServeHTTP(w, r)
	}))
	defer spy.Close()
	c, _ := newClient(t, spy.URL, testToken)
	if _, err := c.ModelInfo(context.Background(), "acme/toy", ""); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != "dossier/test | Bearer "+testToken {
		t.Fatalf("headers %q", seen)
	}
}

func TestTreePaginationThroughMirror(t *testing.T) {
	repo := smallRepo("acme/toy", 5)
	for i := 0; i < 20; i++ {
		repo.Files = append(repo.Files, hubtest.File{Path: fmt.Sprintf("extra/dir%d/f%d.txt", i%3, i), Content: []byte("x")})
	}
	srv := hubtest.New(t, repo)
	srv.SetPageSize(4)
	// A mirror under a path prefix, in front of the fake: its Link next
	// URLs still name another host, with no prefix.
	mirror := httptest.NewServer(http.StripPrefix("/hf", srv.Hub.Config.Handler))
	defer mirror.Close()

	for _, endpoint := range []string{srv.URL(), mirror.URL + "/hf/"} {
		c, _ := newClient(t, endpoint, "")
		entries, err := c.ListTree(context.Background(), "acme/toy", "main")
		if err != nil {
			t.Fatalf("%s: %v", endpoint, err)
		}
		files, dirs := 0, 0
		for _, e := range entries {
			switch e.Type {
			case "file":
				files++
			case "directory":
				dirs++
			}
		}
		if files != len(repo.Files)+1 || dirs != 5 { // +1: the generated index; dirs: extra, 3 below it, original
			t.Fatalf("%s: %d files, %d dirs", endpoint, files, dirs)
		}
		if n := srv.HostRequests("upstream"); n != 0 {
			t.Fatalf("%s: followed the Link to the upstream host %d times", endpoint, n)
		}
	}
	// And a whole sync through the mirror.
	c, _ := newClient(t, mirror.URL+"/hf", "")
	res, err := hub.Sync(context.Background(), c, t.TempDir(), "acme/toy", "", hub.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.Endpoint != mirror.URL+"/hf" || res.Snapshot.Shards.Count != 5 {
		t.Fatalf("snapshot %+v", res.Snapshot)
	}
}

func TestTokenAbsentFromEveryOutput(t *testing.T) {
	gated := smallRepo("acme/gated", 3)
	gated.Gated, gated.Approved = true, []string{testToken}
	srv := hubtest.New(t, gated, smallRepo("acme/open", 1))
	srv.AddFault(hubtest.Fault{Path: "/acme/open/resolve/", Status: 500, Message: "upstream said: Bearer " + testToken})
	c, _ := newClient(t, srv.URL(), testToken)
	dir := t.TempDir()
	var progress bytes.Buffer
	res, err := hub.Sync(context.Background(), c, dir, "acme/gated", "", hub.Options{Progress: hub.NewTerminalProgress(&progress)})
	if err != nil {
		t.Fatal(err)
	}
	_, openErr := hub.Sync(context.Background(), c, dir, "acme/open", "", hub.Options{Progress: hub.NewTerminalProgress(&progress)})
	if openErr == nil {
		t.Fatal("no error from the failing repo")
	}
	_, _, headerErr := c.SafetensorsHeader(context.Background(), "acme/gated", "main", "nope.safetensors")

	written, err := os.ReadFile(snapshot.Path(dir, "acme/gated"))
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"progress":     progress.String(),
		"result":       fmt.Sprintf("%+v %v %q %s", res, res.Warnings, res.Changes, res.Summary()),
		"error":        openErr.Error(),
		"header error": headerErr.Error(),
		"client":       fmt.Sprintf("%+v %#v", c, c),
	}
	for what, out := range outputs {
		if strings.Contains(out, testToken) {
			t.Errorf("%s shows the token: %s", what, out)
		}
	}
	if strings.Contains(string(written), testToken) || strings.Contains(string(written), "TESTtoken") {
		t.Error("the snapshot holds the token")
	}
	if !strings.Contains(outputs["error"], "[redacted]") {
		t.Errorf("server message not scrubbed: %s", outputs["error"])
	}
	if !strings.Contains(progress.String(), "sync acme/gated: 5/5 files") {
		t.Errorf("progress %q", progress.String())
	}
	if srv.CDNAuthorizations() != 0 {
		t.Error("token sent to the CDN")
	}
}

func TestIsTerminal(t *testing.T) {
	if hub.IsTerminal(&bytes.Buffer{}) {
		t.Fatal("a buffer is not a terminal")
	}
	f, _ := os.CreateTemp(t.TempDir(), "x")
	defer f.Close()
	if hub.IsTerminal(f) {
		t.Fatal("a file is not a terminal")
	}
}
