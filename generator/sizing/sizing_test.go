package sizing_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/config"
	"dossier/generator/facts"
	"dossier/generator/modeltree"
	"dossier/generator/site"
	"dossier/generator/sizing"
	"dossier/generator/snapshot"
)

const configDir = "../../../shared/reference/configs"

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
	an, anErr := site.Analytic(cfg, nil)
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
// recovered from Total/Active/Experts equals the module tree's own
// per-component count, and the main model is the model card's 671 B.
func TestMTPSplit(t *testing.T) {
	cfg := read(t, "deepseek-ai__DeepSeek-V3.json")
	inv, err := modeltree.FromConfig(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	byComp := inv.ParamsByComponent()
	recovered := compute(t, cfg, nil, nil)
	carried := compute(t, cfg, nil, func(a *sizing.Analytic) { a.ByComponent = byComp })
	for _, s := range []*facts.Set{recovered, carried} {
		if got := intOf(t, s, "params.mtp"); got != byComp[modeltree.CompMTP] {
			t.Errorf("params.mtp = %d, want %d", got, byComp[modeltree.CompMTP])
		}
		if got := intOf(t, s, "params.main"); got != byComp[modeltree.CompText] {
			t.Errorf("params.main = %d, want %d", got, byComp[modeltree.CompText])
		}
	}
	if main := intOf(t, recovered, "params.main"); main < 670.5e9 || main > 671.5e9 {
		t.Errorf("main model %d, want ≈671 B", main)
	}
	// A model without MTP layers gets neither fact.
	s := compute(t, read(t, "moonshotai__Kimi-K2.5.json"), nil, nil)
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
	cfg := []byte(`{"model_type":"mamba2","hidden_size":768,"num_hidden_layers":24,"vocab_size":50280,"torch_dtype":"float32"}`)
	s := compute(t, cfg, nil, nil)
	if got := intOf(t, s, "arch.layers"); got != 24 {
		t.Errorf("arch.layers = %d", got)
	}
	for _, k := range []string{"arch.hybrid", "arch.layers_full_attention", "kv.bytes_per_token", "state.bytes_per_sequence", "moe.experts_routed", "params.total", "bytes.tensors"} {
		f := s.Get(k)
		if f == nil || f.Known() || !strings.Contains(f.Reason, "mamba2") {
			t.Errorf("%s = %+v, want unknown naming the family", k, f)
		}
	}
	if f := s.Get("analytic.supported"); f.Value != false || !strings.Contains(f.Derivation, `unsupported family "mamba2"`) {
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
			an, anErr = site.Analytic(b, nil)
		}
		s := sizing.Compute(sizing.Input{Model: "fuzz", Arch: a, Analytic: an, AnalyticErr: anErr, Sizing: assumptions()})
		for _, k := range s.Keys() {
			if f := s.Get(k); !f.Known() && f.Reason == "" {
				t.Errorf("unknown fact %s has no reason", k)
			}
		}
	})
}
