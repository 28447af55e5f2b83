package site

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"dossier/generator/page"
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

// TestListsQuoteTheAnswerBox: the index row and models.json give a
// model's smallest and cheapest deployments as its answer box does: the
// cheapest per million output tokens (deploy.cheapest), and the smallest from
// deploy.smallest.layout (the least memory in all), not by a rule of
// their own: for Kimi K2.5 that is 8 × H100, though 4 × B200 is fewer
// GPUs (the lists said 4 × B200), and the row sorts by that memory.
func TestListsQuoteTheAnswerBox(t *testing.T) {
	want := map[string]string{}     // slug → the answer's smallest
	cheapest := map[string]string{} // slug → its cheapest, as the row says it
	for _, m := range fixtureModels(t) {
		want[m.Page.Slug] = m.Facts.Get("deploy.smallest.layout").Display
		if c := m.Facts.Get("deploy.cheapest.layout"); c.Known() {
			cheapest[m.Page.Slug] = m.Facts.Get("deploy.cheapest.usd_per_m_output_tokens").Display + "/M (" + page.HWLabel(c.Display) + ", " + m.Facts.Get("cost."+c.Display+".usd_per_hour").Display + ")"
		}
	}
	if len(cheapest) < 3 {
		t.Fatalf("the fixture prices the cheapest deployment of %d models", len(cheapest))
	}
	if want["kimi-k2-5"] != "8 × H100, vllm TP 4 × PP 2" {
		t.Fatalf("fixture Kimi K2.5 deploy.smallest.layout = %q", want["kimi-k2-5"])
	}
	dest := shipped(t)
	var doc struct {
		Models []struct {
			Slug     string                  `json:"slug"`
			Title    string                  `json:"title"`
			Smallest string                  `json:"smallest_layout"`
			Facts    map[string]headlineFact `json:"facts"`
		} `json:"models"`
	}
	if err := json.Unmarshal(readOut(t, dest, "models.json"), &doc); err != nil {
		t.Fatal(err)
	}
	index := string(readOut(t, dest, "index.md"))
	html := string(readOut(t, dest, "index.html"))
	for _, m := range doc.Models {
		if m.Smallest != want[m.Slug] {
			t.Errorf("models.json %s smallest_layout %q, the answer box says %q", m.Slug, m.Smallest, want[m.Slug])
		}
		short, _, _ := strings.Cut(want[m.Slug], ",")
		if !strings.Contains(index, "| "+m.Title+" | ") || !strings.Contains(index, " | "+short+" | ") {
			t.Errorf("index.md has no row for %s with %q", m.Slug, short)
		}
		if c, ok := cheapest[m.Slug]; ok && !strings.Contains(index, " | "+short+" | "+c+" | ") {
			t.Errorf("index.md: %s's row does not quote its cheapest deployment %q", m.Slug, c)
		}
		if _, ok := m.Facts["deploy.cheapest.usd_per_m_output_tokens"]; !ok {
			t.Errorf("models.json %s has no deploy.cheapest.usd_per_m_output_tokens", m.Slug)
		}
	}
	// 8 × 81,559 MiB (H100 as nvidia-smi reports it), the key the column
	// sorts by.
	if k25 := `data-value="` + strconv.FormatInt(8*81559<<20, 10) + `"`; !strings.Contains(html, k25) {
		t.Errorf("index.html: Kimi K2.5's smallest deployment does not sort by its memory (%s)", k25)
	}
}
