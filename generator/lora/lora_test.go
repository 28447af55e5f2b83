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
// split: K3's 24 full-attention layers are MLA with q_lora_rank 1536
// (q_a_proj, q_b_proj, kv_a_proj_with_mqa, kv_b_proj, o_proj, and the
// output gate g_proj), so only o_proj matches there, 24 modules; its 69
// KDA layers carry q/k/v/o_proj, 276 modules. The split cannot come from
// any per-layer count either: 89 and 211 are prime, and neither is a
// multiple of 24 or 69.
func TestK3AttentionTargets(t *testing.T) {
	r := resolve(t, "moonshotai__Kimi-K3", qkvo, 16)
	_, a := load(t, "moonshotai__Kimi-K3")
	var full, linear int64
	for _, k := range a.LayerKinds {
		switch k {
		case arch.Full:
			full++
		case arch.Linear:
			linear++
		}
	}
	if full != 24 || linear != 69 {
		t.Fatalf("layout: %d full, %d linear layers; config.json lists 24 full_attn_layers and 69 kda_layers", full, linear)
	}
	// Per kind, which projection names matched: one o_proj per MLA layer,
	// all four per KDA layer.
	names := map[Kind]map[string]int64{}
	for _, m := range r.Matches {
		if names[m.Kind] == nil {
			names[m.Kind] = map[string]int64{}
		}
		names[m.Kind][m.Pattern[strings.LastIndexByte(m.Pattern, '.')+1:]] += m.Count
	}
	if got := names[FullAttention]; len(got) != 1 || got["o_proj"] != full {
		t.Errorf("full-attention matches by name %v, want only o_proj, once per MLA layer", got)
	}
	for _, n := range qkvo {
		if got := names[LinearAttention][n]; got != linear {
			t.Errorf("linear-attention %s: %d, want one per KDA layer (%d)", n, got, linear)
		}
	}
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

// TestKimiLinearMLAHasQProj: the same family without q_lora_rank (Kimi
// Linear 48B) projects MLA queries with q_proj, so there q/k/v/o match two
// modules per MLA layer: 7 × 2 + 20 KDA layers × 4 = 94. What the K3 test
// finds follows from K3's config, not from the family's names.
func TestKimiLinearMLAHasQProj(t *testing.T) {
	r := resolve(t, "moonshotai__Kimi-Linear-48B-A3B-Instruct", qkvo, 16)
	if r.ByKind[FullAttention] != 7*2 || r.ByKind[LinearAttention] != 20*4 || r.Modules != 94 {
		t.Errorf("full %d, linear %d, total %d; want 14, 80, 94", r.ByKind[FullAttention], r.ByKind[LinearAttention], r.Modules)
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
	if f := s.Get("lora.adapter_bytes"); f.Unit != facts.UnitBytes || f.Display != "54.5 MB (52.0 MiB)" {
		t.Errorf("lora.adapter_bytes unit %q, display %q; want bytes shown as 54.5 MB (52.0 MiB)", f.Unit, f.Display)
	}
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
	for _, r := range []int64{0, -1, MaxRank + 1} {
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
	// K3 has 24 MLA layers × 6 Linear modules and 69 KDA layers × 8.
	if d := s.Get("lora.modules_matched.full_attention").Display; d != "24 of 144" {
		t.Errorf("full_attention display %q, want the share of the kind: 24 of 144", d)
	}
	if d := s.Get("lora.modules_matched.linear_attention").Display; d != "276 of 552" {
		t.Errorf("linear_attention display %q, want 276 of 552", d)
	}
	if f := s.Get("lora.targets_unmatched"); f.Value != "query_key_value" {
		t.Errorf("lora.targets_unmatched = %v", f.Value)
	}
}

// TestMemoryOverflow: batch and sequence length each within bounds can
// still make the activation bytes leave int64 on a wide, deep model; that
// is an error, not a wrapped (negative or small) figure.
func TestMemoryOverflow(t *testing.T) {
	r := resolve(t, "moonshotai__Kimi-K3", qkvo, 16)
	sh := Shape{Layers: 93, Hidden: 7168, Vocab: 163840}
	if _, err := Estimate(r, sh, Setup{Batch: 1 << 20, SeqLen: 1 << 24, Optimizer: AdamW}); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Errorf("2^20 × 2^24 tokens on K3: %v, want an overflow error", err)
	}
	m, err := Estimate(r, sh, Setup{Batch: 1, SeqLen: 2048, Optimizer: AdamW, AdapterBytes: 2})
	if err != nil {
		t.Fatal(err)
	}
	if m.Adapter.Bytes != 2*r.AdapterParams || strings.Contains(m.Adapter.Derivation, "FP32") {
		t.Errorf("bf16 adapters: %d B, %q; want 2 B each and no FP32 claim", m.Adapter.Bytes, m.Adapter.Derivation)
	}
	s := facts.NewSet()
	AddFacts(s, r, 2, m, Frozen{})
	if d := s.Get("lora.adapter_bytes").Derivation; strings.Contains(d, "× 4 B") {
		t.Errorf("lora.adapter_bytes at 2 B says %q", d)
	}
}
