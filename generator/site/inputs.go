package site

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/facts"
	"dossier/generator/render"
)

// InputsPath is the page listing the inputs every dossier shares.
const InputsPath = "inputs/"

// sharedInput is one input every dossier rests on: its source id, where
// it came from, and the date of its data ("" for none).
type sharedInput struct{ id, where, date string }

// row is the input as a provenance row, its date with its staleness.
func (in sharedInput) row(cfg *config.Site) [3]string {
	if in.date == "" {
		return [3]string{in.id, in.where, ""}
	}
	return [3]string{in.id, in.where, asOf(cfg, in.date)}
}

// catalogInputs are the inputs every dossier rests on: one per part of
// the hardware catalog, one per price source, and the sizing settings.
// They are listed once, on the inputs page; a dossier names them in one
// row (sharedRow), as the same forty rows on every page were a tenth of
// its Markdown.
func catalogInputs(cat *catalog.Catalog, cfg *config.Site) (parts, prices []sharedInput, settings sharedInput) {
	for _, id := range slices.Sorted(maps.Keys(cat.Accelerators)) {
		a := cat.Accelerators[id]
		where := fmt.Sprintf("%s, %s: %s", a.Name, facts.GB(float64(a.MemoryBytes)), a.Source)
		if a.MemorySource != "" && a.MemorySource != a.Source {
			// After a space: a ; would end up in the address linkify makes.
			where += " — memory as the device reports it: " + a.MemorySource
		}
		parts = append(parts, sharedInput{catalog.HardwareSourcePrefix + id, where, a.AsOf})
	}
	for _, ps := range cat.PriceSources() {
		prices = append(prices, sharedInput{ps.Key, ps.Source, ps.AsOf})
	}
	return parts, prices, sharedInput{"site:hugo-like.yaml", "sizing assumptions: " + cfg.Sizing.DownloadSource, ""}
}

// sharedRow is a dossier's one provenance row for the shared inputs: how
// many there are, where they are listed (the page's template links it),
// and the span of their dates with how many are past the freshness limit.
func sharedRow(cat *catalog.Catalog, cfg *config.Site) [3]string {
	parts, prices, _ := catalogInputs(cat, cfg)
	var dates []string
	stale := 0
	for _, in := range slices.Concat(parts, prices) {
		if in.date == "" {
			continue
		}
		dates = append(dates, in.date)
		if staleness(cfg, in.date) != "" {
			stale++
		}
	}
	span := ""
	if len(dates) > 0 {
		slices.Sort(dates)
		span = dates[0]
		if last := dates[len(dates)-1]; last != span {
			span += " to " + last
		}
	}
	if stale > 0 {
		span += fmt.Sprintf(" — %d stale", stale)
	}
	where := fmt.Sprintf("the hardware catalog (%s), %s and the sizing settings (the inputs page lists each with its source and date)", facts.Count(len(parts), "part"), facts.Count(len(prices), "price source"))
	return [3]string{"the site's shared inputs", where, span}
}

// asOf is date with its staleness, if any.
func asOf(cfg *config.Site, date string) string {
	if s := staleness(cfg, date); s != "" {
		return date + " — " + s
	}
	return date
}

// renderInputs writes inputs/index.md and index.html: the shared inputs
// each dossier's sources section points to.
func (s *Site) renderInputs(out *memory) error {
	parts, prices, settings := catalogInputs(s.Catalog, s.Config)
	var b strings.Builder
	var printed []render.PrintedTable
	table := func(header []string, inputs []sharedInput) {
		t := &render.Table{Header: header}
		for _, in := range inputs {
			r := in.row(s.Config)
			t.Rows = append(t.Rows, []string{render.Code(strings.TrimPrefix(strings.TrimPrefix(r[0], catalog.HardwareSourcePrefix), catalog.PriceSourcePrefix)), r[1], r[2]})
		}
		md := t.Markdown()
		printed = append(printed, render.PrintedTable{Table: t, Markdown: md})
		b.WriteString(md)
	}
	b.WriteString("# Inputs every dossier shares\n\n")
	b.WriteString("Each dossier's figures rest on its own snapshot (config.json, the file listing, the safetensors headers) and on the inputs below, which are the same for every model on this site: its sources section names them in one row and links here. A fact citing one names it in its sources (`catalog:hardware.yaml#H100`, `pricing:RunPod 2026-09-25`).\n\n")
	b.WriteString("## Hardware catalog\n\n")
	table([]string{"part", "what it is, its memory, and where that was read", "as of"}, parts)
	b.WriteString("\n## Price sources\n\n")
	table([]string{"price list", "where it came from", "as of"}, prices)
	b.WriteString("\n## Sizing settings\n\n")
	fmt.Fprintf(&b, "The site's sizing settings (`hugo-like.yaml`, `sizing:`): %s.\n", strings.TrimPrefix(settings.where, "sizing assumptions: "))
	md := []byte(b.String())
	return s.putPage(out, InputsPath, "Inputs", md, printed)
}
