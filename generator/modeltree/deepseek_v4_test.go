package modeltree

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

const dsv4Flash = "testdata/deepseek_v4/deepseek-ai__DeepSeek-V4-Flash.config.json"

// TestDeepseekV4Shapes checks tensors of V4-Flash against the shapes read
// off vLLM's modules: the grouped output projection, the compressor width
// per ratio, the indexer only on ratio-4 layers, the hash table only on the
// first num_hash_layers, MXFP4 experts packed two values per byte.
func TestDeepseekV4Shapes(t *testing.T) {
	data, err := os.ReadFile(dsv4Flash)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := FromConfig(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Tensor{}
	for x := range inv.All() {
		got[x.Name] = x
	}
	want := map[string]struct {
		dtype string
		shape []int64
	}{
		// 8 groups × o_lora_rank 1024 out, 64 heads × 512 ÷ 8 groups in.
		"layers.2.attn.wo_a.weight": {"F8_E4M3", []int64{8192, 4096}},
		"layers.2.attn.wo_a.scale":  {"F8_E8M0", []int64{64, 32}},
		"layers.2.attn.wo_b.weight": {"F8_E4M3", []int64{4096, 8192}},
		"layers.2.attn.wkv.weight":  {"F8_E4M3", []int64{512, 4096}},
		// Ratio 4 overlaps two windows: 2 × head_dim; ratio 128 one.
		"layers.2.attn.compressor.ape":              {"F32", []int64{4, 1024}},
		"layers.3.attn.compressor.ape":              {"F32", []int64{128, 512}},
		"layers.2.attn.compressor.wkv.weight":       {"BF16", []int64{1024, 4096}},
		"layers.2.attn.indexer.wq_b.weight":         {"F8_E4M3", []int64{8192, 1024}},
		"layers.2.attn.indexer.compressor.ape":      {"F32", []int64{4, 256}},
		"layers.2.attn.indexer.weights_proj.weight": {"BF16", []int64{64, 4096}},
		"layers.2.hc_attn_fn":                       {"F32", []int64{24, 16384}},
		"layers.0.ffn.gate.tid2eid":                 {"I64", []int64{129280, 6}},
		"layers.3.ffn.gate.bias":                    {"F32", []int64{256}},
		"layers.3.ffn.experts.255.w1.weight":        {"I8", []int64{2048, 2048}},
		"layers.3.ffn.experts.255.w1.scale":         {"F8_E8M0", []int64{2048, 128}},
		"layers.3.ffn.shared_experts.w2.weight":     {"F8_E4M3", []int64{4096, 2048}},
		"hc_head_fn":                                {"F32", []int64{4, 16384}},
		"mtp.0.e_proj.weight":                       {"F8_E4M3", []int64{4096, 4096}},
		"mtp.0.attn.wq_b.weight":                    {"F8_E4M3", []int64{32768, 1024}},
		"head.weight":                               {"BF16", []int64{129280, 4096}},
	}
	for name, w := range want {
		x, ok := got[name]
		if !ok {
			t.Errorf("%s: missing", name)
			continue
		}
		if x.DType != w.dtype || !slices.Equal(x.Shape, w.shape) {
			t.Errorf("%s: %s %v, want %s %v", name, x.DType, x.Shape, w.dtype, w.shape)
		}
	}
	for _, absent := range []string{
		"layers.0.attn.compressor.ape",      // ratio 0: window only
		"layers.3.attn.indexer.wq_b.weight", // ratio 128: no indexer
		"layers.3.ffn.gate.tid2eid",         // past num_hash_layers
		"layers.0.ffn.gate.bias",            // hash-routed
		"mtp.0.attn.compressor.ape",         // vLLM's MTP layer has no compressor
	} {
		if _, ok := got[absent]; ok {
			t.Errorf("%s: present, want absent", absent)
		}
	}
	// The expert payload counts two parameters per stored byte.
	if x := got["layers.3.ffn.experts.0.w2.weight"]; x.Params != 4096*2048 {
		t.Errorf("expert w2 params %d, want %d", x.Params, 4096*2048)
	}
}

// TestDeepseekV4Declines: what the tree does not enumerate is refused with
// the field named, not sized as something else.
func TestDeepseekV4Declines(t *testing.T) {
	data, err := os.ReadFile(dsv4Flash)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit  func(m map[string]any)
		field string
	}{
		{func(m map[string]any) { delete(m, "expert_dtype") }, "expert_dtype"},
		{func(m map[string]any) { m["expert_dtype"] = "fp8" }, "expert_dtype"},
		{func(m map[string]any) { delete(m, "quantization_config") }, "quantization_config"},
		{func(m map[string]any) { m["compress_ratios"] = []int{0, 8} }, "compress_ratios"},
		{func(m map[string]any) { m["quantization_config"].(map[string]any)["scale_fmt"] = "fp32" }, "scale_fmt"},
		{func(m map[string]any) { m["o_groups"] = 7 }, "o_groups"},
		// NVIDIA's NVFP4 export keeps quant_method fp8 and adds these.
		{func(m map[string]any) { m["quantization_config"].(map[string]any)["moe_quant_algo"] = "NVFP4" }, "quantization_config.moe_quant_algo"},
	} {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		c.edit(m)
		b, _ := json.Marshal(m)
		_, err := FromConfig(b, nil)
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: err %v, want one naming the field", c.field, err)
		}
	}
	if _, err := FromConfig(data, []byte(`{"quantization":{"quant_algo":"MIXED_PRECISION"}}`)); err == nil || !strings.Contains(err.Error(), "hf_quant_config.json") {
		t.Errorf("with a ModelOpt hf_quant_config.json: err %v, want one naming the file", err)
	}
}
