package arch

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// configPath finds a real config.json among the family test inputs in
// ../modeltree/testdata/<model_type>/<org>__<name>.config.json (sources in
// SOURCES.md there).
func configPath(name string) string {
	m, _ := filepath.Glob(filepath.Join("..", "modeltree", "testdata", "*", strings.TrimSuffix(name, ".json")+".config.json"))
	if len(m) != 1 {
		return name // not found: the read fails naming it
	}
	return m[0]
}

func load(t *testing.T, name string) *Architecture {
	t.Helper()
	b, err := os.ReadFile(configPath(name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse(b, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return a
}

func TestKimiK3Layout(t *testing.T) {
	a := load(t, "moonshotai__Kimi-K3.json")
	if a.Family != "kimi_linear" || !a.Wrapped || !a.HasVision {
		t.Errorf("family %q wrapped %v vision %v", a.Family, a.Wrapped, a.HasVision)
	}
	if got := a.Count(Full); got != 24 {
		t.Errorf("full layers = %d, want 24", got)
	}
	if got := a.Count(Linear); got != 69 {
		t.Errorf("linear layers = %d, want 69", got)
	}
	// The gaps are 4 (23 times) and 1 once (92 → 93): the mode, not the minimum.
	if c, ok := a.Cadence(); !ok || c != 4 {
		t.Errorf("cadence = %d, %v; want 4", c, ok)
	}
	if last := a.LayerKinds[91:]; last[0] != Full || last[1] != Full {
		t.Errorf("layers 92 and 93 should both be full, got %v", last)
	}
	if !a.Hybrid() {
		t.Error("K3 is a hybrid")
	}
	if a.Attention != MLA || a.KVLoraRank != 512 || a.QKRopeDim != 64 {
		t.Errorf("attention %s rank %d rope %d", a.Attention, a.KVLoraRank, a.QKRopeDim)
	}
	if a.RoutedExperts != 896 || a.ActiveExperts != 16 || a.SharedExperts != 2 || len(a.MoELayers) != 92 || a.ExpertHidden != 3584 {
		t.Errorf("moe %d/%d/%d layers %d expert hidden %d", a.RoutedExperts, a.ActiveExperts, a.SharedExperts, len(a.MoELayers), a.ExpertHidden)
	}
	q := a.Quant
	if q.Method != "compressed-tensors" || q.Format != "mxfp4-pack-quantized" || q.Bits != 4 || q.GroupSize != 32 || q.ScaleDType != "uint8" || len(q.Ignore) != 6 {
		t.Errorf("quant %+v", q)
	}
	if a.LinearKHeads != 96 || a.LinearKHeadDim != 128 || a.LinearConvKernel != 4 {
		t.Errorf("kda %d heads × %d, kernel %d", a.LinearKHeads, a.LinearKHeadDim, a.LinearConvKernel)
	}
}

func TestDenseModelIsNotHybrid(t *testing.T) {
	a := load(t, "meta-llama__Llama-3.1-8B.json")
	if a.Hybrid() || a.Count(Linear) != 0 || a.Count(Full) != 32 {
		t.Errorf("llama: hybrid %v, linear %d, full %d", a.Hybrid(), a.Count(Linear), a.Count(Full))
	}
	if _, ok := a.Cadence(); ok {
		t.Error("an all-full model has no cadence")
	}
	if a.IsMoE() || a.Attention != GQA || a.KVHeads != 8 || a.HeadDim != 128 {
		t.Errorf("llama attention %s kv %d head %d", a.Attention, a.KVHeads, a.HeadDim)
	}
}

func TestDeepSeekMLAIgnoresKVHeads(t *testing.T) {
	a := load(t, "deepseek-ai__DeepSeek-V3.json")
	if a.Attention != MLA || a.KVHeads != 0 || a.HeadDim != 0 {
		t.Errorf("MLA must not read kv heads / head_dim: %s %d %d", a.Attention, a.KVHeads, a.HeadDim)
	}
	if len(a.MoELayers) != 58 || a.MTPLayers != 1 {
		t.Errorf("moe layers %d mtp %d", len(a.MoELayers), a.MTPLayers)
	}
	if a.Quant.Method != "fp8" || len(a.Quant.BlockSize) != 2 {
		t.Errorf("quant %+v", a.Quant)
	}
}

func TestGptOssSlidingAndQwenNextInterval(t *testing.T) {
	g := load(t, "openai__gpt-oss-20b.json")
	if g.Count(Sliding) != 12 || g.Count(Full) != 12 || g.SlidingWindow != 128 || g.Hybrid() {
		t.Errorf("gpt-oss sliding %d full %d window %d", g.Count(Sliding), g.Count(Full), g.SlidingWindow)
	}
	if g.ActiveExperts != 4 || g.RoutedExperts != 32 {
		t.Errorf("gpt-oss experts %d/%d", g.ActiveExperts, g.RoutedExperts)
	}
	q := load(t, "Qwen__Qwen3-Next-80B-A3B-Thinking.json")
	if q.Count(Full) != 12 || q.Count(Linear) != 36 || !q.Hybrid() || q.LinearKind != "gated_deltanet" {
		t.Errorf("qwen3-next full %d linear %d kind %s", q.Count(Full), q.Count(Linear), q.LinearKind)
	}
	if c, _ := q.Cadence(); c != 4 {
		t.Errorf("qwen3-next cadence %d", c)
	}
	m := load(t, "mistralai__Mixtral-8x7B-v0.1.json")
	if m.Count(Sliding) != 0 || m.RoutedExperts != 8 || m.ActiveExperts != 2 {
		t.Errorf("mixtral sliding %d experts %d/%d", m.Count(Sliding), m.RoutedExperts, m.ActiveExperts)
	}
}

func TestKimiLinearTraps(t *testing.T) {
	a := load(t, "moonshotai__Kimi-Linear-48B-A3B-Instruct.json")
	// Top-level head_dim 72 is not a head size of either attention kind.
	if a.Attention != MLA || a.HeadDim != 0 {
		t.Errorf("kimi-linear attention %s head %d", a.Attention, a.HeadDim)
	}
	if a.RoutedExperts != 256 || a.ActiveExperts != 8 || a.SharedExperts != 1 || a.TorchDType != "bfloat16" {
		t.Errorf("kimi-linear experts %d/%d/%d dtype %q", a.RoutedExperts, a.ActiveExperts, a.SharedExperts, a.TorchDType)
	}
	if a.Count(Linear) == 0 || !a.Hybrid() {
		t.Error("kimi-linear is hybrid")
	}
}

func TestBadFieldsNameTheField(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"model_type":"llama","num_hidden_layers":"32"}`, "field num_hidden_layers: expected a number"},
		{`{"model_type":"x","text_config":{"hidden_size":1.5}}`, "field text_config.hidden_size: expected an integer"},
		{`{"num_hidden_layers":4,"linear_attn_config":{"full_attn_layers":[0]}}`, "outside 1..4"},
		{`{"num_hidden_layers":2,"layer_types":["full_attention"]}`, "layer_types: 1 entries for 2 layers"},
		{`[1,2]`, "config.json"},
	} {
		_, err := Parse([]byte(tc.in), nil)
		if err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v, want error containing %q", tc.in, err, tc.want)
		}
	}
}

func TestMissingIsReported(t *testing.T) {
	a, err := Parse([]byte(`{"model_type":"mystery","hidden_size":1024}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Missing["num_hidden_layers"] == "" || a.Missing["vocab_size"] == "" {
		t.Errorf("missing fields not reported: %v", a.Missing)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func FuzzParse(f *testing.F) {
	for _, name := range []string{"moonshotai__Kimi-K3.json", "openai__gpt-oss-20b.json", "Qwen__Qwen3-Next-80B-A3B-Thinking.json",
		"nvidia__Nemotron-H-56B-Base-8K.json", "LiquidAI__LFM2-1.2B.json", "nvidia__Llama-3_3-Nemotron-Super-49B-v1.json",
		"XiaomiMiMo__MiMo-V2-Flash.json", "ai21labs__AI21-Jamba-1.5-Mini.json", "deepseek-ai__DeepSeek-V4-Flash.json"} {
		if b, err := os.ReadFile(configPath(name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"num_hidden_layers":3,"linear_attn_config":{"full_attn_layers":[3]}}`))
	f.Add([]byte(`{"model_type":"deepseek_v4","num_hidden_layers":2,"head_dim":8,"index_head_dim":4,"sliding_window":2,"compress_ratios":[4,128,0]}`))
	// Sizes the parser must refuse: negative, zero where zero is
	// meaningless, more experts per token than experts, not an object.
	f.Add([]byte(`{"model_type":"llama","num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":-8}`))
	f.Add([]byte(`{"model_type":"llama","num_hidden_layers":2,"max_position_embeddings":-4096}`))
	f.Add([]byte(`{"model_type":"llama","num_hidden_layers":0,"hidden_size":0,"num_attention_heads":-1}`))
	f.Add([]byte(`{"model_type":"mixtral","num_hidden_layers":2,"num_local_experts":8,"num_experts_per_tok":9}`))
	f.Add([]byte(`{"model_type":"qwen3_moe","num_hidden_layers":2,"num_experts":0}`))
	f.Add([]byte(`{"model_type":"x","text_config":{"torch_dtype":5}}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[{"model_type":"llama"}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := Parse(b, nil)
		if err != nil {
			return
		}
		a.Cadence()
		a.Hybrid()
		for name, v := range map[string]int64{"layers": a.Layers, "hidden": a.Hidden, "heads": a.Heads, "kv heads": a.KVHeads,
			"head dim": a.HeadDim, "context": a.Context, "routed experts": a.RoutedExperts, "active experts": a.ActiveExperts} {
			if v < 0 {
				t.Errorf("accepted a negative %s: %d", name, v)
			}
		}
		if a.ActiveExperts > a.RoutedExperts {
			t.Errorf("accepted %d experts per token of %d", a.ActiveExperts, a.RoutedExperts)
		}
	})
}

// An unknown family without a per-layer list gets no layout: an SSM or a
// sliding-window pattern may hide behind it. A listed layout is read.
func TestUnknownFamilyLayoutIsNotGuessed(t *testing.T) {
	a, err := Parse([]byte(`{"model_type":"zamba3","hidden_size":2560,"num_hidden_layers":64,"vocab_size":50288}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.FamilyKnown || a.LayerKinds != nil || a.Layers != 64 {
		t.Errorf("known %v kinds %v layers %d", a.FamilyKnown, a.LayerKinds, a.Layers)
	}
	if r := a.Missing["layer_kinds"]; !contains(r, "unsupported family zamba3") {
		t.Errorf("reason %q", r)
	}
	if a.Hybrid() {
		t.Error("an unknown layout is not hybrid either")
	}
	a, err = Parse([]byte(`{"model_type":"hybrid_x","num_hidden_layers":3,"layer_types":["mamba","mamba","attention"]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Count(SSM) != 2 || a.Count(Full) != 1 || !a.Hybrid() {
		t.Errorf("listed layout: %v", a.LayerKinds)
	}
}

func TestSlidingRules(t *testing.T) {
	// Qwen: sliding only with use_sliding_window, and only from max_window_layers on.
	a, err := Parse([]byte(`{"model_type":"qwen2","num_hidden_layers":6,"sliding_window":4096,"use_sliding_window":true,"max_window_layers":4}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Count(Sliding) != 2 || a.LayerKinds[3] != Full || a.LayerKinds[4] != Sliding {
		t.Errorf("qwen2 layers %v", a.LayerKinds)
	}
	a, _ = Parse([]byte(`{"model_type":"qwen3","num_hidden_layers":4,"sliding_window":4096}`), nil)
	if a.Count(Sliding) != 0 {
		t.Errorf("qwen3 without use_sliding_window: %v", a.LayerKinds)
	}
	// Mistral applies a stated window to every layer.
	a, _ = Parse([]byte(`{"model_type":"mistral","num_hidden_layers":4,"sliding_window":4096}`), nil)
	if a.Count(Sliding) != 4 || a.SlidingWindow != 4096 {
		t.Errorf("mistral %v window %d", a.LayerKinds, a.SlidingWindow)
	}
	// Qwen3-Next without full_attention_interval: transformers' default 4.
	a, _ = Parse([]byte(`{"model_type":"qwen3_next","num_hidden_layers":8}`), nil)
	if a.Count(Full) != 2 || a.LayerKinds[3] != Full || a.LayerKinds[7] != Full {
		t.Errorf("qwen3_next default %v", a.LayerKinds)
	}
}

// moe_layer_freq (DeepSeek) counts from layer 0; decoder_sparse_step
// (Qwen) from layer 1.
func TestMoELayerFrequency(t *testing.T) {
	a, _ := Parse([]byte(`{"model_type":"deepseek_v3","num_hidden_layers":6,"n_routed_experts":8,"num_experts_per_tok":2,"first_k_dense_replace":1,"moe_layer_freq":2}`), nil)
	if got := a.MoELayers; len(got) != 2 || got[0] != 2 || got[1] != 4 {
		t.Errorf("deepseek moe layers %v, want [2 4]", got)
	}
	a, _ = Parse([]byte(`{"model_type":"qwen2_moe","num_hidden_layers":6,"num_experts":8,"num_experts_per_tok":2,"decoder_sparse_step":2}`), nil)
	if got := a.MoELayers; len(got) != 3 || got[0] != 1 || got[2] != 5 {
		t.Errorf("qwen moe layers %v, want [1 3 5]", got)
	}
}

// Kimi-Linear states model_max_length, not max_position_embeddings.
func TestContextAlias(t *testing.T) {
	a := load(t, "moonshotai__Kimi-Linear-48B-A3B-Instruct.json")
	if a.Context != 1048576 || a.ContextSrc != "model_max_length" {
		t.Errorf("context %d from %q", a.Context, a.ContextSrc)
	}
	a = load(t, "moonshotai__Kimi-K3.json")
	if a.ContextSrc != "max_position_embeddings" {
		t.Errorf("K3 context from %q", a.ContextSrc)
	}
}

// patched returns a real config with top-level fields replaced (a nil
// value deletes the field).
func patched(t *testing.T, name string, patch map[string]any) []byte {
	t.Helper()
	b, err := os.ReadFile(configPath(name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	maps.Copy(m, patch)
	for k, v := range patch {
		if v == nil {
			delete(m, k)
		}
	}
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	return b
}

func readConfig(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(configPath(name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ModelOpt's FP8 stores 8-bit floats with FP32 scales; NVFP4 packs 4-bit
// floats with one F8_E4M3 scale per 16 values. Both from a sibling
// hf_quant_config.json and from config.json's quantization_config.
func TestModelOptQuantization(t *testing.T) {
	llama := readConfig(t, "meta-llama__Llama-3.1-8B.json")
	for _, tc := range []struct {
		name        string
		config      []byte
		hfq         string
		bits, group int64
		scale       string
	}{
		{"fp8 sibling", llama, `{"quantization":{"quant_algo":"FP8","exclude_modules":["lm_head"]}}`, 8, 0, "float32"},
		{"nvfp4 sibling, default group", llama, `{"quantization":{"quant_algo":"NVFP4","exclude_modules":["lm_head"]}}`, 4, 16, "float8_e4m3fn"},
		{"nvfp4 sibling, stated group", llama, `{"quantization":{"quant_algo":"NVFP4","group_size":16,"exclude_modules":["lm_head"]}}`, 4, 16, "float8_e4m3fn"},
		{"fp8 in config.json", patched(t, "meta-llama__Llama-3.1-8B.json", map[string]any{"quantization_config": map[string]any{
			"quant_method": "modelopt", "quant_algo": "FP8", "exclude_modules": []any{"lm_head"}}}), "", 8, 0, "float32"},
		{"nvfp4 nested in config.json", patched(t, "meta-llama__Llama-3.1-8B.json", map[string]any{"quantization_config": map[string]any{
			"quant_method": "modelopt", "quantization": map[string]any{"quant_algo": "NVFP4", "exclude_modules": []any{"lm_head"}}}}), "", 4, 16, "float8_e4m3fn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hfq []byte
			if tc.hfq != "" {
				hfq = []byte(tc.hfq)
			}
			a, err := Parse(tc.config, hfq)
			if err != nil {
				t.Fatal(err)
			}
			q := a.Quant
			if q.Method != "modelopt" || q.Bits != tc.bits || q.Type != "float" || q.GroupSize != tc.group || q.ScaleDType != tc.scale {
				t.Errorf("quant %+v, want %d-bit float, group %d, %s scales", q, tc.bits, tc.group, tc.scale)
			}
			if len(q.Ignore) != 1 || q.Ignore[0] != "lm_head" {
				t.Errorf("ignore %v", q.Ignore)
			}
		})
	}
	// An algorithm whose storage this package does not know gets no width.
	a, err := Parse(llama, []byte(`{"quantization":{"quant_algo":"W4A8_AWQ"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if a.Quant.Method != "modelopt" || a.Quant.Bits != 0 {
		t.Errorf("W4A8_AWQ quant %+v, want modelopt without a width", a.Quant)
	}
}

// Negative sizes, zero where zero means nothing, and more experts per
// token than experts are errors naming the field, not a negative cache or
// "config lacks".
func TestImpossibleSizesAreErrors(t *testing.T) {
	const llama, mixtral = "meta-llama__Llama-3.1-8B.json", "mistralai__Mixtral-8x7B-v0.1.json"
	for _, tc := range []struct {
		name  string
		patch map[string]any
		want  string
	}{
		{llama, map[string]any{"num_key_value_heads": -8}, "field num_key_value_heads: expected a non-negative integer, found -8"},
		{llama, map[string]any{"max_position_embeddings": -131072}, "field max_position_embeddings: expected a non-negative integer"},
		{llama, map[string]any{"num_attention_heads": -32}, "field num_attention_heads: expected a non-negative integer"},
		{llama, map[string]any{"head_dim": -128}, "field head_dim: expected a non-negative integer"},
		{llama, map[string]any{"num_attention_heads": 0}, "field num_attention_heads: expected a positive integer"},
		{llama, map[string]any{"num_key_value_heads": 0}, "field num_key_value_heads: expected a positive integer"},
		{llama, map[string]any{"num_hidden_layers": 0}, "field num_hidden_layers: expected a positive integer"},
		{llama, map[string]any{"hidden_size": 0}, "field hidden_size: expected a positive integer"},
		{llama, map[string]any{"vocab_size": 0}, "field vocab_size: expected a positive integer"},
		{llama, map[string]any{"max_position_embeddings": 0}, "field max_position_embeddings: expected a positive integer"},
		{mixtral, map[string]any{"num_local_experts": 0}, "field num_local_experts: expected a positive integer"},
		{mixtral, map[string]any{"num_local_experts": -8}, "field num_local_experts: expected a non-negative integer"},
		{mixtral, map[string]any{"num_experts_per_tok": 0}, "field num_experts_per_tok: expected a positive integer"},
		{mixtral, map[string]any{"num_experts_per_tok": 9}, "field num_experts_per_tok: 9 experts per token exceed the 8 routed experts of num_local_experts"},
		// Issue 15: sizes that would wrap the arithmetic, head counts that
		// cannot be, a stated head_dim of 0.
		{llama, map[string]any{"hidden_size": 1e15}, "field hidden_size: 1e+15 is out of range (at most 4294967296)"},
		{llama, map[string]any{"num_key_value_heads": 64}, "field num_key_value_heads: expected a divisor of the 32 attention heads (num_attention_heads), found 64"},
		{llama, map[string]any{"num_key_value_heads": 7}, "field num_key_value_heads: expected a divisor of the 32 attention heads (num_attention_heads), found 7"},
		{llama, map[string]any{"head_dim": 0}, "field head_dim: expected a positive integer, found 0"},
	} {
		_, err := Parse(patched(t, tc.name, tc.patch), nil)
		if err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("%s with %v: err = %v, want %q", tc.name, tc.patch, err, tc.want)
		}
	}
	// Wrapped configs name the field with its prefix.
	_, err := Parse([]byte(`{"model_type":"kimi_k25","text_config":{"model_type":"deepseek_v3","num_hidden_layers":2,"n_routed_experts":4,"num_experts_per_tok":8}}`), nil)
	if err == nil || !contains(err.Error(), "field text_config.num_experts_per_tok: 8 experts per token exceed the 4 routed experts of text_config.n_routed_experts") {
		t.Errorf("wrapped: %v", err)
	}
}

// A config.json or hf_quant_config.json that is not a JSON object says so,
// and a dtype of the wrong type inside text_config is named with its path.
func TestConfigShapeErrors(t *testing.T) {
	for _, tc := range []struct{ config, hfq, want string }{
		{`[1,2]`, "", "config.json: expected a JSON object, found an array"},
		{`null`, "", "config.json: expected a JSON object, found null"},
		{` "llama"`, "", "config.json: expected a JSON object, found a string"},
		{`{"model_type":`, "", "config.json: unexpected end of JSON input"},
		{`{"model_type":"x","text_config":{"torch_dtype":5}}`, "", "field text_config.torch_dtype: expected a string"},
		{`{"model_type":"x","text_config":{"dtype":["bfloat16"]}}`, "", "field text_config.dtype: expected a string"},
		{`{"model_type":"x","torch_dtype":5}`, "", "field torch_dtype: expected a string"},
		{`{"model_type":"llama"}`, `[]`, "hf_quant_config.json: expected a JSON object, found an array"},
		{`{"model_type":"llama"}`, `{"quantization":{"quant_algo":4}}`, "hf_quant_config.json: field quantization.quant_algo: expected a string"},
		{`{"model_type":"llama","hidden_size":8,"hidden_size":16}`, "", "field hidden_size: duplicate key"},
		{`{"model_type":"llama","rope_theta":1e999}`, "", "field rope_theta: the number 1e999 is beyond the range of a 64-bit float"},
	} {
		var hfq []byte
		if tc.hfq != "" {
			hfq = []byte(tc.hfq)
		}
		_, err := Parse([]byte(tc.config), hfq)
		if err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s, %s) = %v, want error containing %q", tc.config, tc.hfq, err, tc.want)
		}
		if err != nil && contains(err.Error(), "arch.obj") {
			t.Errorf("Parse(%s): error names a Go type: %v", tc.config, err)
		}
	}
}

// TestFamilyLayoutDefaults: layouts and config-class defaults come from
// the family registry. Gemma 3 4B states no head counts and no
// sliding_window_pattern; Gemma 2 alternates from layer 0 sliding.
func TestFamilyLayoutDefaults(t *testing.T) {
	a := load(t, "google__gemma-3-4b-it.json")
	if a.Family != "gemma3_text" || !a.FamilyKnown || a.Heads != 8 || a.KVHeads != 4 || a.HeadDim != 256 {
		t.Errorf("gemma3: family %s known %v heads %d kv %d head_dim %d", a.Family, a.FamilyKnown, a.Heads, a.KVHeads, a.HeadDim)
	}
	if a.Count(Full) != 5 || a.Count(Sliding) != 29 || a.LayerKinds[5] != Full {
		t.Errorf("gemma3: %d full, %d sliding (%s)", a.Count(Full), a.Count(Sliding), a.LayoutSource)
	}
	g2 := load(t, "google__gemma-2-9b.json")
	if g2.Count(Full) != 21 || g2.LayerKinds[0] != Sliding || g2.LayerKinds[1] != Full {
		t.Errorf("gemma2: %v… (%s)", g2.LayerKinds[:2], g2.LayoutSource)
	}
	if q := load(t, "Qwen__Qwen2-7B-Instruct.json"); q.Count(Sliding) != 0 {
		t.Errorf("qwen2 without use_sliding_window: %d sliding layers", q.Count(Sliding))
	}
}

// TestIndexerKeyCache: DeepSeek-V3.2's lightning indexer is read, so the
// KV figure can add its key cache beside the MLA latent.
func TestIndexerKeyCache(t *testing.T) {
	a := load(t, "deepseek-ai__DeepSeek-V3.2-Exp.json")
	if a.Attention != MLA || a.IndexHeadDim != 128 || a.IndexHeads != 64 {
		t.Errorf("attention %s, index_head_dim %d, index_n_heads %d", a.Attention, a.IndexHeadDim, a.IndexHeads)
	}
}

// TestPerLayerListsOfEqualValues: Hunyuan-A13B states its MoE sizes as
// per-layer lists; equal values read as one, differing ones are refused.
func TestPerLayerListsOfEqualValues(t *testing.T) {
	a := load(t, "tencent__Hunyuan-A13B-Instruct.json")
	if a.RoutedExperts != 64 || a.ActiveExperts != 8 || a.MoEIntermediate != 3072 {
		t.Errorf("experts %d, per token %d, width %d", a.RoutedExperts, a.ActiveExperts, a.MoEIntermediate)
	}
	// Differing per-layer values are valid where the family's code reads
	// them per layer: what depends on them is unknown, the config not bad.
	a, err := Parse([]byte(`{"model_type":"hunyuan_v1_moe","num_hidden_layers":2,"num_experts":4,"moe_topk":[2,3]}`), nil)
	if err != nil || a.ActiveExperts != 0 || !strings.Contains(a.Missing["moe_topk"], "per-layer values differ (2, 3)") {
		t.Errorf("err = %v, active %d, missing %q; want moe_topk unknown", err, a.ActiveExperts, a.Missing["moe_topk"])
	}
}

// TestWindowAsLongAsTheContext: a sliding window that covers the whole
// context never bites, so no layer is counted as sliding.
func TestWindowAsLongAsTheContext(t *testing.T) {
	a := load(t, "microsoft__Phi-3.5-MoE-instruct.json")
	if a.Count(Sliding) != 0 || a.Count(Full) != 32 {
		t.Errorf("phimoe: %d sliding, %d full (%s)", a.Count(Sliding), a.Count(Full), a.LayoutSource)
	}
	if p := load(t, "microsoft__Phi-3-mini-4k-instruct.json"); p.Count(Sliding) != 32 || p.SlidingWindow != 2047 {
		t.Errorf("phi3 4k: %d sliding, window %d", p.Count(Sliding), p.SlidingWindow)
	}
}

// TestChunkedAttention: Llama 4 Scout's chunked-attention layers (three in
// four) cache at most attention_chunk_size tokens; every fourth is global.
func TestChunkedAttention(t *testing.T) {
	a := load(t, "meta-llama__Llama-4-Scout-17B-16E-Instruct.json")
	if a.Count(Full) != 12 || a.Count(Sliding) != 36 || a.SlidingWindow != 8192 || a.LayerKinds[3] != Full {
		t.Errorf("llama4: %d full, %d chunked, window %d (%s)", a.Count(Full), a.Count(Sliding), a.SlidingWindow, a.LayoutSource)
	}
}

// A config that maps the model to its own code (auto_map) says so: the
// engines' commands need --trust-remote-code for it, whether the config
// came from a snapshot or a file.
func TestRemoteCode(t *testing.T) {
	for name, want := range map[string]bool{
		"moonshotai__Kimi-K3.json":          true,
		"meta-llama__Llama-3.1-8B.json":     false,
		"deepseek-ai__DeepSeek-V3.json":     true,
		"Qwen__Qwen3-30B-A3B.json":          false,
		"mistralai__Mixtral-8x7B-v0.1.json": false,
	} {
		if got := load(t, name).RemoteCode; got != want {
			t.Errorf("%s: RemoteCode = %v, want %v", name, got, want)
		}
	}
}
