package lora

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/facts"
	"dossier/generator/modeltree"
)

func load(t testing.TB, name string) (*modeltree.Inventory, *arch.Architecture) {
	t.Helper()
	cfg, err := os.ReadFile(filepath.Join("testdata", name+".config.json"))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := modeltree.FromConfig(cfg, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	a, err := arch.Parse(cfg, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return inv, a
}

func resolve(t testing.TB, name string, targets []string, rank int64) *Resolution {
	t.Helper()
	inv, a := load(t, name)
	tg, err := ParseTargets(targets)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Resolve(inv, a, tg, rank)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var qkvo = []string{"q_proj", "k_proj", "v_proj", "o_proj"}

// TestK3AttentionTargets checks the seed's sentence against the tree.
// Seed 000 says q/k/v/o resolve to 300 modules, 89 in full-attention
// layers and 211 in linear ones. The tree supports the 300 and not the
// split: K3's 24 full-attention layers are MLA (q_a_proj, q_b_proj,
// kv_a_proj_with_mqa, kv_b_proj, o_proj), so only o_proj matches there,
// 24 modules; its 69 KDA layers carry q/k/v/o_proj, 276 modules.
func TestK3AttentionTargets(t *testing.T) {
	r := resolve(t, "moonshotai__Kimi-K3", qkvo, 16)
	if r.Modules != 300 {
		t.Errorf("modules = %d, want the seed's 300", r.Modules)
	}
	if got := r.ByKind[FullAttention]; got != 24 {
		t.Errorf("full_attention = %d, want 24 (24 MLA layers × o_proj; the seed's 89 is not what the tree holds)", got)
	}
	if got := r.ByKind[LinearAttention]; got != 276 {
		t.Errorf("linear_attention = %d, want 276 (69 KDA layers × 4; the seed's 211 is not what the tree holds)", got)
	}
	if r.ByKind[Vision] != 0 || r.ByKind[MoEExperts] != 0 {
		t.Errorf("vision %d, experts %d: MoonViT names its projections wqkv/wo and experts w1/w2/w3", r.ByKind[Vision], r.ByKind[MoEExperts])
	}
	want := map[string]int64{"q_proj": 69, "k_proj": 69, "v_proj": 69, "o_proj": 93}
	for k, v := range want {
		if r.PerTarget[k] != v {
			t.Errorf("target %s: %d modules, want %d", k, r.PerTarget[k], v)
		}
	}
	if len(r.Unmatched) != 0 {
		t.Errorf("unmatched %v, want none", r.Unmatched)
	}
	// By hand, H = 7168: KDA q/k/v [12288, 7168], o [7168, 12288]; MLA
	// o_proj [7168, 96·128 = 12288]. Every matched module is 7168 + 12288.
	if want := int64(16 * 300 * (7168 + 12288)); r.AdapterParams != want {
		t.Errorf("adapter params = %d, want %d", r.AdapterParams, want)
	}
	if r.Available[MoEExperts] != 92*896*3 {
		t.Errorf("expert Linear modules = %d, want 92 × 896 × 3", r.Available[MoEExperts])
	}
}

// TestLlama31AdapterParamsByHand: hidden 4096, 32 heads × 128, 8 KV
// heads: q and o are [4096, 4096], k and v [1024, 4096]. Per layer at
// r = 16: 16 × (8192 + 5120 + 5120 + 8192) = 425,984; × 32 layers =
// 13,631,488.
func TestLlama31AdapterParamsByHand(t *testing.T) {
	r := resolve(t, "meta-llama__Llama-3.1-8B", qkvo, 16)
	if r.Modules != 128 || r.ByKind[FullAttention] != 128 {
		t.Errorf("modules %d (full attention %d), want 128", r.Modules, r.ByKind[FullAttention])
	}
	if r.AdapterParams != 13_631_488 {
		t.Errorf("adapter params = %d, want 13,631,488", r.AdapterParams)
	}
	s := facts.NewSet()
	AddFacts(s, r, 0, nil, Frozen{})
	if v, _ := s.Get("lora.adapter_bytes").Int(); v != 13_631_488*4 {
		t.Errorf("lora.adapter_bytes = %d, want 4 B per parameter (FP32 adapters)", v)
	}
	// lora_alpha is not an input: the rank alone sets the size, linearly.
	if r32 := resolve(t, "meta-llama__Llama-3.1-8B", qkvo, 32); r32.AdapterParams != 2*r.AdapterParams {
		t.Errorf("r=32 gives %d, want twice r=16", r32.AdapterParams)
	}
}

func TestMatchingFollowsPEFT(t *testing.T) {
	cases := []struct {
		targets []string
		modules int64
	}{
		{[]string{"self_attn.q_proj"}, 32},                           // dotted suffix
		{[]string{"model.layers.0.self_attn.q_proj"}, 1},             // exact name
		{[]string{"proj"}, 0},                                        // suffix must start at a dot
		{[]string{`re:.*\.layers\.[0-3]\.self_attn\.(q|v)_proj`}, 8}, // full match
		{[]string{"re:q_proj"}, 0},                                   // a regex must match the whole name
		{[]string{"all-linear"}, 32 * 7},                             // every Linear but lm_head
		{[]string{"q_proj", "self_attn.q_proj"}, 32},                 // a module counts once
	}
	for _, c := range cases {
		r := resolve(t, "meta-llama__Llama-3.1-8B", c.targets, 8)
		if r.Modules != c.modules {
			t.Errorf("%v: %d modules, want %d", c.targets, r.Modules, c.modules)
		}
	}
	r := resolve(t, "meta-llama__Llama-3.1-8B", []string{"all-linear"}, 8)
	if r.ByKind[DenseMLP] != 96 || r.ByKind[Head] != 0 || r.Available[Head] != 1 {
		t.Errorf("all-linear: dense_mlp %d, lm_head %d of %d", r.ByKind[DenseMLP], r.ByKind[Head], r.Available[Head])
	}
}

func TestUnmatchedTargets(t *testing.T) {
	r := resolve(t, "meta-llama__Llama-3.1-8B", []string{"q_proj", "qkv_proj", "mlp", "dense"}, 8)
	if r.Modules != 32 {
		t.Errorf("modules = %d, want 32", r.Modules)
	}
	got := map[string]Unmatched{}
	for _, u := range r.Unmatched {
		got[u.Target] = u
	}
	if len(got) != 3 {
		t.Fatalf("unmatched %v, want qkv_proj, mlp, dense", r.Unmatched)
	}
	if c := got["qkv_proj"].Closest; len(c) == 0 || !slices.Contains(c, "q_proj") {
		t.Errorf("qkv_proj closest %v, want q_proj among them", c)
	}
	if n := got["mlp"].Note; !strings.Contains(n, "not nn.Linear") {
		t.Errorf("mlp note %q, want it to say the module is not Linear", n)
	}
	if got["dense"].Note != "" {
		t.Errorf("dense note %q, want none", got["dense"].Note)
	}
}

// TestFusedExperts: gpt-oss stores experts as 3-D parameters, so no
// target_modules entry reaches them; Mixtral's are Linear per expert.
func TestFusedExperts(t *testing.T) {
	r := resolve(t, "openai__gpt-oss-20b", []string{"gate_up_proj", "q_proj"}, 8)
	if r.ByKind[MoEExperts] != 0 || r.FusedExperts == "" || r.FusedExpertParams == 0 {
		t.Errorf("gpt-oss: experts matched %d, fused %q (%d params)", r.ByKind[MoEExperts], r.FusedExperts, r.FusedExpertParams)
	}
	if len(r.Unmatched) != 1 || !strings.Contains(r.Unmatched[0].Note, "target_parameters") {
		t.Errorf("gpt-oss gate_up_proj: %+v, want a note that it is a parameter", r.Unmatched)
	}
	m := resolve(t, "mistralai__Mixtral-8x7B-v0.1", []string{"w1", "re:.*experts\\.0\\.w2"}, 8)
	if m.ByKind[MoEExperts] != 32*8+32 || m.FusedExperts != "" {
		t.Errorf("Mixtral: experts matched %d, want 32 layers × 8 w1 + 32 × expert 0's w2", m.ByKind[MoEExperts])
	}
}

func TestBadTargets(t *testing.T) {
	for _, in := range [][]string{nil, {""}, {"re:("}, {".q_proj"}, {"a..b"}} {
		if _, err := ParseTargets(in); err == nil {
			t.Errorf("ParseTargets(%q): no error", in)
		}
	}
	inv, a := load(t, "meta-llama__Llama-3.1-8B")
	tg, _ := ParseTargets(qkvo)
	for _, r := range []int64{0, -1, maxRank + 1} {
		if _, err := Resolve(inv, a, tg, r); err == nil {
			t.Errorf("rank %d: no error", r)
		}
	}
}

// TestMemoryTerms checks each term by hand for Llama 3.1 8B, r = 16,
// q/k/v/o, batch 1 × 2048 tokens, AdamW.
func TestMemoryTerms(t *testing.T) {
	r := resolve(t, "meta-llama__Llama-3.1-8B", qkvo, 16)
	sh := Shape{Layers: 32, Hidden: 4096, Vocab: 128256}
	m, err := Estimate(r, sh, Setup{Batch: 1, SeqLen: 2048, Optimizer: AdamW})
	if err != nil {
		t.Fatal(err)
	}
	p := int64(13_631_488)
	tok := int64(2048)
	want := map[string]int64{
		"adapter": p * 4,
		"grads":   p * 4,
		"adam":    p * 8,
		"acts":    32*34*tok*4096 + tok*128256*4,
		"ckpt":    32*2*tok*4096 + 34*tok*4096 + tok*128256*4,
	}
	got := map[string]int64{"adapter": m.Adapter.Bytes, "grads": m.Gradients.Bytes, "adam": m.Optimizer.Bytes,
		"acts": m.Activations.Bytes, "ckpt": m.Checkpointed.Bytes}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d", k, got[k], v)
		}
	}
	if m.Checkpointed.Bytes >= m.Activations.Bytes {
		t.Errorf("checkpointing must hold less: %d ≥ %d", m.Checkpointed.Bytes, m.Activations.Bytes)
	}
	s := facts.NewSet()
	frozen := s.Add(facts.Fact{Key: "train.lora_frozen_bytes", Value: int64(16_060_522_496), Unit: facts.UnitBytes})
	AddFacts(s, r, 4, m, Frozen{LoRA: frozen})
	total, ok := s.Get("lora.memory.lora_checkpointed_bytes").Int()
	if sum := int64(16_060_522_496) + p*16 + want["ckpt"]; !ok || total != sum {
		t.Errorf("lora.memory.lora_checkpointed_bytes = %d, want %d", total, sum)
	}
	if f := s.Get("lora.memory.qlora_bytes"); f == nil || f.Known() || !strings.Contains(f.Reason, "train.qlora_frozen_bytes") {
		t.Errorf("qlora total without a frozen figure: %+v, want unknown naming the input", f)
	}
	for _, bad := range []Setup{{Batch: 0, SeqLen: 1, Optimizer: AdamW}, {Batch: 1, SeqLen: 1, Optimizer: "lion"}} {
		if _, err := Estimate(r, sh, bad); err == nil {
			t.Errorf("Estimate(%+v): no error", bad)
		}
	}
}

func TestFactsKeys(t *testing.T) {
	r := resolve(t, "moonshotai__Kimi-K3", append(qkvo, "query_key_value"), 16)
	s := facts.NewSet()
	AddFacts(s, r, 4, nil, Frozen{})
	for k, want := range map[string]int64{"lora.modules_matched": 300, "lora.modules_matched.full_attention": 24,
		"lora.modules_matched.linear_attention": 276, "lora.modules_matched.moe_experts": 0} {
		if v, ok := s.Get(k).Int(); !ok || v != want {
			t.Errorf("%s = %d (%v), want %d", k, v, ok, want)
		}
	}
	if f := s.Get("lora.targets_unmatched"); f.Value != "query_key_value" {
		t.Errorf("lora.targets_unmatched = %v", f.Value)
	}
}
