package site

import (
	"encoding/json"
	"fmt"
	"strings"

	"dossier/generator/claimlist"
	"dossier/generator/claims"
	"dossier/generator/content"
	"dossier/generator/render"
)

// Summary is what the index, the list pages and the feeds need of one
// model. It is small and serializable, so an incremental build can keep it
// for a model it does not recompute.
type Summary struct {
	modelID
	Fetched  string     `json:"fetched"`
	Reviewed string     `json:"reviewed"`
	Text     string     `json:"summary"`
	Verdicts string     `json:"verdicts"`
	Row      render.Row `json:"row"`
	// Calibration is the model's speed measurements beside predictions,
	// for the site's calibration page.
	Calibration []CalibrationPair `json:"calibration,omitempty"`
	// Claims are the model's reviewed claims, for the site-wide claims
	// lists and the methodology page's examples.
	Claims []claimlist.Record `json:"claims,omitempty"`
	// Editorial are the page's corrections: entries, for the feed.
	Editorial []content.Correction `json:"editorial,omitempty"`
}

// modelID names a model the same way in its summary and its models.json
// entry: embedded first in both, its fields lead both encodings.
type modelID struct {
	Slug     string `json:"slug"`
	Title    string `json:"title"`
	Model    string `json:"model"`
	Org      string `json:"org"`
	Family   string `json:"family"`
	Revision string `json:"revision"`
}

func idOf(m *Model) modelID {
	return modelID{Slug: m.Page.Slug, Title: m.Page.Title, Model: m.Snapshot.Model, Org: m.Content.Front.Org,
		Family: m.Page.Family, Revision: m.Snapshot.Revision}
}

// summarize returns m's summary and, encoded apart, its models.json
// entry: only models.json reads the entry, which is half of what a
// summary would be with it, so the lists never decode it.
func (s *Site) summarize(m *Model) (*Summary, json.RawMessage, error) {
	sum := &Summary{
		modelID: idOf(m), Fetched: m.Snapshot.Fetched, Reviewed: m.Content.Front.Review, Text: m.Page.Summary,
		Verdicts: verdictCounts(m),
	}
	entry, err := json.Marshal(s.modelEntry(m))
	if err != nil {
		return nil, nil, fmt.Errorf("models.json entry of %s: %w", m.Page.Slug, err)
	}
	sum.Calibration = calibrationPairs(m)
	sum.Claims = claimlist.Of(m.Snapshot.Model, m.Page.Title, s.Config.BaseURL+"models/"+m.Page.Slug+"/", &m.Content.Front, m.Reviews)
	sum.Editorial = m.Content.Front.Corrections
	sum.Row = s.row(m, sum)
	return sum, entry, nil
}

func verdictCounts(m *Model) string {
	n := claims.Tally(m.Reviews)
	var parts []string
	for _, v := range claims.TallyOrder() {
		if n[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[v], v))
		}
	}
	if len(parts) == 0 {
		return "none reviewed"
	}
	return strings.Join(parts, ", ")
}
