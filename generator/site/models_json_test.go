package site

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"dossier/generator/internal/sitetest"
)

// TestModelsJSONIsMarshalIndent holds models.json, written a model at a
// time, to json.MarshalIndent of its document: on the fixture's models,
// with no models, and with entries whose text needs escaping.
func TestModelsJSONIsMarshalIndent(t *testing.T) {
	s := loadSite(t, copySite(t), Options{})
	files, err := s.Render()
	if err != nil {
		t.Fatal(err)
	}
	var fixture []json.RawMessage
	for m := range s.modelEntries() {
		fixture = append(fixture, m)
	}
	if len(fixture) < 3 {
		t.Fatalf("fixture has %d models.json entries", len(fixture))
	}
	odd, err := json.Marshal(map[string]any{"title": `a "models": [ <b> & é`, "n": []int{}, "x": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	plain, quoted := s.modelsDocOf(), s.modelsDocOf()
	quoted.Assumptions = `"models": [`
	for _, c := range []struct {
		name    string
		doc     modelsDoc
		entries []json.RawMessage
	}{{"fixture", plain, fixture}, {"empty", plain, []json.RawMessage{}}, {"escaped", quoted, []json.RawMessage{odd, odd}}} {
		doc := c.doc
		doc.Models = c.entries
		want, err := json.MarshalIndent(doc, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		var got bytes.Buffer
		if err := writeModelsJSON(&got, c.doc, slices.Values(c.entries)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: %s", c.name, sitetest.FirstDiff(string(want), got.String()))
		}
		if c.name == "fixture" && !bytes.Equal(files[ModelsPath], want) {
			t.Errorf("published models.json: %s", sitetest.FirstDiff(string(want), string(files[ModelsPath])))
		}
	}
}

// TestSharedKeyHoldsModelsEntries: models.json is a shared file and each
// model's entry is kept apart from its summary, so the shared files'
// key must change when an entry alone does, or a build would link the
// previous models.json.
func TestSharedKeyHoldsModelsEntries(t *testing.T) {
	s := loadSite(t, copySite(t), Options{})
	if _, err := s.Render(); err != nil {
		t.Fatal(err)
	}
	before, err := s.sharedKey()
	if err != nil {
		t.Fatal(err)
	}
	e := s.entries[len(s.entries)-1]
	if len(e.rec.Entry) == 0 || len(e.rec.Summary) == 0 {
		t.Fatalf("%s: no models.json entry or summary after a render", e.slug)
	}
	e.rec.Entry = json.RawMessage(`{"changed":true}`)
	after, err := s.sharedKey()
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Error("changing a models.json entry left the shared files' key as it was")
	}
}
