package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/hub/hubtest"
	"dossier/generator/modeltree"
)

const (
	planRepoID = "acme/tiny-llama"
	// The tiny llama (testdata/plan/tiny-llama.config.json) by hand:
	// embedding and head 2 × 256 × 64; per layer q 64·64, k and v 64·32
	// (2 KV heads × 16), o 64·64, gate, up and down 3 × 64·128, two norms
	// of 64; two layers and the final norm.
	planRepoParams = 2*256*64 + 2*(4096+2048+2048+4096+3*8192+2*64) + 64
	// planRepoHeaders is what the fake pads the two shards' headers to.
	planRepoHeaders = 16384
)

var planRepoSHA = hubtest.SHAFor("tiny-llama v1")

// planRepo is the tiny llama as the Hub serves it: two shards whose
// tensors are the module tree of its config.json, the index, the census.
func planRepo(t testing.TB) *hubtest.Repo {
	t.Helper()
	cfg, err := os.ReadFile("testdata/plan/tiny-llama.config.json")
	if err != nil {
		t.Fatal(err)
	}
	inv, err := modeltree.FromConfig(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ts []hubtest.Tensor
	for x := range inv.All() {
		ts = append(ts, hubtest.Tensor{Name: x.Name, DType: x.DType, Shape: x.Shape})
	}
	files := hubtest.ShardFiles(hubtest.Split(ts, 2), 5, 5)
	files = append(files, hubtest.File{Path: "config.json", Content: cfg}, hubtest.File{Path: "README.md", Content: []byte("# tiny\n")})
	return &hubtest.Repo{ID: planRepoID, SHA: planRepoSHA, Files: files, Index: true, Census: inv.Census(), HeaderBytes: planRepoHeaders}
}

// planAnywhere points the Hub client at srv (no token), the user cache at
// a fresh directory, and the working directory at an empty one, which it
// returns with the cache directory.
func planAnywhere(t *testing.T, srv *hubtest.Server) (cwd, cache string) {
	t.Helper()
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	t.Setenv("HF_TOKEN_PATH", filepath.Join(t.TempDir(), "no-token"))
	cache = t.TempDir()
	t.Setenv("DOSSIER_CACHE", cache)
	cwd = t.TempDir()
	t.Chdir(cwd)
	return cwd, cache
}

// planJSON runs plan with --json and decodes the document.
func planJSON(t *testing.T, args ...string) (planDocument, string) {
	t.Helper()
	code, out, errs := run(append([]string{"plan", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("plan %v: exit %d: %s", args, code, errs)
	}
	var doc planDocument
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("plan %v: %v\n%s", args, err, out)
	}
	return doc, errs
}

func emptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("plan wrote %s into the working directory", e.Name())
	}
}

// TestPlanAnywhere: from an empty directory with no site, plan ORG/NAME
// reads the fake Hub and prints the census, bytes and fit of the
// repository; the working directory stays empty; with the Hub stopped,
// the pinned revision is answered from the user cache, and main
// --offline, never resolved, fails with an error that says so.
func TestPlanAnywhere(t *testing.T) {
	srv := hubtest.New(t, planRepo(t))
	cwd, cache := planAnywhere(t, srv)
	pinned := planRepoID + "@" + planRepoSHA

	doc, _ := planJSON(t, pinned, "--hardware", "1xH100")
	s := doc.Facts
	if doc.Config != pinned || !strings.Contains(doc.Origin, "the Hub at "+srv.URL()) {
		t.Errorf("config %q, origin %q", doc.Config, doc.Origin)
	}
	wantInt(t, s, "params.total", planRepoParams)
	wantInt(t, s, "params.census.BF16", planRepoParams)
	wantInt(t, s, "tensors.count", 2+2*9+1)
	wantInt(t, s, "bytes.tensors", 2*planRepoParams)
	wantInt(t, s, "bytes.checkpoint", 2*planRepoParams+planRepoHeaders)
	wantInt(t, s, "bytes.headers", planRepoHeaders)
	wantInt(t, s, "shards.count", 2)
	wantBool(t, s, "fit.1xH100.at_rest", true)
	mem, ok := s.Get("fit.1xH100.memory_bytes").Int()
	if !ok || mem <= 0 {
		t.Fatalf("fit.1xH100.memory_bytes = %v", s.Get("fit.1xH100.memory_bytes"))
	}
	wantInt(t, s, "fit.1xH100.margin_bytes", mem-2*planRepoParams)
	wantBool(t, s, "fit.1xH100.serving", true)
	// The layout matrix covers every accelerator; only a configured layout
	// gets the full verdict with its memory total.
	if s.Get("fit.8xB200.memory_bytes") != nil {
		t.Error("fit.8xB200.memory_bytes present: --hardware replaces the default layouts")
	}
	emptyDir(t, cwd)
	entry := filepath.Join(cache, "hub", "acme", "tiny-llama", planRepoSHA+".json")
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("no cache entry: %v", err)
	}

	srv.Close()
	before := srv.Counts()
	again, _ := planJSON(t, pinned, "--hardware", "1xH100")
	if !strings.Contains(again.Origin, "the user cache "+entry) {
		t.Errorf("second run origin %q, want the user cache", again.Origin)
	}
	for _, k := range []string{"params.total", "bytes.checkpoint", "fit.1xH100.margin_bytes"} {
		if a, b := again.Facts.Get(k), s.Get(k); a.Display != b.Display {
			t.Errorf("%s from the cache %q, from the Hub %q", k, a.Display, b.Display)
		}
	}
	if after := srv.Counts(); len(after) != len(before) {
		t.Errorf("the cached run made requests: %v → %v", before, after)
	}

	code, out, errs := run("plan", planRepoID, "--offline")
	if code == 0 || out != "" {
		t.Fatalf("main --offline without a cached commit: exit %d, stdout %q", code, out)
	}
	for _, w := range []string{planRepoID + "@main --offline", "no commit of main is cached", cache} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr %q does not say %q", errs, w)
		}
	}
	emptyDir(t, cwd)
}

// TestPlanResolvesMainEachTime: main is resolved to its commit on every
// run (one model info request), the snapshot of a commit already cached
// is not fetched again, and once resolved, main --offline answers from
// the commit it last resolved to.
func TestPlanResolvesMainEachTime(t *testing.T) {
	srv := hubtest.New(t, planRepo(t))
	cwd, _ := planAnywhere(t, srv)

	first, _ := planJSON(t, planRepoID)
	if first.Config != planRepoID+"@"+planRepoSHA {
		t.Errorf("config %q, want main resolved to %s", first.Config, planRepoSHA)
	}
	srv.ResetCounts()
	second, _ := planJSON(t, planRepoID)
	if !strings.Contains(second.Origin, "user cache") || !strings.Contains(second.Origin, "main resolved to it on") {
		t.Errorf("second origin %q", second.Origin)
	}
	if n := srv.HostRequests("hub"); n != 1 {
		t.Errorf("second run made %d Hub requests (%v), want the one that resolves main", n, srv.Counts())
	}
	if n := srv.HostRequests("cdn"); n != 0 {
		t.Errorf("second run read %d files from the CDN, want none", n)
	}
	srv.Close()
	offline, _ := planJSON(t, planRepoID, "--offline")
	if offline.Config != first.Config {
		t.Errorf("offline config %q, want %q", offline.Config, first.Config)
	}
	if a, b := offline.Facts.Get("bytes.checkpoint"), first.Facts.Get("bytes.checkpoint"); a.Display != b.Display {
		t.Errorf("offline bytes.checkpoint %q, want %q", a.Display, b.Display)
	}
	emptyDir(t, cwd)
}

// TestPlanHubErrors: a missing repository and a gated one without a token
// give the Hub client's errors, which say what to do, and write nothing.
func TestPlanHubErrors(t *testing.T) {
	gated := planRepo(t)
	gated.ID, gated.Gated, gated.Approved = "acme/gated-llama", true, []string{"hf_approved"}
	srv := hubtest.New(t, gated)
	cwd, cache := planAnywhere(t, srv)
	for _, tc := range []struct {
		ref  string
		want []string
	}{
		// As on the Hub, a repository that does not exist answers 401
		// to a request without a token.
		{"acme/missing", []string{"acme/missing@main", "Repository not found", "set HF_TOKEN"}},
		{"acme/gated-llama", []string{"acme/gated-llama is gated", "request access", "HF_TOKEN"}},
		{"acme/gated-llama@notabranch", []string{"acme/gated-llama@notabranch", "404", `no revision "notabranch"`}},
	} {
		code, out, errs := run("plan", tc.ref)
		if code == 0 || out != "" {
			t.Errorf("%s: exit %d, stdout %q", tc.ref, code, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: stderr %q does not mention %q", tc.ref, errs, w)
			}
		}
	}
	emptyDir(t, cwd)
	emptyDir(t, cache)

	// The approved account's token, from $HF_HOME/token as sync reads it,
	// opens the gated repository; it appears in no output.
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "token"), []byte("hf_approved\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HF_TOKEN_PATH", "")
	t.Setenv("HF_HOME", home)
	code, out, errs := run("plan", "acme/gated-llama", "--json")
	if code != 0 {
		t.Fatalf("gated with the token file: exit %d: %s", code, errs)
	}
	if strings.Contains(out+errs, "hf_approved") {
		t.Error("the token appears in the output")
	}
	emptyDir(t, cwd)
}

// TestPlanOutsideSiteSettings: without a site, plan sizes with the
// built-in catalogs and default settings, which DOSSIER_SIZING_* variables
// override and check as a site's file would be checked.
func TestPlanOutsideSiteSettings(t *testing.T) {
	cfg, err := filepath.Abs("testdata/plan/tiny-llama.config.json")
	if err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	t.Chdir(cwd)
	t.Setenv("DOSSIER_SIZING_CONCURRENCY", "3")
	code, out, errs := run("plan", "--config", cfg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"hardware: built-in data/hardware.yaml, as of ", "× 3 concurrent sequence(s)", "\nAnswer\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	emptyDir(t, cwd)
	t.Setenv("DOSSIER_SIZING_CONCURRENCY", "0")
	code, _, errs = run("plan", "--config", cfg)
	if code == 0 || !strings.Contains(errs, "environment variable DOSSIER_SIZING_CONCURRENCY: field sizing.concurrency") {
		t.Errorf("DOSSIER_SIZING_CONCURRENCY=0: exit %d, %q", code, errs)
	}
}

// TestPlanUnknownFamilyFromTheHub: plan org/name of a model_type the
// registry does not know keeps the tensor shapes of the headers it reads,
// in the user cache too, and sizes the layout from them, marked. The model
// is the tiny llama under another model_type; by hand its cache is 2
// layers × K and V × 2 KV heads × 16 × 2 bytes (BF16) = 256 bytes a token.
func TestPlanUnknownFamilyFromTheHub(t *testing.T) {
	repo := planRepo(t)
	repo.ID = "acme/tiny-fork"
	for i, f := range repo.Files {
		if f.Path == "config.json" {
			repo.Files[i].Content = []byte(strings.Replace(string(f.Content), `"model_type": "llama"`, `"model_type": "acme_fork"`, 1))
			if string(repo.Files[i].Content) == string(f.Content) {
				t.Fatal("model_type not replaced")
			}
		}
	}
	srv := hubtest.New(t, repo)
	_, cache := planAnywhere(t, srv)
	pinned := repo.ID + "@" + planRepoSHA
	for _, from := range []string{"the Hub", "the user cache"} {
		doc, _ := planJSON(t, pinned, "--hardware", "1xH100")
		if !strings.Contains(doc.Origin, from) {
			t.Fatalf("origin %q, want %s", doc.Origin, from)
		}
		layers := doc.Facts.Get("arch.layers_full_attention")
		if n, ok := layers.Int(); !ok || n != 2 || !strings.HasPrefix(layers.Derivation, "inferred from tensor shapes") {
			t.Fatalf("%s: arch.layers_full_attention %+v", from, layers)
		}
		wantInt(t, doc.Facts, "kv.bytes_per_token", 2*2*2*16*2)
	}
	b, err := os.ReadFile(filepath.Join(cache, "hub", "acme", "tiny-fork", planRepoSHA+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"model.layers.1.self_attn.k_proj.weight": "32x64"`) {
		t.Errorf("the cached snapshot keeps no shapes:\n%.400s", b)
	}
}
