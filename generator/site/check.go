package site

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"dossier/generator/claims"
	"dossier/generator/config"
)

// Diagnostic is one finding of dossier check, printed as file:line: ...
// so editors and CI annotate it.
type Diagnostic struct {
	File     string
	Line     int
	Severity string // "error" or "warning"
	Msg      string
}

func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", d.File, d.Line, d.Severity, d.Msg)
}

// CheckOptions change what counts as an error.
type CheckOptions struct {
	Strict bool      // tells in page prose are errors, not warnings
	Today  time.Time // for freshness; zero means the configured or real date
}

// Check loads the whole site and reports every claim problem, every
// measurement without its configuration or date, data older than the
// configured freshness limit, and the tells raised by page prose.
func Check(cfg *config.Site, opts CheckOptions) ([]Diagnostic, error) {
	// A page whose inputs are unchanged is not reviewed again: its
	// findings come from the build cache (stage check).
	s, err := Load(cfg, Options{Collect: true, Drafts: true, check: true})
	if err != nil {
		return nil, err
	}
	var ds []Diagnostic
	for _, e := range s.entries {
		ds = append(ds, e.check.Errors...)
		for _, d := range e.check.Tells {
			if opts.Strict {
				d.Severity = "error"
			}
			ds = append(ds, d)
		}
	}
	today := opts.Today
	if today.IsZero() {
		today = s.Today()
	}
	ds = append(ds, freshness(s, today)...)
	ds = append(ds, priceDates(s, s.rel)...)
	ds = append(ds, FutureDates(s, today, "error")...)
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].File != ds[j].File {
			return ds[i].File < ds[j].File
		}
		return ds[i].Line < ds[j].Line
	})
	return ds, nil
}

// freshness flags dated inputs older than freshness.maxAgeDays.
func freshness(s *Site, today time.Time) []Diagnostic {
	rel := s.rel
	limit := s.Config.Freshness.MaxAgeDays
	if limit <= 0 {
		return nil
	}
	var ds []Diagnostic
	stale := func(file, what, date string) {
		t, err := time.Parse(time.DateOnly, date[:min(len(date), 10)])
		if err != nil {
			ds = append(ds, Diagnostic{file, 1, "error", what + ": date " + date + " is not YYYY-MM-DD"})
			return
		}
		if age := int(today.Sub(t).Hours() / 24); age > limit {
			ds = append(ds, Diagnostic{file, 1, "error", fmt.Sprintf("%s is %d days old (as of %s), past the %d-day freshness limit", what, age, date, limit)})
		}
	}
	for _, sd := range s.snapshotDates() {
		stale(rel(snapshotPath(s.Config, sd[0])), "snapshot of "+sd[0], sd[1])
	}
	hw := filepath.Join(s.Config.Dir(s.Config.DataDir), "hardware.yaml")
	for _, id := range slices.Sorted(maps.Keys(s.Catalog.Accelerators)) {
		n := len(ds)
		stale(rel(hw), "hardware entry "+id, s.Catalog.Accelerators[id].AsOf)
		for i := n; i < len(ds); i++ {
			ds[i].Line = lineIn(hw, "accelerators[id="+id+"].as_of")
		}
	}
	for _, pl := range s.Catalog.PriceLists {
		n := len(ds)
		stale(rel(pl.File), "price list "+pl.Provider, pl.AsOf)
		for i := n; i < len(ds); i++ {
			ds[i].Line = lineIn(pl.File, "as_of")
		}
		for _, p := range pl.Prices {
			if p.AsOf != "" && p.AsOf != pl.AsOf {
				// a hand capture combining pages dates each entry
				stale(rel(pl.File), fmt.Sprintf("price of %s (%s)", p.SKU, pl.Provider), p.AsOf)
			}
		}
	}
	return ds
}

// pageCheck is what dossier check reports of one page, paths relative to
// the site root; cached by the page's inputs (stage check).
type pageCheck struct {
	Model   string       `json:"model"`
	Fetched string       `json:"fetched"` // the snapshot's
	Errors  []Diagnostic `json:"errors"`  // claim problems, measurements without configuration or date; unarchived sources (warnings)
	Tells   []Diagnostic `json:"tells"`   // the prose's tells and the published-page rules: warnings, errors with --strict
}

// checkOf is m's pageCheck, with its claim problems probs.
func (s *Site) checkOf(m *Model, probs []claims.Problem) *pageCheck {
	rel := s.rel
	c := &pageCheck{Model: m.Snapshot.Model, Fetched: m.Snapshot.Fetched}
	for _, p := range probs {
		c.Errors = append(c.Errors, Diagnostic{File: rel(p.File), Line: p.Line, Severity: "error", Msg: p.Msg})
	}
	file := rel(m.Content.Path)
	for _, ms := range m.Content.Front.Measurements {
		if ms.Configuration.Empty() {
			c.Errors = append(c.Errors, Diagnostic{file, ms.Line, "error", "measurement " + ms.ID + ": no configuration (model, hardware, batch or setting it was measured in)"})
		}
		if ms.Date == "" && ms.Accessed == "" {
			c.Errors = append(c.Errors, Diagnostic{file, ms.Line, "error", "measurement " + ms.ID + ": no date (when measured, or when read if the source gives none)"})
		}
	}
	c.Errors = append(c.Errors, unarchivedSources(m.Content, file)...)
	c.Tells = append(c.Tells, publishedPageRules(m.Content, file, false)...)
	for _, f := range m.Page.ProseTells {
		c.Tells = append(c.Tells, Diagnostic{rel(f.File), f.Line, "warning", fmt.Sprintf("tell %d (%s): %s", f.Tell, claims.TellNames[f.Tell], f.Msg)})
	}
	return c
}

// snapshotDates is each checked or computed model's id and snapshot date,
// in content order.
func (s *Site) snapshotDates() [][2]string {
	var out [][2]string
	for _, e := range s.entries {
		switch {
		case e.check != nil:
			out = append(out, [2]string{e.check.Model, e.check.Fetched})
		case e.model != nil:
			out = append(out, [2]string{e.model.Snapshot.Model, e.model.Snapshot.Fetched})
		}
	}
	return out
}

// rel is p relative to the site root, as diagnostics name files.
func (s *Site) rel(p string) string {
	if r, err := filepath.Rel(s.Config.Root, p); err == nil {
		return r
	}
	return p
}
