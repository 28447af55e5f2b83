package corrections

import (
	"testing"

	"dossier/generator/facts/factstest"
	"dossier/generator/review"
)

// TestLogAcrossSchemas: the commit that rewrote facts.json from schema 1
// to schema 2 changed no fact, so the log has no entry for it; a figure
// moved in a later schema-2 version has one.
func TestLogAcrossSchemas(t *testing.T) {
	v1, fields, set := factstest.V1(t)
	v2 := func() []byte { return factstest.V2(t, fields, set) }
	parse := func(commit string, b []byte) Version {
		s, err := review.Parse(map[string][]byte{commit + ":public/models/llama-3-1-8b/facts.json": b})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range s {
			return Version{Commit: commit, Date: "2026-12-0" + commit[:1], Doc: d}
		}
		t.Fatal("no document")
		return Version{}
	}
	versions := []Version{parse("1aaaaaa", v1), parse("2bbbbbb", v2())}
	moved := *set.Get("fit.8xH100.margin_bytes")
	moved.Value, moved.Display = int64(1), "1 B"
	set.Add(moved)
	versions = append(versions, parse("3cccccc", v2()))
	log := Log(versions)
	if len(log) != 2 || log[0].Commit != "3cccccc" || log[1].Commit != "1aaaaaa" || !log[1].First {
		for _, e := range log {
			t.Logf("%s %v %d figures, %d other", e.Commit, e.Why, len(e.Figures), e.Other)
		}
		t.Fatalf("%d entries, want the first version and the moved figure", len(log))
	}
}
