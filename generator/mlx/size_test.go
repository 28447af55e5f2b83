package mlx_test

import (
	"strings"
	"testing"

	"dossier/generator/mlx"
	"dossier/generator/mlx/mlxtest"
	"dossier/generator/safetensors"
)

var toy = mlxtest.MoE{Layers: 2, Hidden: 256, Heads: 4, KVHeads: 2, HeadDim: 64, Vocab: 1024,
	Experts: 4, ExpertsUsed: 2, ExpertFF: 128, Bits: 4, GroupSize: 64, GateBits: 8, Context: 32768, Shards: 2}

// By hand: an affine 4-bit module with groups of 64 stores half a byte a
// value plus a BF16 scale and bias (4 B) per 64 values, 0.5625 B (4.5
// bits) a value; the 8-bit routers 1.0625 B. Logical parameters: the
// embedding and head 1,024 × 256 each; per layer attention 65,536 +
// 32,768 + 32,768 + 65,536, the router 4 × 256, the experts 3 × 4 × 128
// × 256 = 393,216, norms 640; the final norm 256.
func TestSizeByHand(t *testing.T) {
	q, err := mlx.ParseConfig(toy.Config())
	if err != nil {
		t.Fatal(err)
	}
	s, err := mlx.Size(q, toy.Tensors())
	if err != nil {
		t.Fatal(err)
	}
	want4 := int64(2*262144 + 2*(196608+393216))
	if got := s.Census["affine-4bit-g64"]; got.Params != want4 || got.Bytes != want4*9/16 {
		t.Errorf("4-bit: %+v, want %d params in %d bytes", got, want4, want4*9/16)
	}
	if got := s.Census["affine-8bit-g64"]; got.Params != 2048 || got.Bytes != 2176 {
		t.Errorf("8-bit routers: %+v", got)
	}
	if got := s.Census["BF16"]; got.Params != 1536 || got.Bytes != 3072 {
		t.Errorf("BF16 norms: %+v", got)
	}
	if s.Params != 1_707_520 || s.TensorBytes != 963_712 || s.ScaleBytes != 106_624 {
		t.Errorf("params %d bytes %d scales %d", s.Params, s.TensorBytes, s.ScaleBytes)
	}
	if bpw := s.BitsPerWeight(); bpw != 963_712.0*8/1_707_520 {
		t.Errorf("bits per weight %v", bpw)
	}
	if len(s.LayerBytes) != 2 || s.LayerBytes[0] != 334_144 || s.LayerBytes[1] != 334_144 || s.OtherBytes != 295_424 || s.EmbeddingBytes != 147_456 {
		t.Errorf("layers %v other %d embedding %d", s.LayerBytes, s.OtherBytes, s.EmbeddingBytes)
	}
	if s.ExpertBytes != 442_368 || s.ExpertParams != 786_432 || s.Quantized != 2+2*8 {
		t.Errorf("experts %d bytes %d params, %d quantized modules", s.ExpertBytes, s.ExpertParams, s.Quantized)
	}
	if k := s.Kinds(); len(k) != 3 || k[0] != "affine-4bit-g64" {
		t.Errorf("kinds %v", k)
	}
}

// A checkpoint whose tensors disagree with its block is refused with the
// tensor named: bits that do not match the packed width, scales without
// a weight, affine without biases, an override on a module stored
// unquantized.
func TestSizeRefusesMismatches(t *testing.T) {
	q, err := mlx.ParseConfig(toy.Config())
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func([]safetensors.TensorInfo) []safetensors.TensorInfo) []safetensors.TensorInfo {
		return f(toy.Tensors())
	}
	for want, ts := range map[string][]safetensors.TensorInfo{
		"model.layers.0.mlp.gate.weight: 32 words": edit(func(ts []safetensors.TensorInfo) []safetensors.TensorInfo {
			for i := range ts {
				if ts[i].Name == "model.layers.0.mlp.gate.weight" {
					ts[i].Shape = []int64{4, 32} // 4-bit words where the block says 8
				}
			}
			return ts
		}),
		"needs model.layers.1.self_attn.q_proj.biases": edit(func(ts []safetensors.TensorInfo) []safetensors.TensorInfo {
			var out []safetensors.TensorInfo
			for _, x := range ts {
				if x.Name != "model.layers.1.self_attn.q_proj.biases" {
					out = append(out, x)
				}
			}
			return out
		}),
		"scales or biases with no": append(toy.Tensors(), safetensors.TensorInfo{Name: "extra.scales", DType: "BF16", Shape: []int64{4, 4}}),
		"in two shards":            append(toy.Tensors(), toy.Tensors()[0]),
	} {
		if _, err := mlx.Size(q, ts); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

func TestParseConfig(t *testing.T) {
	q, err := mlx.ParseConfig(toy.Config())
	if err != nil || q.Default != (mlx.Params{Bits: 4, GroupSize: 64, Mode: "affine"}) {
		t.Fatalf("%+v %v", q, err)
	}
	if p, ok := q.For("model.layers.1.mlp.gate"); !ok || p.Bits != 8 {
		t.Errorf("router override: %+v", p)
	}
	if q, err := mlx.ParseConfig([]byte(`{"hidden_size": 8}`)); q != nil || err != nil {
		t.Errorf("unquantized: %+v %v", q, err)
	}
	if q, err := mlx.ParseConfig([]byte(`{"quantization_config": {"quant_method": "fp8"}}`)); q != nil || err != nil {
		t.Errorf("another method's block: %+v %v", q, err)
	}
	q, err = mlx.ParseConfig([]byte(`{"quantization": {"group_size": 32, "bits": 4, "mode": "mxfp4", "lm_head": false, "model.embed_tokens": {"group_size": 32, "bits": 8}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := q.For("lm_head"); ok {
		t.Error("lm_head: false should leave it unquantized")
	}
	if p, _ := q.For("model.embed_tokens"); p.Mode != "mxfp4" || p.Bits != 8 || p.HasBias() {
		t.Errorf("override inherits the mode: %+v", p)
	}
	for in, want := range map[string]string{
		`{"quantization": {"group_size": 64}}`:                                "field quantization.bits: missing",
		`{"quantization": {"group_size": 64, "bits": 12}}`:                    "field quantization.bits: expected 1 to 8",
		`{"quantization": {"group_size": 48, "bits": 4}}`:                     "field quantization.group_size: expected a power of two",
		`{"quantization": {"group_size": 64, "bits": 4, "mode": "q4"}}`:       "field quantization.mode",
		`{"quantization": {"group_size": 64, "bits": 4, "a.b": 3}}`:           "field quantization.a.b: expected an object",
		`{"quantization": {"group_size": 64, "bits": 4, "a.b": {"bits": 4}}}`: "field quantization.a.b.group_size: missing",
		`{"quantization": [1]}`:                                               "field quantization: expected an object",
	} {
		if _, err := mlx.ParseConfig([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
}
