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
	r := &Report{Models: []Model{{Name: "acme/x@abc", Origin: "test", Facts: s}}, Hardware: []string{"2xH100"}, Accelerators: []string{"H100"}, All: true}
	var b strings.Builder
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"  per layout  weights per gpu\n", "  2xH100      8.0 GB\n",
		"\nSpeed\n\n  per layout  decode tokens per second\n",
		"  per accelerator  min gpus\n",
		"\n  fit.cheapest_serving  2xH100\n",
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

// TestAnswerStatesItsConditions: each choice of the answer is one line
// with its engine, parallelism, cache width, context, concurrency, speed,
// $/h and $/M; a choice that repeats an earlier one is named, not
// repeated; without --all the report ends with the top choice's command.
func TestAnswerStatesItsConditions(t *testing.T) {
	s := facts.NewSet()
	add := func(k string, v any, unit string) {
		s.Add(facts.Fact{Key: k, Value: v, Unit: unit, Sources: []string{"test"}})
	}
	add("deploy.answer_context", int64(131072), facts.UnitTokens)
	for _, c := range []string{"cheapest", "fastest", "smallest", "single_host"} {
		add("deploy."+c+".layout", "2xH100", facts.UnitText)
	}
	// No local machine: the answer says why, as the page does.
	s.Unknown("deploy.local.layout", facts.UnitText, "llama.cpp has no AcmeForCausalLM (1 × CPUHost)")
	add("deploy.2xH100.engine", "vllm", facts.UnitText)
	add("deploy.2xH100.layout", "TP 2", facts.UnitText)
	add("deploy.2xH100.kv_dtype", "fp8", facts.UnitText)
	add("deploy.2xH100.max_context", int64(131072), facts.UnitTokens)
	add("deploy.2xH100.max_concurrency.8192", int64(40), facts.UnitCount)
	add("deploy.2xH100.max_concurrency.131072", int64(3), facts.UnitCount)
	add("deploy.2xH100.command", "vllm serve acme/x --tensor-parallel-size 2 --max-model-len 131072 --kv-cache-dtype fp8 --gpu-memory-utilization 0.90", facts.UnitText)
	add("speed.2xH100.decode_tokens_per_second", 41.5, facts.UnitTokensPerSec)
	add("cost.2xH100.usd_per_hour", 4.0, facts.UnitUSDHour)
	add("cost.2xH100.usd_per_million_output_tokens", 26.77, facts.UnitUSD)
	r := &Report{Models: []Model{{Name: "acme/x@abc", Origin: "test", Facts: s}}}
	var b strings.Builder
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"cheapest per token  2 × H100, vllm TP 2, FP8 KV; ≤131,072 tokens; 3 seqs of 131,072;",
		"$4.00/h; $26.77/M tokens at one stream",
		"fastest stream      the cheapest per token layout",
		"best local          none deployable: llama.cpp has no AcmeForCausalLM (1 × CPUHost)",
		"\nLaunch (cheapest per token: 2xH100)\n  vllm serve acme/x --tensor-parallel-size 2 --max-model-len 131072 --kv-cache-dtype fp8 \\\n    --gpu-memory-utilization 0.90\n",
		"--all prints the full matrix",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("answer lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\nSpeed\n") {
		t.Errorf("sections printed without --all:\n%s", out)
	}
}
