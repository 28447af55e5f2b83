package site

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"testing"

	"dossier/generator/facts"
	"dossier/generator/internal/binenc"
	"dossier/generator/internal/sitetest"
)

// TestModelSidePricedAnew derives every fixture model's model side under
// the shipped prices, then, under each of priceEdits, prices it anew and
// checks the facts are those of a model derived under the new prices,
// and that the kept model side is the one a derivation writes. Where the
// cheapest serving layout moved, the model side must be derived again.
func TestModelSidePricedAnew(t *testing.T) {
	base := loadSite(t, copySite(t), Options{Collect: true})
	sides, cheapest := map[string][]byte{}, map[string]any{}
	for _, m := range base.Models {
		sides[m.Page.Slug], cheapest[m.Page.Slug] = m.side, m.Facts.Get("fit.cheapest_serving").Value
		if len(m.side) == 0 || m.sideReused {
			t.Fatalf("%s: model side %d bytes, reused %v", m.Page.Slug, len(m.side), m.sideReused)
		}
	}
	for _, pe := range priceEdits {
		root := copySite(t)
		pe.edit(t, root)
		s := loadSite(t, root, Options{})
		var priced, moved int
		for _, e := range s.entries {
			fresh, _, err := s.computeModel(e.page, nil)
			if err != nil {
				t.Fatal(err)
			}
			again, _, err := s.computeModel(e.page, sides[e.slug])
			if err != nil {
				t.Fatal(err)
			}
			move := fresh.Facts.Get("fit.cheapest_serving").Value != cheapest[e.slug]
			if again.sideReused == move {
				t.Errorf("%s, %s: cheapest %v → %v, yet the kept model side reused: %v", pe.name, e.slug, cheapest[e.slug], fresh.Facts.Get("fit.cheapest_serving").Value, again.sideReused)
			}
			if move {
				moved++
			} else {
				priced++
			}
			if d := setDiff(again.Facts, fresh.Facts); d != "" {
				t.Errorf("%s, %s: priced anew ≠ derived: %s", pe.name, e.slug, d)
			}
			if !bytes.Equal(again.side, fresh.side) {
				t.Errorf("%s, %s: the model side kept differs from the one derived", pe.name, e.slug)
			}
			// What the page reads of the snapshot and config is kept too.
			if !reflect.DeepEqual(provenance(again.Snapshot, s.Catalog, s.Config), provenance(fresh.Snapshot, s.Catalog, s.Config)) ||
				again.Snapshot.Model != fresh.Snapshot.Model || again.Snapshot.Revision != fresh.Snapshot.Revision || again.Snapshot.Fetched != fresh.Snapshot.Fetched ||
				again.Arch.Quant.Bits != fresh.Arch.Quant.Bits || len(again.Arch.Quant.Ignore) != len(fresh.Arch.Quant.Ignore) || again.analyticKey != fresh.analyticKey {
				t.Errorf("%s, %s: the kept page head differs from the snapshot's", pe.name, e.slug)
			}
		}
		t.Logf("%s: %d priced anew, %d derived again (the cheapest layout moved)", pe.name, priced, moved)
	}

	// A page priced anew reads neither its snapshot nor its config: with
	// the snapshot file gone it is computed from what was kept.
	root := copySite(t)
	kept := loadSite(t, root, Options{Collect: true})
	for _, m := range kept.Models {
		if err := os.Remove(snapshotPath(kept.Config, m.Snapshot.Model)); err != nil {
			t.Fatal(err)
		}
	}
	for i, e := range kept.entries {
		m, _, err := kept.computeModel(e.page, kept.Models[i].side)
		if err != nil || !m.sideReused || setDiff(m.Facts, kept.Models[i].Facts) != "" {
			t.Errorf("%s without its snapshot: %v", e.slug, err)
		}
		if _, _, err := kept.computeModel(e.page, nil); err == nil {
			t.Errorf("%s: computed afresh without its snapshot", e.slug)
		}
	}

	// A damaged model side is derived again, to the same facts.
	e := base.entries[0]
	damaged := bytes.Clone(sides[e.slug])
	damaged[len(damaged)/2] ^= 1
	m, _, err := base.computeModel(e.page, damaged)
	if err != nil {
		t.Fatal(err)
	}
	if m.sideReused || !bytes.Equal(m.side, sides[e.slug]) || setDiff(m.Facts, base.Models[0].Facts) != "" {
		t.Errorf("a damaged model side: reused %v, side equal %v", m.sideReused, bytes.Equal(m.side, sides[e.slug]))
	}
}

// setDiff names the first key where two sets differ, "" when they hold the
// same facts.
func setDiff(a, b *facts.Set) string {
	for _, k := range union(a.Keys(), b.Keys()) {
		fa, fb := a.Get(k), b.Get(k)
		if fa == nil || fb == nil || !reflect.DeepEqual(*fa, *fb) {
			return k + ": " + describe(fa) + " vs " + describe(fb)
		}
	}
	return ""
}

func describe(f *facts.Fact) string {
	if f == nil {
		return "absent"
	}
	return fmt.Sprintf("%s (%T)", f.Display, f.Value)
}

// largestSide is the largest fixture model's kept side (K3-scale).
func largestSide(b *testing.B) []byte {
	s := loadSite(b, sitetest.Fixture(b, nil), Options{Collect: true})
	var side []byte
	for _, m := range s.Models {
		if len(m.side) > len(side) {
			side = m.side
		}
	}
	return side
}

// BenchmarkModelSideEncode times what a full build adds per page to keep
// its model side.
func BenchmarkModelSideEncode(b *testing.B) {
	side := largestSide(b)
	k, err := decodeKeptSide(side)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(side)))
	for b.Loop() {
		if _, err := k.append(nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkModelSideDecode times what a price change reads per page
// instead of sizing it again.
func BenchmarkModelSideDecode(b *testing.B) {
	side := largestSide(b)
	b.SetBytes(int64(len(side)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeKeptSide(side); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDecodeKeptSide: whatever passes the checksum is refused or encodes
// back to the bytes it was read from, once in the encoder's own form.
func FuzzDecodeKeptSide(f *testing.F) {
	s := loadSite(f, sitetest.Fixture(f, func(rel string) bool { return rel == "content/models/llama-3-1-8b.md" }), Options{Collect: true})
	side := s.Models[0].side
	f.Add(side[len(keptSideHeader) : len(side)-4])
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, body []byte) {
		k, err := decodeKeptSide(binenc.Seal(append([]byte(keptSideHeader), body...), 0))
		if err != nil {
			return
		}
		once, err := k.append(nil)
		if err != nil {
			t.Fatal(err)
		}
		k2, err := decodeKeptSide(once)
		if err != nil {
			t.Fatalf("re-encoded kept side refused: %v", err)
		}
		if twice, _ := k2.append(nil); !bytes.Equal(once, twice) || !reflect.DeepEqual(k.head, k2.head) {
			t.Fatal("encoding is not stable")
		}
	})
}
