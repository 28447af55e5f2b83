package arch

import (
	"strings"
	"testing"
)

// Llama-3.3-Nemotron-Super-49B: 80 block configs, 31 with a no-op
// attention (no cache); the 49 others have 64 / 8 = 8 KV heads although
// the top-level num_key_value_heads is null.
func TestNemotronNASBlocks(t *testing.T) {
	a := load(t, "nvidia__Llama-3_3-Nemotron-Super-49B-v1.json")
	if a.Count(Full) != 49 || a.Count(FFN) != 31 || a.KVHeads != 8 || a.HeadDim != 128 || a.Hybrid() {
		t.Errorf("full %d ffn %d kv %d head_dim %d hybrid %v", a.Count(Full), a.Count(FFN), a.KVHeads, a.HeadDim, a.Hybrid())
	}
	if a.LayerKinds[6] != FFN || a.LayerKinds[0] != Full {
		t.Errorf("layers 0, 6: %s, %s", a.LayerKinds[0], a.LayerKinds[6])
	}
	a, err := Parse([]byte(`{"model_type":"nemotron-nas","num_hidden_layers":2,"hidden_size":8,"num_attention_heads":4,
		"block_configs":[{"attention":{"n_heads_in_group":2},"ffn":{"ffn_mult":1}},{"attention":{"n_heads_in_group":4},"ffn":{"ffn_mult":1}}]}`), nil)
	if err != nil || a.KVHeads != 0 || !strings.Contains(a.Missing["num_key_value_heads"], "different KV head counts") {
		t.Errorf("differing KV heads: %v, kv %d, %q", err, a.KVHeads, a.Missing["num_key_value_heads"])
	}
	for in, want := range map[string]string{
		`{"model_type":"nemotron-nas","num_hidden_layers":2,"num_attention_heads":4,"block_configs":[{"attention":{"no_op":true}}]}`:          "field block_configs: 1 blocks for 2 layers",
		`{"model_type":"nemotron-nas","num_hidden_layers":1,"num_attention_heads":4,"block_configs":[{"attention":{"n_heads_in_group":-2}}]}`: "field block_configs[0].attention.n_heads_in_group: expected a non-negative integer",
		`{"model_type":"nemotron-nas","num_hidden_layers":1,"num_attention_heads":4,"block_configs":[7]}`:                                     "field block_configs: expected a list of objects",
	} {
		if _, err := Parse([]byte(in), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}
