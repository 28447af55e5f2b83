package planreport

import (
	"strings"
	"testing"
	"unicode/utf8"

	"dossier/generator/facts"
)

func TestSectionOfLongestPrefix(t *testing.T) {
	for key, want := range map[string]string{
		"params.total":                     "Parameters",
		"download.seconds":                 "Bytes",
		"download.idle_usd.8xB200":         "Cost",
		"serving.8xB200.per_gpu_bytes":     "Fit",
		"speed.8xB200.decode_tokens_per_s": "Speed",
		"paramsx.total":                    "Other", // a prefix is whole segments
		"brand_new.fact":                   "Other",
	} {
		if got := sectionOf(key); got != want {
			t.Errorf("sectionOf(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestNewFactsLandInTables: facts another stage adds per layout or per
// accelerator, under a known prefix, join that section's tables with no
// change to the report; an alias ("same as …") is printed once.
func TestNewFactsLandInTables(t *testing.T) {
	s := facts.NewSet()
	s.Add(facts.Fact{Key: "params.total", Value: int64(8e9), Unit: facts.UnitParams, Sources: []string{"test"}})
	s.Add(facts.Fact{Key: "fit.min_gpus.H100", Value: int64(1), Unit: facts.UnitCount, Sources: []string{"test"}})
	s.Add(facts.Fact{Key: "min_gpus.H100", Value: int64(1), Unit: facts.UnitCount, Derivation: "same as fit.min_gpus.H100"})
	s.Add(facts.Fact{Key: "serving.2xH100.weights_per_gpu_bytes", Value: int64(8e9), Unit: facts.UnitBytes})
	s.Add(facts.Fact{Key: "speed.2xH100.decode_tokens_per_second", Value: 41.5, Unit: facts.UnitCount})
	s.Add(facts.Fact{Key: "fit.cheapest_serving", Value: "2xH100", Unit: facts.UnitText})
	r := &Report{Models: []Model{{Name: "acme/x@abc", Origin: "test", Facts: s}}, Hardware: []string{"2xH100"}, Accelerators: []string{"H100"}}
	var b strings.Builder
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"  per layout  weights per gpu\n", "  2xH100      8.0 GB\n",
		"\nSpeed\n\n  per layout  decode tokens per second\n",
		"  per accelerator  min gpus\n",
		"\n  decode speed      41.5\n", "\n  cheapest serving  2xH100\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "min_gpus.H100") {
		t.Errorf("the alias min_gpus.H100 is printed:\n%s", out)
	}
}

func TestWrapKeepsWidth(t *testing.T) {
	long := strings.Repeat("word ", 40) + strings.Repeat("x", 130)
	for _, w := range []int{10, 37, 80} {
		for _, l := range wrap(long, w) {
			if utf8.RuneCountInString(l) > w {
				t.Errorf("wrap(%d) gave %d runes: %q", w, utf8.RuneCountInString(l), l)
			}
		}
	}
	if got := wrap("", 10); len(got) != 1 || got[0] != "" {
		t.Errorf("wrap of empty = %q", got)
	}
}

// FuzzWrapShortcut: where wrap returns a cell as it is, wrapping it word
// by word gives the same line.
func FuzzWrapShortcut(f *testing.F) {
	for _, s := range []string{"", "a", "1,560.9 GB", " lead", "trail ", "two  spaces", "tab\there", "nbsp\u00a0here", "ünïcode wörds", strings.Repeat("x", 90)} {
		f.Add(s, 10)
		f.Add(s, 80)
	}
	f.Fuzz(func(t *testing.T, s string, width int) {
		width = max(8, min(width, 200))
		if !fitsAsIs(s, width) {
			return
		}
		if got := wrapWords(s, width); len(got) != 1 || got[0] != s {
			t.Errorf("wrapWords(%q, %d) = %q, the shortcut gives it as is", s, width, got)
		}
	})
}
