package site

import (
	"encoding/json"
	"strings"
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
	var r pageRecord
	if !s.cache.Get(stagePage, e.key, &r) || len(r.Entry) == 0 || len(r.Summary) == 0 {
		t.Fatalf("%s: no models.json entry or summary in its record after a render", e.slug)
	}
	if _, _, err := s.listedOf(e); err != nil {
		t.Fatalf("reading back %s: %v", e.slug, err)
	}
	r.Entry = json.RawMessage(`{"changed":true}`)
	// A record that is not the one the build found or wrote is an error,
	// not a models.json that disagrees with the shared files' key.
	if err := s.cache.Set(stagePage, e.key, r); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.listedOf(e); err == nil || !strings.Contains(err.Error(), e.slug) {
		t.Errorf("a changed record was read back: %v", err)
	}
	e.listed = r.listed()
	after, err := s.sharedKey()
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Error("changing a models.json entry left the shared files' key as it was")
	}
}
