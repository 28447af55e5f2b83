package sizing_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"dossier/generator/catalog"
	"dossier/generator/facts"
	"dossier/generator/internal/binenc"
	"dossier/generator/sizing"
)

// modelSide derives Llama 3.1 8B's model side on the serving fixture with
// configured entries, priced and not, so every kind of cost question is
// asked.
func modelSide(t testing.TB) (sizing.Input, []byte) {
	t.Helper()
	_, in := servingInput(t, "llama-3.1-8b", "1xRTX4090", "1xH100", "8xMI300X")
	m, err := sizing.DeriveModelSide(in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	return in, b
}

func equalSets(t *testing.T, what string, got, want *facts.Set) {
	t.Helper()
	if !reflect.DeepEqual(got.Keys(), want.Keys()) {
		t.Fatalf("%s: keys differ: %d vs %d", what, got.Len(), want.Len())
	}
	for _, k := range want.Keys() {
		if !reflect.DeepEqual(*got.Get(k), *want.Get(k)) {
			t.Errorf("%s: %s = %+v, want %+v", what, k, *got.Get(k), *want.Get(k))
		}
	}
}

// TestModelSideRoundTrip: a model side read back and priced is what
// Derive gives, its encoding reads back to the same bytes, and every fact
// the cost stage adds is one sizing.Priced names, none changed.
func TestModelSideRoundTrip(t *testing.T) {
	in, b := modelSide(t)
	want, err := sizing.Derive(in)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sizing.DecodeModelSide(b)
	if err != nil {
		t.Fatal(err)
	}
	again, err := m.AppendBinary(nil)
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("re-encoded model side differs (%v)", err)
	}
	side, _ := sizing.DecodeModelSide(b)
	got, err := side.WithPrices(in)
	if err != nil {
		t.Fatal(err)
	}
	equalSets(t, "priced model side", got, want)
	// The cost stage adds facts and changes none; each fact it adds is
	// one sizing.Priced names, so a splice rewrites it.
	bare, _ := sizing.DecodeModelSide(b)
	modelOnly := bare.Facts()
	priced := sizing.Priced(want)
	var costs, i int
	for f := range want.All() {
		switch mf := modelOnly.Get(f.Key); {
		case mf == nil:
			costs++
			if !priced[i] {
				t.Errorf("the cost stage added %s, which Priced leaves out", f.Key)
			}
		case !reflect.DeepEqual(*mf, *f):
			t.Errorf("the cost stage changed %s", f.Key)
		}
		i++
	}
	if costs < 10 || want.Get("fit.cheapest_serving") == nil || modelOnly.Get("cost.1xH100.usd_per_hour") != nil {
		t.Errorf("the cost stage added %d facts", costs)
	}
}

// TestModelSideCheapestMoved: priced where every layout costs twice as
// much (the cheapest still cheapest), a model side gives Derive's facts
// under those prices; priced with no price list, where no layout is
// cheapest, it is refused.
func TestModelSideCheapestMoved(t *testing.T) {
	in, b := modelSide(t)
	dearer := *in.Catalog
	dearer.PriceLists = nil
	for _, pl := range in.Catalog.PriceLists {
		c := *pl
		c.Prices = append([]catalog.Price(nil), pl.Prices...)
		for i := range c.Prices {
			c.Prices[i].USDPerHour *= 2
			c.Prices[i].USDPerGPUHr *= 2
		}
		dearer.PriceLists = append(dearer.PriceLists, &c)
	}
	din := in
	din.Catalog = &dearer
	want, err := sizing.Derive(din)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := sizing.DecodeModelSide(b)
	got, err := m.WithPrices(din)
	if err != nil {
		t.Fatal(err)
	}
	equalSets(t, "twice the prices", got, want)
	if was, _ := sizing.Derive(in); was.Get("cost.1xH100.usd_per_hour").Display == got.Get("cost.1xH100.usd_per_hour").Display {
		t.Error("doubling the prices changed no price")
	}

	unpriced := *in.Catalog
	unpriced.PriceLists = nil
	uin := in
	uin.Catalog = &unpriced
	m, _ = sizing.DecodeModelSide(b)
	if _, err := m.WithPrices(uin); !errors.Is(err, sizing.ErrCheapestMoved) {
		t.Errorf("priced with no price list: %v, want ErrCheapestMoved", err)
	}
}

// TestModelSideRefusesDamage: a changed byte or a cut encoding is refused.
func TestModelSideRefusesDamage(t *testing.T) {
	_, b := modelSide(t)
	for i := 0; i < len(b); i += 97 {
		d := bytes.Clone(b)
		d[i] ^= 4
		if _, err := sizing.DecodeModelSide(d); !errors.Is(err, sizing.ErrModelSide) {
			t.Errorf("byte %d changed: %v", i, err)
		}
		if _, err := sizing.DecodeModelSide(b[:i]); !errors.Is(err, sizing.ErrModelSide) {
			t.Errorf("cut at %d: %v", i, err)
		}
	}
}

// FuzzDecodeModelSide: whatever passes the checksum either is refused or
// encodes back to an encoding that reads to the same encoding again.
func FuzzDecodeModelSide(f *testing.F) {
	_, b := modelSide(f)
	f.Add(b[len("dossier model side 3\n") : len(b)-4])
	f.Add([]byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, body []byte) {
		// Seal what the fuzzer wrote, so it gets past the checksum.
		sealed := binenc.Seal(append([]byte("dossier model side 3\n"), body...), 0)
		m, err := sizing.DecodeModelSide(sealed)
		if err != nil {
			return
		}
		once, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := sizing.DecodeModelSide(once)
		if err != nil {
			t.Fatalf("re-encoded model side refused: %v", err)
		}
		twice, _ := m2.AppendBinary(nil)
		if !bytes.Equal(once, twice) {
			t.Fatal("encoding is not stable")
		}
	})
}
