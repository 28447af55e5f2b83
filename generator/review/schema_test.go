package review

import (
	"bytes"
	"testing"

	"dossier/generator/facts"
	"dossier/generator/facts/factstest"
)

// TestReadsBothSchemas: a build that publishes facts.json as schema 2
// compares with one that published schema 1 fact by fact: the same facts
// report nothing, a changed figure in a table cell reports that figure.
func TestReadsBothSchemas(t *testing.T) {
	v1, fields, set := factstest.V1(t)
	v2 := func(s *facts.Set) []byte {
		b := factstest.V2(t, fields, s)
		if !bytes.Contains(b, []byte(`"tables":`)) {
			t.Fatal("not schema 2")
		}
		return b
	}
	base, err := Parse(map[string][]byte{"old/models/llama-3-1-8b/facts.json": v1})
	if err != nil {
		t.Fatal(err)
	}
	head, err := Parse(map[string][]byte{"new/models/llama-3-1-8b/facts.json": v2(set)})
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
	head, err = Parse(map[string][]byte{"new/models/llama-3-1-8b/facts.json": v2(set)})
	if err != nil {
		t.Fatal(err)
	}
	r := Compare(base, head, nil)
	if len(r.Changed) != 1 || len(r.Changed[0].Facts) != 1 || r.Changed[0].Facts[0].Key != key {
		t.Fatalf("one moved cell: %+v", r.Changed)
	}
}
