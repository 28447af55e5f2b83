package site

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"dossier/generator/content"
	"dossier/generator/internal/checked"
	"dossier/generator/internal/jsoncheck"
	"dossier/generator/yamlx"
)

// Today is the date dated inputs are judged against: freshness.today when
// set (reproducible runs), else the clock.
func (s *Site) Today() time.Time {
	if t, ok := checked.Date(s.Config.Freshness.Today); ok {
		return t
	}
	return time.Now().UTC()
}

// FutureDates lists every dated input after today: a review, release,
// measurement or claim date on a page, a snapshot's fetch date, a catalog
// entry's as_of. `dossier check` reports them as errors, `dossier build`
// as warnings.
func FutureDates(s *Site, today time.Time, severity string) []Diagnostic {
	var ds []Diagnostic
	rel := s.rel
	// line finds where the date stands only for a date in the future:
	// lineIn parses the file again, once per catalog entry.
	future := func(file string, line func() int, what, date string) {
		t, ok := checked.Date(date[:min(len(date), 10)])
		if ok && t.After(today) {
			ds = append(ds, Diagnostic{rel(file), line(), severity, fmt.Sprintf("%s %s is in the future (today is %s)", what, date, today.Format(time.DateOnly))})
		}
	}
	first := func() int { return 1 }
	for _, p := range s.Content.Models {
		for _, d := range p.Dated {
			if t, ok := checked.Date(d.Date[:min(len(d.Date), 10)]); !ok || !t.After(today) {
				continue
			}
			line := d.Line
			if line == 0 {
				line = lineIn(p.Path, d.Field)
			}
			future(p.Path, func() int { return line }, "field "+d.Field+":", d.Date)
		}
	}
	for _, sd := range s.snapshotDates() {
		future(snapshotPath(s.Config, sd[0]), first, "field fetched:", sd[1])
	}
	hw := filepath.Join(s.Config.Dir(s.Config.DataDir), "hardware.yaml")
	ids := slices.Sorted(maps.Keys(s.Catalog.Accelerators))
	for _, id := range ids {
		future(hw, func() int { return lineIn(hw, "accelerators[id="+id+"].as_of") }, "field as_of of "+id+":", s.Catalog.Accelerators[id].AsOf)
	}
	for _, pl := range s.Catalog.PriceLists {
		field := "as_of"
		if filepath.Ext(pl.File) == ".json" {
			field = "fetched" // a snapshot's date is when it was fetched
		}
		future(pl.File, func() int { return lineIn(pl.File, field) }, "field "+field+":", pl.AsOf)
		for _, p := range pl.Prices {
			if p.AsOf != "" {
				future(pl.File, func() int { return lineOf(pl.File, p.AsOf) }, "field as_of of "+p.SKU+":", p.AsOf)
			}
		}
	}
	return ds
}

// lineIn is the line of a field in a YAML file (front matter counts from
// the file's second line), or 1 when it cannot be found.
func lineIn(path, field string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 1
	}
	if filepath.Ext(path) == ".md" {
		// The front matter starts after the opening "---" line.
		if l := yamlx.Line(frontMatter(b), field); l > 0 {
			return l + 1
		}
		return 1
	}
	if filepath.Ext(path) == ".json" {
		return max(1, jsoncheck.Line(b, field))
	}
	if l := yamlx.Line(b, field); l > 0 {
		return l
	}
	return 1
}

// lineOf is the first line of path holding the quoted text, or 1: an
// entry's date in a file whose entries the catalog may have filtered.
func lineOf(path, text string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 1
	}
	if i := bytes.Index(b, []byte(`"`+text+`"`)); i >= 0 {
		return bytes.Count(b[:i], []byte("\n")) + 1
	}
	return 1
}

func frontMatter(b []byte) []byte {
	front, _, _, err := content.Split(b)
	if err != nil {
		return nil
	}
	return front
}
