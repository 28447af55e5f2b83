package arch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lenient reads a real config from testdata/configs/lenient at the
// repository root: valid Hub configs dossier once rejected as bad input.
func lenient(t *testing.T, name string) *Architecture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "configs", "lenient", name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse(b, nil)
	if err != nil {
		t.Fatalf("%s is a valid Hub config: %v", name, err)
	}
	return a
}

func TestListedLayouts(t *testing.T) {
	for _, tc := range []struct {
		name, config, want string
	}{
		{"lfm2 layer_types", `{"model_type":"lfm2","num_hidden_layers":4,"hidden_size":8,"num_attention_heads":2,"conv_L_cache":3,"layer_types":["conv","conv","full_attention","conv"]}`, "conv conv full conv"},
		{"lfm2 full_attn_idxs", `{"model_type":"lfm2","num_hidden_layers":3,"hidden_size":8,"num_attention_heads":2,"conv_L_cache":3,"full_attn_idxs":[1]}`, "conv full conv"},
		{"bamba attn_layer_indices", `{"model_type":"bamba","num_hidden_layers":3,"hidden_size":8,"num_attention_heads":2,"attn_layer_indices":[2],"mamba_d_state":4,"mamba_d_conv":4,"mamba_n_heads":2,"mamba_d_head":4}`, "ssm ssm full"},
		{"jamba period", `{"model_type":"jamba","num_hidden_layers":8,"hidden_size":8,"num_attention_heads":2,"attn_layer_period":4,"attn_layer_offset":2,"mamba_d_state":4,"mamba_d_conv":4,"mamba_expand":2}`, "ssm ssm full ssm ssm ssm full ssm"},
		{"granite layers_block_type", `{"model_type":"granitemoehybrid","num_hidden_layers":2,"hidden_size":8,"num_attention_heads":2,"layers_block_type":["mamba","attention"],"mamba_d_state":4,"mamba_d_conv":4,"mamba_n_heads":2,"mamba_d_head":4}`, "ssm full"},
		{"glm dsa", `{"model_type":"glm_moe_dsa","num_hidden_layers":2,"hidden_size":8,"num_attention_heads":2,"layer_types":["deepseek_sparse_attention","deepseek_sparse_attention"]}`, "full full"},
	} {
		a, err := Parse([]byte(tc.config), nil)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var got []string
		for _, k := range a.LayerKinds {
			got = append(got, string(k))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: kinds %q, want %q (from %s)", tc.name, g, tc.want, a.LayoutSource)
		}
	}
	a, _ := Parse([]byte(`{"model_type":"jamba","num_hidden_layers":2,"hidden_size":8,"num_attention_heads":2,"attn_layer_period":2,"attn_layer_offset":1,"mamba_d_state":16,"mamba_d_conv":4,"mamba_expand":2}`), nil)
	if a.SSMInner != 16 || a.SSMHeads != 0 || a.SSMStateSize != 16 || a.SSMConvKernel != 4 || a.SSMInnerSrc != "expand × hidden_size" {
		t.Errorf("Mamba-1 dims: inner %d (%s) heads %d state %d kernel %d", a.SSMInner, a.SSMInnerSrc, a.SSMHeads, a.SSMStateSize, a.SSMConvKernel)
	}
}

// A layer type dossier does not know makes the layout unknown, with the
// field and value named; it does not make the config bad input.
func TestUnknownLayerTypeIsUnknownNotBad(t *testing.T) {
	a, err := Parse([]byte(`{"model_type":"qwen3","num_hidden_layers":2,"hidden_size":8,"num_attention_heads":2,"layer_types":["full_attention","retention"]}`), nil)
	if err != nil {
		t.Fatalf("unknown layer type rejected: %v", err)
	}
	if a.LayerKinds != nil || !strings.Contains(a.Missing["layer_kinds"], `field layer_types[1]: layer type "retention"`) {
		t.Errorf("kinds %v, reason %q", a.LayerKinds, a.Missing["layer_kinds"])
	}
	a, err = Parse([]byte(`{"model_type":"nemotron_h","num_hidden_layers":2,"hidden_size":8,"num_attention_heads":2,"hybrid_override_pattern":"M?"}`), nil)
	if err != nil || !strings.Contains(a.Missing["layer_kinds"], "hybrid_override_pattern[1]") {
		t.Errorf("unknown pattern letter: %v, %q", err, a.Missing["layer_kinds"])
	}
}

// Bad input stays bad: a wrong type, a negative count or a pattern of the
// wrong length is an error naming the field.
func TestHybridBadInputStaysBad(t *testing.T) {
	for in, want := range map[string]string{
		`{"model_type":"nemotron_h","num_hidden_layers":3,"hidden_size":8,"num_attention_heads":2,"hybrid_override_pattern":"M*"}`:                   "field hybrid_override_pattern: 2 letters for 3 layers",
		`{"model_type":"nemotron_h","num_hidden_layers":1,"hidden_size":8,"num_attention_heads":2,"hybrid_override_pattern":7}`:                      "field hybrid_override_pattern: expected a string",
		`{"model_type":"bamba","num_hidden_layers":2,"hidden_size":8,"num_attention_heads":2,"attn_layer_indices":[-1]}`:                             "field attn_layer_indices[0]: expected a non-negative integer",
		`{"model_type":"bamba","num_hidden_layers":2,"hidden_size":8,"num_attention_heads":2,"attn_layer_indices":[0],"ssm_state_size":"x"}`:         "field ssm_state_size: expected a number",
		`{"model_type":"mimo_v2_flash","num_hidden_layers":2,"hidden_size":8,"num_attention_heads":2,"n_routed_experts":4,"moe_layer_freq":[0,1,1]}`: "field moe_layer_freq: 3 per-layer flags for 2 layers",
		`{"model_type":"qwen3","num_hidden_layers":2,"hidden_size":8,"num_attention_heads":2,"vocab_size":Infinity}`:                                 "field vocab_size: Infinity is out of range",
	} {
		if _, err := Parse([]byte(in), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", in, err, want)
		}
	}
}

// The configs the issue found rejected as bad input now parse, each with
// what it states read as it means.
func TestValidHubConfigsAreNotBadInput(t *testing.T) {
	a := lenient(t, "XiaomiMiMo__MiMo-V2-Flash.json")
	if len(a.MoELayers) != 47 || a.MoELayers[0] != 1 {
		t.Errorf("MiMo-V2-Flash moe_layer_freq list: %d MoE layers from %v", len(a.MoELayers), a.MoELayers[:1])
	}
	a = lenient(t, "MiniMaxAI__MiniMax-M3.json")
	if len(a.MoELayers) != 57 || a.MoELayers[0] != 3 {
		t.Errorf("MiniMax-M3: %d MoE layers", len(a.MoELayers))
	}
	a = lenient(t, "Qwen__Qwen3-32B-FP8-Static-PerTensor.json")
	if a.Quant.KVCacheBits != 8 || a.Quant.Method != "modelopt" || a.Quant.Bits != 8 {
		t.Errorf("qwen3 FP8: kv bits %d (%s), method %q bits %d", a.Quant.KVCacheBits, a.Quant.KVCacheSrc, a.Quant.Method, a.Quant.Bits)
	}
	a = lenient(t, "nvidia__GLM-5.2-NVFP4.json")
	if a.Count(Full) != 78 || a.Attention != MLA || a.IndexHeadDim != 128 || len(a.MoELayers) != 75 {
		t.Errorf("GLM-5.2: full %d attention %s index %d moe layers %d", a.Count(Full), a.Attention, a.IndexHeadDim, len(a.MoELayers))
	}
	a = lenient(t, "nvidia__NVIDIA-Nemotron-3-Super-120B-A12B-FP8.json")
	if a.Count(SSM) == 0 || a.Count(Full) == 0 {
		t.Errorf("Nemotron 3 Super: ssm %d full %d", a.Count(SSM), a.Count(Full))
	}
	if _, err := Parse([]byte(`{"model_type":"qwen3","num_hidden_layers":1,"quantization_config":{"quant_method":"compressed-tensors","kv_cache_scheme":"int3"}}`), nil); err != nil {
		t.Errorf("an unknown kv_cache_scheme name is unknown, not bad: %v", err)
	}
}

func TestCadenceOfAnyKind(t *testing.T) {
	a := &Architecture{LayerKinds: []LayerKind{SSM, FFN, SSM, Full, SSM, FFN, SSM, Full}}
	if c, ok := a.CadenceOf(Full); !ok || c != 4 {
		t.Errorf("full cadence %d %v", c, ok)
	}
	if c, ok := a.CadenceOf(SSM); !ok || c != 2 {
		t.Errorf("ssm cadence %d %v", c, ok)
	}
	if !a.Hybrid() || a.StateLayers() != 4 {
		t.Errorf("hybrid %v state %d", a.Hybrid(), a.StateLayers())
	}
}

// MiMo-V2-Flash: hybrid_layer_pattern marks 9 global and 39 sliding
// layers; the sliding layers cache their own shape (swa_ keys: 8 KV heads,
// K 192, V 128), the global layers 4 KV heads of K 192 and V 128.
func TestMiMoPattern(t *testing.T) {
	a := load(t, "XiaomiMiMo__MiMo-V2-Flash.json")
	if a.Count(Full) != 9 || a.Count(Sliding) != 39 || a.SlidingWindow != 128 || a.VHeadDim != 128 || a.HeadDim != 192 {
		t.Errorf("full %d sliding %d window %d v %d head %d", a.Count(Full), a.Count(Sliding), a.SlidingWindow, a.VHeadDim, a.HeadDim)
	}
	if s := a.KVShapeOf(Sliding); s.Heads != 8 || s.KDim != 192 || s.VDim != 128 || !strings.Contains(s.Src, "swa_num_key_value_heads") {
		t.Errorf("sliding shape %+v", s)
	}
	if s := a.KVShapeOf(Full); s.Heads != 4 || s.KDim != 192 || s.VDim != 128 || s.Values() != 4*(192+128) {
		t.Errorf("global shape %+v", s)
	}
}

// Gemma 4's global layers attend with global_head_dim and, with
// attention_k_eq_v, num_global_key_value_heads (transformers'
// Gemma4TextAttention); K and V both stay in the cache. Without
// attention_k_eq_v num_global_key_value_heads does not apply, and K=V
// without a global KV head count leaves the cache unknown, field named.
func TestGemma4GlobalLayersOwnShape(t *testing.T) {
	parse := func(extra string) *Architecture {
		t.Helper()
		a, err := Parse([]byte(`{"model_type":"gemma4","text_config":{"model_type":"gemma4_text","num_hidden_layers":2,"hidden_size":8,
			"num_attention_heads":16,"num_key_value_heads":8,"head_dim":256,"layer_types":["sliding_attention","full_attention"],"sliding_window":4`+extra+`}}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := parse(`,"global_head_dim":512,"num_global_key_value_heads":2,"attention_k_eq_v":true`)
	if s := a.KVShapeOf(Full); s.Heads != 2 || s.KDim != 512 || s.VDim != 512 || !strings.Contains(s.Src, "text_config.num_global_key_value_heads") {
		t.Errorf("global shape %+v", s)
	}
	if s := a.KVShapeOf(Sliding); s.Heads != 8 || s.KDim != 256 || s.VDim != 256 {
		t.Errorf("sliding shape %+v", s)
	}
	if a.Missing["kv_shape"] != "" {
		t.Errorf("kv_shape: %q", a.Missing["kv_shape"])
	}
	if s := parse(`,"global_head_dim":512,"num_global_key_value_heads":2`).KVShapeOf(Full); s.Heads != 8 || s.KDim != 512 {
		t.Errorf("without K=V the global layers keep num_key_value_heads: %+v", s)
	}
	if r := parse(`,"attention_k_eq_v":true`).Missing["kv_shape"]; !strings.Contains(r, "text_config.attention_k_eq_v") {
		t.Errorf("K=V without num_global_key_value_heads: %q", r)
	}
	if r := parse(`,"num_kv_shared_layers":1`).Missing["kv_shape"]; !strings.Contains(r, "text_config.num_kv_shared_layers") {
		t.Errorf("shared KV layers: %q", r)
	}
	b, _ := Parse([]byte(`{"model_type":"x","num_hidden_layers":1,"num_attention_heads":2,"head_dim":4,"global_head_dim":4,"attention_k_eq_v":false}`), nil)
	if len(b.KindKV) != 0 || b.Missing["kv_shape"] != "" {
		t.Errorf("equal shapes are one shape: %v %q", b.KindKV, b.Missing["kv_shape"])
	}
}

// Nemotron 3 Ultra lists its layers by name (layers_block_type with mamba,
// attention, moe) and states no num_hidden_layers: the list fixes the
// count, and its moe entries are the MoE layers.
func TestLayersBlockTypeNamesEveryLayer(t *testing.T) {
	a, err := Parse([]byte(`{"model_type":"nemotron_h","hidden_size":8,"num_attention_heads":2,"n_routed_experts":4,"num_experts_per_tok":2,
		"layers_block_type":["mamba","moe","attention","mlp","mamba","moe"],"ssm_state_size":4,"conv_kernel":4,"mamba_num_heads":2,"mamba_head_dim":4}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Layers != 6 || a.Missing["num_hidden_layers"] != "" || a.Count(SSM) != 2 || a.Count(FFN) != 3 || a.Count(Full) != 1 {
		t.Errorf("layers %d (%q), kinds %v", a.Layers, a.Missing["num_hidden_layers"], a.LayerKinds)
	}
	if len(a.MoELayers) != 2 || a.MoELayers[0] != 1 || a.MoELayers[1] != 5 {
		t.Errorf("MoE layers %v, want [1 5]", a.MoELayers)
	}
}

// Mamba-2's layout is the family's: every layer a Mamba-2 mixer, sized
// from num_heads, head_dim, state_size, n_groups and conv_kernel.
func TestMamba2EveryLayer(t *testing.T) {
	a, err := Parse([]byte(`{"model_type":"mamba2","hidden_size":4096,"num_hidden_layers":64,"vocab_size":32768,"num_heads":128,
		"head_dim":64,"state_size":128,"n_groups":8,"conv_kernel":4,"expand":2,"time_step_limit":[0.0,Infinity]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Count(SSM) != 64 || a.Hybrid() || a.SSMHeads != 128 || a.SSMHeadDim != 64 || a.SSMStateSize != 128 || a.SSMGroups != 8 || a.SSMInner != 8192 {
		t.Errorf("ssm %d heads %d×%d state %d groups %d inner %d (%s)", a.Count(SSM), a.SSMHeads, a.SSMHeadDim, a.SSMStateSize, a.SSMGroups, a.SSMInner, a.LayoutSource)
	}
}

// google/gemma-4-26B-A4B's real config: 25 sliding layers of 8 KV heads ×
// 256 and 5 global layers of 2 × 512 (attention_k_eq_v).
func TestGemma4RealConfigShapes(t *testing.T) {
	a := load(t, "google__gemma-4-26B-A4B.json")
	if a.Count(Sliding) != 25 || a.Count(Full) != 5 || a.SlidingWindow != 1024 {
		t.Errorf("sliding %d full %d window %d", a.Count(Sliding), a.Count(Full), a.SlidingWindow)
	}
	if s := a.KVShapeOf(Full); s.Values() != 2*(512+512) {
		t.Errorf("global %+v", s)
	}
	if s := a.KVShapeOf(Sliding); s.Values() != 8*(256+256) {
		t.Errorf("sliding %+v", s)
	}
	if a.RoutedExperts != 128 || a.ActiveExperts != 8 {
		t.Errorf("experts %d/%d", a.ActiveExperts, a.RoutedExperts)
	}
}
