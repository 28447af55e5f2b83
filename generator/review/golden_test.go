package review

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/facts"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fact is a facts.json entry for the golden report's documents.
func fact(value any, unit, display string, sources ...string) facts.Fact {
	return facts.Fact{Value: value, Unit: unit, Display: display, Sources: sources}
}

func model(id, rev string, fs map[string]facts.Fact, claims ...Claim) *Doc {
	set := facts.NewSet()
	for k, f := range fs {
		f.Key = k
		set.Add(f)
	}
	return &Doc{Model: id, Slug: path.Base(id), Revision: rev, Facts: *set, Claims: claims}
}

// priceDay builds a model's facts as of one price list: the B200 price
// moved from $5.98 to $4.49 per GPU-hour, which every model shares, and
// for acme/big it also moves the cheapest serving configuration.
func priceDay(id, rev string, newPrices bool, extra map[string]facts.Fact) *Doc {
	src, usd, disp := "pricing:RunPod 2026-08-06", 47.84, "$47.84/h"
	if newPrices {
		src, usd, disp = "pricing:RunPod 2026-12-01", 35.92, "$35.92/h"
	}
	fs := map[string]facts.Fact{
		"cost.8xB200.usd_per_hour": fact(usd, facts.UnitUSDHour, disp, src),
		"bytes.checkpoint":         fact(int64(16060522496), facts.UnitBytes, "16.1 GB (15.0 GiB)", "hub:tree@"+rev),
	}
	for k, f := range extra {
		fs[k] = f
	}
	return model(id, rev, fs)
}

func goldenSets() (Set, Set, []string) {
	cheapOld := map[string]facts.Fact{"fit.cheapest_serving": fact("8xH200", facts.UnitText, "8xH200", "pricing:RunPod 2026-08-06")}
	cheapNew := map[string]facts.Fact{"fit.cheapest_serving": fact("8xB200", facts.UnitText, "8xB200", "pricing:RunPod 2026-12-01")}
	base := Set{
		"acme/big":     priceDay("acme/big", "1111111111111111111111111111111111111111", false, cheapOld),
		"acme/small":   priceDay("acme/small", "2222222222222222222222222222222222222222", false, nil),
		"acme/third":   priceDay("acme/third", "", false, nil),
		"acme/fourth":  priceDay("acme/fourth", "", false, nil),
		"acme/retired": model("acme/retired", "4444444444444444444444444444444444444444", nil),
	}
	base["acme/big"].Claims = []Claim{{ID: "fits-h200", Text: "Serves on one 8 × H200 node.", Verdict: "supported"}}
	head := Set{
		"acme/big":   priceDay("acme/big", "1111111111111111111111111111111111111111", true, cheapNew),
		"acme/small": priceDay("acme/small", "2222222222222222222222222222222222222222", true, nil),
		"acme/third": priceDay("acme/third", "", true, nil),
		// A snapshot that gained its revision: the old one was never
		// recorded, and the price row names the revision too, so it stays.
		"acme/fourth": priceDay("acme/fourth", "3333333333333333333333333333333333333333", true, nil),
		"acme/new": model("acme/new", "5555555555555555555555555555555555555555", map[string]facts.Fact{
			"params.total":                       fact(int64(20914757184), facts.UnitParams, "20.9 B", "hub:census@5555555"),
			"bytes.checkpoint":                   fact(int64(13761300984), facts.UnitBytes, "13.8 GB (12.8 GiB)", "hub:tree@5555555"),
			"bits_per_param":                     fact(5.26, facts.UnitBits, "5.26", "hub:tree@5555555"),
			"fit.cheapest_serving":               fact("1xH100", facts.UnitText, "1xH100", "pricing:RunPod 2026-12-01"),
			"cost.cheapest_serving.usd_per_hour": fact(nil, facts.UnitUSDHour, "unknown", "pricing:RunPod 2026-12-01"),
		}),
	}
	head["acme/big"].Claims = []Claim{{ID: "fits-h200", Text: "Serves on one 8 × H200 node.", Verdict: "supported"}}
	return base, head, []string{"content/models/new.md", "data/hub/acme/new/snapshot.json", "data/pricing/runpod.yaml"}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./generator/review -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs; run with -update if the change is intended.\ngot:\n%s", path, got)
	}
}

// TestGoldenReport: the summary chain on top (inputs → models → flips), the
// price change all three models share collapsed into one row with its
// count, the flip kept under its model, the added model with its headline
// figures, and no empty old revision.
func TestGoldenReport(t *testing.T) {
	base, head, inputs := goldenSets()
	r := Compare(base, head, inputs)
	md := r.Markdown()
	golden(t, "report.md", []byte(md))

	if len(r.Common) != 1 || r.Common[0].Key != "cost.8xB200.usd_per_hour" || len(r.Common[0].Models) != 3 {
		t.Errorf("common %+v: want the B200 price once, for 3 models", r.Common)
	}
	if !strings.Contains(md, "**3 input files changed → 6 models of 6 affected → 1 verdict flipped.**") {
		t.Errorf("summary line missing:\n%s", md)
	}
	for _, d := range r.Changed {
		for _, c := range d.Facts {
			if c.Key == "cost.8xB200.usd_per_hour" && d.Model != "acme/fourth" {
				t.Errorf("%s still lists the collapsed row", d.Model)
			}
		}
		if d.Model == "acme/fourth" && d.OldRevision != "unrecorded" {
			t.Errorf("acme/third old revision %q", d.OldRevision)
		}
		if d.Model == "acme/big" && d.OldRevision != "" {
			t.Errorf("acme/big: old revision %q set though it did not change", d.OldRevision)
		}
	}
}

// TestGoldenReportJSON: values are JSON numbers with their units, not
// display strings.
func TestGoldenReportJSON(t *testing.T) {
	base, head, inputs := goldenSets()
	out, err := Compare(base, head, inputs).JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report.json", out)
	if bytes.Contains(out, []byte(`"old_revision": ""`)) {
		t.Error("an empty old_revision")
	}
	var doc struct {
		Common []struct {
			Old    map[string]any `json:"old"`
			New    map[string]any `json:"new"`
			Models []string       `json:"models"`
		} `json:"common"`
		Added []struct {
			Headline map[string]map[string]any `json:"headline"`
		} `json:"added"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Common) != 1 {
		t.Fatalf("common %+v", doc.Common)
	}
	if v, ok := doc.Common[0].New["value"].(float64); !ok || v != 35.92 || doc.Common[0].New["unit"] != "usd_per_hour" {
		t.Errorf("new price %v: want the number 35.92 in usd_per_hour", doc.Common[0].New)
	}
	if v, ok := doc.Added[0].Headline["params.total"]["value"].(float64); !ok || v != 20914757184 {
		t.Errorf("added params.total %v", doc.Added[0].Headline["params.total"])
	}
}

// Inputs compared against a directory base are unknown, and said to be.
func TestReportWithoutInputs(t *testing.T) {
	base, head, _ := goldenSets()
	md := Compare(base, head, nil).Markdown()
	if !strings.Contains(md, "input files not compared (the base is a directory") {
		t.Errorf("summary:\n%s", md)
	}
	same := Compare(base, base, []string{"data/pricing/runpod.yaml"}).Markdown()
	if !strings.Contains(same, "no changes: 1 input file changed; no fact, verdict or model moved.") || !strings.Contains(same, "`data/pricing/runpod.yaml`") {
		t.Errorf("no-change report:\n%s", same)
	}
}
