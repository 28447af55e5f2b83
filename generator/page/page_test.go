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

// TestSourcesCountInputsOnly: the sources table counts the inputs facts
// rest on; a fact cited as a source by another is not an input; the parts
// of the hardware catalog and the price lists count as one input each, a
// fact once however many parts it cites.
func TestSourcesCountInputsOnly(t *testing.T) {
	s := facts.NewSet()
	s.Add(facts.Fact{Key: "speed.1xH100.decode_tokens_per_second", Value: 100.0, Unit: facts.UnitTokensPerSec, Sources: []string{"config.json", "catalog:hardware.yaml#H100"}})
	s.Add(facts.Fact{Key: "cost.1xH100.usd_per_million_output_tokens", Value: 7.0, Unit: facts.UnitUSD, Sources: []string{"pricing:RunPod 2026-09-25", "speed.1xH100.decode_tokens_per_second"}})
	s.Add(facts.Fact{Key: "params.total", Value: int64(8e9), Unit: facts.UnitParams, Sources: []string{"config.json"}})
	s.Add(facts.Fact{Key: "fit.min_gpus.B200", Value: int64(1), Unit: facts.UnitCount, Sources: []string{"catalog:hardware.yaml#B200", "catalog:hardware.yaml#H100"}})
	got := map[string]string{}
	for _, r := range (&Model{Facts: s}).sources().Rows {
		got[r[0]] = r[1]
	}
	want := map[string]string{SourceName("config.json"): "2", "the hardware catalog (2 parts)": "2", "the price lists (1 source)": "1"}
	if len(got) != len(want) {
		t.Errorf("sources table %v, want %v", got, want)
	}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("%s: %q facts, want %s (table %v)", name, got[name], n, got)
		}
	}
}

// TestQuantsTableSaysWhenLlamaCppRefuses: a quant whose architecture
// llama.cpp's loader does not know runs on no machine, whatever its
// memory plan says, and the table names the architecture.
func TestQuantsTableSaysWhenLlamaCppRefuses(t *testing.T) {
	for _, c := range []struct {
		loads bool
		want  string
	}{{false, "none: llama.cpp does not load its architecture, gptoss"}, {true, "1xRTX4090@Desktop64"}} {
		s := facts.NewSet()
		s.Add(facts.Fact{Key: "gguf.Q4_K_M.bytes", Value: int64(12e9), Unit: facts.UnitBytes})
		s.Add(facts.Fact{Key: "gguf.Q4_K_M.architecture", Value: "gptoss", Unit: facts.UnitText})
		s.Add(facts.Fact{Key: "gguf.Q4_K_M.llamacpp_loads", Value: c.loads, Unit: facts.UnitBool})
		s.Add(facts.Fact{Key: "local.Q4_K_M.1xRTX4090@Desktop64.fits", Value: "vram", Unit: facts.UnitText})
		rows := (&Model{Facts: s}).quantsTable().Rows
		if len(rows) != 1 || rows[0][len(rows[0])-1] != c.want {
			t.Errorf("loads %v: rows %q, want the last cell %q", c.loads, rows, c.want)
		}
	}
}
