package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/facts"
	"dossier/generator/hub"
	"dossier/generator/hub/hubtest"
)

// configDir holds real config.json files captured from public repositories
// (testdata/configs at the repository root, see SIZES.md there).
const configDir = "../../testdata/configs"

// planDoc is what `dossier plan --json` prints.
type planDoc struct {
	Config string    `json:"config"`
	Facts  facts.Set `json:"facts"`
}

// plan runs `dossier plan --config path --json` against the fixture site
// settings and returns the exit code, the parsed document and stderr.
func plan(t *testing.T, path string) (int, *planDoc, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Execute([]string{"--source", fixtureSite, "plan", "--config", path, "--json"}, &out, &errb)
	if code != 0 && code != 3 { // 3: the report is written, but it holds no parameter count
		return code, nil, errb.String()
	}
	var doc planDoc
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("plan %s: output is not JSON: %v\n%s", path, err, out.String())
	}
	return code, &doc, errb.String()
}

func mustPlan(t *testing.T, name string) *facts.Set {
	t.Helper()
	path := filepath.Join(configDir, name)
	code, doc, stderr := plan(t, path)
	if code != 0 {
		t.Fatalf("plan %s exited %d: %s", name, code, stderr)
	}
	return &doc.Facts
}

func wantInt(t *testing.T, set *facts.Set, key string, want int64) {
	t.Helper()
	got, ok := set.Get(key).Int()
	if !ok || got != want {
		t.Errorf("%s = %v (known %v), want %s", key, got, ok, facts.Int(want))
	}
}

func wantNear(t *testing.T, set *facts.Set, key string, want, tol float64) {
	t.Helper()
	got, ok := set.Get(key).Float()
	if !ok || math.Abs(got-want) > tol {
		t.Errorf("%s = %v (known %v), want %v ± %v", key, got, ok, want, tol)
	}
}

func wantBool(t *testing.T, set *facts.Set, key string, want bool) {
	t.Helper()
	got, ok := set.Get(key).Bool()
	if !ok || got != want {
		t.Errorf("%s = %v (known %v), want %v", key, got, ok, want)
	}
}

func wantUnknown(t *testing.T, set *facts.Set, key string, reasonHas ...string) {
	t.Helper()
	f := set.Get(key)
	if f == nil {
		t.Errorf("%s missing: want an unknown fact with a reason", key)
		return
	}
	if f.Known() {
		t.Errorf("%s = %v, want unknown", key, f.Value)
		return
	}
	for _, s := range reasonHas {
		if !strings.Contains(f.Reason, s) {
			t.Errorf("%s reason %q does not mention %q", key, f.Reason, s)
		}
	}
}

// TestPlanEveryConfig sizes every captured config: plan exits 0, prints a
// facts document, counts the parameters from the module tree, and every
// fact has a source or, when unknown, a reason.
func TestPlanEveryConfig(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(configDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 10 {
		t.Fatalf("found %d configs in %s, want the ten of SIZES.md", len(paths), configDir)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			code, doc, stderr := plan(t, path)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			set := &doc.Facts
			if doc.Config != path {
				t.Errorf("config %q, want %q", doc.Config, path)
			}
			wantBool(t, set, "analytic.supported", true)
			total, ok := set.Get("params.total").Int()
			if !ok || total <= 0 {
				t.Fatalf("params.total = %v", set.Get("params.total"))
			}
			wantInt(t, set, "params.total_analytic", total)
			// No file listing in plan mode: the checkpoint is unknown, the
			// tensor bytes come from the module tree.
			wantUnknown(t, set, "bytes.checkpoint", "no file listing")
			if f := set.Get("bytes.tensors"); !f.Known() || !strings.Contains(f.Derivation, "module tree") {
				t.Errorf("bytes.tensors = %+v, want the module tree's", f)
			}
			for _, k := range set.Keys() {
				f := set.Get(k)
				if f.Known() && len(f.Sources) == 0 {
					t.Errorf("fact %s has a value but no source", k)
				}
				if !f.Known() && f.Reason == "" {
					t.Errorf("unknown fact %s has no reason", k)
				}
			}
			// The active count never exceeds the total, nor the one without
			// the input embedding the one with it.
			act, ok1 := set.Get("params.active").Int()
			ne, ok2 := set.Get("params.active_no_embedding").Int()
			if !ok1 || !ok2 || ne > act || act > total {
				t.Errorf("active %d, without embedding %d, total %d", act, ne, total)
			}
		})
	}
}

func TestPlanLlamaIsDense(t *testing.T) {
	s := mustPlan(t, "meta-llama__Llama-3.1-8B.json")
	wantInt(t, s, "params.total_analytic", 8030261248)
	wantInt(t, s, "params.census.BF16", 8030261248)
	wantInt(t, s, "bytes.tensors", 16060522496) // the index's total_size (SIZES.md)
	wantBool(t, s, "arch.hybrid", false)
	wantInt(t, s, "arch.layers_full_attention", 32)
	wantInt(t, s, "arch.layers_linear_attention", 0)
	wantInt(t, s, "moe.experts_routed", 0)
	// Dense: every text parameter is active; without the input embedding
	// (128,256 × 4,096) that is 7,504,924,672.
	wantInt(t, s, "params.active", 8030261248)
	wantInt(t, s, "params.active_no_embedding", 8030261248-128256*4096)
	// 2 (K, V) × 8 KV heads × 128 × 2 B × 32 layers.
	wantInt(t, s, "kv.bytes_per_token", 131072)
	wantInt(t, s, "state.bytes_per_sequence", 0)
	wantInt(t, s, "bytes.quant_scales", 0)
	if s.Get("params.mtp") != nil {
		t.Error("a model without MTP layers has no params.mtp")
	}
}

func TestPlanMixtral(t *testing.T) {
	s := mustPlan(t, "mistralai__Mixtral-8x7B-v0.1.json")
	wantInt(t, s, "params.total_analytic", 46702792704)
	wantInt(t, s, "bytes.tensors", 93405585408) // index total_size (SIZES.md)
	wantInt(t, s, "arch.layers_sliding_attention", 0)
	wantBool(t, s, "arch.hybrid", false)
	wantInt(t, s, "moe.experts_routed", 8)
	wantInt(t, s, "moe.experts_active", 2)
	wantNear(t, s, "params.active", 12.9e9, 0.05e9) // "12.9 B" per token
	// Mixtral's config.json states a 32,768-token context: longer contexts
	// are not sized, and the serving verdict uses the model's maximum.
	wantUnknown(t, s, "kv.bytes_at_context.131072", "exceed the model's context")
	if a := s.Get("fit.assumptions"); a == nil || !strings.Contains(a.Display, "32,768-token context") {
		t.Errorf("fit.assumptions = %+v, want the 32,768-token context", a)
	}
}

func TestPlanGptOss(t *testing.T) {
	s := mustPlan(t, "openai__gpt-oss-20b.json")
	wantInt(t, s, "params.total_analytic", 20914757184)
	// The Hub census at bbf0930 (huggingface.js spec).
	wantInt(t, s, "params.census.BF16", 1804459584)
	wantInt(t, s, "params.census.U8", 19110297600)
	// OpenAI's 3.61 B counts the unembedding, not the embedding.
	wantInt(t, s, "params.active_no_embedding", 3608307264)
	// Model card table 1: 12.8 GiB.
	wantNear(t, s, "bytes.tensors", 12.8*(1<<30), 0.05*(1<<30))
	// MXFP4: one U8 scale per 32 values, not parameters (SIZES.md).
	wantInt(t, s, "bytes.quant_scales", 597196800)
	wantInt(t, s, "bytes.unquantized", 1804459584*2)
	// Alternating sliding (128) and full layers: 12 + 12.
	wantInt(t, s, "arch.layers_sliding_attention", 12)
	wantInt(t, s, "arch.layers_full_attention", 12)
	wantBool(t, s, "arch.hybrid", false)
	// 2 × 8 KV heads × 64 × 2 B = 2,048 B per layer and token.
	wantInt(t, s, "kv.bytes_per_token", 12*2048)
	wantInt(t, s, "kv.sliding_bytes_per_token", 12*2048)
	// The sliding layers hold 128 tokens, whatever the context.
	wantInt(t, s, "kv.bytes_at_context.8192", 12*2048*8192+12*2048*128)
	wantInt(t, s, "kv.bytes_at_context.131072", 12*2048*131072+12*2048*128)
}

func TestPlanKimiLinear(t *testing.T) {
	s := mustPlan(t, "moonshotai__Kimi-Linear-48B-A3B-Instruct.json")
	wantInt(t, s, "params.total_analytic", 49122681728)
	wantInt(t, s, "params.census.F32", 82560) // A_log and dt_bias
	wantInt(t, s, "params.census.BF16", 49122681728-82560)
	wantBool(t, s, "arch.hybrid", true)
	wantInt(t, s, "arch.layers_full_attention", 7)
	wantInt(t, s, "arch.layers_linear_attention", 20)
	// MLA latent (512 + 64) × 2 B on the 7 full layers; the top-level
	// head_dim 72 plays no part.
	wantInt(t, s, "kv.bytes_per_token", 7*1152)
	// KDA: 32 heads × 128 × 128 × 4 B + (4 − 1) × 3 × 32 × 128 × 2 B, × 20 layers.
	wantInt(t, s, "state.bytes_per_sequence", 20*(32*128*128*4+3*3*32*128*2))
	wantInt(t, s, "arch.context", 1048576) // model_max_length: the config has no max_position_embeddings
}

func TestPlanKimiK3(t *testing.T) {
	s := mustPlan(t, "moonshotai__Kimi-K3.json")
	wantInt(t, s, "params.census.U8", 2722740830208)
	wantInt(t, s, "params.census.BF16", 57179884544)
	wantInt(t, s, "params.census.F32", 11122432)
	wantInt(t, s, "params.total", 2779931837184)
	wantInt(t, s, "tensors.count", 497220)
	wantInt(t, s, "bytes.tensors", 1560860324864)
	wantInt(t, s, "params.active_no_embedding", 104189614848)
	wantInt(t, s, "bytes.quant_scales", 85085650944)
	wantInt(t, s, "kv.bytes_per_token", 27648)
	wantBool(t, s, "arch.hybrid", true)
}

func TestPlanKimiK25(t *testing.T) {
	s := mustPlan(t, "moonshotai__Kimi-K2.5.json")
	// The Hub census at 2426b45 (huggingface.js spec), dtype by dtype.
	wantInt(t, s, "params.census.F32", 23040)
	wantInt(t, s, "params.census.I32", 1014686023680)
	wantInt(t, s, "params.census.BF16", 12193329648)
	wantInt(t, s, "params.total", 1026879376368)
	wantInt(t, s, "kv.bytes_per_token", 61*1152)
	if q, ok := s.Get("bytes.quant_scales").Int(); !ok || q <= 0 {
		t.Errorf("bytes.quant_scales = %v, want the BF16 group scales", s.Get("bytes.quant_scales"))
	}
}

func TestPlanDeepSeekV3(t *testing.T) {
	s := mustPlan(t, "deepseek-ai__DeepSeek-V3.json")
	// MLA: (kv_lora_rank 512 + qk_rope_head_dim 64) × 2 B × 61 layers, not
	// the 128 KV heads config.json states.
	wantInt(t, s, "kv.bytes_per_token", 70272)
	wantInt(t, s, "kv.bytes_per_token_per_layer", 1152)
	// 671 B main model + the MTP module ≈ 685 B on the Hub.
	wantNear(t, s, "params.main", 671e9, 0.5e9)
	wantNear(t, s, "params.mtp", 14e9, 1e9)
	wantNear(t, s, "params.total", 685e9, 1e9)
	main, _ := s.Get("params.main").Int()
	mtp, _ := s.Get("params.mtp").Int()
	total, _ := s.Get("params.total").Int()
	if main+mtp != total {
		t.Errorf("main %d + mtp %d != total %d", main, mtp, total)
	}
	// DeepSeek's 37 B counts the embedding and the head, not the MTP module.
	wantNear(t, s, "params.active", 37e9, 1e9)
	// FP8 with one F32 scale per 128 × 128 block of every quantized Linear.
	wantInt(t, s, "bytes.quant_scales", 41540496*4)
	if u, ok := s.Get("bytes.unquantized").Int(); !ok || u <= 0 {
		t.Errorf("bytes.unquantized = %v", s.Get("bytes.unquantized"))
	}
	wantBool(t, s, "arch.hybrid", false)
}

func TestPlanQwen(t *testing.T) {
	s := mustPlan(t, "Qwen__Qwen3-30B-A3B.json")
	wantNear(t, s, "params.total", 30.5e9, 0.05e9)
	wantNear(t, s, "params.active", 3.3e9, 0.1e9) // Qwen counts the embedding
	wantBool(t, s, "arch.hybrid", false)
	wantInt(t, s, "kv.bytes_per_token", 48*2*4*128*2)

	fp8 := mustPlan(t, "Qwen__Qwen3-30B-A3B-FP8.json")
	// The Hub counts the F32 block scales as parameters: + 1,824,768.
	wantInt(t, fp8, "params.total", 30532122624+48*(128*3*96+512+64+64+512))
	// One F32 scale per 128 × 128 block of the attention and expert Linears.
	wantInt(t, fp8, "bytes.quant_scales", 48*(128*3*96+512+64+64+512)*4)

	n := mustPlan(t, "Qwen__Qwen3-Next-80B-A3B-Thinking.json")
	// Hub 81.3 B: the checkpoint's undeclared mtp.* layer included.
	wantNear(t, n, "params.total", 81.3e9, 0.05e9)
	// "A3B" is the rounded name: 3.56 B without the embedding, 3.87 B with.
	wantNear(t, n, "params.active_no_embedding", 3e9, 0.6e9)
	wantBool(t, n, "arch.hybrid", true)
	wantInt(t, n, "arch.layers_linear_attention", 36)
	wantInt(t, n, "arch.layers_full_attention", 12)
	wantInt(t, n, "kv.bytes_per_token", 12*2*2*256*2)
	// Gated DeltaNet: 32 value heads × 128 × 128 × 4 B + (4 − 1) × (2·16·128 + 32·128) × 2 B.
	wantInt(t, n, "state.bytes_per_sequence", 36*(32*128*128*4+3*(2*16*128+32*128)*2))
}

// TestPlanUnsupportedFamily: a family without a module tree gives what
// config.json states and says why the rest is unknown; nothing is guessed.
func TestPlanUnsupportedFamily(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	cfg := `{"architectures":["Zamba3ForCausalLM"],"model_type":"zamba3","hidden_size":2560,"num_hidden_layers":64,
		"vocab_size":50288,"state_size":128,"num_heads":80,"head_dim":64,"expand":2,"n_groups":1,"conv_kernel":4,
		"torch_dtype":"bfloat16"}`
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	code, doc, stderr := plan(t, path)
	if code != 3 || !strings.Contains(stderr, "unsupported family \"zamba3\"") || !strings.Contains(stderr, "dossier families") {
		t.Fatalf("exit %d, want 3 naming the missing family support: %s", code, stderr)
	}
	s := &doc.Facts
	wantBool(t, s, "analytic.supported", false)
	if f := s.Get("analytic.supported"); !strings.Contains(f.Derivation, "unsupported family") || !strings.Contains(f.Derivation, "zamba3") {
		t.Errorf("analytic.supported derivation %q, want the reason naming the family", f.Derivation)
	}
	// What config.json states is known.
	wantInt(t, s, "arch.layers", 64)
	wantInt(t, s, "arch.hidden_size", 2560)
	wantInt(t, s, "arch.vocab_size", 50288)
	if f := s.Get("arch.family"); f.Display != "zamba3" {
		t.Errorf("arch.family = %q", f.Display)
	}
	// The rest is unknown with a reason, not guessed: an SSM layer is not an
	// attention layer, and no expert field does not prove it dense.
	wantUnknown(t, s, "params.total", "zamba3")
	wantUnknown(t, s, "bytes.tensors", "unsupported family")
	wantUnknown(t, s, "arch.hybrid", "unsupported family zamba3")
	wantUnknown(t, s, "arch.layers_full_attention", "unsupported family zamba3")
	wantUnknown(t, s, "kv.bytes_per_token", "unsupported family zamba3")
	wantUnknown(t, s, "state.bytes_per_sequence", "unsupported family zamba3")
	wantUnknown(t, s, "kv.bytes_at_context.131072", "unsupported family zamba3")
	wantUnknown(t, s, "moe.experts_routed", "unsupported family zamba3")
	wantUnknown(t, s, "arch.attention", "num_attention_heads")
	wantUnknown(t, s, "fit.min_gpus", "tensor bytes")
	for _, k := range s.Keys() {
		if f := s.Get(k); !f.Known() && f.Reason == "" {
			t.Errorf("unknown fact %s has no reason", k)
		}
	}
}

// TestPlanMamba2State: mamba2's layout is registered (every layer a Mamba-2
// mixer) but not its tensors: the state per sequence is sized from
// config.json, the parameters are unknown (exit 3).
func TestPlanMamba2State(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	cfg := `{"architectures":["Mamba2ForCausalLM"],"model_type":"mamba2","hidden_size":2560,"num_hidden_layers":64,
		"vocab_size":50288,"state_size":128,"num_heads":80,"head_dim":64,"expand":2,"n_groups":1,"conv_kernel":4,
		"torch_dtype":"bfloat16","max_position_embeddings":8192}`
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	code, doc, stderr := plan(t, path)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (no module tree): %s", code, stderr)
	}
	s := &doc.Facts
	wantInt(t, s, "arch.layers_state_space", 64)
	wantInt(t, s, "kv.bytes_per_token", 0)
	// 80 heads × 64 × 128 × 4 B + (4 − 1) × (80·64 + 2·1·128) × 2 B, × 64 layers.
	wantInt(t, s, "state.bytes_per_sequence", 64*(80*64*128*4+3*(80*64+2*128)*2))
	wantUnknown(t, s, "params.total", "mamba2")
}

// TestPlanMalformedConfig: a bad config exits non-zero with one error naming
// the file and the field.
func TestPlanMalformedConfig(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"wrong-type.json", `{"model_type":"llama","hidden_size":"big","num_hidden_layers":2}`, []string{"wrong-type.json", "hidden_size", "expected a number"}},
		{"bad-layers.json", `{"model_type":"qwen3_next","num_hidden_layers":4,"layer_types":["full_attention"]}`, []string{"bad-layers.json", "layer_types"}},
		{"nested.json", `{"model_type":"kimi_k3","text_config":{"model_type":"kimi_linear","num_hidden_layers":"93"}}`, []string{"nested.json", "text_config.num_hidden_layers"}},
		{"truncated.json", `{"model_type":"llama",`, []string{"truncated.json", "config.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := plan(t, path)
			if code == 0 {
				t.Fatal("plan succeeded on a malformed config")
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not mention %q", stderr, w)
				}
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("want one error line, got %q", stderr)
			}
		})
	}
	code, _, stderr := plan(t, filepath.Join(dir, "absent.json"))
	if code == 0 || !strings.Contains(stderr, "absent.json") {
		t.Errorf("missing file: exit %d, %q", code, stderr)
	}
}

// TestPlanDirectoryReadsHFQuantConfig: a directory argument reads
// config.json and the sibling hf_quant_config.json of a ModelOpt export.
func TestPlanDirectoryReadsHFQuantConfig(t *testing.T) {
	cfg, err := os.ReadFile(filepath.Join(configDir, "meta-llama__Llama-3.1-8B.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	hfq := `{"producer":{"name":"modelopt","version":"0.33.0"},"quantization":{"quant_algo":"NVFP4","kv_cache_quant_algo":"FP8","group_size":16,"exclude_modules":["lm_head"]}}`
	if err := os.WriteFile(filepath.Join(dir, "hf_quant_config.json"), []byte(hfq), 0o644); err != nil {
		t.Fatal(err)
	}

	code, doc, stderr := plan(t, dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s := &doc.Facts
	if doc.Config != filepath.Join(dir, "config.json") {
		t.Errorf("config %q", doc.Config)
	}
	// Same parameters, now NVFP4: every Linear but lm_head packed two per
	// U8, so the embedding, the head and the 65 norms stay BF16.
	wantInt(t, s, "params.total", 8030261248)
	wantInt(t, s, "params.census.U8", 8030261248-2*128256*4096-65*4096)
	wantInt(t, s, "params.census.BF16", 2*128256*4096+65*4096)
	if q, ok := s.Get("bytes.quant_scales").Int(); !ok || q <= 0 {
		t.Errorf("bytes.quant_scales = %v, want the NVFP4 scales", s.Get("bytes.quant_scales"))
	}
	if tb, ok := s.Get("bytes.tensors").Int(); !ok || tb >= 16060522496/2 {
		t.Errorf("bytes.tensors = %v, want well under the BF16 checkpoint", s.Get("bytes.tensors"))
	}

	// The same config.json given as a file has no sibling: BF16, unquantized.
	code, doc, stderr = plan(t, filepath.Join(dir, "config.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantInt(t, &doc.Facts, "bytes.quant_scales", 0)
	wantInt(t, &doc.Facts, "params.census.BF16", 8030261248)
}

func TestPlanSyncedSnapshotWithoutPage(t *testing.T) {
	code, out, errs := run("--source", fixtureSite, "plan", "moonshotai/Kimi-K3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Facts map[string]struct {
			Value any `json:"value"`
		} `json:"facts"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if v, _ := doc.Facts["bytes.checkpoint"].Value.(float64); v != 1560936091448 {
		t.Errorf("bytes.checkpoint = %v", doc.Facts["bytes.checkpoint"].Value)
	}
	if v, ok := doc.Facts["fit.8xB200.at_rest"].Value.(bool); !ok || v {
		t.Errorf("fit.8xB200.at_rest = %v", doc.Facts["fit.8xB200.at_rest"].Value)
	}
	// A model the site has no snapshot of comes from the Hub, and the
	// site is left as it was.
	srv := hubtest.New(t, planRepo(t))
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "")
	t.Setenv("DOSSIER_CACHE", t.TempDir())
	code, out, errs = run("--source", fixtureSite, "plan", planRepoID, "--json")
	if code != 0 || !strings.Contains(out, `"origin": "the Hub at `+srv.URL()) {
		t.Errorf("no snapshot in the site: exit %d, %s%s", code, errs, out)
	}
	if _, err := os.Stat(filepath.Join(fixtureSite, "data/hub/acme")); !os.IsNotExist(err) {
		t.Errorf("plan wrote into the site's data/hub: %v", err)
	}
	if code, _, _ := run("--source", fixtureSite, "plan"); code != 2 {
		t.Errorf("plan without arguments: exit %d, want 2", code)
	}
}

// TestPlanEmptyConfig: `{}` derives nothing, and plan says so with status 3.
func TestPlanEmptyConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := plan(t, path)
	if code != 3 || !strings.Contains(stderr, "model_type") {
		t.Errorf("exit %d, want 3 naming model_type: %s", code, stderr)
	}
}

// HF_HUB_OFFLINE=1 is plan --offline: a model fetched once is answered
// from the user cache with no request, even with the Hub gone.
func TestPlanHonoursHFHubOffline(t *testing.T) {
	srv := hubtest.New(t, planRepo(t))
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "")
	t.Setenv("DOSSIER_CACHE", t.TempDir())
	t.Chdir(t.TempDir()) // no site: the snapshot comes from the Hub, then the cache
	if code, _, errs := run("plan", planRepoID, "--json"); code != 0 {
		t.Fatalf("first plan: exit %d: %s", code, errs)
	}
	t.Setenv("HF_ENDPOINT", "http://127.0.0.1:1") // nothing listens: a request would fail
	t.Setenv("HF_HUB_OFFLINE", "1")
	code, out, errs := run("plan", planRepoID, "--json")
	if code != 0 || !strings.Contains(out, `"origin": "the user cache`) {
		t.Errorf("HF_HUB_OFFLINE=1: exit %d, %s%s", code, errs, out)
	}
}

// A Hub that cannot be reached is reported with how plan answers
// without it.
func TestPlanHubErrorHintsWhenUnreachable(t *testing.T) {
	err := planHubError(fmt.Errorf("GET https://huggingface.co/api/models/a/b: %w", hub.ErrUnreachable))
	for _, want := range []string{"--offline", "--config"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if err := planHubError(hub.ErrRateLimited); strings.Contains(err.Error(), "--offline") {
		t.Errorf("a rate limit hints at --offline: %v", err)
	}
}
