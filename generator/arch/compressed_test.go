package arch

import (
	"strings"
	"testing"
)

// DeepSeek-V4-Flash's cache by hand (sliding_window 128, head_dim 512,
// index_head_dim 128) for one layer of each ratio, below and above the
// window: layer 0 keeps the window only, layer 2 (ratio 4) also one row and
// one indexer key per 4 tokens, layer 3 (ratio 128) one row per 128 tokens.
func TestCompressedKVByHand(t *testing.T) {
	a := load(t, "deepseek-ai__DeepSeek-V4-Flash.json")
	c := a.Compressed
	if c == nil {
		t.Fatalf("no compressed cache read: %v", a.Missing)
	}
	if a.LayerKinds != nil || !strings.Contains(a.Missing["layer_kinds"], "compress_ratios") {
		t.Errorf("layer kinds %v, reason %q: want none, naming compress_ratios", a.LayerKinds, a.Missing["layer_kinds"])
	}
	if len(c.Ratios) != 43 || c.Window != 128 || c.RowValues != 512 || c.IndexValues != 128 {
		t.Fatalf("%d ratios (want the 43 decoder layers', not the MTP's), window %d, row %d, index %d", len(c.Ratios), c.Window, c.RowValues, c.IndexValues)
	}
	for _, tc := range []struct {
		layer int
		n     int64
		want  int64
	}{
		{0, 1000, 128 * 512},                      // window only
		{0, 100, 100 * 512},                       // shorter than the window
		{2, 1000, (128+250)*512 + 250*128},        // window + 1000/4 rows + 1000/4 indexer keys
		{2, 100, (100+25)*512 + 25*128},           //
		{3, 1000, (128 + 7) * 512},                // window + ⌊1000/128⌋ rows
		{3, 127, 127 * 512},                       // no full 128-token window compressed yet
		{42, 131072, (128+32768)*512 + 32768*128}, // the last decoder layer is ratio 4
	} {
		if got := c.ValuesAt(tc.layer, tc.n); got != tc.want {
			t.Errorf("layer %d (ratio %d) at %d tokens: %d values, want %d", tc.layer, c.Ratios[tc.layer], tc.n, got, tc.want)
		}
	}
	// Compressor state: coff·ratio positions × (kv + score) of coff·dim F32.
	for layer, want := range map[int]int64{0: 0, 2: 2*4*2*2*512 + 2*4*2*2*128, 3: 128 * 2 * 512} {
		if got := c.StateValues(layer); got != want {
			t.Errorf("layer %d state %d values, want %d", layer, got, want)
		}
	}
	// Pro starts with two ratio-128 layers.
	if p := load(t, "deepseek-ai__DeepSeek-V4-Pro.json").Compressed; p == nil || len(p.Ratios) != 61 || p.Ratios[0] != 128 || p.ValuesAt(0, 1000) != (128+7)*512 {
		t.Errorf("Pro: %+v", p)
	}
}

func TestCompressedKVBadInput(t *testing.T) {
	base := `"model_type":"deepseek_v4","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":2,"head_dim":32,"index_head_dim":16,"vocab_size":10,"max_position_embeddings":100`
	for in, want := range map[string]string{
		`{` + base + `,"sliding_window":8,"compress_ratios":[0,-4]}`: "field compress_ratios[1]",
		`{` + base + `,"sliding_window":8,"compress_ratios":[0]}`:    "field compress_ratios: 1 entries for 2 layers",
		`{` + base + `,"sliding_window":8,"compress_ratios":"4"}`:    "field compress_ratios: expected a list",
	} {
		if _, err := Parse([]byte(in), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	// Valid configs the sizing cannot read stay unknown with the field named.
	for in, want := range map[string]string{
		`{` + base + `,"sliding_window":8,"compress_ratios":[0,8]}`:                                                 "field compress_ratios[1]: ratio 8",
		`{` + base + `,"compress_ratios":[0,4]}`:                                                                    "field sliding_window",
		`{` + strings.Replace(base, `"index_head_dim":16,`, "", 1) + `,"sliding_window":8,"compress_ratios":[0,4]}`: "field index_head_dim",
	} {
		a, err := Parse([]byte(in), nil)
		if err != nil {
			t.Errorf("%s: %v, want a valid config", in, err)
			continue
		}
		if a.Compressed != nil || !strings.Contains(a.Missing["layer_kinds"], want) {
			t.Errorf("%s: compressed %v, reason %q, want %q", in, a.Compressed != nil, a.Missing["layer_kinds"], want)
		}
	}
}
