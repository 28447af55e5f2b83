package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"dossier/generator/content"
	"dossier/generator/hub/hubtest"
	"dossier/generator/modeltree"
	"dossier/generator/snapshot"
)

const (
	newOrg      = "acme-ai"
	newTracked  = newOrg + "/Tiny-Llama-1L" // gets a page from `new`, then a newer commit
	newArrival  = newOrg + "/Tiny-Llama-2L" // appears in the watched org
	newDraft    = "content/models/tiny-llama-2l.md"
	newDraftDir = "models/tiny-llama-2l"
)

// newTinyLlama is a llama-family repository in miniature whose tensors
// are exactly what the module tree derives from its config.json: two
// shards, an index, and the Hub's census.
func newTinyLlama(t *testing.T, id, sha string, layers, context int, created string) *hubtest.Repo {
	t.Helper()
	cfg := fmt.Sprintf(`{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
  "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": %d, "num_attention_heads": 4,
  "num_key_value_heads": 2, "vocab_size": 256, "max_position_embeddings": %d, "rms_norm_eps": 1e-05,
  "rope_theta": 10000.0, "tie_word_embeddings": false, "torch_dtype": "bfloat16"}`, layers, context)
	inv, err := modeltree.FromConfig([]byte(cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ts []hubtest.Tensor
	for x := range inv.All() {
		ts = append(ts, hubtest.Tensor{Name: x.Name, DType: x.DType, Shape: x.Shape})
	}
	files := hubtest.ShardFiles(hubtest.Split(ts, 2), 5, 5)
	files = append(files, hubtest.File{Path: "config.json", Content: []byte(cfg)}, hubtest.File{Path: "README.md", Content: []byte("# " + id + "\n")})
	return &hubtest.Repo{ID: id, SHA: sha, Files: files, Index: true, Census: inv.Census(), CreatedAt: created}
}

// newHub serves every model the site copy at root has a page for, at the
// commit of its snapshot, so `sync --all` finds them current with one
// model info request each. The shipped snapshots assembled by hand record
// no commit; the copy's are pinned to the fake's. It also serves the
// tracked and the arriving acme-ai models, and points the environment at
// the fake with no token.
func newHub(t *testing.T, root string, extra ...*hubtest.Repo) *hubtest.Server {
	t.Helper()
	dataDir := filepath.Join(root, "data")
	pages, err := content.Load(filepath.Join(root, "content"))
	if err != nil {
		t.Fatal(err)
	}
	repos := extra
	for _, p := range pages.Models {
		s, err := snapshot.Load(snapshot.Path(dataDir, p.Front.Model))
		if err != nil {
			t.Fatal(err)
		}
		if s.Revision == "" {
			s.Revision, s.RevisionNote = hubtest.SHAFor(p.Front.Model), ""
			if _, err := snapshot.Write(dataDir, s); err != nil {
				t.Fatal(err)
			}
		}
		repos = append(repos, &hubtest.Repo{ID: p.Front.Model, SHA: s.Revision})
	}
	srv := hubtest.New(t, repos...)
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	t.Setenv("HF_TOKEN_PATH", filepath.Join(t.TempDir(), "no-token"))
	return srv
}

// treeDiff lists the paths added, removed and changed between two syncTree maps.
func treeDiff(before, after map[string]string) (added, removed, changed []string) {
	for p, b := range after {
		if a, ok := before[p]; !ok {
			added = append(added, p)
		} else if a != b {
			changed = append(changed, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			removed = append(removed, p)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	sort.Strings(changed)
	return added, removed, changed
}

// TestSyncAllNew runs `dossier sync --all --new` on a copy of the shipped
// site that watches acme-ai, against a fake Hub where one tracked model
// has a newer commit and the watched organisation has one model without a
// page. It checks that the run updates exactly that snapshot, adds exactly
// one snapshot and one draft page, that the dry run before it writes
// nothing, that the draft builds with --drafts and is absent without, that
// a second run changes nothing, and that `new` never overwrites a page.
func TestSyncAllNew(t *testing.T) {
	root := newSite(t)
	v1SHA, v2SHA, arrivalSHA := hubtest.SHAFor("tiny 1L v1"), hubtest.SHAFor("tiny 1L v2"), hubtest.SHAFor("tiny 2L")
	arrival := newTinyLlama(t, newArrival, arrivalSHA, 2, 4096, "2026-11-20T09:30:00.000Z")
	srv := newHub(t, root,
		newTinyLlama(t, newTracked, v1SHA, 1, 2048, "2026-10-01T00:00:00.000Z"),
		arrival)
	srv.SetListPageSize(1) // two pages for acme-ai, through the Link rewrite
	do := func(args ...string) (int, string, string) {
		return run(append([]string{"--source", root}, args...)...)
	}

	t.Run("--new needs watchOrgs", func(t *testing.T) {
		code, out, errs := do("sync", "--new")
		if code != 2 || !strings.Contains(errs, "watchOrgs") {
			t.Fatalf("exit %d\n%s%s", code, out, errs)
		}
	})
	edit(t, filepath.Join(root, "hugo-like.yaml"), "watchOrgs: []", "watchOrgs: ["+newOrg+"]")

	// The tracked model gets its page from `new`, published, at v1.
	code, out, errs := do("new", newTracked)
	if code != 0 || !strings.Contains(out, newTracked+": created ") || !strings.Contains(out, "wrote the draft content/models/tiny-llama-1l.md") {
		t.Fatalf("new %s: exit %d\n%s%s", newTracked, code, out, errs)
	}
	trackedPage := filepath.Join(root, "content/models/tiny-llama-1l.md")
	edit(t, trackedPage, "draft: true", "draft: false")
	if b, _ := os.ReadFile(trackedPage); !strings.Contains(string(b), "created the repository on 2026-10-01") {
		t.Errorf("the page does not carry the Hub's creation date:\n%s", b)
	}
	// Then the Hub moves it to v2, with a longer context.
	if err := srv.SetRepo(newTinyLlama(t, newTracked, v2SHA, 1, 8192, "2026-10-01T00:00:00.000Z")); err != nil {
		t.Fatal(err)
	}

	t.Run("dry run lists the draft and writes nothing", func(t *testing.T) {
		before := syncTree(t, root)
		code, out, errs := do("sync", "--all", "--new", "--dry-run")
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errs)
		}
		for _, want := range []string{
			newTracked + ": would update " + v1SHA[:7] + " → " + v2SHA[:7],
			newOrg + ": 2 newest model(s) listed, 1 without a page",
			newArrival + ": would sync it and write the draft " + newDraft + ", created 2026-11-20 (dry run, nothing written)",
			"--new: 1 draft(s) would be written",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		syncSameTree(t, "dry run", before, syncTree(t, root))
	})

	t.Run("sync --all --new", func(t *testing.T) {
		before := syncTree(t, root)
		srv.ResetCounts()
		code, out, errs := do("sync", "--all", "--new")
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errs)
		}
		added, removed, changed := treeDiff(before, syncTree(t, root))
		wantAdded := []string{"/" + newDraft, "/data/hub/" + newArrival + "/snapshot.json"}
		wantChanged := []string{"/data/hub/" + newTracked + "/snapshot.json"}
		if fmt.Sprint(added) != fmt.Sprint(wantAdded) || len(removed) != 0 || fmt.Sprint(changed) != fmt.Sprint(wantChanged) {
			t.Fatalf("added %v, removed %v, changed %v; want added %v, changed %v\n%s%s", added, removed, changed, wantAdded, wantChanged, out, errs)
		}
		for model, sha := range map[string]string{newTracked: v2SHA, newArrival: arrivalSHA} {
			if s, err := snapshot.Load(snapshot.Path(filepath.Join(root, "data"), model)); err != nil || s.Revision != sha {
				t.Errorf("%s: snapshot %v, %v; want revision %s", model, s, err, sha)
			}
		}
		for _, want := range []string{
			newTracked + ": updated " + v1SHA[:7] + " → " + v2SHA[:7],
			newOrg + ": 2 newest model(s) listed, 1 without a page",
			newArrival + ": created ",
			newArrival + ": wrote the draft " + newDraft,
			"--new: wrote 1 draft(s)",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		// Both pages of the listing came from the endpoint.
		if n, up := srv.Count("hub", "/api/models"), srv.HostRequests("upstream"); n != 2 || up != 0 {
			t.Errorf("%d listing requests to the Hub and %d to the upstream host; want 2 and 0", n, up)
		}
		b, err := os.ReadFile(filepath.Join(root, newDraft))
		if err != nil {
			t.Fatal(err)
		}
		p, err := content.Parse(newDraft, b)
		if err != nil {
			t.Fatal(err)
		}
		if f := p.Front; f.Title != "Tiny-Llama-2L" || f.Model != newArrival || f.Org != newOrg || !f.Draft || f.Summary != "" {
			t.Errorf("draft front matter %+v", f)
		}
		if !strings.Contains(string(b), "revision "+arrivalSHA) || !strings.Contains(string(b), "created the repository on 2026-11-20") {
			t.Errorf("draft:\n%s", b)
		}
	})

	t.Run("the draft is built with --drafts only", func(t *testing.T) {
		drafts, public := t.TempDir(), t.TempDir()
		if code, out, errs := do("build", "--drafts", "--destination", drafts); code != 0 {
			t.Fatalf("build --drafts: exit %d\n%s%s", code, out, errs)
		}
		facts := syncFactValues(t, filepath.Join(drafts, newDraftDir, "facts.json"))
		var total int64
		for _, n := range arrival.Census {
			total += n
		}
		if got := string(facts["params.total"]); got != fmt.Sprint(total) {
			t.Errorf("draft params.total = %s, want %d", got, total)
		}
		if got := string(facts["arch.layers"]); got != "2" {
			t.Errorf("draft arch.layers = %s", got)
		}
		md, err := os.ReadFile(filepath.Join(drafts, newDraftDir, "index.md"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(md), "{{<") {
			t.Errorf("unexpanded fact reference in the draft:\n%s", md)
		}
		if code, out, errs := do("build", "--destination", public); code != 0 {
			t.Fatalf("build: exit %d\n%s%s", code, out, errs)
		}
		if _, err := os.Stat(filepath.Join(public, "models/tiny-llama-1l/facts.json")); err != nil {
			t.Errorf("the tracked page is not published: %v", err)
		}
		for p, s := range syncTree(t, public) {
			if strings.Contains(p, "tiny-llama-2l") || strings.Contains(s, "Tiny-Llama-2L") {
				t.Errorf("the draft shows in the published site: %s", p)
			}
		}
		var tracked map[string]json.RawMessage
		if b, err := os.ReadFile(filepath.Join(public, "models/tiny-llama-1l/facts.json")); err != nil || json.Unmarshal(b, &tracked) != nil ||
			!strings.Contains(string(tracked["revision"]), v2SHA) {
			t.Errorf("the tracked page is not built from v2: %s", tracked["revision"])
		}
	})

	// The tracked page was published as the scaffold wrote it: check
	// warns, --strict fails on each missing part; the draft is exempt.
	t.Run("a scaffold published as is fails check --strict", func(t *testing.T) {
		const page = "content/models/tiny-llama-1l.md"
		want := []string{
			page + ":13: error: published page: field summary: empty",
			page + ":8: error: published page: field review: missing",
			page + ":8: error: published page: no claims and no published figures",
		}
		code, out, errs := do("check", "--strict")
		if code != 1 || strings.Count(out, page+":") != 3 {
			t.Fatalf("exit %d, want 3 lines on %s\n%s%s", code, page, out, errs)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("output lacks %q:\n%s", w, out)
			}
		}
		if strings.Contains(out, "tiny-llama-2l") {
			t.Errorf("the draft is flagged:\n%s", out)
		}
		code, out, errs = do("check")
		if code != 0 || !strings.Contains(out, "0 error(s),") || !strings.Contains(out, strings.Replace(want[0], "error:", "warning:", 1)) {
			t.Fatalf("without --strict: exit %d\n%s%s", code, out, errs)
		}
		// A title left as the slug is flagged too, unless checked.
		trackedPage := filepath.Join(root, page)
		edit(t, trackedPage, `title: "Tiny-Llama-1L"`, `title: "tiny-llama-1l"`)
		if _, out, _ = do("check"); !strings.Contains(out, page+":8: warning: published page: field title: tiny-llama-1l is the page's slug") {
			t.Errorf("title equal to the slug not flagged:\n%s", out)
		}
		edit(t, trackedPage, `title: "tiny-llama-1l"`, "title: \"tiny-llama-1l\"\ntitle_checked: true")
		if _, out, _ = do("check"); strings.Contains(out, "field title") {
			t.Errorf("title_checked ignored:\n%s", out)
		}
		edit(t, trackedPage, "title: \"tiny-llama-1l\"\ntitle_checked: true", `title: "Tiny-Llama-1L"`)
	})

	t.Run("a second run changes nothing", func(t *testing.T) {
		before := syncTree(t, root)
		code, out, errs := do("sync", "--all", "--new")
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errs)
		}
		syncSameTree(t, "second run", before, syncTree(t, root))
		for _, want := range []string{newArrival + ": already at " + arrivalSHA[:7], newTracked + ": already at " + v2SHA[:7], "--new: every listed model has a page"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("new never overwrites a page", func(t *testing.T) {
		before := syncTree(t, root)
		srv.ResetCounts()
		code, out, errs := do("new", newArrival)
		if code == 0 || !strings.Contains(errs, newDraft) || !strings.Contains(errs, "already has a page") {
			t.Errorf("new %s: exit %d\n%s%s", newArrival, code, out, errs)
		}
		// Another model whose name gives the same page name.
		code, out, errs = do("new", "other-org/tiny_llama_2l")
		if code == 0 || !strings.Contains(errs, newDraft+" already exists (the page of "+newArrival+")") {
			t.Errorf("new other-org/tiny_llama_2l: exit %d\n%s%s", code, out, errs)
		}
		syncSameTree(t, "new on a taken page", before, syncTree(t, root))
		if n := srv.HostRequests("hub"); n != 0 {
			t.Errorf("%d Hub requests for pages that cannot be written", n)
		}
	})

	t.Run("new starts from a snapshot already there", func(t *testing.T) {
		if err := os.Remove(filepath.Join(root, newDraft)); err != nil {
			t.Fatal(err)
		}
		srv.ResetCounts()
		code, out, errs := do("new", newArrival)
		want := newArrival + ": using the snapshot data/hub/" + newArrival + "/snapshot.json at " + arrivalSHA[:7]
		if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "wrote the draft "+newDraft) {
			t.Fatalf("exit %d, want %q\n%s%s", code, want, out, errs)
		}
		if n := srv.HostRequests("hub"); n != 0 {
			t.Errorf("%d Hub requests; the snapshot was there", n)
		}
		b, err := os.ReadFile(filepath.Join(root, newDraft))
		if p, perr := content.Parse(newDraft, b); err != nil || perr != nil || !p.Front.Draft || p.Front.Model != newArrival {
			t.Errorf("draft %v %v:\n%s", err, perr, b)
		}
	})
}
