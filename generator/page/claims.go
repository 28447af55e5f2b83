package page

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"dossier/generator/claims"
	"dossier/generator/content"
	"dossier/generator/render"
)

func (m *Model) claimsTable(rs []claims.Review) *render.Table {
	t := &render.Table{Header: []string{render.AnchorHeader, "claim", "who, when", "verdict", "what the artifacts say", "tells"}}
	for _, r := range rs {
		verdict := r.Verdict
		if r.Computed {
			verdict += " (computed)"
		}
		if r.Scope != "" {
			verdict += "; scope: " + r.Scope
		}
		// The claim's editorial entries stand before its verdict: a
		// retracted or voided review no longer stands.
		for _, c := range m.front.Corrections {
			if c.Claim == r.ID {
				verdict = c.Headline() + " (" + c.Date + "; " + c.Why + "; " + c.By + "). " + verdict
			}
		}
		var ev []string
		for _, e := range r.Evidence {
			ev = append(ev, e.Gives)
		}
		gives := r.Reason
		if len(ev) > 0 {
			gives += " Evidence: " + strings.Join(ev, "; ") + "."
		}
		var tells []string
		for _, f := range r.Tells {
			if t := strconv.Itoa(f.Tell) + " " + claims.TellNames[f.Tell]; !slices.Contains(tells, t) {
				tells = append(tells, t)
			}
		}
		text := "“" + r.Text + "”"
		if r.Paraphrase {
			text = r.Text + " (paraphrase"
			if r.Quote != "" {
				text += "; the source's words: “" + r.Quote + "”"
			}
			text += ")"
		}
		who := r.By + ", " + r.When() + "; in " + m.front.Name(r.Where)
		if r.Contacted != nil {
			who += "; right of reply: " + r.Contacted.String()
		}
		t.Rows = append(t.Rows, []string{render.Code("claim-" + r.ID), text, who, verdict, gives, strings.Join(tells, "; ")})
	}
	return t
}

// kindTitles names the measurement groups. Figures of different kinds are
// never in one table: a hosted API under load and a self-hosted batch-1 run
// measure different things.
var kindTitles = map[string]string{
	"hosted-api":  "Hosted API, measured by third parties",
	"self-hosted": "Self-hosted runs",
	"leaderboard": "Leaderboards",
	"paper":       "Papers",
	"vendor":      "Vendor-stated figures",
	"estimate":    "Estimates with intervals",
	"community":   "Community measurements",
}

// MeasurementGroup is one table of measurements of one kind.
type MeasurementGroup struct {
	Kind  string
	Title string
	Table *render.Table
}

func measurementGroups(front *content.Front, ms []content.Measurement) []MeasurementGroup {
	byKind := map[string][]content.Measurement{}
	for _, m := range ms {
		byKind[m.Kind] = append(byKind[m.Kind], m)
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	order := map[string]int{}
	for i, k := range content.MeasurementKinds {
		order[k] = i
	}
	sort.Slice(kinds, func(i, j int) bool { return order[kinds[i]] < order[kinds[j]] })
	var out []MeasurementGroup
	for _, k := range kinds {
		t := &render.Table{Header: []string{"metric", "value", "interval or rank", "configuration", "by", "date", "source"}, Align: []render.Align{render.Left, render.Right}}
		for _, m := range byKind[k] {
			spread := "not published"
			if m.Interval != nil {
				spread = m.Interval.Level + " (" + claimsTrim(m.Interval.Low) + "–" + claimsTrim(m.Interval.High) + ")"
			}
			if m.Rank != nil {
				r := "#" + strconv.Itoa(m.Rank.Position)
				if m.Rank.Of > 0 {
					r += " of " + strconv.Itoa(m.Rank.Of)
				}
				if m.Rank.Spread != "" {
					r += ", spread " + m.Rank.Spread
				}
				if spread == "not published" {
					spread = r
				} else {
					spread += "; " + r
				}
			}
			cfg := m.Configuration.String()
			if cfg == "" {
				cfg = "not stated"
			}
			t.Rows = append(t.Rows, []string{m.Metric, claims.Value(&m), spread, cfg, m.By, claims.When(&m), front.Cite(m.Source)})
		}
		out = append(out, MeasurementGroup{Kind: k, Title: kindTitles[k], Table: t})
	}
	return out
}

func claimsTrim(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(f, 'f', 2, 64), "0"), ".")
}

// sourcesTable lists the documents the page's claims and measurements cite,
// by name, so a reader can look each one up.
func sourcesTable(f *content.Front) *render.Table {
	if len(f.Sources) == 0 {
		return nil
	}
	t := &render.Table{Header: []string{"document", "by", "published", "where to read it"}}
	for _, s := range f.Sources {
		published := s.Date
		if published == "" {
			published = "date unknown; read " + s.Accessed
		}
		where := s.URL
		if s.Note != "" {
			where = strings.TrimSpace(where + " " + "(" + s.Note + ")")
		}
		if s.Archived != "" {
			where = strings.TrimSpace(where + "; archived copy: " + s.Archived)
		}
		if s.SHA256 != "" {
			where = strings.TrimSpace(where + "; SHA-256 of the document as read: " + s.SHA256)
		}
		if s.Unarchived != "" {
			where = strings.TrimSpace(where + "; no archived copy: " + s.Unarchived)
		}
		t.Rows = append(t.Rows, []string{s.Title, s.By, published, where})
	}
	return t
}

// conflictsTable shows, for each question two sources answer differently,
// every side with how it found out and which side the dossier follows.
func conflictsTable(f *content.Front) *render.Table {
	if len(f.Conflicts) == 0 {
		return nil
	}
	t := &render.Table{Header: []string{"question", "source", "says", "how it found out", "the dossier follows"}}
	for _, c := range f.Conflicts {
		for i, side := range c.Sides {
			follows := ""
			if side.Source == c.Rests {
				follows = "this side: " + c.Reason
			}
			q := ""
			if i == 0 {
				q = c.Topic
			}
			t.Rows = append(t.Rows, []string{q, f.Cite(side.Source), side.Says, side.Evidence, follows})
		}
	}
	return t
}

// CorrectionsBanner is the page's editorial entries as a block quote at
// its top, newest first, one paragraph each; empty when there are none.
func (m *Model) CorrectionsBanner() string {
	cs := slices.Clone(m.front.Corrections)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Date > cs[j].Date })
	var parts []string
	for _, c := range cs {
		parts = append(parts, "> **"+c.Headline()+"** ("+c.Date+"). Why: "+c.Why+" — "+c.By+".")
	}
	return strings.Join(parts, "\n>\n")
}
