package claims

import (
	"testing"

	"dossier/generator/content"
	"dossier/generator/facts"
)

// k3Context is the tells' view of Kimi K3 from its real figures.
func k3Context() *Context {
	set := facts.NewSet()
	set.Add(facts.Fact{Key: "params.total", Value: int64(2779931837184), Unit: facts.UnitParams})
	set.Add(facts.Fact{Key: "params.active_no_embedding", Value: int64(104189614848), Unit: facts.UnitParams})
	set.Add(facts.Fact{Key: "bytes.checkpoint", Value: int64(1560936091448), Unit: facts.UnitBytes})
	for dt, n := range map[string]int64{"U8": 2722740830208, "BF16": 57179884544, "F32": 11122432} {
		set.Add(facts.Fact{Key: "params.census." + dt, Value: n, Unit: facts.UnitParams})
	}
	ctx := NewContext(set, nil, "2026-08-06")
	// The catalog's figures as tell 7 reads them: the spec sheet's per-GPU
	// memory beside what the driver reports.
	ctx.Capacities = []Capacity{
		{ID: "B200", Spec: 180e9, Device: 183359 << 20, GPUsPerNode: 8},
		{ID: "H100", Spec: 80e9, Device: 81559 << 20, GPUsPerNode: 8},
		{ID: "H200", Spec: 141e9, Device: 143771 << 20, GPUsPerNode: 8},
		{ID: "MI300X", Spec: 192e9, Device: 205822885888, GPUsPerNode: 8},
		{ID: "RTXPRO6000", Spec: 96e9, Device: 97887 << 20, GPUsPerNode: 8},
	}
	return ctx
}

var lmarenaText = &content.Measurement{ID: "lmarena-text", Metric: "text arena score", Value: 1485, Unit: "points", By: "LMArena",
	Interval: &content.Interval{Low: 1475, High: 1495, Level: "±10"}, Rank: &content.Rank{Position: 13, Of: 0, Spread: "4–31"}}

// Each tell has a sentence from seed 001 (or the claims it reviews) that
// must raise it, and the corrected sentence that must not.
func TestTells(t *testing.T) {
	meas := map[string]*content.Measurement{"lmarena-text": lmarenaText}
	ev := []string{"measurement:lmarena-text"}
	cases := []struct {
		tell             int
		triggers, passes string
	}{
		{TellProduct,
			"Multiply that by the 2.8 trillion parameters on the model card and you get 1,400 GB.",
			"The 96 shards sum to 1,560.9 GB from the file listing."},
		{TellProduct,
			"Kimi K3's weights are 1.4 TB.",
			"The checkpoint is 1,561 GB on disk."},
		{TellPrecision,
			"Kimi K3's weights ship natively as MXFP4.",
			"The routed experts ship as MXFP4, while attention, the shared experts and the vision tower stay BF16."},
		{TellPrecision,
			"K3 is a 4-bit model.",
			"K3 averages 4.49 bits per parameter."},
		{TellNovelty,
			"Moonshot introduced two new architectural improvements.",
			"Kimi Delta Attention was introduced in Kimi Linear (arXiv 2510.26692, submitted 2025-10-30)."},
		{TellNoConfig,
			"K3 delivers up to 6x decoding throughput at 1M context.",
			"Kimi Linear 48B-A3B reached up to 6x decoding throughput at 1M context, measured in October 2025."},
		{TellNoConfig,
			"K3's chip sustains over 8,700 tokens/s decode throughput.",
			"A nano model on a simulated Nangate 45 nm design at 100 MHz decoded 8,700 tokens/s in simulation."},
		{TellPointOnly,
			"kimi-k3-max sits at rank 13 on the text leaderboard with a score of 1485.",
			"kimi-k3-max scores 1485 ± 10 on the text leaderboard, rank spread 4 to 31."},
		{TellShelfLife,
			"The open weights are coming later this month.",
			"The open weights shipped on 27 July 2026."},
		{TellNoConfig,
			"The AttnRes kernel is 2.48× faster.",
			"The weights fit on one 8 × B200 node."},
		{TellShelfLife,
			"Open weights soon.",
			"Open weights later this month (by 2026-07-31, announced 2026-07-17)."},
	}
	ctx := k3Context()
	for _, tc := range cases {
		if !has(ctx.Lint(tc.triggers, meas, ev), tc.tell) {
			t.Errorf("tell %d not raised by %q", tc.tell, tc.triggers)
		}
		if got := ctx.Lint(tc.passes, meas, ev); has(got, tc.tell) {
			t.Errorf("tell %d raised by the corrected %q: %v", tc.tell, tc.passes, got)
		}
	}
}

func TestPrecisionLabelOnUniformModelIsFine(t *testing.T) {
	set := facts.NewSet()
	set.Add(facts.Fact{Key: "params.census.BF16", Value: int64(8030261248), Unit: facts.UnitParams})
	ctx := NewContext(set, nil, "2026-08-06")
	if got := ctx.Lint("Llama 3.1 8B ships as a BF16 model.", nil, nil); has(got, TellPrecision) {
		t.Errorf("a single-dtype model raised tell 2: %v", got)
	}
}

func has(fs []Finding, tell int) bool {
	for _, f := range fs {
		if f.Tell == tell {
			return true
		}
	}
	return false
}

func TestProseLinesPointAtTheSentence(t *testing.T) {
	p := &content.Page{Path: "content/models/x.md", BodyLine: 10, Body: []byte("A plain opening line.\n\nThe weights are\ncoming soon to the Hub.\n")}
	got := k3Context().LintProse(p)
	if len(got) != 1 || got[0].Tell != TellShelfLife || got[0].Line != 12 {
		t.Fatalf("findings = %+v, want one tell 6 at line 12", got)
	}
	// A long fact reference before the sentence must not shift its line.
	p.Body = []byte("The checkpoint is {{< fact bytes.checkpoint >}} on\ndisk. The weights are\ncoming soon.\n")
	got = k3Context().LintProse(p)
	if len(got) != 1 || got[0].Line != 11 {
		t.Fatalf("findings = %+v, want one tell 6 at line 11", got)
	}
}

func TestAFewF32GatesDoNotMakeAModelMixed(t *testing.T) {
	set := facts.NewSet()
	set.Add(facts.Fact{Key: "params.census.BF16", Value: int64(49122599168), Unit: facts.UnitParams})
	set.Add(facts.Fact{Key: "params.census.F32", Value: int64(82560), Unit: facts.UnitParams})
	if got := NewContext(set, nil, "").Lint("Kimi Linear ships as a BF16 checkpoint.", nil, nil); has(got, TellPrecision) {
		t.Errorf("82,560 F32 parameters made a BF16 model mixed: %v", got)
	}
}

// TestSpecSheetCapacity: tell 7 flags a capacity quoted from the spec sheet
// (180 GB per B200, 1,440 GB per node) and a margin computed from it, not
// the device's 183,359 MiB, nor a sentence without the accelerator.
func TestSpecSheetCapacity(t *testing.T) {
	set := facts.NewSet()
	set.Add(facts.Fact{Key: "bytes.checkpoint", Value: int64(1560936091448), Unit: facts.UnitBytes})
	ctx := NewContext(set, nil, "2026-08-06")
	ctx.Capacities = []Capacity{{ID: "B200", Spec: 180e9, Device: 183359 << 20, GPUsPerNode: 8}}
	for text, want := range map[string]bool{
		"An 8 × B200 node holds 1,440 GB.":                               true,
		"Each B200 has 180 GB.":                                          true,
		"It is 1,560.9 GB, which is 121 GB more than a B200 node holds.": true,
		"Each B200 reports 192.3 GB.":                                    false,
		"It is 22.7 GB more than a B200 node holds.":                     false,
		"A node holds 1,440 GB.":                                         false,
	} {
		if got := has(ctx.Lint(text, nil, nil), TellSpecSheet); got != want {
			t.Errorf("%q: tell 7 = %v, want %v", text, got, want)
		}
	}
}

// Every verdict front matter accepts has a rating, and every tell a
// definition the methodology page prints.
func TestRatingsAndTellsDefined(t *testing.T) {
	for _, v := range content.Verdicts {
		if r, ok := RatingOf(v); !ok || r.Means == "" || r.Name == "" {
			t.Errorf("verdict %q: rating %+v", v, r)
		}
	}
	if len(Ratings) != len(content.Verdicts) {
		t.Errorf("%d ratings for %d verdicts", len(Ratings), len(content.Verdicts))
	}
	for tell := range TellNames {
		if TellMeans[tell] == "" {
			t.Errorf("tell %d has no definition", tell)
		}
	}
}
