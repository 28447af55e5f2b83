package page

import (
	"strings"
	"testing"

	"dossier/generator/content"
	"dossier/generator/facts"
)

func TestExpandProse(t *testing.T) {
	set := facts.NewSet()
	set.Add(facts.Fact{Key: "bytes.checkpoint", Value: int64(1560936091448), Unit: facts.UnitBytes})
	set.Unknown("download.seconds", facts.UnitSeconds, "no file listing")
	p := &content.Page{Path: "content/models/x.md", BodyLine: 7, Front: content.Front{Model: "a/b"},
		Body: []byte("Size {{< fact bytes.checkpoint >}}.\nTime {{< fact download.seconds >}}.\n")}
	got, err := ExpandProse(p, set)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Size 1,560.9 GB (1,453.7 GiB).", "Time unknown (no file listing)."} {
		if !strings.Contains(got, want) {
			t.Errorf("prose lacks %q:\n%s", want, got)
		}
	}
	p.Body = []byte("ok\nSee {{< fact bytes.chekpoint >}}.\n")
	if _, err := ExpandProse(p, set); err == nil || !strings.Contains(err.Error(), "content/models/x.md:8:") || !strings.Contains(err.Error(), "bytes.chekpoint") {
		t.Errorf("missing fact: %v", err)
	}
}

func TestSourceName(t *testing.T) {
	for id, want := range map[string]string{
		"hub:tree@9f62e4e":           "the repository's file listing at 9f62e4e",
		"hub:census":                 "the Hub's dtype census",
		"catalog:hardware.yaml#B200": "hardware catalog: B200",
		"pricing:RunPod 2026-08-06":  "price list: RunPod 2026-08-06",
		"analytic:module-tree":       "the module tree built from config.json",
		"hub:treehouse":              "hub:treehouse",
		"something else":             "something else",
	} {
		if got := SourceName(id); got != want {
			t.Errorf("SourceName(%q) = %q, want %q", id, got, want)
		}
	}
}
