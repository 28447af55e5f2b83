package facts

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"
)

// set is facts whose values and text exercise every branch of the encoder:
// each kind of value, floats either side of the exponent switch, text
// encoding/json escapes, and facts with and without sources.
func exampleSet() *Set {
	s := NewSet()
	s.Add(Fact{Key: "params.total", Value: int64(1_046_891_012_096), Unit: UnitParams, Sources: []string{"model.safetensors.index.json", "config.json"}, Derivation: "Σ numel over headers"})
	s.Add(Fact{Key: "fit.ok", Value: true, Unit: UnitBool})
	s.Add(Fact{Key: "fit.no", Value: false, Unit: UnitBool, Derivation: `a "quoted" <b>tag</b> & more`})
	s.Unknown("arch.cadence", UnitCount, "no pattern\tline\nbreak \u2028 \u2029 \x01 \x7f é 日本")
	s.Add(Fact{Key: "arch.family", Value: "kimi_k3", Unit: UnitText})
	for i, v := range []float64{0, 1, -2.5, 0.1, 1e-6, 9.99e-7, 1e-9, 1e20, 1e21, 1.5e300, -3e-12, 0.6, 123456.789} {
		s.Add(Fact{Key: "speed.f" + string(rune('a'+i)), Value: v, Unit: UnitRatio})
	}
	s.Add(Fact{Key: "bad.utf8", Value: "a\xffb\xc3", Unit: UnitText, Reason: "\\ back slash"})
	s.Add(Fact{Key: "empty.sources", Value: int64(-1), Unit: UnitCount, Sources: []string{}})
	return s
}

func TestAppendJSONIsMarshalIndent(t *testing.T) {
	for _, s := range []*Set{NewSet(), exampleSet()} {
		for _, in := range [][2]string{{"", "  "}, {"  ", "  "}, {"\t", "\t"}} {
			appendsAsMarshalIndent(t, s, in[0], in[1])
		}
	}
}

// appendsAsMarshalIndent checks that s.AppendJSON writes what
// json.MarshalIndent writes for s.
func appendsAsMarshalIndent(t *testing.T, s *Set, prefix, indent string) {
	t.Helper()
	want, err := json.MarshalIndent(s, prefix, indent)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.AppendJSON(nil, prefix, indent)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("prefix %q indent %q:\ngot  %s\nwant %s", prefix, indent, got, want)
	}
}

func TestAppendJSONRefusesNaN(t *testing.T) {
	s := NewSet()
	s.Add(Fact{Key: "x", Value: math.NaN(), Unit: UnitRatio})
	if _, err := s.AppendJSON(nil, "", "  "); err == nil {
		t.Fatal("NaN encoded")
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("k", "text <&> \u2028", 1.5, int64(7))
	f.Add("\xff", "\x00\x1f\"\\", 1e-7, int64(-1))
	f.Fuzz(func(t *testing.T, key, text string, x float64, n int64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		s := NewSet()
		s.Add(Fact{Key: key, Value: text, Unit: text, Display: text, Sources: []string{text, key}, Derivation: text, Reason: text})
		s.Add(Fact{Key: key + "f", Value: x, Unit: UnitRatio})
		s.Add(Fact{Key: key + "n", Value: n, Unit: UnitCount})
		appendsAsMarshalIndent(t, s, "  ", "  ")
	})
}

func TestPrefixed(t *testing.T) {
	s := exampleSet()
	var got, rests []string
	for k, rest := range s.Prefixed("speed.f") {
		got, rests = append(got, k), append(rests, rest)
	}
	if len(got) != 13 || got[0] != "speed.fa" || got[12] != "speed.fm" || rests[0] != "a" || rests[12] != "m" {
		t.Errorf("speed.f…: %v, rests %v", got, rests)
	}
	// A key added after an iteration is found by the next one, in order.
	s.Add(Fact{Key: "speed.f", Value: int64(1), Unit: UnitCount})
	var all []string
	for k := range s.Prefixed("") {
		all = append(all, k)
	}
	if len(all) != s.Len() || !slices.IsSorted(all) || !slices.Contains(all, "speed.f") {
		t.Errorf("every key: %v", all)
	}
	for range s.Prefixed("zzz") {
		t.Error("a key for an absent prefix")
	}
	for k := range s.Prefixed("fit.") {
		if k != "fit.no" && k != "fit.ok" {
			t.Errorf("fit.: %s", k)
		}
		break // stopping early is allowed
	}
}
