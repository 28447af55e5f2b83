package site

import (
	"bytes"
	"dossier/generator/content"
	"dossier/generator/render"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"dossier/generator/internal/sitetest"
)

// TestManifestIsMarshal holds the manifest, written a model at a time, to
// what encoding/json writes for the whole manifest, on the fixture site.
func TestManifestIsMarshal(t *testing.T) {
	s := loadSite(t, copySite(t), Options{})
	files, err := s.Render()
	if err != nil {
		t.Fatal(err)
	}
	lists, err := s.sharedFiles(&sumSink{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lists) < 3 {
		t.Fatalf("list keys %v", lists)
	}
	man := manifest{Models: map[string]manifestEntry{}, Shared: map[string]string{}, SharedKey: "k", Lists: lists, Summaries: "s"}
	for name, b := range files {
		if name != ManifestPath && name != StampsPath && name != SummariesPath {
			man.Shared[name] = sumOf(b)
		}
	}
	for _, e := range s.entries {
		man.Models[e.slug] = e.manifestEntry()
		for name := range e.files {
			delete(man.Shared, name)
		}
		if len(e.summary) == 0 || len(e.files) == 0 {
			t.Fatalf("%s: rendered without a summary or files", e.slug)
		}
	}
	if len(man.Models) < 3 || len(man.Shared) < 5 {
		t.Fatalf("fixture gave %d models and %d shared files", len(man.Models), len(man.Shared))
	}
	want, err := json.Marshal(man)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for name, b := range files {
		sums[name] = sumOf(b)
	}
	delete(sums, ManifestPath)
	delete(sums, StampsPath)
	delete(sums, SummariesPath)
	var got bytes.Buffer
	if err := s.writeManifest(&got, sums, "k", lists, "s"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("manifest: %s", sitetest.FirstDiff(string(want), got.String()))
	}
	// And it is what the build published, which the next build reads back
	// with the summaries.
	var back manifest
	if err := json.Unmarshal(files[ManifestPath], &back); err != nil || len(back.Models) != len(man.Models) || back.Summaries != sumOf(files[SummariesPath]) {
		t.Errorf("published manifest: %d models, summaries %s, %v", len(back.Models), back.Summaries, err)
	}
	readSummaries(files[SummariesPath], back.Models)
	for slug, me := range man.Models {
		if got := back.Models[slug]; !bytes.Equal(got.Summary, me.Summary) || !bytes.Equal(got.Entry, me.Entry) {
			t.Errorf("%s: summary or entry not read back", slug)
		}
	}
}

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
	if len(e.modelsEntry) == 0 || len(e.summary) == 0 {
		t.Fatalf("%s: no models.json entry or summary after a render", e.slug)
	}
	e.modelsEntry = json.RawMessage(`{"changed":true}`)
	after, err := s.sharedKey()
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Error("changing a models.json entry left the shared files' key as it was")
	}
}

// TestManifestEntryIsMarshal covers what the fixture's entries do not:
// text to escape, a draft, no files, no summary or entry.
func TestManifestEntryIsMarshal(t *testing.T) {
	for _, me := range []manifestEntry{
		{Hash: "h", Files: map[string]string{"b/é.html": "2", `a/<"&>\.md`: "1", "c\u2028\xff": "3"}, Summary: json.RawMessage(`{"a":1}`),
			Entry: json.RawMessage(`null`), Analytic: "k", Page: "p", Model: "org/<m>", Draft: true},
		{Hash: "", Files: nil, Summary: nil, Entry: nil, Model: "\t"},
		{Hash: `q"uote`, Page: `back\slash`, Model: "m", ModelSide: "s", Dossier: &render.DossierParts{Skeleton: "k", Tables: []render.TablePart{{Sum: "t", At: [2]int{1, 2}}}}, Priced: &pricedRuns{Others: "o", JSONEnd: 9, Runs: []factRun{{After: 2, JSON: [2]int{3, 4}, HTML: [2]int{5, 6}}}}},
		{Model: "m", Priced: &pricedRuns{}, Dated: []content.Dated{{Field: "claims[2].date", Line: 40, Date: "2026-01-02"}}},
		{Files: map[string]string{}, Summary: json.RawMessage(`[]`), Entry: json.RawMessage(`{"x":"\u003c"}`)},
	} {
		want, err := json.Marshal(me)
		if err != nil {
			t.Fatal(err)
		}
		if got := me.appendJSON([]byte("x")); string(got) != "x"+string(want) {
			t.Errorf("got  %s\nwant x%s", got, want)
		}
	}
}

// TestSummariesFile: summaries read back as written; a file cut anywhere
// gives the whole records before the cut and none after. (A file with
// other bytes than its build wrote is not read: the manifest has its sum.)
func TestSummariesFile(t *testing.T) {
	recs := [][3]string{{"a", `{"x":1}`, `{"id":"a"}`}, {"b c", "", `null`}, {"é\n2", `{"y":"\n"}`, `{}`}}
	var b []byte
	models := map[string]manifestEntry{}
	for _, r := range recs {
		b = appendSummaries(b, r[0], []byte(r[1]), []byte(r[2]))
		models[r[0]] = manifestEntry{Model: r[0]}
	}
	readSummaries(b, models)
	for _, r := range recs {
		if me := models[r[0]]; string(me.Summary) != r[1] || string(me.Entry) != r[2] || me.Model != r[0] {
			t.Errorf("%q read back as %q, %q", r[0], me.Summary, me.Entry)
		}
	}
	// Cut anywhere: the records before the cut, whole, and none after.
	for cut := range len(b) {
		got := map[string]manifestEntry{}
		for _, r := range recs {
			got[r[0]] = manifestEntry{}
		}
		readSummaries(b[:cut], got)
		seen := true
		for _, r := range recs {
			me := got[r[0]]
			switch {
			case me.Summary == nil && me.Entry == nil:
				seen = false
			case !seen || string(me.Summary) != r[1] || string(me.Entry) != r[2]:
				t.Errorf("cut at %d: %q read as %q, %q", cut, r[0], me.Summary, me.Entry)
			}
		}
	}
}

// TestEditedSummariesAreNotUsed: a summaries file with other bytes than
// its build wrote reuses no page; the build is still a full build's.
func TestEditedSummariesAreNotUsed(t *testing.T) {
	root := sitetest.Fixture(t, func(rel string) bool { return rel == "content/models/llama-3-1-8b.md" })
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := Build(loadSite(t, root, Options{}), Options{Destination: dest}); err != nil {
		t.Fatal(err)
	}
	if m := loadManifest(dest); len(m.Models["llama-3-1-8b"].Summary) == 0 {
		t.Fatal("the summaries were not read back")
	}
	sitetest.Edit(t, filepath.Join(dest, filepath.FromSlash(SummariesPath)), `"`, `'`)
	r, err := Build(loadSite(t, root, Options{Previous: dest}), Options{Destination: dest})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Reused) != 0 || len(r.Rebuilt) != 1 {
		t.Errorf("edited summaries: reused %v, rebuilt %v", r.Reused, r.Rebuilt)
	}
}
