package arch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dossier/generator/internal/hfconfig"
	"dossier/generator/modeltree"
	"dossier/generator/snapshot"
)

var hfconfigStandard = hfconfig.Standard

// TestInferredEqualsTheFamilysOwn: for every registry family's real
// config, the checkpoint's tensors (names and shapes as the family's
// module tree lays them out, MTP and vision towers included) are read back
// by Infer, and what it infers equals what config.json states: layer
// kinds, the cache every attending layer adds per token, the conv state of
// recurrent layers, the routed experts and which layers route, and the
// head dim where a per-head norm shows it.
func TestInferredEqualsTheFamilysOwn(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "modeltree", "testdata", "*", "*.config.json"))
	if len(paths) < 30 {
		t.Fatalf("%d family configs", len(paths))
	}
	seen := map[string]int{} // what the fixtures exercised
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Parse(b, nil)
			if err != nil {
				t.Fatal(err)
			}
			inv, err := modeltree.FromConfig(b, nil)
			if err != nil {
				t.Fatal(err)
			}
			var ts []TensorShape
			for x := range inv.All() {
				ts = append(ts, TensorShape{Name: x.Name, Shape: x.Shape})
			}
			in, err := Infer(ts)
			if a.Compressed != nil {
				// The config's cache is no layer kind: the shapes must not
				// claim one either.
				if err == nil || !strings.Contains(err.Error(), "compress_ratios") {
					t.Fatalf("compressed attention inferred as %v (err %v), want a refusal naming compress_ratios", in.LayerKinds, err)
				}
				seen["compressed"]++
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(in.LayerKinds)) != a.Layers {
				t.Fatalf("%d layers inferred under %s, config states %d", len(in.LayerKinds), in.Prefix, a.Layers)
			}
			for i, k := range a.LayerKinds {
				if k == Sliding {
					k = Full // the shapes do not tell a window
				}
				if in.LayerKinds[i] != k {
					t.Fatalf("layer %d: inferred %s, config %s", i, in.LayerKinds[i], k)
				}
			}
			for i, v := range in.KVValues {
				want := int64(0)
				if a.LayerKinds[i].Attends() {
					want = a.KVShapeOf(a.LayerKinds[i]).Values()
					if a.Attention == MLA {
						want = a.KVLoraRank + a.QKRopeDim + a.IndexHeadDim
					}
				}
				if v != want {
					t.Fatalf("layer %d caches %d values per token by its shapes, %d by config", i, v, want)
				}
			}
			if a.AttentionLayers() > 0 && in.Attention != a.Attention {
				t.Errorf("attention %s, config %s", in.Attention, a.Attention)
			}
			for i, k := range a.LayerKinds {
				want := int64(0)
				switch k {
				case Linear:
					want = (a.LinearConvKernel - 1) * (2*a.LinearKHeads*a.LinearKHeadDim + a.LinearVHeads*a.LinearVHeadDim)
				case SSM:
					want = (a.SSMConvKernel - 1) * (a.SSMInner + 2*a.SSMGroups*a.SSMStateSize)
					if a.SSMHeads == 0 { // Mamba-1 convolves x alone
						want = (a.SSMConvKernel - 1) * a.SSMInner
					}
				case Conv:
					want = (a.ConvCache - 1) * a.ConvChannels
				}
				if in.ConvValues[i] != want {
					t.Fatalf("layer %d (%s): conv state %d by shapes, %d by config", i, k, in.ConvValues[i], want)
				}
			}
			if in.RoutedExperts != a.RoutedExperts || !slices.Equal(in.MoELayers, a.MoELayers) {
				t.Errorf("experts %d on %d layers, config %d on %d", in.RoutedExperts, len(in.MoELayers), a.RoutedExperts, len(a.MoELayers))
			}
			if in.HeadDim != 0 && in.HeadDim != a.HeadDim {
				t.Errorf("head_dim %d by a per-head norm, config %d", in.HeadDim, a.HeadDim)
			}
			for _, k := range in.LayerKinds {
				seen[string(k)]++
			}
			seen[string(in.Attention)]++
			if in.RoutedExperts > 0 {
				seen["moe"]++
			}
			if in.HeadDim > 0 {
				seen["head_dim"]++
			}
		})
	}
	for _, k := range []string{"full", "linear", "ssm", "conv", "ffn", "mla", "gqa", "moe", "head_dim", "compressed"} {
		if seen[k] == 0 {
			t.Errorf("no fixture exercised %s: %v", k, seen)
		}
	}
}

func TestInferOddLayouts(t *testing.T) {
	ts := []TensorShape{
		{"model.embed_tokens.weight", []int64{100, 16}},
		// LFM2: a gated short convolution, then attention with fused-free K/V.
		{"model.layers.0.conv.in_proj.weight", []int64{48, 16}},
		{"model.layers.0.conv.conv.weight", []int64{16, 1, 3}},
		{"model.layers.0.conv.out_proj.weight", []int64{16, 16}},
		{"model.layers.1.self_attn.q_proj.weight", []int64{16, 16}},
		{"model.layers.1.self_attn.k_proj.weight", []int64{8, 16}},
		{"model.layers.1.self_attn.v_proj.weight", []int64{8, 16}},
		{"model.layers.1.self_attn.q_layernorm.weight", []int64{4}},
		// Phi-3's fused projection: o_proj's input is q's width.
		{"model.layers.2.self_attn.qkv_proj.weight", []int64{32, 16}},
		{"model.layers.2.self_attn.o_proj.weight", []int64{16, 16}},
		// A vision tower with more layers is not the decoder.
		{"vision_tower.encoder.layers.0.self_attn.k_proj.weight", []int64{8, 8}},
		{"vision_tower.encoder.layers.1.self_attn.k_proj.weight", []int64{8, 8}},
		{"vision_tower.encoder.layers.2.self_attn.k_proj.weight", []int64{8, 8}},
		{"vision_tower.encoder.layers.3.self_attn.k_proj.weight", []int64{8, 8}},
	}
	in, err := Infer(ts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in.LayerKinds, []LayerKind{Conv, Full, Full}) || in.Prefix != "model.layers." {
		t.Fatalf("kinds %v under %s", in.LayerKinds, in.Prefix)
	}
	if !slices.Equal(in.KVValues, []int64{0, 16, 16}) || in.ConvValues[0] != 2*16 || in.HeadDim != 4 || in.KVValuesPerToken() != 32 {
		t.Errorf("kv %v conv %v head_dim %d", in.KVValues, in.ConvValues, in.HeadDim)
	}
	if in.Missing["sliding"] == "" {
		t.Error("which layers slide is not in the shapes: it must say so")
	}
	if _, err := Infer([]TensorShape{{"lm_head.weight", []int64{4, 4}}}); err == nil {
		t.Error("no layers: want an error")
	}
}

// TestUnknownFamilyFromItsTensors: every registry family's config, renamed
// to a model_type dossier does not know, parsed with its checkpoint's
// tensors: where config.json lists no layer kinds, they come from the
// tensors ("inferred from tensor shapes") and equal the family's own; the
// cache the tensors show agrees with the config's head counts.
func TestUnknownFamilyFromItsTensors(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "modeltree", "testdata", "*", "*.config.json"))
	inferred := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		own, err := Parse(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		inv, err := modeltree.FromConfig(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		var ts []TensorShape
		for x := range inv.All() {
			ts = append(ts, TensorShape{Name: x.Name, Shape: x.Shape})
		}
		var cfg map[string]any
		if err := json.Unmarshal(hfconfigStandard(b), &cfg); err != nil {
			t.Fatal(err)
		}
		cfg["model_type"] = "unknown_" + own.Family
		if tc, ok := cfg["text_config"].(map[string]any); ok {
			tc["model_type"] = "unknown_" + own.Family
		}
		renamed, _ := json.Marshal(cfg)
		a, err := ParseWithTensors(renamed, nil, ts)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		if a.FamilyKnown {
			t.Fatalf("%s: renamed family still known", filepath.Base(p))
		}
		if !strings.HasPrefix(a.LayoutSource, InferredSource) {
			continue // the config lists its kinds, or a window leaves them open
		}
		inferred++
		if !slices.Equal(a.LayerKinds, own.LayerKinds) {
			t.Errorf("%s: inferred %v, the family's own %v", filepath.Base(p), kindString(a.LayerKinds), kindString(own.LayerKinds))
		}
		if r := a.Missing["kv_shape"]; r != "" && own.Missing["kv_shape"] == "" {
			t.Errorf("%s: %s", filepath.Base(p), r)
		}
	}
	if inferred < 15 {
		t.Errorf("only %d families' layouts were inferred", inferred)
	}
}

func kindString(ks []LayerKind) string {
	var b strings.Builder
	for _, k := range ks {
		b.WriteString(string(k)[:1])
	}
	return b.String()
}

// TestShapesWanted: only a family the registry does not know keeps its
// shapes, and what a snapshot kept parses back to the same layout Infer
// reads from the tensors themselves.
func TestShapesWanted(t *testing.T) {
	llama, err := os.ReadFile(filepath.Join("..", "modeltree", "testdata", "llama", "meta-llama__Llama-3.1-8B.config.json"))
	if err != nil {
		t.Fatal(err)
	}
	unknown := []byte(strings.Replace(string(llama), `"model_type": "llama"`, `"model_type": "acme_fork"`, 1))
	if string(unknown) == string(llama) {
		t.Fatal("model_type not replaced")
	}
	if ShapesWanted(llama) || !ShapesWanted(unknown) || ShapesWanted([]byte(`{"num_hidden_layers": -1}`)) {
		t.Fatalf("wanted: llama %v, acme_fork %v", ShapesWanted(llama), ShapesWanted(unknown))
	}
	inv, err := modeltree.FromConfig(llama, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := &snapshot.Snapshot{Config: unknown, Tensors: map[string]string{}}
	for x := range inv.All() {
		snap.Tensors[x.Name] = snapshot.FormatShape(x.Shape)
	}
	a, err := ParseSnapshot(snap)
	if err != nil {
		t.Fatal(err)
	}
	// Llama 3.1 8B by hand: 32 full layers, each caching K and V of 8
	// KV heads × 128.
	if !strings.HasPrefix(a.LayoutSource, InferredSource) || a.Count(Full) != 32 || a.KVShapeOf(Full).Values() != 2*8*128 {
		t.Fatalf("layout %q, %d full layers, %d KV values per token and layer", a.LayoutSource, a.Count(Full), a.KVShapeOf(Full).Values())
	}
	snap.Tensors["model.norm.weight"] = "4096x"
	if _, err := ParseSnapshot(snap); err == nil || !strings.Contains(err.Error(), "field tensors.model.norm.weight") {
		t.Fatalf("a bad shape: %v", err)
	}
}
