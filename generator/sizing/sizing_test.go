package sizing_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/facts"
	"dossier/generator/modeltree"
	"dossier/generator/sizing"
	"dossier/generator/snapshot"
)

// configDir and fixtureData are captured configs and the fixture site's
// data (testdata/ at the repository root).
const (
	configDir   = "../../testdata/configs"
	fixtureData = "../../testdata/site/data"
)

func assumptions() config.Sizing {
	return config.Sizing{
		KVDTypeBytes: 2, StateDTypeBytes: 4, Contexts: []int64{8192, 131072, 1048576},
		ServingContext: 131072, Concurrency: 1, GPUMemoryUtilization: 0.9,
		TensorParallelSizes: []int64{1, 2, 4, 8}, DownloadBytesPerSec: 126.3e6,
	}
}

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(configDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compute sizes a config.json with no snapshot, as `dossier plan` does.
func compute(t *testing.T, cfg []byte, snap *snapshot.Snapshot, fill func(*sizing.Analytic)) *facts.Set {
	t.Helper()
	a, err := arch.Parse(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	an, anErr := sizing.AnalyticOf(cfg, nil)
	if an != nil && fill != nil {
		fill(an)
	}
	return sizing.Compute(sizing.Input{Model: "test", Snapshot: snap, Arch: a, Analytic: an, AnalyticErr: anErr, Sizing: assumptions()})
}

func intOf(t *testing.T, s *facts.Set, key string) int64 {
	t.Helper()
	v, ok := s.Get(key).Int()
	if !ok {
		t.Fatalf("%s is not a known integer: %+v", key, s.Get(key))
	}
	return v
}

// TestMTPSplit: DeepSeek-V3's Hub count includes the MTP module; the split
// is the module tree's own per-component count, and the main model is the
// model card's 671 B. Without per-component counts the split is unknown,
// not guessed.
func TestMTPSplit(t *testing.T) {
	cfg := read(t, "deepseek-ai__DeepSeek-V3.json")
	inv, err := modeltree.FromConfig(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	byComp := inv.ParamsByComponent()
	s := compute(t, cfg, nil, nil)
	if got := intOf(t, s, "params.mtp"); got != byComp[modeltree.CompMTP] {
		t.Errorf("params.mtp = %d, want %d", got, byComp[modeltree.CompMTP])
	}
	if got := intOf(t, s, "params.main"); got != byComp[modeltree.CompText] {
		t.Errorf("params.main = %d, want %d", got, byComp[modeltree.CompText])
	}
	if main := intOf(t, s, "params.main"); main < 670.5e9 || main > 671.5e9 {
		t.Errorf("main model %d, want ≈671 B", main)
	}
	bare := compute(t, cfg, nil, func(a *sizing.Analytic) { a.ByComponent = nil })
	for _, k := range []string{"params.mtp", "params.main"} {
		if f := bare.Get(k); f == nil || f.Known() || !strings.Contains(f.Reason, "per-component") {
			t.Errorf("%s without per-component counts = %+v, want unknown", k, f)
		}
	}
	// A model without MTP layers gets neither fact.
	s = compute(t, read(t, "moonshotai__Kimi-K2.5.json"), nil, nil)
	if s.Get("params.mtp") != nil || s.Get("params.main") != nil {
		t.Error("Kimi K2.5 declares no MTP layers")
	}
}

// TestContextCap: contexts beyond max_position_embeddings are not sized,
// and the serving verdict uses the model's own maximum.
func TestContextCap(t *testing.T) {
	s := compute(t, read(t, "mistralai__Mixtral-8x7B-v0.1.json"), nil, nil)
	if f := s.Get("kv.bytes_at_context.131072"); f.Known() || !strings.Contains(f.Reason, "32,768") {
		t.Errorf("kv at 131,072 on a 32,768-token model: %+v", f)
	}
	if got := intOf(t, s, "kv.bytes_at_context.8192"); got != 8192*131072 {
		t.Errorf("kv at 8,192 = %d", got)
	}
	if got := intOf(t, s, "fit.cache_bytes"); got != 32768*131072 {
		t.Errorf("serving cache = %d, want the 32,768-token context's", got)
	}
	if a := s.Get("fit.assumptions").Display; !strings.Contains(a, "32,768-token context (the model's maximum") {
		t.Errorf("fit.assumptions %q", a)
	}
	// K3's context is 1,048,576: nothing is capped and the text is as before.
	k3 := compute(t, read(t, "moonshotai__Kimi-K3.json"), nil, nil)
	if a := k3.Get("fit.assumptions").Display; !strings.HasPrefix(a, "131,072-token context × 1") {
		t.Errorf("K3 fit.assumptions %q", a)
	}
}

// TestUnknownLayoutIsNotGuessed: a family whose layout the config does not
// list gets no KV, state, hybrid or expert verdict, each with the reason.
func TestUnknownLayoutIsNotGuessed(t *testing.T) {
	cfg := []byte(`{"model_type":"zamba3","hidden_size":768,"num_hidden_layers":24,"vocab_size":50280,"torch_dtype":"float32"}`)
	s := compute(t, cfg, nil, nil)
	if got := intOf(t, s, "arch.layers"); got != 24 {
		t.Errorf("arch.layers = %d", got)
	}
	for _, k := range []string{"arch.hybrid", "arch.layers_full_attention", "kv.bytes_per_token", "state.bytes_per_sequence", "moe.experts_routed", "params.total", "bytes.tensors"} {
		f := s.Get(k)
		if f == nil || f.Known() || !strings.Contains(f.Reason, "zamba3") {
			t.Errorf("%s = %+v, want unknown naming the family", k, f)
		}
	}
	if f := s.Get("analytic.supported"); f.Value != false || !strings.Contains(f.Derivation, `unsupported family "zamba3"`) {
		t.Errorf("analytic.supported = %+v", f)
	}
	// An unknown family that lists its layer kinds is sized from them.
	cfg = []byte(`{"model_type":"hybrid_x","hidden_size":64,"num_hidden_layers":4,"vocab_size":10,"num_attention_heads":4,
		"num_key_value_heads":2,"layer_types":["linear_attention","linear_attention","linear_attention","full_attention"]}`)
	s = compute(t, cfg, nil, nil)
	if got := intOf(t, s, "kv.bytes_per_token"); got != 2*2*16*2 {
		t.Errorf("kv.bytes_per_token = %d, want one full layer", got)
	}
	if got, _ := s.Get("arch.hybrid").Bool(); !got {
		t.Error("listed linear layers make it hybrid")
	}
}

// TestSnapshotWithoutRevisionOrListing: a hand-assembled snapshot without a
// commit or a listing labels sources without "@" and says why the
// checkpoint is unknown; a byte sum without shard names still sizes it.
func TestSnapshotWithoutRevisionOrListing(t *testing.T) {
	cfg := read(t, "Qwen__Qwen3-30B-A3B.json")
	snap := &snapshot.Snapshot{Revision: "", Census: snapshot.Counts{"BF16": 30532122624},
		Shards: snapshot.Shards{Source: "file listing not captured"}}
	s := compute(t, cfg, snap, nil)
	if src := s.Get("params.total").Sources; len(src) != 1 || src[0] != "hub:census" {
		t.Errorf("params.total sources %v, want hub:census", src)
	}
	if f := s.Get("bytes.checkpoint"); f.Known() || !strings.Contains(f.Reason, "file listing not captured") {
		t.Errorf("bytes.checkpoint = %+v", f)
	}
	if got := intOf(t, s, "reconcile.census_delta.BF16"); got != 0 {
		t.Errorf("census delta %d", got)
	}
	snap.Shards.Bytes = 61066575648
	s = compute(t, cfg, snap, nil)
	if got := intOf(t, s, "bytes.headers"); got != 61066575648-61064245248 {
		t.Errorf("bytes.headers = %d", got)
	}
	if f := s.Get("shards.count"); f.Known() {
		t.Errorf("shards.count = %v without shard names", f.Value)
	}
	per, _ := s.Get("reconcile.header_bytes_per_tensor").Float()
	if per < 100 || per > 200 {
		t.Errorf("header bytes per tensor %.1f", per)
	}
}

// FuzzCompute: any config.json arch.Parse accepts sizes without a panic,
// and every unknown fact says why.
func FuzzCompute(f *testing.F) {
	for _, name := range []string{"openai__gpt-oss-20b.json", "moonshotai__Kimi-Linear-48B-A3B-Instruct.json", "Qwen__Qwen3-Next-80B-A3B-Thinking.json"} {
		if b, err := os.ReadFile(filepath.Join(configDir, name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"model_type":"gpt_oss","num_hidden_layers":2,"layer_types":["sliding_attention","full_attention"],"num_attention_heads":2}`))
	f.Add([]byte(`{"model_type":"deepseek_v3","num_hidden_layers":2,"kv_lora_rank":4,"n_routed_experts":4,"num_nextn_predict_layers":1}`))
	f.Add([]byte(`{"model_type":"x","num_hidden_layers":3,"full_attention_interval":2,"num_experts":2}`))
	f.Add([]byte(`{"model_type":"deepseek_v4","num_hidden_layers":2,"head_dim":8,"index_head_dim":4,"sliding_window":2,"compress_ratios":[4,128,0],"max_position_embeddings":1048576}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := arch.Parse(b, nil)
		if err != nil {
			return
		}
		// The module tree of a huge fuzzed config takes seconds to list;
		// size those without it (the not-supported path).
		var an *sizing.Analytic
		anErr := errors.New("not built for large fuzzed configs")
		if a.Layers*(a.RoutedExperts+1) <= 1<<12 {
			an, anErr = sizing.AnalyticOf(b, nil)
		}
		s, err := sizing.Derive(sizing.Input{Model: "fuzz", Arch: a, Analytic: an, AnalyticErr: anErr, Sizing: assumptions()})
		if err != nil {
			// An overflow is an error naming its inputs, never a figure.
			if !strings.Contains(err.Error(), "overflows a 64-bit integer") {
				t.Errorf("Derive: %v", err)
			}
			return
		}
		for _, k := range s.Keys() {
			f := s.Get(k)
			if !f.Known() && f.Reason == "" {
				t.Errorf("unknown fact %s has no reason", k)
			}
			// Cache and state sizes are products of non-negative config
			// sizes: a negative one has wrapped (issue 15).
			if n, ok := f.Int(); ok && n < 0 && (strings.HasPrefix(k, "kv.") || strings.HasPrefix(k, "state.") || strings.HasPrefix(k, "memory.")) {
				t.Errorf("%s = %d: a wrapped product", k, n)
			}
		}
	})
}

// patch returns a real config with top-level fields replaced.
func patch(t *testing.T, name string, fields map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(read(t, name), &m); err != nil {
		t.Fatal(err)
	}
	maps.Copy(m, fields)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// computeIn sizes a config.json (with an optional hf_quant_config.json)
// as the site does, with the rest of the input set by the caller.
// withTree false sizes it without a module tree (the census path).
func computeIn(t *testing.T, cfg, hfq []byte, withTree bool, in sizing.Input) *facts.Set {
	t.Helper()
	a, err := arch.Parse(cfg, hfq)
	if err != nil {
		t.Fatal(err)
	}
	in.Model, in.Arch, in.Sizing = "test", a, assumptions()
	if withTree {
		in.Analytic, in.AnalyticErr = sizing.AnalyticOf(cfg, hfq)
		if in.Analytic == nil {
			t.Fatal(in.AnalyticErr)
		}
	} else {
		in.AnalyticErr = errors.New("sized without a module tree")
	}
	return sizing.Compute(in)
}

// censusSnapshot is a snapshot holding only the module tree's census, as a
// Hub snapshot with a census but no index or headers would.
func censusSnapshot(t *testing.T, cfg, hfq []byte) *snapshot.Snapshot {
	t.Helper()
	inv, err := modeltree.FromConfig(cfg, hfq)
	if err != nil {
		t.Fatal(err)
	}
	return &snapshot.Snapshot{Census: snapshot.Counts(inv.Census()), Shards: snapshot.Shards{Source: "not captured"}}
}

// TestModelOptWidths: a ModelOpt FP8 checkpoint is sized at 8 bits, not
// the torch dtype's 16 (which gave a negative overshoot), and its payload
// is the census's F8_E4M3 parameters; NVFP4 is 4 bits in U8 with one
// F8_E4M3 scale per 16 values. Llama-3.1-8B with lm_head excluded.
func TestModelOptWidths(t *testing.T) {
	cfg := read(t, "meta-llama__Llama-3.1-8B.json")
	const (
		total    = 8_030_261_248
		quant    = total - 2*128256*4096 - 65*4096 // every Linear but lm_head
		unquantB = (total - quant) * 2
	)
	for _, tc := range []struct {
		algo, payload string
		bits          int64
		scales        int64 // from the census: quantized ÷ group × scale width
	}{
		{"FP8", "F8_E4M3", 8, -1}, // per-tensor scales: not derivable from a census
		{"NVFP4", "U8", 4, quant / 16},
	} {
		t.Run(tc.algo, func(t *testing.T) {
			hfq := []byte(`{"quantization":{"quant_algo":"` + tc.algo + `","exclude_modules":["lm_head"]}}`)
			s := computeIn(t, cfg, hfq, true, sizing.Input{})
			if d := s.Get("bytes.naive_exact").Derivation; !strings.Contains(d, fmt.Sprintf("× %d bits", tc.bits)) {
				t.Errorf("naive_exact derivation %q, want × %d bits", d, tc.bits)
			}
			if got := intOf(t, s, "bytes.naive_exact"); got != total*tc.bits/8 {
				t.Errorf("naive_exact = %d, want %d", got, total*tc.bits/8)
			}
			if o := intOf(t, s, "bytes.overshoot"); o < 0 {
				t.Errorf("overshoot %d: tensor bytes below parameters × nominal width", o)
			}

			// Without a module tree the census's payload dtype must be found.
			s = computeIn(t, cfg, hfq, false, sizing.Input{Snapshot: censusSnapshot(t, cfg, hfq)})
			if got := intOf(t, s, "params.quantized"); got != quant {
				t.Errorf("params.quantized = %d, want %d", got, quant)
			}
			if d := s.Get("params.quantized").Derivation; !strings.HasPrefix(d, tc.payload+" parameters") {
				t.Errorf("params.quantized derivation %q, want the %s payload", d, tc.payload)
			}
			if got := intOf(t, s, "bytes.payload"); got != quant*tc.bits/8 {
				t.Errorf("bytes.payload = %d, want %d", got, quant*tc.bits/8)
			}
			if got := intOf(t, s, "bytes.unquantized"); got != unquantB {
				t.Errorf("bytes.unquantized = %d, want %d", got, unquantB)
			}
			f := s.Get("bytes.quant_scales")
			if tc.scales < 0 {
				if f.Known() {
					t.Errorf("per-tensor scales from a census: %+v", f)
				}
			} else if got, ok := f.Int(); !ok || got != tc.scales {
				t.Errorf("bytes.quant_scales = %+v, want %d", f, tc.scales)
			}
		})
	}
}

// TestTiedEmbeddingsKeepTheHead: with tie_word_embeddings the embedding is
// the output head; the active figure without the input embedding keeps it.
// Llama-3.2-1B's shape, patched from the Llama-3.1-8B config, and a tied
// Qwen3-30B-A3B sized without a module tree (the fallback rule).
func TestTiedEmbeddingsKeepTheHead(t *testing.T) {
	cfg := patch(t, "meta-llama__Llama-3.1-8B.json", map[string]any{
		"hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8,
		"intermediate_size": 8192, "tie_word_embeddings": true,
	})
	s := computeIn(t, cfg, nil, true, sizing.Input{})
	const total = 1_235_814_400
	for _, k := range []string{"params.total", "params.active", "params.active_no_embedding"} {
		if got := intOf(t, s, k); got != total {
			t.Errorf("%s = %d, want %d", k, got, total)
		}
	}
	if d := s.Get("params.active_no_embedding").Derivation; !strings.Contains(d, "tie_word_embeddings") {
		t.Errorf("derivation %q does not say the tied matrix is kept", d)
	}

	moe := patch(t, "Qwen__Qwen3-30B-A3B.json", map[string]any{"tie_word_embeddings": true})
	s = computeIn(t, moe, nil, false, sizing.Input{Snapshot: censusSnapshot(t, moe, nil)})
	if a, ne := intOf(t, s, "params.active"), intOf(t, s, "params.active_no_embedding"); ne != a {
		t.Errorf("tied fallback: active %d, without embedding %d; want equal", a, ne)
	}
	untied := read(t, "Qwen__Qwen3-30B-A3B.json")
	s = computeIn(t, untied, nil, false, sizing.Input{Snapshot: censusSnapshot(t, untied, nil)})
	if a, ne := intOf(t, s, "params.active"), intOf(t, s, "params.active_no_embedding"); a-ne != 151936*2048 {
		t.Errorf("untied fallback: active %d − without embedding %d, want the embedding 151,936 × 2,048", a, ne)
	}
}

// TestNaiveHeadline: without a published headline the derivation says the
// census was rounded; with one, it multiplies the published figure and
// cites where it was published.
func TestNaiveHeadline(t *testing.T) {
	cfg := read(t, "deepseek-ai__DeepSeek-V3.json")
	s := computeIn(t, cfg, nil, true, sizing.Input{})
	f := s.Get("bytes.naive_headline")
	if got, _ := f.Int(); got != 680e9 { // 684.5 B → 680 B × 8 bits
		t.Errorf("naive_headline = %d, want 680e9", got)
	}
	if !strings.HasPrefix(f.Derivation, "census rounded to two significant figures: 680") {
		t.Errorf("derivation %q does not say the census was rounded", f.Derivation)
	}
	// 30,532,122,624 rounds to exactly 31e9: 62e9 bytes at 16 bits, not 61,999,999,999.
	q := computeIn(t, read(t, "Qwen__Qwen3-30B-A3B.json"), nil, true, sizing.Input{})
	if got := intOf(t, q, "bytes.naive_headline"); got != 62e9 {
		t.Errorf("Qwen3-30B-A3B naive_headline = %d, want 62e9", got)
	}
	s = computeIn(t, cfg, nil, true, sizing.Input{HeadlineParams: 685e9, HeadlineSource: "model card"})
	f = s.Get("bytes.naive_headline")
	if got, _ := f.Int(); got != 685e9 {
		t.Errorf("naive_headline = %d, want 685e9 (685 B × 8 bits ÷ 8)", got)
	}
	if !strings.HasPrefix(f.Derivation, "published headline 685") || len(f.Sources) == 0 || f.Sources[0] != "model card" {
		t.Errorf("derivation %q sources %v", f.Derivation, f.Sources)
	}
}

// kimiK3 sizes K3 from the fixture site's snapshot and catalog.
func kimiK3(t *testing.T, variants []sizing.Variant, hw ...string) *facts.Set {
	t.Helper()
	snap, err := snapshot.Load(snapshot.Path(fixtureData, "moonshotai/Kimi-K3"))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load(fixtureData)
	if err != nil {
		t.Fatal(err)
	}
	return computeIn(t, snap.Config, snap.HFQuantConfig, true, sizing.Input{Snapshot: snap, Catalog: cat, Hardware: hw, Variants: variants})
}

// TestApproximatePricesStayApproximate: a catalog price marked approximate
// shows "≈" wherever it is used, and an exact one does not.
func TestApproximatePricesStayApproximate(t *testing.T) {
	s := kimiK3(t, nil, "8xB200", "8xH200", "8xRTXPRO6000")
	for k, want := range map[string]string{
		// 3 × 8 RTX PRO 6000 at ~$14/h would serve, but workstation cards
		// have no fabric between hosts: the deployable cheapest is 16 × H200.
		"cost.cheapest_serving.usd_per_hour":      "≈$58.00/h",
		"cost.deployable.RTXPRO6000.usd_per_hour": "≈$28.00/h", // 16 × 97,887 MiB hold the weights at rest
		"cost.deployable.H200.usd_per_hour":       "≈$58.00/h",
		"cost.deployable.B200.usd_per_hour":       "$95.68/h",
		"cost.8xH200.usd_per_hour":                "≈$29.00/h",
		"cost.8xB200.usd_per_hour":                "$47.84/h",
		"cost.8xB200.usd_per_hour.runpod":         "$47.84/h", // the one provider, by its id
		"cost.8xRTXPRO6000.usd_per_hour.runpod":   "≈$14.00/h",
	} {
		if got := s.Get(k).Display; got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	for hw, approx := range map[string]bool{"8xB200": false, "8xH200": true, "8xRTXPRO6000": true} {
		if got := s.Get("download.idle_usd." + hw).Display; strings.HasPrefix(got, "≈") != approx {
			t.Errorf("download.idle_usd.%s = %q, approximate %v", hw, got, approx)
		}
	}
}

// TestFileMargin: beside variants known only by file size, the released
// checkpoint's margin on the same basis is memory − checkpoint file bytes.
func TestFileMargin(t *testing.T) {
	v := []sizing.Variant{{Name: "q2", Bytes: 400e9, Source: "test"}}
	s := kimiK3(t, v, "8xB200")
	ck, mem := intOf(t, s, "bytes.checkpoint"), intOf(t, s, "fit.8xB200.memory_bytes")
	if got := intOf(t, s, "fit.8xB200.file_margin_bytes"); got != mem-ck {
		t.Errorf("file margin %d, want %d", got, mem-ck)
	}
	if got, want := intOf(t, s, "variant.q2.fit.8xB200.margin_bytes"), mem-400e9; got != want {
		t.Errorf("variant margin %d, want %d", got, want)
	}
	if s := kimiK3(t, nil, "8xB200"); s.Get("fit.8xB200.file_margin_bytes") != nil {
		t.Error("file margin without variants to compare with")
	}
}

// tinyConfig is a two-layer Llama of 2,122,048 BF16 parameters (4,244,096
// tensor bytes) whose cache costs 2 layers × 2 (K, V) × 2 heads × 16 × 2 B
// = 256 B per token.
const tinyConfig = `{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
	"intermediate_size": 128, "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
	"vocab_size": 32000, "tie_word_embeddings": true, "torch_dtype": "bfloat16", "max_position_embeddings": %d}`

// TestMinGPUsAtContexts: the serving minimum at each site context is the
// smallest layout whose tightest GPU holds its weights and cache, by hand
// (usable 9,000,000 B per GPU: 90% of 10 MB, no reserve):
//   - 8,192 tokens on 1 GPU: 4,244,096 B weights + 256 B × 8,192 = 6,341,248 → 1.
//   - 131,072 tokens: 4 attention heads forbid TP 8 (vLLM refuses it), so 8
//     GPUs run TP 4 × PP 2: weights (4,227,072 ÷ 4 + 640 norms + 16,384 K/V
//     projections ÷ 2 heads) ÷ 2 stages = 532,800 B, cache 1 layer × 1 KV
//     head × 2 × 16 × 2 B = 64 B × 131,072 = 8,388,608 → 8,921,408 fits; on 4
//     (TP 4) 1,065,600 + 128 B × 131,072 does not → 8. Pooling the memory of
//     the layout would say 5: a GPU cannot hold less than one KV head.
//   - 1,048,576 tokens: one layer's head alone is 64 B × 1,048,576 = 67 MB
//     per GPU, more than a GPU has: no layout serves, unknown with the reason.
//
// Beyond the model's own context the minimum is unknown, with the reason.
func TestMinGPUsAtContexts(t *testing.T) {
	cat := &catalog.Catalog{Accelerators: map[string]*catalog.Accelerator{
		"TINY": {ID: "TINY", Name: "10 MB card", Class: "datacenter", MemoryBytes: 10_000_000, GPUsPerNode: 8, Source: "test", AsOf: "2026-08-06",
			Host: &catalog.Host{GPUs: 8, ScaleUp: 8, Fabric: "test fabric", Source: "test", AsOf: "2026-08-06"}}}}
	run := func(ctx int) *facts.Set {
		cfg := []byte(fmt.Sprintf(tinyConfig, ctx))
		a, err := arch.Parse(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		an, anErr := sizing.AnalyticOf(cfg, nil)
		return sizing.Compute(sizing.Input{Model: "test", Arch: a, Analytic: an, AnalyticErr: anErr, Sizing: assumptions(), Catalog: cat})
	}
	s := run(1048576)
	if got := intOf(t, s, "bytes.tensors"); got != 4244096 {
		t.Fatalf("tensor bytes %d, want 4,244,096", got)
	}
	for key, want := range map[string]int64{"fit.min_gpus_at.8192.TINY": 1, "fit.min_gpus_at.131072.TINY": 8} {
		if got := intOf(t, s, key); got != want {
			t.Errorf("%s = %d, want %d", key, got, want)
		}
	}
	if f := s.Get("fit.min_gpus_at.1048576.TINY"); f == nil || f.Known() || !strings.Contains(f.Reason, "no layout") {
		t.Errorf("1,048,576 tokens: %+v, want unknown: no layout serves", f)
	}
	// The serving verdict's own minimum (131,072 tokens) is the same placement.
	if got := intOf(t, s, "fit.deployable_gpus_serving.TINY"); got != 8 {
		t.Errorf("fit.deployable_gpus_serving.TINY = %d, want 8", got)
	}
	s = run(8192)
	if f := s.Get("fit.min_gpus_at.131072.TINY"); f == nil || f.Known() || !strings.Contains(f.Reason, "exceed the model's context") {
		t.Errorf("beyond the model's context: %+v, want unknown with the reason", f)
	}
}
