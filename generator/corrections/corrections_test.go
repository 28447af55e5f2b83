package corrections

import (
	"strings"
	"testing"

	"dossier/generator/facts"
	"dossier/generator/review"
)

func version(commit, date, rev string, kv map[string]facts.Fact) Version {
	set := facts.NewSet()
	for k, f := range kv {
		f.Key = k
		set.Add(f)
	}
	return Version{Commit: commit, Date: date, Doc: &review.Doc{Model: "acme/m", Revision: rev, Facts: *set}}
}

// Log: identical versions are left out, newest first, each change says
// why: a new revision, a catalog, or (nothing in the inputs) the method.
func TestLog(t *testing.T) {
	const r1, r2 = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	size := func(v int64, src string) facts.Fact {
		return facts.Fact{Value: v, Unit: facts.UnitBytes, Sources: []string{src}}
	}
	fit := func(v bool, src string) facts.Fact {
		return facts.Fact{Value: v, Unit: facts.UnitBool, Sources: []string{src}}
	}
	log := Log([]Version{
		version("c1", "2026-08-01", r1, map[string]facts.Fact{"bytes.checkpoint": size(100, "hub:tree@1111111"), "fit.8xB200.at_rest": fit(true, "catalog:hardware.yaml#B200")}),
		version("c2", "2026-08-02", r1, map[string]facts.Fact{"bytes.checkpoint": size(100, "hub:tree@1111111"), "fit.8xB200.at_rest": fit(true, "catalog:hardware.yaml#B200")}),
		version("c3", "2026-08-03", r1, map[string]facts.Fact{"bytes.checkpoint": size(100, "hub:tree@1111111"), "fit.8xB200.at_rest": fit(false, "catalog:hardware.yaml#B200")}),
		version("c4", "2026-08-04", r1, map[string]facts.Fact{"bytes.checkpoint": size(90, "hub:tree@1111111"), "fit.8xB200.at_rest": fit(false, "catalog:hardware.yaml#B200")}),
		version("c5", "2026-08-05", r2, map[string]facts.Fact{"bytes.checkpoint": size(80, "hub:tree@2222222"), "fit.8xB200.at_rest": fit(false, "catalog:hardware.yaml#B200")}),
	})
	var got []string
	for _, e := range log {
		got = append(got, e.Commit+" "+strings.Join(e.Why, "+")+" "+Describe(e))
	}
	want := []string{
		"c5 revision bytes.checkpoint: 90 B → 80 B",
		"c4 method bytes.checkpoint: 100 B → 90 B",
		"c3 catalog verdict fit.8xB200.at_rest: yes → no",
		"c1  first published, at revision 1111111",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !log[2].Flipped() || log[0].Flipped() {
		t.Error("Flipped marks the wrong entries")
	}
	if Markdown(nil, nil) != "" {
		t.Error("an empty log renders a section")
	}
}

// A claim is dated by the version it first appeared in, and modified when
// its verdict or scope changed, not when only other facts moved.
func TestClaimDates(t *testing.T) {
	v := func(date string, cs ...review.Claim) Version {
		return Version{Commit: date, Date: date, Doc: &review.Doc{Model: "acme/m", Claims: cs}}
	}
	got := Claims([]Version{
		v("2026-01-01", review.Claim{ID: "a", Verdict: "supported"}),
		v("2026-02-01", review.Claim{ID: "a", Verdict: "supported"}, review.Claim{ID: "b", Verdict: "refuted"}),
		v("2026-03-01", review.Claim{ID: "a", Verdict: "supported", Scope: "at batch 1"}, review.Claim{ID: "b", Verdict: "refuted"}),
		v("2026-04-01", review.Claim{ID: "a", Verdict: "supported", Scope: "at batch 1"}),
		v("2026-05-01", review.Claim{ID: "a", Verdict: "supported", Scope: "at batch 1"}, review.Claim{ID: "b", Verdict: "misleading"}),
	})
	want := map[string]ClaimDates{"a": {"2026-01-01", "2026-03-01"}, "b": {"2026-02-01", "2026-05-01"}}
	if len(got) != 2 || got["a"] != want["a"] || got["b"] != want["b"] {
		t.Errorf("claim dates %+v, want %+v", got, want)
	}
}
