package site

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"dossier/generator/facts"
	"dossier/generator/internal/sitetest"
	"dossier/generator/sizing"
)

// priceEdits are price changes the splice must survive: a price, a dearer
// provider (new per-provider facts), a cheaper one (newly priced layouts,
// another cheapest layout) and no price list at all.
var priceEdits = []struct {
	name string
	edit func(t *testing.T, root string)
}{
	{"price", func(t *testing.T, root string) {
		sitetest.Edit(t, filepath.Join(root, "data/pricing/runpod.yaml"), "usd_per_gpu_hour: 5.98", "usd_per_gpu_hour: 6.10")
	}},
	{"dearer", func(t *testing.T, root string) {
		lambda(t, root, "B200", "9.00")
	}},
	{"cheaper", func(t *testing.T, root string) {
		lambda(t, root, "H100", "0.50", "B200", "5.00")
	}},
	{"none", func(t *testing.T, root string) {
		if err := os.Remove(filepath.Join(root, "data/pricing/runpod.yaml")); err != nil {
			t.Fatal(err)
		}
	}},
}

// lambda writes a second price list: per-GPU prices, accelerator then
// price.
func lambda(t *testing.T, root string, prices ...string) {
	t.Helper()
	text := "provider: Lambda\nsource: \"a test price list\"\nas_of: \"2026-08-07\"\nprices:\n"
	for i := 0; i+1 < len(prices); i += 2 {
		text += "  - accelerator: " + prices[i] + "\n    usd_per_gpu_hour: " + prices[i+1] + "\n"
	}
	writeFile(t, filepath.Join(root, "data/pricing/lambda.yaml"), text)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// computeFacts computes every model of the site at root, by slug.
func computeFacts(t *testing.T, root string) map[string]*facts.Set {
	t.Helper()
	s := loadSite(t, root, Options{Collect: true})
	out := map[string]*facts.Set{}
	for _, m := range s.Models {
		out[m.Page.Slug] = m.Facts
	}
	return out
}

// TestPricedCoversWhatPricesChange computes every fixture model with other
// prices and checks that no fact sizing.Priced leaves out in both builds
// differs between them. Those are the facts a splice keeps; a fact priced
// in one build and not the other, or there in one only (the cheapest
// layout's speed facts), changes the other facts' keys, which a splice
// compares.
func TestPricedCoversWhatPricesChange(t *testing.T) {
	base := computeFacts(t, copySite(t))
	for _, pe := range priceEdits {
		root := copySite(t)
		pe.edit(t, root)
		other := computeFacts(t, root)
		for slug, a := range base {
			b := other[slug]
			pa, pb := pricedKeys(a), pricedKeys(b)
			changed, kept := 0, 0
			for _, k := range union(a.Keys(), b.Keys()) {
				fa, fb := a.Get(k), b.Get(k)
				same := fa != nil && fb != nil && reflect.DeepEqual(*fa, *fb)
				if !same {
					changed++
				}
				if fa == nil || fb == nil || pa[k] || pb[k] {
					continue
				}
				kept++
				if !same {
					t.Errorf("%s, %s: %s changed (%v → %v) but is not priced", pe.name, slug, k, fa, fb)
				}
			}
			if changed == 0 || kept < a.Len()/2 {
				t.Errorf("%s, %s: %d facts changed, %d kept of %d", pe.name, slug, changed, kept, a.Len())
			}
		}
	}
}

func pricedKeys(s *facts.Set) map[string]bool {
	out := map[string]bool{}
	priced := sizing.Priced(s)
	i := 0
	for f := range s.All() {
		if priced[i] {
			out[f.Key] = true
		}
		i++
	}
	return out
}

func union(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// TestPriceChangesMatchFullBuild builds the fixture, changes its prices
// each way priceEdits does, and checks that a build over the first output
// is byte for byte a full build, splicing the facts files of the models
// whose other facts did not change, and only theirs.
func TestPriceChangesMatchFullBuild(t *testing.T) {
	for _, pe := range priceEdits {
		t.Run(pe.name, func(t *testing.T) {
			root := copySite(t)
			out := t.TempDir()
			prev := filepath.Join(out, "prev")
			if _, err := Build(loadSite(t, root, Options{}), Options{Destination: prev}); err != nil {
				t.Fatal(err)
			}
			before := computeFacts(t, root)
			pe.edit(t, root)
			after := computeFacts(t, root)
			cached := filepath.Join(out, "cached")
			r, err := Build(loadSite(t, root, Options{Previous: prev}), Options{Destination: cached})
			if err != nil {
				t.Fatal(err)
			}
			full := filepath.Join(out, "full")
			if _, err := Build(loadSite(t, root, Options{}), Options{Destination: full}); err != nil {
				t.Fatal(err)
			}
			sameOutput(t, pe.name, cached, full)
			var spliceable []string
			for slug, a := range before {
				if othersKey(a, sizing.Priced(a)) == othersKey(after[slug], sizing.Priced(after[slug])) {
					spliceable = append(spliceable, slug)
				}
			}
			slices.Sort(spliceable)
			spliced := slices.Sorted(slices.Values(r.Spliced))
			if !slices.Equal(spliced, spliceable) {
				t.Errorf("spliced %v, want %v", spliced, spliceable)
			}
			t.Logf("spliced %d of %d", len(spliced), len(r.Rebuilt))
			// The model side is priced anew wherever the cheapest layout
			// held; elsewhere it is derived again.
			var held []string
			for slug, a := range before {
				if a.Get("fit.cheapest_serving").Value == after[slug].Get("fit.cheapest_serving").Value {
					held = append(held, slug)
				}
			}
			slices.Sort(held)
			if priced := slices.Sorted(slices.Values(r.Priced)); !slices.Equal(priced, held) {
				t.Errorf("priced from the kept model side: %v, want %v", priced, held)
			}
			// Every page's tables are located for the next build.
			for slug, me := range loadManifest(cached).Models {
				if me.Dossier == nil || len(me.Dossier.Tables) < 10 || me.ModelSide == "" || me.Markdown == nil || len(me.Markdown.Tables) < len(me.Dossier.Tables) {
					t.Errorf("%s: no model side or tables recorded: %+v, %+v", slug, me.Dossier, me.Markdown)
				}
			}
		})
	}
}

// TestSpliceNeedsRunsThatFit: runs a manifest edited by hand places off a
// fact's or a row's start are not spliced into; the page is rendered in
// full, as a full build would.
func TestSpliceNeedsRunsThatFit(t *testing.T) {
	root := sitetest.Fixture(t, func(rel string) bool { return rel == "content/models/llama-3-1-8b.md" })
	out := t.TempDir()
	prev := filepath.Join(out, "prev")
	if _, err := Build(loadSite(t, root, Options{}), Options{Destination: prev}); err != nil {
		t.Fatal(err)
	}
	m := loadManifest(prev)
	me := m.Models["llama-3-1-8b"]
	if me.Priced == nil || len(me.Priced.Runs) == 0 {
		t.Fatalf("no priced runs recorded: %+v", me.Priced)
	}
	b, err := os.ReadFile(filepath.Join(prev, "models", "llama-3-1-8b", "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := os.ReadFile(filepath.Join(prev, "models", "llama-3-1-8b", "facts.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !me.Priced.fits(b, h) {
		t.Fatal("the runs a build recorded do not fit its files")
	}
	for i, off := range []func(r *factRun){
		func(r *factRun) { r.JSON[0]++ },
		func(r *factRun) { r.JSON[1]-- },
		func(r *factRun) { r.HTML[0] += 2 },
		func(r *factRun) { r.HTML[1] = len(h) + 1 },
		func(r *factRun) { r.JSON[0] = -1 },
		func(r *factRun) { r.After = -1 },
	} {
		bad := *me.Priced
		bad.Runs = slices.Clone(me.Priced.Runs)
		off(&bad.Runs[0])
		if bad.fits(b, h) {
			t.Errorf("edit %d: %+v fits", i, bad.Runs[0])
		}
	}
}

// TestPricedRunsText: the manifest's line for the runs reads back as
// written, and a malformed line as runs that match no page.
func TestPricedRunsText(t *testing.T) {
	pr := pricedRuns{Others: "abc", JSONEnd: 900, Runs: []factRun{{After: 27, JSON: [2]int{10, 20}, HTML: [2]int{30, 40}}, {After: 90, JSON: [2]int{50, 50}, HTML: [2]int{60, 60}}}}
	b, err := pr.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	var back pricedRuns
	if err := back.UnmarshalText(b); err != nil || !reflect.DeepEqual(back, pr) {
		t.Errorf("%q read back as %+v (%v)", b, back, err)
	}
	for _, bad := range []string{"", "abc", "abc 1 2 3", "abc x", "abc 1 2 3 4 5 y"} {
		back = pr
		if err := back.UnmarshalText([]byte(bad)); err != nil || back.Others != "" || back.Runs != nil {
			t.Errorf("%q read as %+v (%v)", bad, back, err)
		}
	}
}

// TestPrefetchAsksForWhatPricingReads: after a price change, the files
// prefetch asks the kernel to read ahead are the previous output's model
// side and four page files of every model, and all exist; a snapshot
// change asks for none of the changed model's (it is computed afresh).
func TestPrefetchAsksForWhatPricingReads(t *testing.T) {
	root := copySite(t)
	prev := filepath.Join(t.TempDir(), "prev")
	if _, err := Build(loadSite(t, root, Options{}), Options{Destination: prev}); err != nil {
		t.Fatal(err)
	}
	asked := func() map[string]bool {
		s := loadSite(t, root, Options{Previous: prev})
		got := map[string]bool{}
		s.prefetch(s.entries, func(p string) { got[p] = true })
		return got
	}
	priceEdits[0].edit(t, root)
	got := asked()
	s := loadSite(t, root, Options{Previous: prev})
	if len(s.entries) == 0 || len(got) != 5*len(s.entries) {
		t.Errorf("asked for %d files for %d models, want five each", len(got), len(s.entries))
	}
	for p := range got {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("asked for %s: %v", p, err)
		}
	}
	sitetest.Edit(t, filepath.Join(root, "data/hub/moonshotai/Kimi-K3/snapshot.json"), `"fetched": "2026-08-06"`, `"fetched": "2026-08-07"`)
	for p := range asked() {
		if strings.Contains(p, "kimi-k3") {
			t.Errorf("asked for %s, of a model whose snapshot changed", p)
		}
	}
}
