package cli

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeShard writes a safetensors file of zeros with the named BF16
// tensors, in order.
func writeShard(t *testing.T, path string, tensors [][2]any) {
	t.Helper()
	header := map[string]any{}
	var off int64
	for _, tn := range tensors {
		shape := tn[1].([]int64)
		n := int64(2)
		for _, d := range shape {
			n *= d
		}
		header[tn[0].(string)] = map[string]any{"dtype": "BF16", "shape": shape, "data_offsets": []int64{off, off + n}}
		off += n
	}
	js, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
	b = append(append(b, js...), make([]byte, off)...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPlanInfersAnUnknownFamilyFromLocalHeaders: a directory holding an
// unknown family's config.json and its shards is sized from both — the
// layer kinds from the tensors (a Mamba-2 mixer, an attention layer, an
// MLP-only layer), the cache and state from the config's widths — and the
// layout facts say they were inferred from tensor shapes.
func TestPlanInfersAnUnknownFamilyFromLocalHeaders(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"model_type":"hybrid_unknown","hidden_size":16,"num_hidden_layers":3,"num_attention_heads":2,"num_key_value_heads":1,
		"head_dim":8,"vocab_size":32,"max_position_embeddings":1024,"ssm_state_size":4,"conv_kernel":4,"mamba_num_heads":2,
		"mamba_head_dim":8,"n_groups":1}`
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	writeShard(t, filepath.Join(dir, "model.safetensors"), [][2]any{
		{"model.embed_tokens.weight", []int64{32, 16}},
		{"model.layers.0.mixer.in_proj.weight", []int64{2*16 + 2*4 + 2, 16}},
		{"model.layers.0.mixer.conv1d.weight", []int64{16 + 2*4, 1, 4}},
		{"model.layers.0.mixer.A_log", []int64{2}},
		{"model.layers.0.mixer.D", []int64{2}},
		{"model.layers.0.mixer.out_proj.weight", []int64{16, 16}},
		{"model.layers.1.self_attn.q_proj.weight", []int64{16, 16}},
		{"model.layers.1.self_attn.k_proj.weight", []int64{8, 16}},
		{"model.layers.1.self_attn.v_proj.weight", []int64{8, 16}},
		{"model.layers.1.self_attn.o_proj.weight", []int64{16, 16}},
		{"model.layers.2.mlp.up_proj.weight", []int64{32, 16}},
		{"model.layers.2.mlp.down_proj.weight", []int64{16, 32}},
	})
	code, doc, stderr := plan(t, dir)
	if code != 3 || doc == nil {
		t.Fatalf("exit %d (want 3: no module tree for the family): %s", code, stderr)
	}
	set := &doc.Facts
	wantInt(t, set, "arch.layers_state_space", 1)
	wantInt(t, set, "arch.layers_full_attention", 1)
	if f := set.Get("arch.layers_state_space"); !strings.Contains(f.Derivation, "inferred from tensor shapes") {
		t.Errorf("derivation %q does not say the layout was inferred", f.Derivation)
	}
	wantInt(t, set, "kv.bytes_per_token", 1*2*1*8*2)
	// 2 heads × 8 × state 4 × 4 B + (4 − 1) × (16 + 2 × 1 × 4) × 2 B.
	wantInt(t, set, "state.bytes_per_sequence", 2*8*4*4+3*(16+2*4)*2)

	// Without the shards the same config leaves the layout unknown.
	if err := os.Remove(filepath.Join(dir, "model.safetensors")); err != nil {
		t.Fatal(err)
	}
	_, doc, _ = plan(t, dir)
	wantUnknown(t, &doc.Facts, "kv.bytes_per_token", "unsupported family hybrid_unknown")

	// A shard whose header is broken is bad input naming the file.
	if err := os.WriteFile(filepath.Join(dir, "bad.safetensors"), []byte{200, 0, 0, 0, 0, 0, 0, 0, '{'}, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := plan(t, dir); code != 1 || !strings.Contains(stderr, "bad.safetensors") {
		t.Errorf("broken shard: exit %d, %s", code, stderr)
	}
}
