package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/content"
	"dossier/generator/gguf"
	"dossier/generator/gguf/gguftest"
	"dossier/generator/hub/hubtest"
	"dossier/generator/localrun"
)

// ggufRepo is a small quant repository: a split K3-shaped MoE (few
// layers) in two quants, as unsloth lays them out.
func ggufRepo(t *testing.T) *hubtest.Repo {
	ty := func(n string) gguf.Type {
		x, ok := gguf.TypeByName(n)
		if !ok {
			t.Fatal(n)
		}
		return x
	}
	repo := &hubtest.Repo{ID: "acme/Tiny-K3-GGUF", Files: []hubtest.File{{Path: "README.md", Content: []byte("# quants\n")}}}
	for _, q := range []struct{ label, expert string }{{"UD-IQ1_S", "IQ1_S"}, {"Q4_K_M", "Q4_K"}} {
		m := gguftest.MoE{
			Layers: 6, DenseLayers: 1, Hidden: 7168, Vocab: 1000, Heads: 96,
			QLoraRank: 1536, KVLoraRnk: 512, RopeDim: 64, NopeDim: 128, VDim: 128, DenseFF: 18432,
			Experts: 896, ExpertsUsed: 16, ExpertIn: 3584, ExpertFF: 3072, SharedFF: 6144, Context: 1 << 20,
			ExpertType: ty(q.expert), MatrixType: ty("Q8_0"), EmbedType: ty("Q6_K"), Shards: 2, Name: q.label + "/Tiny-K3-" + q.label,
		}
		for _, b := range m.Build() {
			repo.Files = append(repo.Files, hubtest.File{Path: b.Path, Raw: b.Header, Size: b.Size, LFS: true})
		}
	}
	return repo
}

func TestPlanGGUFRepo(t *testing.T) {
	repo := ggufRepo(t)
	srv := hubtest.New(t, repo)
	planAnywhere(t, srv)
	doc, _ := planJSON(t, repo.ID, "--machine", "1xRTX4090@Desktop64,1xRTX4090@EPYC768,M3Ultra512")
	if !strings.HasPrefix(doc.Config, repo.ID+"@"+hubtest.SHAFor(repo.ID)) {
		t.Errorf("config %q", doc.Config)
	}
	for _, k := range []string{
		"gguf.UD-IQ1_S.bytes", "gguf.Q4_K_M.tensor_bytes", "gguf.Q4_K_M.census.Q4_K", "gguf.Q4_K_M.kv_bytes_per_token",
		"local.Q4_K_M.1xRTX4090@EPYC768.n_cpu_moe", "local.Q4_K_M.1xRTX4090@EPYC768.command", "local.UD-IQ1_S.M3Ultra512.fits",
		"local.best_offload.1xRTX4090@EPYC768",
	} {
		if f := doc.Facts.Get(k); f == nil {
			t.Errorf("no fact %s", k)
		}
	}
	if v, _ := doc.Facts.Get("gguf.Q4_K_M.kv_bytes_per_token").Int(); v != 6*1088*2 {
		t.Errorf("kv bytes per token %d, want %d", v, 6*1088*2)
	}
	if c := doc.Facts.Get("local.Q4_K_M.1xRTX4090@EPYC768.command"); c == nil || !strings.Contains(c.Display, "--n-cpu-moe") {
		t.Errorf("command %+v", c)
	}
	// Outside a site the built-in catalog's speed fit times decode: a
	// prediction with its regime's error, not a ceiling.
	if d := doc.Facts.Get("local.Q4_K_M.1xRTX4090@EPYC768.decode_tokens_per_second"); d == nil || !strings.HasPrefix(d.Display, "≈ ") || !strings.Contains(d.Display, "typically within ±") {
		t.Errorf("decode %+v", d)
	}
	code, out, errs := run("plan", repo.ID, "--machine", "1xRTX4090@EPYC768")
	if code != 0 || !strings.Contains(out, "Q4_K_M") || !strings.Contains(out, "llama-server -m ") {
		t.Errorf("text: exit %d\n%s\n%s", code, out, errs)
	}
	// The headers read are cached: --offline answers from main's last
	// commit, a pinned commit without a request; a repository never read
	// fails offline.
	srv.ResetCounts()
	if code, out, errs := run("plan", "--json", repo.ID, "--offline", "--machine", "M4Max128"); code != 0 || !strings.Contains(out, "gguf.Q4_K_M.bytes") {
		t.Errorf("--offline from the cache: exit %d: %s", code, errs)
	}
	if code, _, errs := run("plan", "--json", repo.ID+"@"+hubtest.SHAFor(repo.ID), "--machine", "M4Max128"); code != 0 {
		t.Errorf("pinned commit from the cache: exit %d: %s", code, errs)
	}
	if n := srv.HostRequests("hub") + srv.HostRequests("cdn"); n != 0 {
		t.Errorf("%d requests answering from the cache", n)
	}
	code, _, errs = run("plan", "acme/Other-GGUF", "--offline")
	if code != 1 || !strings.Contains(errs, "--offline") || srv.HostRequests("hub")+srv.HostRequests("cdn") != 0 {
		t.Errorf("--offline without a cached commit: exit %d: %s", code, errs)
	}
	code, _, errs = run("plan", repo.ID, "--machine", "9xRTX4090@Desktop64")
	if code != 2 || !strings.Contains(errs, "--machine") || !strings.Contains(errs, "at most 2 GPUs") {
		t.Errorf("bad machine: exit %d: %s", code, errs)
	}
}

// sync of a GGUF repository writes its store once; a second sync at the
// same commit leaves it; the token reaches only the endpoint.
func TestSyncGGUFRepo(t *testing.T) {
	repo := ggufRepo(t)
	srv := hubtest.New(t, repo)
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", syncToken)
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	root := newSite(t)
	code, out, errs := run("--source", root, "sync", repo.ID)
	if code != 0 || !strings.Contains(out, "wrote ") || !strings.Contains(out, "2 quants from 4 file headers") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	s, err := localrun.LoadStore(filepath.Join(root, "data/hub/acme/Tiny-K3-GGUF/gguf.json"))
	if err != nil || len(s.Quants) != 2 || s.Revision != hubtest.SHAFor(repo.ID) {
		t.Fatalf("store %+v %v", s, err)
	}
	if code, out, _ := run("--source", root, "sync", repo.ID); code != 0 || !strings.Contains(out, "unchanged") {
		t.Errorf("second sync: %d %s", code, out)
	}
	if srv.CDNAuthorizations() != 0 {
		t.Errorf("the token went to the CDN %d times", srv.CDNAuthorizations())
	}
	// A repository with a shard missing: one error naming it, nothing written.
	broken := ggufRepo(t)
	broken.ID = "acme/Broken-GGUF"
	broken.Files = append(broken.Files[:1], broken.Files[2:]...)
	if err := srv.SetRepo(broken); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run("--source", root, "sync", broken.ID)
	if code == 0 || !strings.Contains(errs, "-00001-of-00002.gguf: shard 1 of 2 is missing") {
		t.Errorf("broken: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(root, "data/hub/acme/Broken-GGUF")); !os.IsNotExist(err) {
		t.Errorf("a failed sync wrote something: %v", err)
	}
}

func TestGGUFVariants(t *testing.T) {
	pages, err := content.Load(filepath.Join(fixtureSite, "content"))
	if err != nil {
		t.Fatal(err)
	}
	got := ggufVariants(pages)
	if len(got) != 1 || got[0] != "unsloth/Kimi-K3-GGUF" {
		t.Errorf("GGUF variants of the fixture pages: %v", got)
	}
	if code, _, errs := run("--source", newSite(t), "sync", "--gguf", "acme/x"); code != 2 || !strings.Contains(errs, "--gguf applies to --all only") {
		t.Errorf("--gguf without --all: %d %s", code, errs)
	}
}
