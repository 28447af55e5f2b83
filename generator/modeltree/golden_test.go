package modeltree

import (
	"bytes"
	"encoding/json"
	goflag "flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = goflag.Bool("update", false, "rewrite testdata/*/*.want.json from the current module trees")

// aggregates is what a module tree says about a checkpoint, as the
// .want.json goldens record it.
type aggregates struct {
	Family            string           `json:"family"`
	Total             int64            `json:"total_params"`
	Census            map[string]int64 `json:"census"`
	StoredElements    map[string]int64 `json:"stored_elements"`
	BytesByDType      map[string]int64 `json:"bytes_by_dtype"`
	TensorBytes       int64            `json:"tensor_bytes"`
	Tensors           int              `json:"tensors"`
	Active            int64            `json:"active_params"`
	ActiveNoEmbedding int64            `json:"active_params_no_embedding"`
	ByComponent       map[string]int64 `json:"params_by_component"`
	ParamsByRole      map[string]int64 `json:"params_by_role"`
	BytesByRole       map[string]int64 `json:"bytes_by_role"`
	RoutedExperts     int              `json:"routed_experts,omitempty"`
	ExpertsPerToken   int              `json:"experts_per_token,omitempty"`
	Quantization      string           `json:"quantization,omitempty"`
	Extras            string           `json:"extras,omitempty"`
}

func aggregatesOf(inv *Inventory) aggregates {
	roles := func(m map[Role]int64) map[string]int64 {
		out := map[string]int64{}
		for r, n := range m {
			out[r.String()] = n
		}
		return out
	}
	return aggregates{
		Family: inv.Family, Total: inv.TotalParams(), Census: inv.Census(), StoredElements: inv.StoredElements(),
		BytesByDType: inv.Bytes(), TensorBytes: inv.TensorBytes(), Tensors: inv.Count(),
		Active: inv.ActiveParams(true), ActiveNoEmbedding: inv.ActiveParams(false), ByComponent: inv.ParamsByComponent(),
		ParamsByRole: roles(inv.ParamsByRole()), BytesByRole: roles(inv.BytesByRole()),
		RoutedExperts: inv.RoutedExperts, ExpertsPerToken: inv.ExpertsPerToken, Quantization: inv.Quantization, Extras: inv.Extras,
	}
}

// TestAggregatesGolden freezes the aggregates of every testdata config in
// its .want.json; -update rewrites them (read the diff before committing).
func TestAggregatesGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*/*.config.json")
	if len(paths) < 30 {
		t.Fatalf("%d configs in testdata", len(paths))
	}
	eachConfig(t, paths, func(t *testing.T, p string, inv *Inventory) {
		got, err := json.MarshalIndent(aggregatesOf(inv), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		want := strings.TrimSuffix(p, ".config.json") + ".want.json"
		if *update {
			if err := os.WriteFile(want, got, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		w, err := os.ReadFile(want)
		if err != nil {
			t.Fatalf("%v (run go test -run TestAggregatesGolden -update)", err)
		}
		if !bytes.Equal(got, w) {
			t.Errorf("%s differs from the module tree's aggregates; run with -update if the change is intended:\n%s", want, got)
		}
	})
}

// eachConfig runs fn on the module tree of every config in paths, each as
// a subtest named after its file.
func eachConfig(t *testing.T, paths []string, fn func(t *testing.T, path string, inv *Inventory)) {
	t.Helper()
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			inv, err := FromConfig(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, p, inv)
		})
	}
}
