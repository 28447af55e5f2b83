package modeltree

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPublishedTotals reproduces every published figure the registry
// cites, from the real config.json in testdata.
func TestPublishedTotals(t *testing.T) {
	n := 0
	for _, f := range Families() {
		for _, c := range f.Checks {
			n++
			t.Run(f.Name+"/"+c.Repo, func(t *testing.T) {
				data, err := os.ReadFile(filepath.Join("testdata", c.Config))
				if err != nil {
					t.Fatal(err)
				}
				inv, err := FromConfig(data, nil)
				if err != nil {
					t.Fatal(err)
				}
				if inv.Family != f.Name && !contains(f.ModelTypes, inv.Family) {
					t.Errorf("family %s, want %s", inv.Family, f.Name)
				}
				got := inv.TotalParams()
				if c.NonEmbedding {
					got -= embedAndHead(inv)
				}
				if d := got - c.Params; d > c.Tolerance || d < -c.Tolerance {
					t.Errorf("total %d, published %s (%d ± %d, %s)", got, c.Published, c.Params, c.Tolerance, c.Source)
				}
			})
		}
	}
	if n < 10 {
		t.Errorf("%d published figures checked", n)
	}
}

// TestGroupsMatchNames checks, on every testdata config, that the
// arithmetic aggregates equal sums over the names All spells out, and
// that the names are unique.
func TestGroupsMatchNames(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*/*.config.json")
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
			var params, bytes int64
			count := 0
			seen := map[string]bool{}
			for ts := range inv.All() {
				params += ts.Params
				bytes += ts.Bytes()
				count++
				if seen[ts.Name] {
					t.Fatalf("duplicate tensor %s", ts.Name)
				}
				seen[ts.Name] = true
			}
			if params != inv.TotalParams() || bytes != inv.TensorBytes() || count != inv.Count() {
				t.Errorf("names: %d params %d bytes %d tensors; groups: %d, %d, %d", params, bytes, count, inv.TotalParams(), inv.TensorBytes(), inv.Count())
			}
		})
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// embedAndHead is the input embedding plus an untied output head.
func embedAndHead(inv *Inventory) int64 {
	var n int64
	for i := range inv.Groups {
		if g := &inv.Groups[i]; g.Component == CompText && (g.Embedding || g.Head) {
			n += g.Count * g.Params
		}
	}
	return n
}
