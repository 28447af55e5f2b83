// Package factstest holds what tests of facts.json's readers share: the
// frozen schema-1 document under generator/facts/testdata/v1 and its
// re-encoding as schema 2.
package factstest

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"dossier/generator/facts"
)

// V1 reads Llama 3.1 8B's facts.json as main published it before schema 2:
// the document's bytes, its top-level fields and its facts.
func V1(t testing.TB) ([]byte, map[string]json.RawMessage, *facts.Set) {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(here), "..", "testdata", "v1", "llama-3-1-8b.facts.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	set := new(facts.Set)
	if err := json.Unmarshal(fields["facts"], set); err != nil {
		t.Fatal(err)
	}
	return b, fields, set
}

// V2 is the document with fields' other members and set's facts as
// schema-2 tables.
func V2(t testing.TB, fields map[string]json.RawMessage, set *facts.Set) []byte {
	t.Helper()
	tables, err := set.AppendTablesJSON(nil, "  ", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]json.RawMessage, len(fields))
	for k, v := range fields {
		out[k] = v
	}
	out["schema"], out["facts"] = json.RawMessage("2"), tables
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
