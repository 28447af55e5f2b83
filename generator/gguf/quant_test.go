package gguf_test

import (
	"strings"
	"testing"

	"dossier/generator/gguf"
	"dossier/generator/gguf/gguftest"
)

func TestQuantLabel(t *testing.T) {
	cases := map[string]string{
		"UD-Q2_K_XL/Kimi-K3-UD-Q2_K_XL-00001-of-00008.gguf": "UD-Q2_K_XL",
		"Qwen3-30B-A3B-Q4_K_M.gguf":                         "Q4_K_M",
		"Kimi-K3-IQ2_XXS-00002-of-00003.gguf":               "IQ2_XXS",
		"gpt-oss-20b-MXFP4.gguf":                            "MXFP4",
		"Llama-3.1-8B-Instruct-bf16.gguf":                   "BF16",
		"model.Q8_0.gguf":                                   "Q8_0",
		"Kimi-K3-UD-Q1_0-00001-of-00010.gguf":               "UD-Q1_0",
		"Qwen3-30B-A3B-UD-IQ1_S.gguf":                       "UD-IQ1_S",
		"Mixtral-8x7B-v0.1.gguf":                            "",
	}
	for p, want := range cases {
		if got := gguf.QuantLabel(p); got != want {
			t.Errorf("QuantLabel(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestGroupFiles(t *testing.T) {
	files := []gguf.Listed{
		{"Q4_K_M/M-Q4_K_M-00002-of-00002.gguf", 20},
		{"Q4_K_M/M-Q4_K_M-00001-of-00002.gguf", 10},
		{"M-Q8_0.gguf", 30},
		{"mmproj-F16.gguf", 5},
		{"README.md", 1},
	}
	gs, err := gguf.GroupFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 || gs[0].Label != "Q8_0" || gs[1].Label != "Q4_K_M" || gs[1].Files[0].Size != 10 || len(gs[1].Files) != 2 {
		t.Fatalf("groups %+v", gs)
	}
	_, err = gguf.GroupFiles([]gguf.Listed{{"M-Q4_K_M-00001-of-00003.gguf", 1}, {"M-Q4_K_M-00003-of-00003.gguf", 1}})
	if err == nil || !strings.Contains(err.Error(), "M-Q4_K_M-00002-of-00003.gguf: shard 2 of 3 is missing") {
		t.Errorf("missing shard: %v", err)
	}
	_, err = gguf.GroupFiles([]gguf.Listed{{"a/M-Q4_K_M.gguf", 1}, {"b/M-Q4_K_M.gguf", 1}})
	if err == nil || !strings.Contains(err.Error(), "both name quant Q4_K_M") {
		t.Errorf("duplicate label: %v", err)
	}
}

// k3ish is a K3-shaped MoE small enough to build in a test: K3's widths
// and expert count, fewer layers.
func k3ish(t *testing.T, layers, shards int) gguftest.MoE {
	return gguftest.MoE{
		Layers: layers, DenseLayers: 1, Hidden: 7168, Vocab: 163840, Heads: 96,
		QLoraRank: 1536, KVLoraRnk: 512, RopeDim: 64, NopeDim: 128, VDim: 128, DenseFF: 18432,
		Experts: 896, ExpertsUsed: 16, ExpertIn: 3584, ExpertFF: 3072, SharedFF: 6144, Context: 1 << 20,
		ExpertType: typ(t, "IQ2_XXS"), DownType: typ(t, "Q2_K"), MatrixType: typ(t, "Q8_0"), EmbedType: typ(t, "Q6_K"),
		Shards: shards, Name: "Kimi-K3-UD-IQ2_XXS",
	}
}

func combine(t *testing.T, built []gguftest.Built) *gguf.Quant {
	t.Helper()
	var listed []gguf.Listed
	var hs []*gguf.Header
	for _, b := range built {
		listed = append(listed, gguf.Listed{Path: b.Path, Size: b.Size})
		h, err := gguf.Parse(b.Header, b.Size)
		if err != nil {
			t.Fatalf("%s: %v", b.Path, err)
		}
		hs = append(hs, h)
	}
	gs, err := gguf.GroupFiles(listed)
	if err != nil || len(gs) != 1 {
		t.Fatalf("groups %v %v", gs, err)
	}
	q, err := gguf.Combine(gs[0], hs)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// Split files combine into one quant whose sizes equal a hand count.
func TestSplitSizesByHand(t *testing.T) {
	m := k3ish(t, 3, 3)
	q := combine(t, m.Build())
	s, err := q.Sizes()
	if err != nil {
		t.Fatal(err)
	}
	// Routed experts in layers 1 and 2: gate and up IQ2_XXS (66 B per
	// 256), down Q2_K (84 B per 256), each 3584×3072×896 values.
	per := int64(3584 * 3072 * 896)
	wantExperts := 2 * (2*per/256*66 + per/256*84)
	if s.ExpertBytes != wantExperts {
		t.Errorf("expert bytes %d, want %d", s.ExpertBytes, wantExperts)
	}
	if s.LayerExpertBytes[0] != 0 || s.LayerExpertBytes[1] != wantExperts/2 {
		t.Errorf("per-layer experts %v", s.LayerExpertBytes)
	}
	if c := s.Census["IQ2_XXS"]; c.Params != 4*per || c.Bytes != 4*per/256*66 {
		t.Errorf("IQ2_XXS census %+v", c)
	}
	// Embedding and output: Q6_K, 7168×163840 each.
	if c := s.Census["Q6_K"]; c.Params != 2*7168*163840 || c.Bytes != 2*7168*163840/256*210 {
		t.Errorf("Q6_K census %+v", c)
	}
	var params, bytes, files int64
	for _, b := range m.Build() {
		files += b.Size
	}
	for _, c := range s.Census {
		params += c.Params
		bytes += c.Bytes
	}
	if params != s.Params || bytes != s.TensorBytes || s.Bytes != files || s.Bytes <= s.TensorBytes {
		t.Errorf("params %d/%d bytes %d/%d files %d/%d", params, s.Params, bytes, s.TensorBytes, files, s.Bytes)
	}
	var layers int64
	for _, b := range s.LayerBytes {
		layers += b
	}
	if layers+s.OtherBytes != s.TensorBytes {
		t.Errorf("layers %d + other %d != %d", layers, s.OtherBytes, s.TensorBytes)
	}
	if bpw := s.BitsPerWeight(); bpw < 2 || bpw > 3 {
		t.Errorf("bits per weight %.3f", bpw)
	}
}

func TestCombineRefusesMismatchedShards(t *testing.T) {
	built := k3ish(t, 2, 2).Build()
	h0, _ := gguf.Parse(built[0].Header, built[0].Size)
	h1, _ := gguf.Parse(built[1].Header, built[1].Size)
	g := gguf.Group{Label: "X", Files: []gguf.Listed{{Path: built[0].Path}, {Path: built[1].Path}}}
	if _, err := gguf.Combine(g, []*gguf.Header{h1, h0}); err == nil || !strings.Contains(err.Error(), "split.no 1 of split.count 2, but the name says shard 1 of 2") {
		t.Errorf("swapped shards: %v", err)
	}
}

// The MLA cache of a K3-shaped model: 512 + 64 + 512 values per layer
// per token, as llama.cpp allocates K and V for deepseek2.
func TestCacheMLA(t *testing.T) {
	q := combine(t, k3ish(t, 4, 1).Build())
	c, err := q.Cache()
	if err != nil {
		t.Fatal(err)
	}
	full, sliding := c.FullValues()
	if full != 4*1088 || sliding != 0 || c.ContextLength != 1<<20 {
		t.Errorf("full %d sliding %d ctx %d", full, sliding, c.ContextLength)
	}
	// F16 bytes at 1000 tokens: 4 × 1088 × 2 × 1000.
	if got := c.Bytes(1000, gguf.F16ValueBytes); got != 4*1088*2*1000 {
		t.Errorf("bytes %v", got)
	}
	if got := c.Bytes(1000, gguf.Q8_0ValueBytes); got != 4*1088*1000*34.0/32 {
		t.Errorf("q8_0 bytes %v", got)
	}
}

func TestCacheGQASlidingRecurrent(t *testing.T) {
	f32, _ := gguf.TypeByName("F32")
	kv := func(extra ...gguftest.KV) *gguf.Quant {
		base := []gguftest.KV{
			{"general.architecture", "x"}, {"x.block_count", uint32(4)}, {"x.embedding_length", uint32(1024)},
			{"x.attention.head_count", uint32(16)},
		}
		h, size := gguftest.Encode(gguftest.File{KV: append(base, extra...), Tensors: []gguftest.Tensor{{"blk.0.n", f32, []int64{4}}}})
		return combine(t, []gguftest.Built{{Path: "x-Q8_0.gguf", Header: h, Size: size}})
	}
	// GQA: 4 KV heads × (64 + 64) by default from 1024/16.
	c, err := kv(gguftest.KV{"x.attention.head_count_kv", uint32(4)}).Cache()
	if full, _ := c.FullValues(); err != nil || full != 4*4*128 {
		t.Errorf("GQA: %d %v", full, err)
	}
	// Sliding: period 2 → layers 0 and 2 slide, window 512.
	c, err = kv(gguftest.KV{"x.attention.head_count_kv", uint32(4)}, gguftest.KV{"x.attention.sliding_window", uint32(512)},
		gguftest.KV{"x.attention.sliding_window_pattern", uint32(2)}).Cache()
	full, sl := c.FullValues()
	if err != nil || full != 2*512 || sl != 2*512 || !c.Sliding[0] || c.Sliding[1] {
		t.Errorf("SWA: full %d sliding %d %v %v", full, sl, c.Sliding, err)
	}
	if got := c.Bytes(10000, 2); got != 2*(1024*10000+1024*512) {
		t.Errorf("SWA bytes %v", got)
	}
	// Hybrid: per-layer KV heads, 0 for recurrent layers; without ssm.*
	// keys their state is unknown.
	c, err = kv(gguftest.KV{"x.attention.head_count_kv", []uint32{0, 0, 0, 8}}).Cache()
	full, _ = c.FullValues()
	if err != nil || full != 8*128 || c.RecurrentLayers != 3 || c.StateKnown {
		t.Errorf("hybrid: %d %d %v %v", full, c.RecurrentLayers, c.StateKnown, err)
	}
	// A gated delta net as Qwen3-Next writes it: conv kernel 4, inner
	// 4,096, 16 groups of state 128: 3 × (4,096 + 2 × 16 × 128) + 128 ×
	// 4,096 = 24,576 + 524,288 = 548,864 values, × 4 B × 3 layers.
	c, err = kv(gguftest.KV{"x.attention.head_count_kv", []uint32{0, 0, 0, 8}}, gguftest.KV{"x.ssm.conv_kernel", uint32(4)},
		gguftest.KV{"x.ssm.inner_size", uint32(4096)}, gguftest.KV{"x.ssm.state_size", uint32(128)}, gguftest.KV{"x.ssm.group_count", uint32(16)}).Cache()
	if err != nil || !c.StateKnown || c.LayerState[0] != 548_864 || c.LayerState[3] != 0 || c.StateBytes() != 3*548_864*4 {
		t.Errorf("state: %v %v %d %v", c.StateKnown, c.LayerState, c.StateBytes(), err)
	}
}
