package modeltree

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLinearsAreStored: every Linear module of every testdata config has
// its weight among the stored tensors, with [out, in] as the stored shape
// when unquantized, and the count agrees with the tensors; fused experts
// and parameter routers are absent.
func TestLinearsAreStored(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.config.json")
	if len(files) < 20 {
		t.Fatalf("%d configs in testdata", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".config.json")
		inv := load(t, name)
		groups := map[string]*Group{}
		for i := range inv.Groups {
			groups[inv.Groups[i].Pattern] = &inv.Groups[i]
		}
		if len(inv.Linears) == 0 {
			t.Errorf("%s: no Linear modules", name)
		}
		for _, l := range inv.Linears {
			g := groups[l.Pattern+".weight"]
			if g == nil {
				g = groups[l.Pattern+".weight_packed"]
			}
			if g == nil {
				t.Errorf("%s: Linear %s has no stored weight", name, l.Pattern)
				continue
			}
			if g.Count != l.Count || g.Expert != l.Expert || g.Component != l.Component {
				t.Errorf("%s: Linear %s: count/expert/component %d/%v/%s, tensor %d/%v/%s", name, l.Pattern,
					l.Count, l.Expert, l.Component, g.Count, g.Expert, g.Component)
			}
			if g.Role == Plain && (len(g.Shape) != 2 || g.Shape[0] != l.Out || g.Shape[1] != l.In) {
				t.Errorf("%s: Linear %s [%d, %d] stored as %v", name, l.Pattern, l.Out, l.In, g.Shape)
			}
		}
	}
	for _, l := range load(t, "openai__gpt-oss-20b").Linears {
		if l.Expert || strings.Contains(l.Pattern, "router") {
			t.Errorf("gpt-oss: %s is a fused expert tensor or a parameter router, not nn.Linear", l.Pattern)
		}
	}
	for _, l := range load(t, "moonshotai__Kimi-K3").Linears {
		if strings.HasSuffix(l.Pattern, "block_sparse_moe.gate") {
			t.Errorf("K3: %s is KimiMoEGate, a parameter, not nn.Linear", l.Pattern)
		}
	}
}
