package modeltree

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGemma4ActiveAndGlobalLayers: google/gemma-4-26B-A4B's card states
// 3.8B active parameters; its five global layers have no v_proj (K=V) and
// project to 2 KV heads × 512, its sliding layers to 8 × 256.
func TestGemma4ActiveAndGlobalLayers(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "gemma4", "google__gemma-4-26B-A4B.config.json"))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := FromConfig(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Text active: every text parameter but the 120 unrouted experts' of
	// each of the 30 layers (gate_up 2·704 and down 704 rows of 2816).
	text := inv.ParamsByComponent()[CompText]
	wantActive := text - 30*120*3*704*2816
	if got := inv.ActiveParams(true); got != wantActive {
		t.Errorf("active %d, want %d", got, wantActive)
	}
	if d := wantActive - 3_800_000_000; d > 50_000_000 || d < -50_000_000 {
		t.Errorf("active %d, card 3.8B", wantActive)
	}
	shapes := map[string][]int64{}
	for ts := range inv.All() {
		shapes[ts.Name] = ts.Shape
	}
	p := "model.language_model.layers."
	for name, want := range map[string][]int64{
		p + "5.self_attn.k_proj.weight": {2 * 512, 2816},
		p + "5.self_attn.q_proj.weight": {16 * 512, 2816},
		p + "0.self_attn.k_proj.weight": {8 * 256, 2816},
		p + "0.self_attn.v_proj.weight": {8 * 256, 2816},
	} {
		if got := shapes[name]; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	if _, ok := shapes[p+"5.self_attn.v_proj.weight"]; ok {
		t.Error("a K=V global layer has a v_proj")
	}
}
