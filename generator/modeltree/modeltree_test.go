package modeltree

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readConfig reads testdata/<model_type>/<org>__<name>.config.json, real
// config.json files (sources in testdata/SOURCES.md); tests never touch the
// network.
func readConfig(t testing.TB, name string) []byte {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("testdata", "*", strings.TrimSuffix(name, ".json")+".config.json"))
	if len(paths) != 1 {
		t.Fatalf("config %s: %d files in testdata", name, len(paths))
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatalf("read config: %v", err)
	}
	return data
}

func load(t testing.TB, name string) *Inventory {
	t.Helper()
	data := readConfig(t, name)
	inv, err := FromConfig(data, nil)
	if err != nil {
		t.Fatalf("FromConfig(%s): %v", name, err)
	}
	return inv
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// Kimi K3 figures: reference/k3-figures.md (census rows from the course page
// §6a, index total_size and tensor count from the public header audit) and
// SIZES.md.
const (
	k3CensusBF16   = 57_179_884_544
	k3CensusF32    = 11_122_432
	k3CensusU8     = 2_722_740_830_208 // 896 experts × 3 matrices × 3584×3072 × 92 MoE layers
	k3StoredAll    = 1_503_647_073_024 // all dtypes: U8 packed bytes + U8 scales + BF16 + F32, what a naive header sum reports
	k3StoredU8     = 1_446_456_066_048 // derived: U8 alone, 2,722,740,830,208/2 packed + /32 scales
	k3TotalSize    = 1_560_860_324_864 // index metadata.total_size
	k3Tensors      = 497_220
	k3Active       = 104_189_614_848 // "104 B activated", without the input embedding
	k3Total        = 2_779_931_837_184
	k3VisionAndMM  = 447_358_976 // MoonViT-V2 (401,214,464, "401M") + patchmergerv2 projector
	k3MoonViTV2    = 401_214_464
	k3InputEmbed   = 163_840 * 7_168
	k3Unquantized  = k3CensusBF16 + k3CensusF32 // BF16 ("57.18 B unquantized") + the F32 vectors
	k3ScaleBytes   = 85_085_650_944             // derived: "85.1 GB" of scales, one uint8 per 32 values
	k3ExpertsShare = 0.979
)

func TestKimiK3(t *testing.T) {
	inv := load(t, "moonshotai__Kimi-K3.json")
	c := inv.Census()
	eq(t, "family", inv.Family, "kimi_k3")
	eq(t, "census BF16", c["BF16"], int64(k3CensusBF16))
	eq(t, "census F32", c["F32"], int64(k3CensusF32))
	eq(t, "census U8", c["U8"], int64(k3CensusU8))
	eq(t, "census dtypes", len(c), 3)
	eq(t, "total params", inv.TotalParams(), int64(k3Total))
	var stored int64
	for _, n := range inv.StoredElements() {
		stored += n
	}
	eq(t, "stored elements", stored, int64(k3StoredAll))
	eq(t, "stored U8 elements", inv.StoredElements()["U8"], int64(k3StoredU8))
	eq(t, "tensor bytes", inv.TensorBytes(), int64(k3TotalSize))
	eq(t, "tensors", inv.Count(), k3Tensors)
	eq(t, "active without embedding", inv.ActiveParams(false), int64(k3Active))
	eq(t, "active with embedding", inv.ActiveParams(true), int64(k3Active+k3InputEmbed))
	eq(t, "experts", inv.RoutedExperts, 896)
	eq(t, "experts per token", inv.ExpertsPerToken, 16)

	comp := inv.ParamsByComponent()
	eq(t, "vision+projector", comp[CompVision]+comp[CompProjector], int64(k3VisionAndMM))
	eq(t, "MoonViT-V2", comp[CompVision], int64(k3MoonViTV2))

	roles := inv.ParamsByRole()
	eq(t, "payload params", roles[Payload], int64(k3CensusU8))
	eq(t, "unquantized params", roles[Unquantized], int64(k3Unquantized))
	eq(t, "scale bytes", inv.BytesByRole()[Scale], int64(k3ScaleBytes))
	if share := float64(k3CensusU8) / float64(inv.TotalParams()); share < k3ExpertsShare-0.0005 || share > k3ExpertsShare+0.0005 {
		t.Errorf("expert share %.4f, want %.3f", share, k3ExpertsShare)
	}

	ts := tensorsOf(inv)
	names := make(map[string]int, inv.Count())
	for i, ts := range ts {
		names[ts.Name] = i
	}
	if len(names) != inv.Count() {
		t.Errorf("duplicate tensor names: %d unique of %d", len(names), inv.Count())
	}
	for name, want := range map[string]struct {
		dtype string
		shape []int64
		role  Role
	}{
		"language_model.model.layers.3.block_sparse_moe.experts.17.w2.weight_packed":    {"U8", []int64{3584, 1536}, Payload},
		"language_model.model.layers.3.block_sparse_moe.experts.17.w1.weight_scale":     {"U8", []int64{3072, 112}, Scale},
		"language_model.model.layers.3.block_sparse_moe.routed_expert_down_proj.weight": {"BF16", []int64{3584, 7168}, Unquantized},
		"language_model.model.layers.3.self_attn.q_b_proj.weight":                       {"BF16", []int64{96 * 192, 1536}, Unquantized},
		"language_model.model.layers.0.self_attn.q_conv1d.weight":                       {"F32", []int64{12288, 1, 4}, Unquantized},
		"language_model.model.layers.0.mlp.gate_proj.weight":                            {"BF16", []int64{33792, 7168}, Unquantized},
		"language_model.lm_head.weight":                                                 {"BF16", []int64{163840, 7168}, Unquantized},
		"vision_tower.encoder.blocks.26.wqkv.weight":                                    {"BF16", []int64{4608, 1024}, Unquantized},
		"mm_projector.proj.2.weight":                                                    {"BF16", []int64{7168, 4096}, Unquantized},
	} {
		i, ok := names[name]
		if !ok {
			t.Errorf("missing tensor %s", name)
			continue
		}
		got := ts[i]
		if got.DType != want.dtype || !equalShape(got.Shape, want.shape) || got.Role != want.role {
			t.Errorf("%s = %s %v %v, want %s %v %v", name, got.DType, got.Shape, got.Role, want.dtype, want.shape, want.role)
		}
	}
}

func tensorsOf(inv *Inventory) []Tensor { return slices.Collect(inv.All()) }

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Figures from reference/configs/SIZES.md unless noted.
const (
	kimiLinearParams = 49_122_681_728 // tensor report on the real checkpoint
	kimiLinearF32    = 82_560         // A_log + dt_bias

	k25F32  = 23_040            // Hub census @2426b45 (hub-api-and-peers.md §2.4)
	k25I32  = 1_014_686_023_680 // packed int4, counted ×8
	k25BF16 = 12_193_329_648

	llamaParams    = 8_030_261_248
	llamaTotalSize = 16_060_522_496

	mixtralParams    = 46_702_792_704
	mixtralTotalSize = 93_405_585_408
	mixtralActive    = 12_900_000_000 // "12.9 B", rounded

	gptOssBF16   = 1_804_459_584
	gptOssU8     = 19_110_297_600 // packed blocks × 2
	gptOssScales = 597_196_800    // U8 E8M0 scales, not parameters
	gptOssActive = 3_608_307_264  // model card, without the embedding
	gptOssGiB    = 12.8           // model card table 1

	qwen3MoeTotal  = 30_500_000_000 // "30.5 B", rounded
	qwen3MoeActive = 3_300_000_000  // "3.3 B"
	qwen3MoeNonEmb = 29_900_000_000 // "non-embedding 29.9 B"

	// DeepSeek-V3: "671B main + 14B MTP = 685B" (Hub / README), "37B activated".
	dsMain   = 671_000_000_000
	dsMTP    = 14_000_000_000
	dsTotal  = 685_000_000_000
	dsActive = 37_000_000_000
	// Third-party file listing: 163 shards summing to this (headers included).
	dsFileSum = 688_586_727_753
)

func near(t *testing.T, what string, got, want int64, tol float64) {
	t.Helper()
	if d := float64(got-want) / float64(want); d > tol || d < -tol {
		t.Errorf("%s = %d, want %d ± %.1f%%", what, got, want, tol*100)
	}
}

func TestKimiLinear(t *testing.T) {
	inv := load(t, "moonshotai__Kimi-Linear-48B-A3B-Instruct.json")
	c := inv.Census()
	eq(t, "total", inv.TotalParams(), int64(kimiLinearParams))
	eq(t, "F32", c["F32"], int64(kimiLinearF32))
	eq(t, "BF16", c["BF16"], int64(kimiLinearParams-kimiLinearF32))
	eq(t, "dtypes", len(c), 2)
	eq(t, "experts", inv.RoutedExperts, 256)
	eq(t, "per token", inv.ExpertsPerToken, 8)
	// "91.50 GiB" over 20 shards.
	if gib := float64(inv.TensorBytes()) / (1 << 30); gib < 91.495 || gib >= 91.505 {
		t.Errorf("bytes = %.3f GiB, want 91.50", gib)
	}
	near(t, "active", inv.ActiveParams(true), 3_000_000_000, 0.2) // "A3B"
}

func TestKimiK25(t *testing.T) {
	inv := load(t, "moonshotai__Kimi-K2.5.json")
	c := inv.Census()
	eq(t, "F32", c["F32"], int64(k25F32))
	eq(t, "I32", c["I32"], int64(k25I32))
	eq(t, "BF16", c["BF16"], int64(k25BF16))
	eq(t, "dtypes", len(c), 3)
	eq(t, "total", inv.TotalParams(), int64(k25F32+k25I32+k25BF16))
	eq(t, "payload", inv.ParamsByRole()[Payload], int64(k25I32))
	near(t, "active", inv.ActiveParams(true), 32_000_000_000, 0.05) // Kimi K2 "32B activated"
	var packed, scales int
	for _, ts := range tensorsOf(inv) {
		switch {
		case strings.HasSuffix(ts.Name, ".weight_packed"):
			packed++
			if ts.DType != "I32" || !ts.Expert {
				t.Fatalf("%s: %s expert=%v", ts.Name, ts.DType, ts.Expert)
			}
		case strings.HasSuffix(ts.Name, ".weight_scale"):
			scales++
			if ts.DType != "BF16" || ts.Params != 0 {
				t.Fatalf("%s: %s params=%d", ts.Name, ts.DType, ts.Params)
			}
		}
	}
	eq(t, "packed matrices", packed, 384*3*60)
	eq(t, "scales", scales, packed)
}

func TestDeepSeekV3(t *testing.T) {
	inv := load(t, "deepseek-ai__DeepSeek-V3.json")
	comp := inv.ParamsByComponent()
	// Analytic: main 671,026,419,200 (+0.004 %), MTP 13,463,426,304 (−3.8 %
	// against the rounded "14B"), total 684,489,845,504 (−0.07 %).
	near(t, "main", comp[CompText], dsMain, 0.001)
	near(t, "MTP", comp[CompMTP], dsMTP, 0.05)
	near(t, "total", inv.TotalParams(), dsTotal, 0.001)
	near(t, "active", inv.ActiveParams(true), dsActive, 0.02)
	// Analytic data bytes sit below the file sum by the 163 JSON headers
	// only: 11,888,393 bytes, ~130 bytes per tensor entry.
	hdr := int64(dsFileSum) - inv.TensorBytes()
	if per := float64(hdr) / float64(inv.Count()); per < 80 || per > 200 {
		t.Errorf("header residual %d bytes = %.0f per tensor, want ~130", hdr, per)
	}
	// Hub census (?expand[]=safetensors): F32 = router biases + block scales.
	c := inv.Census()
	eq(t, "census BF16", c["BF16"], int64(3_918_786_560))
	eq(t, "census F8_E4M3", c["F8_E4M3"], int64(680_571_043_840))
	eq(t, "census F32", c["F32"], int64(41_555_600))
	eq(t, "total", inv.TotalParams(), int64(684_531_386_000))
	for _, ts := range tensorsOf(inv) {
		if ts.Name == "model.layers.10.mlp.experts.3.down_proj.weight_scale_inv" {
			eq(t, "block scale shape", len(ts.Shape), 2)
			eq(t, "block scale rows", ts.Shape[0], int64(56)) // ⌈7168/128⌉
			eq(t, "block scale cols", ts.Shape[1], int64(16)) // ⌈2048/128⌉
		}
	}
}

func TestLlama(t *testing.T) {
	inv := load(t, "meta-llama__Llama-3.1-8B.json")
	eq(t, "params", inv.TotalParams(), int64(llamaParams))
	eq(t, "total_size", inv.TensorBytes(), int64(llamaTotalSize))
	eq(t, "tensors", inv.Count(), 291)
	eq(t, "dense", inv.ActiveParams(true), inv.TotalParams())
}

func TestMixtral(t *testing.T) {
	inv := load(t, "mistralai__Mixtral-8x7B-v0.1.json")
	eq(t, "params", inv.TotalParams(), int64(mixtralParams))
	eq(t, "total_size", inv.TensorBytes(), int64(mixtralTotalSize))
	near(t, "active", inv.ActiveParams(true), mixtralActive, 0.005)
}

func TestGptOss20b(t *testing.T) {
	inv := load(t, "openai__gpt-oss-20b.json")
	c := inv.Census()
	eq(t, "BF16", c["BF16"], int64(gptOssBF16))
	eq(t, "U8", c["U8"], int64(gptOssU8))
	eq(t, "total", inv.TotalParams(), int64(gptOssBF16+gptOssU8))
	eq(t, "active", inv.ActiveParams(false), int64(gptOssActive))
	var scales int64
	for _, ts := range tensorsOf(inv) {
		if ts.Role == Scale {
			scales += ts.Numel()
		}
	}
	eq(t, "scale elements", scales, int64(gptOssScales))
	if gib := float64(inv.TensorBytes()) / (1 << 30); gib < gptOssGiB-0.05 || gib >= gptOssGiB+0.05 {
		t.Errorf("bytes = %.3f GiB, want %.1f", gib, gptOssGiB)
	}
}

// gpt-oss-120b from the 20b config with its published dimensions; golden
// census from huggingface.js' spec @b5c939d (hub-api-and-peers.md §2.4).
func TestGptOss120bDerived(t *testing.T) {
	inv := loadPatched(t, "openai__gpt-oss-20b.json", map[string]any{"num_hidden_layers": 36, "num_local_experts": 128})
	c := inv.Census()
	eq(t, "BF16", c["BF16"], int64(2_167_371_072))
	eq(t, "U8", c["U8"], int64(114_661_785_600))
}

// Llama-3.3-70B quantized w4a16 by compressed-tensors; golden census from
// huggingface.js' spec (RedHatAI/Llama-3.3-70B-Instruct-quantized.w4a16).
func TestCompressedTensorsW4A16Derived(t *testing.T) {
	q := map[string]any{
		"quant_method": "compressed-tensors", "format": "pack-quantized", "ignore": []any{"lm_head"},
		"config_groups": map[string]any{"group_0": map[string]any{
			"targets": []any{"Linear"},
			"weights": map[string]any{"num_bits": 4, "type": "int", "group_size": 128, "strategy": "group", "symmetric": true},
		}},
	}
	inv := loadPatched(t, "meta-llama__Llama-3.1-8B.json", map[string]any{
		"hidden_size": 8192, "intermediate_size": 28672, "num_attention_heads": 64, "num_hidden_layers": 80,
		"quantization_config": q,
	})
	c := inv.Census()
	eq(t, "I32", c["I32"], int64(68_451_041_280))
	eq(t, "BF16", c["BF16"], int64(2_102_665_216))
}

func TestQwen3Moe(t *testing.T) {
	inv := load(t, "Qwen__Qwen3-30B-A3B.json")
	near(t, "total", inv.TotalParams(), qwen3MoeTotal, 0.002)
	near(t, "active", inv.ActiveParams(true), qwen3MoeActive, 0.02)
	var emb int64
	for _, ts := range tensorsOf(inv) {
		if ts.Embedding || ts.Head {
			emb += ts.Params
		}
	}
	near(t, "non-embedding", inv.TotalParams()-emb, qwen3MoeNonEmb, 0.002)

	fp8 := load(t, "Qwen__Qwen3-30B-A3B-FP8.json")
	// The Hub counts the F32 block scales of an fp8 checkpoint as parameters.
	var scales int64
	for ts := range fp8.All() {
		if ts.Role == Scale {
			scales += ts.Params
		}
	}
	eq(t, "FP8 total", fp8.TotalParams(), inv.TotalParams()+scales)
	for _, ts := range tensorsOf(fp8) {
		switch ts.Name {
		case "model.layers.7.mlp.gate.weight", "lm_head.weight":
			eq(t, ts.Name, ts.DType, "BF16") // modules_to_not_convert
		case "model.layers.7.mlp.experts.5.up_proj.weight":
			eq(t, ts.Name, ts.DType, "F8_E4M3")
		case "model.layers.7.mlp.experts.5.up_proj.weight_scale_inv":
			eq(t, ts.Name+" rows", ts.Shape[0], int64(6)) // ⌈768/128⌉
		}
	}
}

func TestQwen3Next(t *testing.T) {
	inv := load(t, "Qwen__Qwen3-Next-80B-A3B-Thinking.json")
	// Hub 81.3 B: 79,674,391,296 declared + the undeclared mtp.* layer.
	eq(t, "mtp", inv.ParamsByComponent()[CompMTP], int64(1_650_471_424))
	near(t, "total", inv.TotalParams(), 81_300_000_000, 0.001)
	if inv.Extras == "" {
		t.Error("the undeclared MTP layer is not named in Extras")
	}
	near(t, "active", inv.ActiveParams(true), 3_000_000_000, 0.35) // "A3B" is loose: 3.87 B
	var linear, full int
	for _, ts := range tensorsOf(inv) {
		switch {
		case strings.HasSuffix(ts.Name, "linear_attn.in_proj_qkvz.weight"):
			linear++
			eq(t, "qkvz rows", ts.Shape[0], int64(2*16*128+2*32*128))
		case strings.HasPrefix(ts.Name, "model.") && strings.HasSuffix(ts.Name, "self_attn.q_proj.weight"):
			full++
			eq(t, "gated q rows", ts.Shape[0], int64(2*16*256))
		}
	}
	eq(t, "linear layers", linear, 36)
	eq(t, "full layers", full, 12)
}

// ModelOpt NVFP4 via hf_quant_config.json: payload U8 two per byte, F8
// scales per 16, scalar global and input scales.
func TestModelOptNVFP4(t *testing.T) {
	data := readConfig(t, "meta-llama__Llama-3.1-8B.json")
	hfq := []byte(`{"producer":{"name":"modelopt"},"quantization":{"quant_algo":"NVFP4","group_size":16,"exclude_modules":["lm_head"]}}`)
	inv, err := FromConfig(data, hfq)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "params", inv.TotalParams(), int64(llamaParams))
	roles := inv.ParamsByRole()
	eq(t, "payload", roles[Payload], int64(llamaParams-2*128256*4096-65*4096))
	for _, ts := range tensorsOf(inv) {
		switch ts.Name {
		case "model.layers.0.mlp.down_proj.weight":
			eq(t, "down packed", ts.Shape[1], int64(14336/2))
			eq(t, "down dtype", ts.DType, "U8")
		case "model.layers.0.mlp.down_proj.weight_scale":
			eq(t, "down scale", ts.Shape[1], int64(14336/16))
		case "lm_head.weight":
			eq(t, "head dtype", ts.DType, "BF16")
		}
	}
}

// ModelOpt FP8 via hf_quant_config.json: one F8_E4M3 value per weight and
// FP32 scalar weight and input scales, the excluded head in BF16. The
// census counts the payload under F8_E4M3, which sizing's payload dtype
// for ModelOpt FP8 must name.
func TestModelOptFP8(t *testing.T) {
	data := readConfig(t, "meta-llama__Llama-3.1-8B.json")
	hfq := []byte(`{"quantization":{"quant_algo":"FP8","exclude_modules":["lm_head"]}}`)
	inv, err := FromConfig(data, hfq)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "params", inv.TotalParams(), int64(llamaParams))
	payload := int64(llamaParams - 2*128256*4096 - 65*4096)
	eq(t, "payload", inv.ParamsByRole()[Payload], payload)
	eq(t, "census F8_E4M3", inv.Census()["F8_E4M3"], payload)
	eq(t, "census dtypes", len(inv.Census()), 2)
	for _, ts := range tensorsOf(inv) {
		switch ts.Name {
		case "model.layers.0.mlp.down_proj.weight":
			eq(t, "down dtype", ts.DType, "F8_E4M3")
			eq(t, "down cols", ts.Shape[1], int64(14336))
		case "model.layers.0.mlp.down_proj.weight_scale", "model.layers.0.mlp.down_proj.input_scale":
			eq(t, ts.Name+" dtype", ts.DType, "F32")
			eq(t, ts.Name+" rank", len(ts.Shape), 0)
		case "lm_head.weight":
			eq(t, "head dtype", ts.DType, "BF16")
		}
	}
	// 7 quantized matrices × 32 layers, two F32 scalars each.
	eq(t, "scale bytes", inv.BytesByRole()[Scale], int64(7*32*2*4))
}

// Llama-3.2-1B's shape (patched from the 3.1-8B config) ties its
// embedding to the head: no lm_head tensor, and the shared matrix is the
// head of the figure without the input embedding, so nothing is lost.
func TestTiedEmbeddings(t *testing.T) {
	inv := loadPatched(t, "meta-llama__Llama-3.1-8B.json", map[string]any{
		"hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8,
		"intermediate_size": 8192, "tie_word_embeddings": true,
	})
	const total = 1_235_814_400
	eq(t, "total", inv.TotalParams(), int64(total))
	eq(t, "active with embedding", inv.ActiveParams(true), int64(total))
	eq(t, "active without embedding", inv.ActiveParams(false), int64(total))
	var shared int
	for _, ts := range tensorsOf(inv) {
		if ts.Name == "lm_head.weight" {
			t.Errorf("a tied checkpoint stores no lm_head")
		}
		if ts.Embedding && ts.Head {
			shared++
		}
	}
	eq(t, "tied matrices", shared, 1)

	// Untied, the figure without the embedding drops exactly the embedding.
	untied := load(t, "meta-llama__Llama-3.1-8B.json")
	eq(t, "untied without embedding", untied.ActiveParams(false), int64(llamaParams-128256*4096))
}

// loadPatched loads a real config with top-level fields replaced.
func loadPatched(t *testing.T, name string, patch map[string]any) *Inventory {
	t.Helper()
	data := readConfig(t, name)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	maps.Copy(m, patch)
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := FromConfig(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, config, hfq, want string
	}{
		{"malformed", `{"model_type":`, "", "config.json"},
		{"not object", `[1,2]`, "", "config.json: expected a JSON object, found an array"},
		{"null", `null`, "", "config.json: expected a JSON object, found null"},
		{"hf_quant not object", `{"model_type":"llama"}`, `[]`, "hf_quant_config.json: expected a JSON object, found an array"},
		{"more experts per token than experts", `{"model_type":"mixtral","hidden_size":8,"num_attention_heads":1,"num_hidden_layers":2,"intermediate_size":8,"num_local_experts":4,"num_experts_per_tok":5,"vocab_size":8}`, "", "5 experts per token exceed the 4 routed experts"},
		{"no model_type", `{}`, "", "model_type"},
		{"missing field", `{"model_type":"llama","hidden_size":4096}`, "", "num_attention_heads"},
		{"wrong type", `{"model_type":"llama","hidden_size":"big"}`, "", "hidden_size"},
		{"negative", `{"model_type":"mixtral","hidden_size":-4}`, "", "hidden_size"},
		{"nested missing", `{"model_type":"kimi_k3","text_config":{"hidden_size":7168}}`, "", "text_config."},
		{"no text_config", `{"model_type":"kimi_k25"}`, "", "text_config"},
		{"bad quant", `{"model_type":"llama","quantization_config":{"quant_method":"gptq"}}`, "", "quant_method"},
		{"bad regex", `{"model_type":"llama","quantization_config":{"quant_method":"compressed-tensors","ignore":["re:(?!x)"]}}`, "", "ignore[0]"},
		{"bad hf_quant", `{"model_type":"llama"}`, `{"quantization":{"quant_algo":"W4A8_AWQ"}}`, "quant_algo"},
		{"huge", `{"model_type":"mixtral","hidden_size":8,"num_attention_heads":1,"num_hidden_layers":4000,"intermediate_size":8,"num_local_experts":100000,"num_experts_per_tok":2,"vocab_size":8}`, "", "too many"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hfq []byte
			if tc.hfq != "" {
				hfq = []byte(tc.hfq)
			}
			_, err := FromConfig([]byte(tc.config), hfq)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func FuzzFromConfig(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.config.json")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data, []byte(nil))
		}
	}
	f.Add([]byte(`{"model_type":"llama","hidden_size":1e3}`), []byte(`{"quantization":{"quant_algo":"NVFP4","group_size":0}}`))
	f.Add([]byte(`{"model_type":"llama","hidden_size":64,"num_attention_heads":4,"num_hidden_layers":2,"intermediate_size":128,"vocab_size":100,"tie_word_embeddings":true}`), []byte(`{"quantization":{"quant_algo":"FP8"}}`))
	f.Fuzz(func(t *testing.T, config, hfq []byte) {
		inv, err := FromConfig(config, hfq)
		if err != nil {
			return
		}
		_ = inv.Census()
		_ = inv.TensorBytes()
		if a, ae, tot := inv.ActiveParams(false), inv.ActiveParams(true), inv.TotalParams(); a > ae || ae > tot {
			t.Errorf("active without embedding %d, with %d, total %d: want a ≤ with ≤ total", a, ae, tot)
		}
	})
}

func TestUnsupportedFamily(t *testing.T) {
	_, err := FromConfig([]byte(`{"model_type":"falcon_h9"}`), nil)
	if !errors.Is(err, ErrUnsupportedFamily) {
		t.Fatalf("err = %v, want ErrUnsupportedFamily", err)
	}
	if !strings.Contains(err.Error(), "unsupported family") || !strings.Contains(err.Error(), "falcon_h9") {
		t.Errorf("error %q does not name the family", err)
	}
}

func BenchmarkFromConfigK3(b *testing.B) {
	data := readConfig(b, "moonshotai__Kimi-K3.json")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromConfig(data, nil); err != nil {
			b.Fatal(err)
		}
	}
}
