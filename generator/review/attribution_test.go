package review

import (
	"strings"
	"testing"

	"dossier/generator/facts"
)

// runpodEdit is one RunPod price edit as the issue describes it: the L40S
// price fell, the list kept its date, and the cheapest layout that serves
// flipped from 80xRTX4090 to 40xL40S, taking its speed and $/M facts with
// it. Only data/pricing/runpod.json changed.
func runpodEdit() (Set, Set) {
	const price = "pricing:RunPod 2026-09-25"
	speedSrc := []string{"catalog:hardware.yaml#RTX4090", "site:hugo-like.yaml sizing.speed", "config.json"}
	l40sSrc := []string{"catalog:hardware.yaml#L40S", "site:hugo-like.yaml sizing.speed", "config.json"}
	unknown := func() facts.Fact {
		return facts.Fact{Value: nil, Unit: facts.UnitTokensPerSec, Display: "unknown", Reason: "computed for the cheapest layout only"}
	}
	base := map[string]facts.Fact{
		"fit.cheapest_serving":                          fact("80xRTX4090", facts.UnitText, "80xRTX4090", "site:hugo-like.yaml", price),
		"cost.cheapest_serving.usd_per_hour":            fact(27.2, facts.UnitUSDHour, "$27.20/h", price),
		"cost.40xL40S.usd_per_hour":                     fact(31.6, facts.UnitUSDHour, "$31.60/h", price),
		"speed.80xRTX4090.decode_tokens_per_second":     fact(28.26, facts.UnitTokensPerSec, "28.3 tokens/s", speedSrc...),
		"speed.80xRTX4090.prefill_seconds":              fact(2.69, facts.UnitSeconds, "2.69 s", speedSrc...),
		"speed.80xRTX4090.comm_seconds_per_step":        fact(0.000176, facts.UnitSeconds, "0.18 ms", speedSrc...),
		"cost.80xRTX4090.usd_per_million_output_tokens": fact(162.25, facts.UnitUSD, "$162.25", price, "speed.80xRTX4090.decode_tokens_per_second"),
		"speed.40xL40S.decode_tokens_per_second":        unknown(),
		"bytes.checkpoint":                              fact(int64(1560936091448), facts.UnitBytes, "1,560.9 GB (1,453.7 GiB)", "hub:tree@9f62e4e"),
	}
	head := map[string]facts.Fact{
		"fit.cheapest_serving":                       fact("40xL40S", facts.UnitText, "40xL40S", "site:hugo-like.yaml", price),
		"cost.cheapest_serving.usd_per_hour":         fact(23.6, facts.UnitUSDHour, "$23.60/h", price),
		"cost.40xL40S.usd_per_hour":                  fact(23.6, facts.UnitUSDHour, "$23.60/h", price),
		"speed.40xL40S.decode_tokens_per_second":     fact(21.1, facts.UnitTokensPerSec, "21.1 tokens/s", l40sSrc...),
		"speed.40xL40S.prefill_seconds":              fact(3.1, facts.UnitSeconds, "3.10 s", l40sSrc...),
		"speed.40xL40S.comm_seconds_per_step":        fact(0.00021, facts.UnitSeconds, "0.21 ms", l40sSrc...),
		"cost.40xL40S.usd_per_million_output_tokens": fact(215.76, facts.UnitUSD, "$215.76", price, "speed.40xL40S.decode_tokens_per_second"),
		"bytes.checkpoint":                           fact(int64(1560936091448), facts.UnitBytes, "1,560.9 GB (1,453.7 GiB)", "hub:tree@9f62e4e"),
	}
	rev := "9f62e4e000000000000000000000000000000000"
	b, h := model("moonshotai/Kimi-K3", rev, base), model("moonshotai/Kimi-K3", rev, head)
	b.Slug, h.Slug = "kimi-k3", "kimi-k3"
	return Set{b.Model: b}, Set{h.Model: h}
}

// TestPriceOnlyChangeCitesOnlyThePriceFile: the flip cites the price file,
// not hugo-like.yaml, which it also reads but which did not change; the
// speed facts that moved from one layout to the other are one line; the
// flip carries its $/M and speed effect; the kept date is a note.
func TestPriceOnlyChangeCitesOnlyThePriceFile(t *testing.T) {
	base, head := runpodEdit()
	r := Compare(base, head, []string{"data/pricing/runpod.json"})
	md := r.Markdown()
	golden(t, "report-price-only.md", []byte(md))

	if strings.Contains(md, "hugo-like.yaml") || strings.Contains(md, "hardware.yaml") || strings.Contains(md, "config.json") {
		t.Errorf("the report cites an input that did not change:\n%s", md)
	}
	if len(r.Changed) != 1 {
		t.Fatalf("changed %+v", r.Changed)
	}
	d := r.Changed[0]
	for _, c := range d.Facts {
		if c.Moved != "data/pricing/runpod.json (pricing:RunPod 2026-09-25)" {
			t.Errorf("%s moved by %q", c.Key, c.Moved)
		}
		if _, ok := layoutOnly(c.Key); ok {
			t.Errorf("%s listed as its own row; want it in the layout switch", c.Key)
		}
	}
	if d.Layout == nil || strings.Join(d.Layout.From, ",") != "80xRTX4090" || strings.Join(d.Layout.To, ",") != "40xL40S" || d.Layout.Facts != 8 {
		t.Errorf("layout switch %+v: want 80xRTX4090 → 40xL40S, 8 facts", d.Layout)
	}
	if !strings.Contains(md, "Speed now computed for 40xL40S instead of 80xRTX4090 (8 facts).") {
		t.Errorf("no layout line:\n%s", md)
	}
	if len(r.Summary.VerdictsFlip) != 1 {
		t.Fatalf("flips %+v", r.Summary.VerdictsFlip)
	}
	if !strings.Contains(md, "80xRTX4090 → 40xL40S ($/M output tokens $162.25 → $215.76; batch-1 decode 28.3 tokens/s → 21.1 tokens/s)") {
		t.Errorf("the flip does not show its effect:\n%s", md)
	}
	if len(r.Summary.Notes) != 1 || !strings.Contains(r.Summary.Notes[0], "`pricing:RunPod 2026-09-25`: a price changed") {
		t.Errorf("notes %q: want the kept date flagged once", r.Summary.Notes)
	}
}

// When the configuration changed too, the flip cites both files it reads;
// when neither changed, it says no cited input did.
func TestAttributionFollowsTheChangedFiles(t *testing.T) {
	base, head := runpodEdit()
	r := Compare(base, head, []string{"data/pricing/runpod.json", "hugo-like.yaml"})
	var got string
	for _, c := range r.Changed[0].Facts {
		if c.Key == "fit.cheapest_serving" {
			got = c.Moved
		}
	}
	if got != "hugo-like.yaml (site:hugo-like.yaml), data/pricing/runpod.json (pricing:RunPod 2026-09-25)" {
		t.Errorf("flip moved by %q", got)
	}
	r = Compare(base, head, []string{"data/pricing/azure.json", "content/models/other.md"})
	for _, c := range r.Changed[0].Facts {
		if !strings.HasPrefix(c.Moved, "no input it cites changed") {
			t.Errorf("%s moved by %q", c.Key, c.Moved)
		}
	}
	// A fact citing another fact is moved by that fact's inputs: the
	// $/M of a layout cites its speed, which reads the catalog.
	for _, tc := range []struct {
		source, file string
		want         bool
	}{
		{"pricing:Vast.ai 2026-09-01", "data/pricing/vastai.json", true},
		{"pricing:RunPod 2026-09-25", "data/pricing/runpod.yaml", true},
		{"pricing:RunPod 2026-09-25", "data/pricing/azure.json", false},
		{"catalog:hardware.yaml#L40S", "data/hardware.yaml", true},
		{"catalog:software.yaml 2026-08-06: seed 000", "data/software.yaml", true},
		{"config.json", "data/hub/moonshotai/Kimi-K3/snapshot.json", true},
		{"hub:tree@9f62e4e", "data/hub/moonshotai/Kimi-K3-GGUF/snapshot.json", false},
		{"measurement:sglang-8xh200", "content/models/kimi-k3.md", true},
		{"model card table 1 (SIZES.md)", "content/models/kimi-k3.md", true},
		{"site:hugo-like.yaml sizing.speed", "data/hardware.yaml", false},
	} {
		d := head["moonshotai/Kimi-K3"]
		if got := sourceReads(tc.source, d, tc.file); got != tc.want {
			t.Errorf("sourceReads(%q, %q) = %v", tc.source, tc.file, got)
		}
	}
	d := head["moonshotai/Kimi-K3"]
	if got := citedInputs(d, []string{"pricing:RunPod 2026-09-25", "speed.40xL40S.decode_tokens_per_second"}, []string{"data/hardware.yaml"}); strings.Join(got, ";") != "data/hardware.yaml (catalog:hardware.yaml#L40S)" {
		t.Errorf("through a fact: %q", got)
	}
}

// A switch is only a switch when a layout's facts all appeared or all
// disappeared; a value that changed on a layout stays a row.
func TestLayoutSwitchKeepsRealChanges(t *testing.T) {
	v := func(x float64) *Value { return &Value{Value: x, Display: "x"} }
	changes := []Change{
		{Key: "speed.8xH200.decode_tokens_per_second", Old: v(1), New: v(2)},
		{Key: "speed.8xB200.decode_tokens_per_second", Old: nil, New: v(2)},
		{Key: "speed.8xB200.prefill_seconds", Old: v(1), New: nil},
		{Key: "cost.8xB200.usd_per_hour", Old: nil, New: v(2)},
	}
	kept, sw := switchLayouts(changes)
	if sw != nil || len(kept) != 4 {
		t.Errorf("kept %d, switch %+v: want nothing grouped", len(kept), sw)
	}
	kept, sw = switchLayouts(append(changes, Change{Key: "speed.1xH100.decode_tokens_per_second", Old: v(1), New: &Value{Value: nil}}))
	if sw == nil || len(kept) != 4 || strings.Join(sw.From, ",") != "1xH100" || len(sw.To) != 0 || sw.Sentence() != "speed no longer computed for 1xH100 (1 fact)" {
		t.Errorf("kept %d, switch %+v", len(kept), sw)
	}
}

// An unknown fact that disappears stopped being computed too.
func TestLayoutSwitchCountsUnknownToAbsent(t *testing.T) {
	changes := []Change{{Key: "speed.16xRTXPRO6000.prefill_seconds", Old: &Value{Value: nil}, New: nil}}
	if kept, sw := switchLayouts(changes); len(kept) != 0 || sw == nil || sw.From[0] != "16xRTXPRO6000" {
		t.Errorf("kept %+v, switch %+v", kept, sw)
	}
}

// A draft added or edited builds no dossier: the report says so rather
// than "no changes".
func TestDraftPageIsNoted(t *testing.T) {
	base, head := runpodEdit()
	r := Compare(base, base, []string{"content/models/tiny-llama.md", "content/models/kimi-k3.md", "data/hub/acme/tiny-llama/snapshot.json"})
	if len(r.Summary.Notes) != 1 || !strings.HasPrefix(r.Summary.Notes[0], "`content/models/tiny-llama.md` changed but no published dossier comes from it") {
		t.Errorf("notes %q: want the draft, not the published K3 page", r.Summary.Notes)
	}
	if md := r.Markdown(); !strings.Contains(md, "- Note: `content/models/tiny-llama.md` changed") {
		t.Errorf("the report does not show the note:\n%s", md)
	}
	_ = head
}
