package cli

import (
	"strings"
	"testing"

	"dossier/generator/gguf"
	"dossier/generator/gguf/gguftest"
	"dossier/generator/hub/hubtest"
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
	code, out, errs := run("plan", repo.ID, "--machine", "1xRTX4090@EPYC768")
	if code != 0 || !strings.Contains(out, "Q4_K_M") || !strings.Contains(out, "llama-server -m ") {
		t.Errorf("text: exit %d\n%s\n%s", code, out, errs)
	}
	code, _, errs = run("plan", repo.ID, "--machine", "9xRTX4090@Desktop64")
	if code != 2 || !strings.Contains(errs, "--machine") || !strings.Contains(errs, "at most 2 GPUs") {
		t.Errorf("bad machine: exit %d: %s", code, errs)
	}
}
