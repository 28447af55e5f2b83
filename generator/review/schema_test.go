package review

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"testing"

	"dossier/generator/facts"
)

// TestReadsBothSchemas: a build that publishes facts.json as schema 2
// compares with one that published schema 1 fact by fact: the same facts
// report nothing, a changed figure in a table cell reports that figure.
func TestReadsBothSchemas(t *testing.T) {
	f, err := os.Open("../facts/testdata/v1/llama-3-1-8b.facts.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	v1, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(v1, &fields); err != nil {
		t.Fatal(err)
	}
	var set facts.Set
	if err := json.Unmarshal(fields["facts"], &set); err != nil {
		t.Fatal(err)
	}
	v2 := func(s *facts.Set) []byte {
		tables, err := s.AppendTablesJSON(nil, "  ", "  ")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]json.RawMessage{}
		for k, v := range fields {
			out[k] = v
		}
		out["schema"], out["facts"] = json.RawMessage("2"), tables
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`"tables":`)) {
			t.Fatal("not schema 2")
		}
		return b
	}
	base, err := Parse(map[string][]byte{"old/models/llama-3-1-8b/facts.json": v1})
	if err != nil {
		t.Fatal(err)
	}
	head, err := Parse(map[string][]byte{"new/models/llama-3-1-8b/facts.json": v2(&set)})
	if err != nil {
		t.Fatal(err)
	}
	if r := Compare(base, head, nil); !r.Empty() {
		t.Fatalf("schema 1 and schema 2 of the same facts differ: %+v", r)
	}
	const key = "serving.8xH100.max_concurrency"
	moved := *set.Get(key)
	if moved.Value == nil {
		t.Fatalf("%s is unknown in the frozen file", key)
	}
	moved.Value, moved.Display = int64(-7), "-7"
	set.Add(moved)
	head, err = Parse(map[string][]byte{"new/models/llama-3-1-8b/facts.json": v2(&set)})
	if err != nil {
		t.Fatal(err)
	}
	r := Compare(base, head, nil)
	if len(r.Changed) != 1 || len(r.Changed[0].Facts) != 1 || r.Changed[0].Facts[0].Key != key {
		t.Fatalf("one moved cell: %+v", r.Changed)
	}
}
