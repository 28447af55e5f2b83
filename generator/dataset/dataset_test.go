package dataset_test

import (
	"bytes"
	"testing"

	"dossier/generator/dataset"
	"dossier/generator/facts"
)

func model(name string, params int64, bits float64, family string, unknownKV bool) dataset.Model {
	s := facts.NewSet()
	s.Add(facts.Fact{Key: "params.total", Value: params, Unit: facts.UnitParams, Display: "x", Sources: []string{"hub:census"}, Derivation: "sum of the census"})
	s.Add(facts.Fact{Key: "bits_per_param", Value: bits, Unit: facts.UnitBits, Display: "y"})
	s.Add(facts.Fact{Key: "arch.family", Value: family, Unit: facts.UnitText, Display: family})
	s.Add(facts.Fact{Key: "arch.hybrid", Value: true, Unit: facts.UnitBool, Display: "yes"})
	if unknownKV {
		s.Unknown("kv.bytes_per_token", facts.UnitBytes, "config lacks num_key_value_heads")
	} else {
		s.Add(facts.Fact{Key: "kv.bytes_per_token", Value: int64(27648), Unit: facts.UnitBytes, Display: "27.6 kB"})
	}
	return dataset.Model{Model: name, Revision: "abc", Slug: "s-" + name[len(name)-1:], Title: name, URL: "/models/x/", Facts: s}
}

func TestFactsRoundTrip(t *testing.T) {
	// 2.78 T does not fit a float64 mantissa exactly at every value, so
	// integers are kept in value_int too.
	const big = int64(1)<<53 + 1
	models := []dataset.Model{
		model("z/last", big, 4.49, "kimi_linear", false),
		model("a/first", 8030261248, 16, "llama", true),
	}
	b, err := dataset.Encode(dataset.FactRows(models))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := dataset.Decode[dataset.FactRow](b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 10 {
		t.Fatalf("%d rows, want 10 (5 facts × 2 models)", len(rows))
	}
	if rows[0].Model != "a/first" || rows[9].Model != "z/last" {
		t.Errorf("rows not sorted by model: first %s, last %s", rows[0].Model, rows[9].Model)
	}
	byKey := map[string]dataset.FactRow{}
	for _, r := range rows {
		byKey[r.Model+" "+r.Key] = r
	}
	if r := byKey["z/last params.total"]; r.ValueInt == nil || *r.ValueInt != big {
		t.Errorf("params.total = %v, want exactly %d", r.ValueInt, big)
	}
	if r := byKey["z/last params.total"]; len(r.Sources) != 1 || r.Sources[0] != "hub:census" || r.Derivation != "sum of the census" {
		t.Errorf("provenance lost: %+v", r)
	}
	if r := byKey["z/last bits_per_param"]; r.Value == nil || *r.Value != 4.49 || r.ValueInt != nil {
		t.Errorf("bits_per_param = %+v", r)
	}
	if r := byKey["a/first arch.hybrid"]; r.Text == nil || *r.Text != "true" || r.Value != nil {
		t.Errorf("a boolean reads %+v", r)
	}
	if r := byKey["a/first kv.bytes_per_token"]; r.Value != nil || r.Reason != "config lacks num_key_value_heads" {
		t.Errorf("an unknown fact reads %+v", r)
	}
	again, _ := dataset.Encode(dataset.FactRows([]dataset.Model{models[1], models[0]}))
	if !bytes.Equal(b, again) {
		t.Error("the same facts in another order encode to other bytes")
	}
}

func TestModelRows(t *testing.T) {
	rows := dataset.ModelRows([]dataset.Model{model("b/k3", 2780000000000, 4.49, "kimi_linear", false), model("a/llama", 8030261248, 16, "llama", true)})
	b, err := dataset.Encode(rows)
	if err != nil {
		t.Fatal(err)
	}
	got, err := dataset.Decode[dataset.ModelRow](b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Model != "a/llama" {
		t.Fatalf("rows: %+v", got)
	}
	if got[1].ParamsTotal == nil || *got[1].ParamsTotal != 2780000000000 || got[1].Family == nil || *got[1].Family != "kimi_linear" {
		t.Errorf("k3 row: %+v", got[1])
	}
	if got[0].KVBytesPerToken != nil {
		t.Errorf("an unknown headline reads %d, want null", *got[0].KVBytesPerToken)
	}
	if got[0].BytesCheckpoint != nil {
		t.Error("a missing fact reads as a value")
	}
}
