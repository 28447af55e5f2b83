package hubtest

import (
	"dossier/generator/safetensors"
	"fmt"
	"strconv"
	"testing"

	"dossier/generator/modeltree"
)

// Kimi-K3 as published (reference/k3-figures.md and the shipped snapshot
// data/hub/moonshotai/Kimi-K3/snapshot.json): 96 shards named
// model-00001-of-000096.safetensors, 497,220 tensors holding
// 1,560,860,324,864 bytes (the index's metadata.total_size), 96 files
// summing to 1,560,936,091,448 bytes, so 75,766,584 bytes of prefixes and
// headers, and a 59,764,096-byte index, at commit K3Revision.
const (
	K3ID          = "moonshotai/Kimi-K3"
	K3Revision    = "9f62e4e9fffbd0a83ddd60e1c209d828994b3569"
	K3Shards      = 96
	K3Tensors     = 497_220
	K3TensorBytes = 1_560_860_324_864
	K3HeaderBytes = 75_766_584
	K3ShardBytes  = K3TensorBytes + K3HeaderBytes // 1,560,936,091,448
	K3IndexBytes  = 59_764_096
)

// K3 is moonshotai/Kimi-K3 at K3Revision as the Hub serves it, rebuilt
// from its config.json (pass testdata/configs/moonshotai__Kimi-K3.json
// at the repository root): the exact tensor list of the checkpoint from
// modeltree, dealt in order into K3Shards shards of nearly equal bytes
// with the real names (five-digit index, six-digit total); model info
// with the real sha and the Hub's census (logical parameters per dtype);
// configJSON served byte for byte as config.json; and
// model.safetensors.index.json laid out as Python's json.dump with
// indent 2 writes it, which comes to exactly K3IndexBytes.
//
// Every shard header carries {"__metadata__":{"format":"pt"}}, as
// save_pretrained writes. Which tensor sits in which shard, and in what
// order, is not published, so the compact header JSON here is about
// 105 kB short of the real total; the headers are padded with spaces
// (Repo.HeaderBytes) so that 8 + N over the 96 shards is exactly
// K3HeaderBytes and the shards sum to K3ShardBytes, the listing's figure.
// Data bytes are never materialized: a shard serves its header and then
// zeros, only over the Range asked for.
//
// The listing holds config.json, the index and the shards, the 98 files
// the shipped snapshot records. K3 fails tb if configJSON does not
// reproduce K3's tensor count and bytes.
func K3(tb testing.TB, configJSON []byte) *Repo {
	tb.Helper()
	inv, err := modeltree.FromConfig(configJSON, nil)
	if err != nil {
		tb.Fatalf("hubtest.K3: %v", err)
	}
	if n, bytes := inv.Count(), inv.TensorBytes(); n != K3Tensors || bytes != K3TensorBytes {
		tb.Fatalf("hubtest.K3: the config gives %d tensors of %d bytes; Kimi-K3 has %d of %d", n, bytes, K3Tensors, K3TensorBytes)
	}
	ts := make([]Tensor, len(inv.Tensors))
	sizes := make([]int64, len(inv.Tensors))
	for i := range inv.Tensors {
		t := &inv.Tensors[i]
		ts[i] = Tensor{Name: t.Name, DType: t.DType, Shape: t.Shape}
		sizes[i] = t.Bytes()
	}
	files := ShardFiles(SplitBytes(ts, sizes, K3Shards), 5, 6)
	for i := range files {
		files[i].Metadata = map[string]string{"format": "pt"}
	}
	files = append(files,
		File{Path: "config.json", Content: configJSON},
		File{Path: "model.safetensors.index.json", Content: PythonIndex(files, K3TensorBytes)})
	return &Repo{ID: K3ID, SHA: K3Revision, Census: inv.Census(), Files: files, HeaderBytes: K3HeaderBytes}
}

// SplitBytes deals tensors, in order, into n parts of nearly equal bytes
// (sizes[i] is tensor i's), as a writer with a maximum shard size does.
// Every part gets at least one tensor when there are n or more.
func SplitBytes(ts []Tensor, sizes []int64, n int) [][]Tensor {
	var total int64
	for _, s := range sizes {
		total += s
	}
	parts := make([][]Tensor, 0, n)
	lo := 0
	var acc int64
	for i := range ts {
		acc += sizes[i]
		k := int64(len(parts) + 1)
		left := len(ts) - i - 1    // tensors after this one
		need := n - len(parts) - 1 // parts still to fill after this one
		if len(parts) < n-1 && (acc >= total*k/int64(n) || left == need) {
			parts = append(parts, ts[lo:i+1])
			lo = i + 1
		}
	}
	parts = append(parts, ts[lo:])
	for len(parts) < n {
		parts = append(parts, ts[len(ts):]) // empty, not nil: still a safetensors file
	}
	return parts
}

// PythonIndex is model.safetensors.index.json for the files' tensors as
// Python's json.dump(index, f, indent=2) writes it, without a trailing
// newline: for Kimi-K3 that layout comes to exactly K3IndexBytes. The key
// order of the real file is not published (it does not change the size);
// the entries follow the files, as a dict filled shard by shard does.
func PythonIndex(files []File, totalSize int64) []byte {
	type entry struct {
		name string
		file int
	}
	var entries []entry
	size := 0
	for i, f := range files {
		for _, t := range f.Tensors {
			entries = append(entries, entry{t.Name, i})
			size += len(t.Name) + len(f.Path) + 16
		}
	}
	b := make([]byte, 0, size+128)
	b = append(b, "{\n  \"metadata\": {\n    \"total_size\": "...)
	b = strconv.AppendInt(b, totalSize, 10)
	b = append(b, "\n  },\n  \"weight_map\": {"...)
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = safetensors.AppendQuoted(b, e.name)
		b = append(b, ": "...)
		b = safetensors.AppendQuoted(b, files[e.file].Path)
	}
	if len(entries) > 0 {
		b = append(b, "\n  "...)
	}
	return append(b, "}\n}"...)
}

// SyntheticK3 is a repository of Kimi-K3's scale and naming, not its
// exact tensors: 92 MoE layers of 896 experts with compressed-tensors
// packed payloads and uint8 group scales, topped up with BF16 and F32
// tensors to exactly K3Tensors, dealt into K3Shards shards, with an index
// and a config. Use the analytic model tree instead when it reproduces
// K3 exactly: K3 does, for Kimi-K3 itself.
func SyntheticK3(id string) *Repo {
	ts := make([]Tensor, 0, K3Tensors)
	projs := []struct {
		name    string
		out, in int64
	}{{"gate_proj", 3072, 3584}, {"up_proj", 3072, 3584}, {"down_proj", 3584, 3072}}
	for l := 1; l <= 92; l++ {
		for e := 0; e < 896; e++ {
			for _, p := range projs {
				base := fmt.Sprintf("language_model.model.layers.%d.mlp.latent_experts.%d.%s.", l, e, p.name)
				ts = append(ts,
					Tensor{base + "weight_packed", "U8", []int64{p.out, p.in / 2}},
					Tensor{base + "weight_scale", "U8", []int64{p.out, p.in / 32}})
			}
		}
	}
	for i := 0; len(ts) < K3Tensors; i++ {
		l := i / 28
		switch i % 4 {
		case 0:
			ts = append(ts, Tensor{fmt.Sprintf("language_model.model.layers.%d.self_attn.extra_%d.weight", l, i), "BF16", []int64{7168, 512}})
		case 1:
			ts = append(ts, Tensor{fmt.Sprintf("language_model.model.layers.%d.input_layernorm.extra_%d.weight", l, i), "BF16", []int64{7168}})
		case 2:
			ts = append(ts, Tensor{fmt.Sprintf("language_model.model.layers.%d.mlp.shared_experts.extra_%d.weight", l, i), "BF16", []int64{2048, 7168}})
		default:
			ts = append(ts, Tensor{fmt.Sprintf("language_model.model.layers.%d.mlp.gate.extra_%d.e_score_correction_bias", l, i), "F32", []int64{896}})
		}
	}
	files := ShardFiles(Split(ts, K3Shards), 5, 6)
	files = append(files,
		File{Path: "config.json", Content: []byte(`{"architectures":["KimiK3ForConditionalGeneration"],"model_type":"kimi_k3","text_config":{"num_hidden_layers":93}}`)},
		File{Path: "README.md", Content: []byte("# Kimi-K3 (synthetic)\n")})
	return &Repo{ID: id, Files: files, Index: true, Census: StoredCensus(files)}
}
