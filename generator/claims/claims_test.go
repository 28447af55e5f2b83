package claims

import (
	"strings"
	"testing"

	"dossier/generator/content"
	"dossier/generator/facts"
)

func k3Facts() *facts.Set {
	set := facts.NewSet()
	set.Add(facts.Fact{Key: "bytes.checkpoint", Value: int64(1560936091448), Unit: facts.UnitBytes})
	set.Add(facts.Fact{Key: "fit.8xB200.at_rest", Value: false, Unit: facts.UnitBool})
	return set
}

func page(claims ...content.Claim) *content.Page {
	return &content.Page{Path: "k3.md", Front: content.Front{Claims: claims}}
}

func TestChecksComputeTheVerdict(t *testing.T) {
	p := page(
		content.Claim{ID: "size", Text: "1,400 GB", Reason: "r", Checks: []content.Check{{Fact: "bytes.checkpoint", Expect: 1400e9, Tolerance: 0.01}}},
		content.Claim{ID: "fits", Text: "fits 8 × B200", Reason: "r", Checks: []content.Check{{Fact: "fit.8xB200.at_rest", Expect: true}}},
		content.Claim{ID: "real", Text: "1,560.9 GB", Reason: "r", Checks: []content.Check{{Fact: "bytes.checkpoint", Expect: 1560.9e9, Tolerance: 0.001}}},
	)
	rs, probs := ReviewPage(p, k3Facts(), k3Context())
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	for i, want := range []string{"refuted", "refuted", "supported"} {
		if rs[i].Verdict != want || !rs[i].Computed {
			t.Errorf("%s: verdict %q computed %v, want %q", rs[i].ID, rs[i].Verdict, rs[i].Computed, want)
		}
	}
}

func TestContradictedVerdictIsAnError(t *testing.T) {
	p := page(content.Claim{ID: "size", Text: "1,400 GB", Verdict: "supported", Reason: "r", Line: 7,
		Checks: []content.Check{{Fact: "bytes.checkpoint", Expect: 1400e9, Tolerance: 0.01}}})
	_, probs := ReviewPage(p, k3Facts(), k3Context())
	if len(probs) != 1 || !strings.Contains(probs[0].Error(), `k3.md:7: claim size: hand-written verdict "supported" contradicts the computed verdict "refuted"`) {
		t.Fatalf("problems = %v", probs)
	}
}

func TestShelfLifePastReviewIsOutdated(t *testing.T) {
	p := page(content.Claim{ID: "weights", Text: "open weights later this month", Reason: "shipped 2026-07-27", ShelfLife: "2026-07-31", Evidence: []string{"url:https://huggingface.co/moonshotai/Kimi-K3"}})
	rs, probs := ReviewPage(p, k3Facts(), k3Context())
	if len(probs) > 0 || rs[0].Verdict != "outdated" || !rs[0].Computed {
		t.Fatalf("verdict %q computed %v problems %v", rs[0].Verdict, rs[0].Computed, probs)
	}
	if !has(rs[0].Tells, TellShelfLife) {
		t.Error("tell 6 not raised on the claim text")
	}
}

func TestClaimProblems(t *testing.T) {
	for _, tc := range []struct {
		c    content.Claim
		want string
	}{
		{content.Claim{ID: "a", Text: "x", Verdict: "refuted", Reason: "r"}, "no evidence and no check"},
		{content.Claim{ID: "b", Text: "x", Evidence: []string{"fact:nope"}, Verdict: "refuted", Reason: "r"}, `no fact "nope"`},
		{content.Claim{ID: "c", Text: "x", Evidence: []string{"measurement:m"}, Verdict: "refuted", Reason: "r"}, `no measurement "m"`},
		{content.Claim{ID: "d", Text: "x", Evidence: []string{"arxiv:2510.26692"}, Verdict: "refuted", Reason: "r"}, "submission date"},
		{content.Claim{ID: "e", Text: "x", Evidence: []string{"fact:bytes.checkpoint"}}, "no verdict"},
		{content.Claim{ID: "f", Text: "x", Evidence: []string{"fact:bytes.checkpoint"}, Verdict: "refuted"}, "no reason"},
		{content.Claim{ID: "g", Text: "x", Reason: "r", Checks: []content.Check{{Fact: "fit.8xB200.at_rest", Expect: 3.0}}}, "expects a number"},
	} {
		_, probs := ReviewPage(page(tc.c), k3Facts(), k3Context())
		if len(probs) == 0 || !strings.Contains(probs[0].Error(), tc.want) {
			t.Errorf("claim %s: problems %v, want %q", tc.c.ID, probs, tc.want)
		}
	}
}

// A measurement holds in its configuration, and a conflict's losing side
// cannot be supported unqualified: both need a scope.
func TestSupportedNeedsItsScope(t *testing.T) {
	meas := content.Measurement{ID: "airllm", Metric: "peak VRAM", Value: 3.72, Unit: "GB", By: "AirLLM", Kind: "community",
		Configuration: content.Configuration{Hardware: "one RTX 6000 Ada"}}
	claim := content.Claim{ID: "single-card", Text: "runs on a single card in 3.72GB", Reason: "r", Verdict: "supported",
		Evidence: []string{"measurement:airllm"}, Line: 9}
	p := page(claim)
	p.Front.Measurements = []content.Measurement{meas}
	if _, probs := ReviewPage(p, k3Facts(), nil); len(probs) != 1 || !strings.Contains(probs[0].Msg, "no scope") || probs[0].Line != 9 {
		t.Errorf("problems %v, want one naming the missing scope at line 9", probs)
	}
	claim.Scope = "streaming from disk at 292 s per token"
	p.Front.Claims = []content.Claim{claim}
	if _, probs := ReviewPage(p, k3Facts(), nil); len(probs) != 0 {
		t.Errorf("a scoped claim was refused: %v", probs)
	}

	imports := content.Claim{ID: "works-5x", Text: "K3 runs on transformers 5.1.0", Reason: "r", Verdict: "supported",
		Where: "course", Evidence: []string{"doc:import test"}, Line: 12}
	p = page(imports)
	p.Front.Conflicts = []content.Conflict{{ID: "window", Rests: "airllm", Sides: []content.ConflictSide{{Source: "course"}, {Source: "airllm"}}}}
	if _, probs := ReviewPage(p, k3Facts(), nil); len(probs) != 1 || !strings.Contains(probs[0].Msg, "conflict window") {
		t.Errorf("problems %v, want the claim refused against conflict window", probs)
	}
	imports.Scope = "the remote code imports; no tokens were generated"
	p.Front.Claims = []content.Claim{imports}
	if _, probs := ReviewPage(p, k3Facts(), nil); len(probs) != 0 {
		t.Errorf("a scoped claim from the other side was refused: %v", probs)
	}
}

// A claim bundling several assertions is misleading when only some hold; a
// bounded check ("barely fits": a small margin) holds inside its bounds.
func TestPartialAndBoundedChecks(t *testing.T) {
	set := k3Facts()
	set.Add(facts.Fact{Key: "fit.8xB200.margin_bytes", Value: int64(-22.7e9), Unit: facts.UnitBytes})
	set.Add(facts.Fact{Key: "fit.8xB300.margin_bytes", Value: int64(743e9), Unit: facts.UnitBytes})
	zero, small := 0.0, 100e9
	p := page(
		content.Claim{ID: "headline", Text: "1,560.9 GB, 121 GB more than a B200 node holds", Reason: "r", Checks: []content.Check{
			{Fact: "bytes.checkpoint", Expect: 1560.9e9, Tolerance: 0.001},
			{Fact: "fit.8xB200.at_rest", Expect: false},
			{Fact: "fit.8xB200.margin_bytes", Expect: -121e9, Tolerance: 0.05}}},
		content.Claim{ID: "barely", Text: "can barely fit in a single DGX B300", Reason: "r", Checks: []content.Check{
			{Fact: "fit.8xB300.margin_bytes", Min: &zero, Max: &small}}},
	)
	rs, probs := ReviewPage(p, set, nil)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if rs[0].Verdict != "misleading" || !rs[0].Computed {
		t.Errorf("headline: %s (computed %v), want misleading: two of three checks hold", rs[0].Verdict, rs[0].Computed)
	}
	if rs[1].Verdict != "refuted" || !strings.Contains(rs[1].Evidence[0].Gives, "between 0 B and 100.0 GB") {
		t.Errorf("barely: %s, evidence %q; want refuted with the bounds stated", rs[1].Verdict, rs[1].Evidence[0].Gives)
	}
	set.Add(facts.Fact{Key: "fit.8xB300.margin_bytes", Value: int64(50e9), Unit: facts.UnitBytes})
	if rs, _ := ReviewPage(p, set, nil); rs[1].Verdict != "supported" {
		t.Errorf("a 50 GB margin is barely: got %s", rs[1].Verdict)
	}
}

// localFacts are a plan's facts as localrun gives them: a text verdict, a
// speed that is a ceiling from peak bandwidths, and a fact unknown
// because the quant was never synced.
func localFacts() *facts.Set {
	set := k3Facts()
	set.Add(facts.Fact{Key: "local.UD-TQ1_0.1xRTX4090@Workstation256.fits", Value: "offload", Unit: facts.UnitText})
	set.Add(facts.Fact{Key: "local.UD-TQ1_0.1xRTX4090@Workstation256.decode_tokens_per_second", Value: 12.5, Unit: facts.UnitTokensPerSec, Bound: facts.BoundUpper})
	set.Unknown("gguf.UD-Q2_K_XL.bytes", facts.UnitBytes, "the GGUF headers of unsloth/Kimi-K2.5-GGUF are not synced")
	return set
}

// A text fact is checked against the values a claim allows; a figure
// above a ceiling is refuted, one under it cannot be confirmed by it; a
// check on an unknown fact leaves the claim unverifiable with the
// fact's reason, unless another check already refutes it.
func TestLocalChecks(t *testing.T) {
	const m = "local.UD-TQ1_0.1xRTX4090@Workstation256."
	fits := content.Check{Fact: m + "fits", OneOf: []string{"vram", "offload"}}
	vramOnly := content.Check{Fact: m + "fits", OneOf: []string{"vram"}}
	p := page(
		content.Claim{ID: "fits", Text: "x", Reason: "r", Checks: []content.Check{fits}},
		content.Claim{ID: "vram", Text: "x", Reason: "r", Checks: []content.Check{vramOnly}},
		content.Claim{ID: "fast", Text: "x", Reason: "r", Checks: []content.Check{fits, {Fact: m + "decode_tokens_per_second", Expect: 20.0, Tolerance: 0.5}}},
		content.Claim{ID: "over", Text: "x", Reason: "r", Checks: []content.Check{{Fact: m + "decode_tokens_per_second", Expect: 20.0, Tolerance: 0.5}}},
		content.Claim{ID: "within", Text: "x", Reason: "r", Checks: []content.Check{fits, {Fact: m + "decode_tokens_per_second", Expect: 10.0, Tolerance: 0.5}}},
		content.Claim{ID: "size", Text: "x", Reason: "r", Checks: []content.Check{{Fact: "gguf.UD-Q2_K_XL.bytes", Expect: 375e9, Tolerance: 0.005}}},
		content.Claim{ID: "size-node", Text: "x", Reason: "r", Checks: []content.Check{{Fact: "gguf.UD-Q2_K_XL.bytes", Expect: 375e9, Tolerance: 0.005}, {Fact: "fit.8xB200.at_rest", Expect: true}}},
	)
	rs, probs := ReviewPage(p, localFacts(), k3Context())
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	// 20 tokens/s even with its ±50 % is above the 12.5 ceiling (20 >
	// 12.5 × 1.5 = 18.75); 10 is under it.
	want := map[string]string{"fits": "supported", "vram": "refuted", "fast": "misleading", "over": "refuted", "within": "unverifiable", "size": "unverifiable", "size-node": "refuted"}
	for _, r := range rs {
		if r.Verdict != want[r.ID] || !r.Computed {
			t.Errorf("%s: verdict %q computed %v, want %q (%+v)", r.ID, r.Verdict, r.Computed, want[r.ID], r.Evidence)
		}
	}
	if g := rs[5].Evidence[0].Gives; !strings.Contains(g, "not synced") || !strings.Contains(g, "undecided") {
		t.Errorf("the unverifiable size does not say why: %s", g)
	}
	if g := rs[4].Evidence[1].Gives; !strings.Contains(g, "upper bound") {
		t.Errorf("the speed under the ceiling does not say it is one: %s", g)
	}
	if g := rs[0].Evidence[0].Gives; !strings.Contains(g, "one of vram, offload") {
		t.Errorf("one_of printed as %s", g)
	}
	// A text check on a number is an error, not a verdict.
	_, probs = ReviewPage(page(content.Claim{ID: "bad", Text: "x", Reason: "r", Checks: []content.Check{{Fact: "bytes.checkpoint", OneOf: []string{"vram"}}}}), localFacts(), k3Context())
	if len(probs) == 0 || !strings.Contains(probs[0].Error(), "lists text values") {
		t.Errorf("problems %v", probs)
	}
}

// Checks left undecided by one missing input (a quant list not synced)
// give its reason once, on the first; each later one says it shares it,
// and a different reason is still given in full.
func TestSharedUndecidedReasonGivenOnce(t *testing.T) {
	set := localFacts()
	set.Unknown("gguf.UD-IQ1_S.bytes", facts.UnitBytes, "the GGUF headers of unsloth/Kimi-K2.5-GGUF are not synced")
	set.Unknown("gguf.UD-Q1_0.bytes", facts.UnitBytes, "the listing has no UD-Q1_0 files")
	size := func(q string) content.Check {
		return content.Check{Fact: "gguf." + q + ".bytes", Expect: 375e9, Tolerance: 0.005}
	}
	p := page(content.Claim{ID: "sizes", Text: "x", Reason: "r", Checks: []content.Check{size("UD-Q2_K_XL"), size("UD-IQ1_S"), size("UD-Q1_0")}})
	rs, probs := ReviewPage(p, set, k3Context())
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	ev := rs[0].Evidence
	if rs[0].Verdict != "unverifiable" || len(ev) != 3 {
		t.Fatalf("verdict %s, evidence %+v", rs[0].Verdict, ev)
	}
	for i, want := range []string{"(undecided: the GGUF headers of unsloth/Kimi-K2.5-GGUF are not synced)", "(undecided, for the reason above)", "(undecided: the listing has no UD-Q1_0 files)"} {
		if !strings.HasSuffix(ev[i].Gives, want) {
			t.Errorf("evidence %d = %q, want it to end %q", i, ev[i].Gives, want)
		}
	}
}

// A calibrated prediction is compared within its regime's p90 band: 16.2
// tokens/s ±18.27 % runs from 16.2 ÷ 1.1827 = 13.70 to 16.2 × 1.1827 =
// 19.16. "About 15 (± 50 %)", 7.5–22.5, holds the band: supported.
// "About 5 (± 50 %)", 2.5–7.5, misses it: refuted. "16" with no
// tolerance lies in it but cannot hold it: unverifiable, with the band.
// "19 (± 10 %)", 17.1–20.9, holds part of it: unverifiable.
func TestCalibratedSpeedWithinItsBand(t *testing.T) {
	const k = "local.UD-IQ1_S.1xRTX4090@Desktop128.decode_tokens_per_second"
	set := k3Facts()
	set.Add(facts.Fact{Key: k, Value: 16.2, Unit: facts.UnitTokensPerSec, ErrorP90: 0.1827})
	check := func(w, tol float64) []content.Check {
		return []content.Check{{Fact: k, Expect: w, Tolerance: tol}}
	}
	p := page(
		content.Claim{ID: "fifteen", Text: "x", Reason: "r", Checks: check(15, 0.5)},
		content.Claim{ID: "five", Text: "x", Reason: "r", Checks: check(5, 0.5)},
		content.Claim{ID: "sixteen", Text: "x", Reason: "r", Checks: check(16, 0)},
		content.Claim{ID: "nineteen", Text: "x", Reason: "r", Checks: check(19, 0.1)},
	)
	rs, probs := ReviewPage(p, set, k3Context())
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	want := map[string]string{"fifteen": "supported", "five": "refuted", "sixteen": "unverifiable", "nineteen": "unverifiable"}
	for _, r := range rs {
		if r.Verdict != want[r.ID] || !r.Computed {
			t.Errorf("%s: %s, want %s", r.ID, r.Verdict, want[r.ID])
		}
	}
	if g := rs[2].Evidence[0].Gives; !strings.Contains(g, "90th-percentile band 13.7") || !strings.Contains(g, "19.2") {
		t.Errorf("the undecided check does not print the band: %s", g)
	}
}
