package review

import (
	"strings"
	"testing"

	"dossier/generator/facts"
)

func doc(rev string, kv map[string]any, claims ...Claim) *Doc {
	d := &Doc{Model: "acme/m", Revision: rev, Claims: claims}
	set := facts.NewSet()
	for k, v := range kv {
		unit := facts.UnitBytes
		if _, ok := v.(bool); ok {
			unit = facts.UnitBool
		}
		set.Add(facts.Fact{Key: k, Value: v, Unit: unit, Sources: []string{"hub:tree@" + rev}})
	}
	d.Facts = *set
	return d
}

func TestCompare(t *testing.T) {
	base := Set{
		"acme/m":   doc("aaaaaaa1", map[string]any{"bytes.checkpoint": int64(100), "fit.8xB200.at_rest": true}, Claim{ID: "size", Verdict: "supported"}, Claim{ID: "gone", Text: "old claim", Verdict: "refuted"}),
		"acme/old": {Model: "acme/old"},
	}
	head := Set{
		"acme/m":   doc("bbbbbbb2", map[string]any{"bytes.checkpoint": int64(200), "fit.8xB200.at_rest": false}, Claim{ID: "size", Verdict: "refuted", Tells: []int{1}}),
		"acme/new": {Model: "acme/new"},
	}
	r := Compare(base, head, nil)
	if len(r.Added) != 1 || r.Added[0].Model != "acme/new" || len(r.Removed) != 1 || r.Removed[0] != "acme/old" {
		t.Fatalf("added %v removed %v", r.Added, r.Removed)
	}
	m := r.Changed[0]
	if m.OldRevision != "aaaaaaa1" || m.Revision != "bbbbbbb2" || len(m.Facts) != 2 {
		t.Fatalf("changed %+v", m)
	}
	for _, c := range m.Facts {
		if c.Key == "fit.8xB200.at_rest" && (!c.Flip || c.Old.Value != true || c.New.Value != false) {
			t.Errorf("fit verdict change %+v", c)
		}
		if !strings.Contains(c.Moved, "snapshot revision aaaaaaa1 → bbbbbbb2") {
			t.Errorf("%s: moved %q does not name the revision", c.Key, c.Moved)
		}
	}
	var flipped, removed bool
	for _, c := range m.Claims {
		flipped = flipped || (c.ID == "size" && c.Old == "supported" && c.New == "refuted" && len(c.NewTells) == 1)
		removed = removed || (c.ID == "gone" && c.New == "removed")
	}
	if !flipped || !removed {
		t.Errorf("claims %+v: want the flip and the removal", m.Claims)
	}
	md := r.Markdown()
	for _, want := range []string{"## Models added", "| acme/new |", "## Models removed\n\nacme/old", "### Verdicts that flipped", "`gone`", "removed"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestCompareUnchangedIsEmpty(t *testing.T) {
	d := doc("aaaaaaa1", map[string]any{"bytes.checkpoint": int64(100)})
	r := Compare(Set{"acme/m": d}, Set{"acme/m": d}, nil)
	if !r.Empty() || !strings.Contains(r.Markdown(), "no changes") {
		t.Errorf("report %+v", r)
	}
}

func TestParseRejectsDocumentWithoutModel(t *testing.T) {
	if _, err := Parse(map[string][]byte{"x/facts.json": []byte(`{"facts":{}}`)}); err == nil || !strings.Contains(err.Error(), "x/facts.json: field model") {
		t.Errorf("err = %v", err)
	}
}
