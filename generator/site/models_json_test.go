package site

import (
	"encoding/json"
	"testing"
)

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
