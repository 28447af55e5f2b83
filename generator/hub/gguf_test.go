package hub_test

import (
	"context"
	"strings"
	"testing"

	"dossier/generator/gguf"
	"dossier/generator/gguf/gguftest"
	"dossier/generator/hub"
	"dossier/generator/hub/hubtest"
)

func ggufType(t testing.TB, name string) gguf.Type {
	ty, ok := gguf.TypeByName(name)
	if !ok {
		t.Fatalf("no ggml type %s", name)
	}
	return ty
}

// k3Quant is a K3-shaped quant (93 layers, 896 experts) split into
// shards files, with a 163,840-token tokenizer in the first.
func k3Quant(t testing.TB, label string, expert string, shards int) gguftest.MoE {
	return gguftest.MoE{
		Layers: 93, DenseLayers: 1, Hidden: 7168, Vocab: 163840, Heads: 96,
		QLoraRank: 1536, KVLoraRnk: 512, RopeDim: 64, NopeDim: 128, VDim: 128, DenseFF: 18432,
		Experts: 896, ExpertsUsed: 16, ExpertIn: 3584, ExpertFF: 3072, SharedFF: 6144, Context: 1 << 20,
		ExpertType: ggufType(t, expert), MatrixType: ggufType(t, "Q8_0"), EmbedType: ggufType(t, "Q6_K"),
		Shards: shards, Name: label + "/Kimi-K3-" + label,
	}
}

func ggufFiles(m gguftest.MoE) []hubtest.File {
	var out []hubtest.File
	for _, b := range m.Build() {
		out = append(out, hubtest.File{Path: b.Path, Raw: b.Header, Size: b.Size, LFS: true})
	}
	return out
}

// A 300-file quant repository: every header read in at most two
// requests and at most 8 MiB per file, split sets combined into three
// quants whose sizes equal the generator's.
func TestReadGGUF300Files(t *testing.T) {
	quants := []gguftest.MoE{
		k3Quant(t, "UD-IQ1_S", "IQ1_S", 100),
		k3Quant(t, "UD-IQ2_XXS", "IQ2_XXS", 100),
		k3Quant(t, "UD-Q2_K_XL", "Q2_K", 100),
	}
	repo := &hubtest.Repo{ID: "unsloth/Kimi-K3-GGUF", Files: []hubtest.File{{Path: "README.md", Content: []byte("# K3 GGUF\n")}}}
	for _, q := range quants {
		repo.Files = append(repo.Files, ggufFiles(q)...)
	}
	srv := hubtest.New(t, repo)
	c, _ := newClient(t, srv.URL(), testToken)
	ctx := context.Background()
	srv.ResetCounts()

	r, err := hub.ReadGGUF(ctx, c, repo.ID, "main", 8)
	if err != nil {
		t.Fatal(err)
	}
	if r.Revision != hubtest.SHAFor(repo.ID) || len(r.Quants) != 3 {
		t.Fatalf("revision %s, %d quants", r.Revision, len(r.Quants))
	}
	maxReq := 0
	for _, f := range repo.Files[1:] {
		_, cdn := srv.FileRanges(repo.ID, f.Path)
		maxReq = max(maxReq, cdn)
	}
	if maxReq > 2 {
		t.Errorf("a file took %d ranged requests", maxReq)
	}
	for i, q := range r.Quants {
		s, err := q.Sizes()
		if err != nil {
			t.Fatal(err)
		}
		var want int64
		for _, b := range quants[i].Build() {
			want += b.Size
		}
		if q.Label != quants[i].Name[:strings.IndexByte(quants[i].Name, '/')] || s.Bytes != want || len(q.Files) != 100 {
			t.Errorf("quant %s: %d files, %d bytes, want %d", q.Label, len(q.Files), s.Bytes, want)
		}
	}

	// Bytes, one file at a time on a fresh server so that the count is
	// closed when read: a first shard (with the tokenizer) and a later
	// one of each quant.
	var maxFile int64
	for _, f := range repo.Files[1:] {
		if !strings.Contains(f.Path, "-00001-of-") && !strings.Contains(f.Path, "-00002-of-") {
			continue
		}
		one := hubtest.New(t, repo)
		c1, _ := newClient(t, one.URL(), testToken)
		if _, _, err := c1.GGUFHeader(ctx, repo.ID, r.Revision, f.Path); err != nil {
			t.Fatal(err)
		}
		one.Close()
		want := int64(256 << 10)
		if len(f.Raw) > 256<<10 {
			want = 8 << 20
		}
		if got := one.FileBytesServed(); got != want || got > 8<<20 {
			t.Errorf("%s (%d-byte header): %d bytes served, want %d", f.Path, len(f.Raw), got, want)
		}
		maxFile = max(maxFile, one.FileBytesServed())
	}
	t.Logf("300 files: at most %d ranged requests and %d bytes per file", maxReq, maxFile)
}

func TestGGUFHeaderErrorsNameTheFile(t *testing.T) {
	good := k3Quant(t, "Q4_K_M", "Q4_K", 1)
	good.Layers, good.Vocab = 2, 1000
	b := good.Build()[0]
	trunc := append([]byte(nil), b.Header[:len(b.Header)/2]...)
	big := append([]byte(nil), b.Header...)
	// tensor count 2^40
	big[8], big[9], big[10], big[11], big[12], big[13] = 0, 0, 0, 0, 0, 1
	// A tensor of ggml type 99, and a string whose length runs past the
	// end of the file.
	f32 := ggufType(t, "F32")
	unk, usize := gguftest.Encode(gguftest.File{KV: []gguftest.KV{{"general.architecture", "llama"}},
		Tensors: []gguftest.Tensor{{"x.weight", f32, []int64{8}}}})
	i := strings.Index(string(unk), "x.weight") + len("x.weight") + 4 + 8
	unk[i], unk[i+1], unk[i+2], unk[i+3] = 99, 0, 0, 0
	long, _ := gguftest.Encode(gguftest.File{KV: []gguftest.KV{{"general.architecture", "llama"}}})
	j := strings.Index(string(long), "general.architecture") + len("general.architecture") + 4
	long[j], long[j+1], long[j+2] = 0, 0, 1 // 65,536 bytes of a 100-byte file
	repo := &hubtest.Repo{ID: "acme/bad-GGUF", Files: []hubtest.File{
		{Path: "unknown-Q4_K_M.gguf", Raw: unk, Size: usize, LFS: true},
		{Path: "long-Q4_K_M.gguf", Raw: long, LFS: true},
		{Path: "trunc-Q4_K_M.gguf", Raw: trunc, LFS: true},
		{Path: "count-Q4_K_M.gguf", Raw: big, Size: b.Size, LFS: true},
		{Path: "notgguf-Q4_K_M.gguf", Raw: []byte("PK\x03\x04 a zip"), LFS: true},
	}}
	srv := hubtest.New(t, repo)
	c, _ := newClient(t, srv.URL(), "")
	sha := hubtest.SHAFor(repo.ID)
	for path, want := range map[string]string{
		"trunc-Q4_K_M.gguf":   "the file ends after",
		"count-Q4_K_M.gguf":   "tensor count 1099511627776 is over the limit of 1048576",
		"notgguf-Q4_K_M.gguf": "not a GGUF file",
		"unknown-Q4_K_M.gguf": `tensor "x.weight" has ggml type 99, which this reader does not know`,
		"long-Q4_K_M.gguf":    "the file ends after",
	} {
		_, _, err := c.GGUFHeader(context.Background(), repo.ID, sha, path)
		if err == nil || !strings.Contains(err.Error(), "read GGUF header of "+path) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}

	// A split set with a shard missing fails before any header is read.
	split := ggufFiles(k3Quant(t, "Q2_K", "Q2_K", 3))
	srv2 := hubtest.New(t, &hubtest.Repo{ID: "acme/split-GGUF", Files: []hubtest.File{split[0], split[2]}})
	c2, _ := newClient(t, srv2.URL(), "")
	_, err := hub.ReadGGUF(context.Background(), c2, "acme/split-GGUF", "", 4)
	if err == nil || !strings.Contains(err.Error(), "Q2_K/Kimi-K3-Q2_K-00002-of-00003.gguf: shard 2 of 3 is missing") {
		t.Errorf("missing shard: %v", err)
	}
}

// A server that ignores Range: the header is read from the whole-file
// answer and the read stops at its end.
func TestGGUFHeaderIgnoredRange(t *testing.T) {
	m := k3Quant(t, "Q4_K_M", "Q4_K", 2)
	files := ggufFiles(m)
	srv := hubtest.New(t, &hubtest.Repo{ID: "acme/norange-GGUF", Files: files})
	srv.SetIgnoreRange(true)
	c, _ := newClient(t, srv.URL(), "")
	h, _, err := c.GGUFHeader(context.Background(), "acme/norange-GGUF", "main", files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	// The server pushes ahead of the reader, but far from the whole
	// file: the read stopped at the header.
	srv.Close()
	if len(h.Tensors) == 0 || srv.FileBytesServed() > files[0].Size/10 {
		t.Errorf("%d tensors, %d of %d bytes served", len(h.Tensors), srv.FileBytesServed(), files[0].Size)
	}
}
