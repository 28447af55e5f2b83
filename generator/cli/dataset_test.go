package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"dossier/generator/dataset"
	"dossier/generator/facts"
)

// TestDatasetReproducesFacts builds the fixture site, writes its dataset
// and reads three headline facts of three models back from the Parquet
// files, against the facts.json files of the same build.
func TestDatasetReproducesFacts(t *testing.T) {
	root := newSite(t)
	out := filepath.Join(t.TempDir(), "public")
	if code, o, e := run("--source", root, "build", "--destination", out); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, o, e)
	}
	if code, o, e := run("--source", root, "dataset", "--from", out); code != 0 {
		t.Fatalf("dataset: exit %d\n%s%s", code, o, e)
	}
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	factRows, err := dataset.Decode[dataset.FactRow](read(dataset.FactsPath))
	if err != nil {
		t.Fatal(err)
	}
	modelRows, err := dataset.Decode[dataset.ModelRow](read(dataset.ModelsPath))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]dataset.FactRow{}
	for _, r := range factRows {
		got[r.Model+" "+r.Key] = r
	}
	perModel := map[string]dataset.ModelRow{}
	for _, r := range modelRows {
		perModel[r.Model] = r
	}
	for _, tc := range []struct{ slug, model, key string }{
		{"kimi-k3", "moonshotai/Kimi-K3", "params.total"},
		{"llama-3-1-8b", "meta-llama/Llama-3.1-8B", "kv.bytes_per_token"},
		{"qwen3-30b-a3b", "Qwen/Qwen3-30B-A3B", "bytes.checkpoint"},
	} {
		var doc struct {
			Facts facts.Set `json:"facts"`
		}
		if err := json.Unmarshal(read("models/"+tc.slug+"/facts.json"), &doc); err != nil {
			t.Fatal(err)
		}
		f := doc.Facts.Get(tc.key)
		want, ok := f.Float()
		if !ok {
			t.Fatalf("%s %s: facts.json has no number (%v)", tc.model, tc.key, f)
		}
		r, ok := got[tc.model+" "+tc.key]
		if !ok || r.ValueInt == nil || float64(*r.ValueInt) != want || r.Display != f.Display {
			t.Errorf("%s %s: facts.parquet has %+v, facts.json %v (%s)", tc.model, tc.key, r, want, f.Display)
		}
	}
	if r := perModel["moonshotai/Kimi-K3"]; r.ParamsTotal == nil || *r.ParamsTotal != *got["moonshotai/Kimi-K3 params.total"].ValueInt {
		t.Errorf("models.parquet K3 row: %+v", r)
	}
	if len(perModel) < 3 {
		t.Errorf("models.parquet has %d models", len(perModel))
	}
}
