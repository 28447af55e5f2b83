package hubtest

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"dossier/generator/modeltree"
	"dossier/generator/safetensors"
)

// k3Config is the real config.json of moonshotai/Kimi-K3.
const k3Config = "../../../testdata/configs/moonshotai__Kimi-K3.json"

// TestK3MatchesThePublishedFigures checks the fake K3 against every
// published figure of the repository, from the bytes it would serve.
func TestK3MatchesThePublishedFigures(t *testing.T) {
	cfg, err := os.ReadFile(k3Config)
	if err != nil {
		t.Fatal(err)
	}
	repo := K3(t, cfg)
	inv, err := modeltree.FromConfig(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if repo.ID != "moonshotai/Kimi-K3" || repo.SHA != "9f62e4e9fffbd0a83ddd60e1c209d828994b3569" {
		t.Fatalf("repo %s@%s", repo.ID, repo.SHA)
	}
	want := map[string]int64{"U8": 2_722_740_830_208, "BF16": 57_179_884_544, "F32": 11_122_432}
	if len(repo.Census) != len(want) {
		t.Errorf("census %v, want %v", repo.Census, want)
	}
	for dt, n := range want {
		if repo.Census[dt] != n {
			t.Errorf("census %s = %d, want %d", dt, repo.Census[dt], n)
		}
	}
	br, err := build(repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(br.sorted) != K3Shards+2 {
		t.Fatalf("%d files: %v", len(br.sorted), br.sorted)
	}
	var c safetensors.Census
	var shardBytes, minHeader, compact int64
	type placed struct{ name, file string }
	order := make([]placed, 0, K3Tensors) // tensors in shard and file order
	names := ShardFiles(make([][]Tensor, K3Shards), 5, 6)
	if names[0].Path != "model-00001-of-000096.safetensors" || names[95].Path != "model-00096-of-000096.safetensors" {
		t.Fatalf("shard names %s … %s", names[0].Path, names[95].Path)
	}
	for _, n := range names {
		name := n.Path
		b := br.files[name]
		if b == nil || !b.lfs {
			t.Fatalf("%s missing or not LFS", name)
		}
		h, err := safetensors.Parse(b.prefix)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if int64(len(b.prefix)) != 8+h.Len || b.size != h.FileLen() || b.listed != b.size {
			t.Fatalf("%s: prefix %d, header %d, size %d, listed %d", name, len(b.prefix), h.Len, b.size, b.listed)
		}
		if h.Len%8 != 0 {
			t.Errorf("%s: N = %d, not a multiple of 8 as writers pad it", name, h.Len)
		}
		if h.Metadata["format"] != "pt" {
			t.Errorf("%s: metadata %v", name, h.Metadata)
		}
		// Padding is spaces after the JSON object, within N.
		js := bytes.TrimRight(b.prefix[8:], " ")
		if js[len(js)-1] != '}' {
			t.Fatalf("%s: header is not a JSON object followed by spaces", name)
		}
		compact += int64(len(js))
		if minHeader == 0 || h.Len < minHeader {
			minHeader = h.Len
		}
		for _, x := range h.Tensors {
			order = append(order, placed{x.Name, name})
			if k := len(order) - 1; k < len(inv.Tensors) {
				if want := &inv.Tensors[k]; x.Name != want.Name || x.DType != want.DType || !slices.Equal(x.Shape, want.Shape) {
					t.Fatalf("%s: tensor %d is %s %s %v; the module tree has %s %s %v", name, k, x.Name, x.DType, x.Shape, want.Name, want.DType, want.Shape)
				}
			}
		}
		if err := c.Add(h); err != nil {
			t.Fatal(err)
		}
		shardBytes += b.size
	}
	// The headers hold the module tree's tensors, in order, and no more.
	if c.Tensors != K3Tensors || len(order) != K3Tensors || c.TotalBytes() != K3TensorBytes {
		t.Fatalf("headers: %d tensors, %d bytes", c.Tensors, c.TotalBytes())
	}
	if c.HeaderBytes != K3HeaderBytes || shardBytes != K3ShardBytes || K3ShardBytes != 1_560_936_091_448 {
		t.Errorf("header bytes %d (want %d), shard bytes %d (want %d)", c.HeaderBytes, K3HeaderBytes, shardBytes, K3ShardBytes)
	}
	t.Logf("header JSON %d bytes, padding %d, prefixes %d: %d in all", compact, c.HeaderBytes-compact-8*K3Shards, 8*K3Shards, c.HeaderBytes)
	// Every header is over the client's first 100 kB read, as K3's are.
	if minHeader <= 100_000 {
		t.Errorf("smallest header %d bytes", minHeader)
	}
	for dt, n := range inv.StoredElements() {
		if c.Elems[dt] != n {
			t.Errorf("stored elements %s = %d, module tree %d", dt, c.Elems[dt], n)
		}
	}

	if b := br.files["config.json"]; b == nil || !bytes.Equal(b.prefix, cfg) {
		t.Error("config.json is not served verbatim")
	}
	idx := br.files["model.safetensors.index.json"]
	if idx == nil || idx.size != K3IndexBytes || !idx.lfs {
		t.Fatalf("index %+v", idx)
	}
	// json.dump(index, f, indent=2): one entry a line, each naming the
	// shard whose header holds the tensor, every tensor once, in order.
	lines := strings.Split(string(idx.prefix), "\n")
	head := []string{"{", `  "metadata": {`, `    "total_size": 1560860324864`, "  },", `  "weight_map": {`}
	if len(lines) != len(head)+K3Tensors+2 || !slices.Equal(lines[:len(head)], head) || lines[len(lines)-2] != "  }" || lines[len(lines)-1] != "}" {
		t.Fatalf("index layout: %d lines, head %q, tail %q", len(lines), lines[:len(head)], lines[len(lines)-2:])
	}
	for i, l := range lines[len(head) : len(lines)-2] {
		name, file, ok := strings.Cut(strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(l, `    "`), ","), `"`), `": "`)
		if !ok || !strings.HasPrefix(l, `    "`) || strings.HasSuffix(l, ",") != (i < K3Tensors-1) {
			t.Fatalf("index line %d: %q", len(head)+i+1, l)
		}
		if order[i].name != name || order[i].file != file {
			t.Fatalf("index line %d puts %s in %s; the headers have %s in %s", len(head)+i+1, name, file, order[i].name, order[i].file)
		}
	}
}

func TestSplitBytes(t *testing.T) {
	ts := []Tensor{{"a", "U8", []int64{10}}, {"b", "U8", []int64{10}}, {"c", "U8", []int64{80}}, {"d", "U8", []int64{100}}}
	sizes := []int64{10, 10, 80, 100}
	got := SplitBytes(ts, sizes, 2)
	if len(got) != 2 || len(got[0]) != 3 || len(got[1]) != 1 {
		t.Fatalf("%v", got)
	}
	got = SplitBytes(ts, sizes, 4)
	for i, p := range got {
		if len(p) != 1 || p[0].Name != ts[i].Name {
			t.Fatalf("%v", got)
		}
	}
	got = SplitBytes(ts[:1], sizes[:1], 3)
	if len(got) != 3 || len(got[0]) != 1 || got[1] == nil || len(got[1]) != 0 {
		t.Fatalf("%v", got)
	}
}

func TestHeaderBytesPads(t *testing.T) {
	ts := []Tensor{{"a", "BF16", []int64{4}}}
	files := []File{{Path: "a.safetensors", Tensors: ts}, {Path: "b.safetensors", Tensors: ts}, {Path: "c.safetensors", Tensors: ts, HeaderLen: 200}}
	br, err := build(&Repo{ID: "o/m", Files: files, HeaderBytes: 8*3 + 200 + 2*64 + 8*3 + 5})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, f := range files {
		h, err := safetensors.Parse(br.files[f.Path].prefix)
		if err != nil {
			t.Fatal(err)
		}
		total += 8 + h.Len
	}
	if h, _ := safetensors.Parse(br.files["c.safetensors"].prefix); h.Len != 200 {
		t.Errorf("fixed HeaderLen changed to %d", h.Len)
	}
	if total != 8*3+200+2*64+8*3+5 {
		t.Errorf("total %d", total)
	}
	if _, err := build(&Repo{ID: "o/m", Files: files, HeaderBytes: 100}); err == nil {
		t.Error("no error for a HeaderBytes below the JSON")
	}
}
