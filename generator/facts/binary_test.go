package facts

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"testing"

	"dossier/generator/internal/binenc"
)

func sealed(t testing.TB, s *Set) []byte {
	t.Helper()
	b, err := s.AppendBinary([]byte("test\n"))
	if err != nil {
		t.Fatal(err)
	}
	return binenc.Seal(b, 0)
}

func unseal(b []byte) (*Set, error) {
	r, err := binenc.Open(b, "test\n")
	if err != nil {
		return nil, err
	}
	s := ReadBinary(r)
	if s != nil && r.Err() != nil {
		panic("ReadBinary returned a set and an error: " + r.Err().Error())
	}
	if r.Err() == nil && r.Rest() > 0 {
		return nil, errors.New("bytes after the facts")
	}
	return s, r.Err()
}

// sameFacts compares two sets fact by fact, value types included.
func sameFacts(a, b *Set) bool {
	ka, kb := a.Keys(), b.Keys()
	if !reflect.DeepEqual(ka, kb) {
		return false
	}
	for _, k := range ka {
		if !reflect.DeepEqual(*a.Get(k), *b.Get(k)) {
			return false
		}
	}
	return true
}

// TestBinaryRoundTrip: exampleSet read back is the set written, with an
// integral float still a float64 and a nil source list still nil, and
// keeps its key order without sorting again.
func TestBinaryRoundTrip(t *testing.T) {
	s := exampleSet()
	got, err := unseal(sealed(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if !sameFacts(s, got) {
		t.Fatalf("read back:\n%v\nwant\n%v", got.Map(), s.Map())
	}
	if v, ok := got.Get("speed.fb").Value.(float64); !ok || v != 1 {
		t.Errorf("integral float read back as %T %v", got.Get("speed.fb").Value, got.Get("speed.fb").Value)
	}
	if got.Get("fit.ok").Sources != nil || got.Get("empty.sources").Sources == nil {
		t.Error("nil and empty source lists not kept apart")
	}
	if got.keys.sortedN != got.Len() {
		t.Error("a decoded set is not marked sorted")
	}
	want, _ := s.AppendJSON(nil, "", "  ")
	if j, _ := got.AppendJSON(nil, "", "  "); !bytes.Equal(j, want) {
		t.Errorf("JSON of the set read back differs:\n%s", j)
	}
	bad := NewSet()
	bad.Add(Fact{Key: "x", Value: []string{"a"}})
	if _, err := bad.AppendBinary(nil); err == nil {
		t.Error("a value of another type was encoded")
	}
}

// TestBinarySourcesStayApart: the facts read back share their sources'
// backing arrays, and growing one fact's list must not write into the
// next fact's.
func TestBinarySourcesStayApart(t *testing.T) {
	s := NewSet()
	for _, k := range []string{"a", "b", "c"} {
		s.Add(Fact{Key: k, Value: int64(1), Unit: "count", Sources: []string{"config.json", k + ".src"}})
	}
	got, err := unseal(sealed(t, s))
	if err != nil {
		t.Fatal(err)
	}
	_ = append(got.Get("a").Sources, "appended")
	if src := got.Get("b").Sources; !slices.Equal(src, []string{"config.json", "b.src"}) {
		t.Errorf("an append to a's sources changed b's: %q", src)
	}
}

// TestBinaryRefusesDamage: every single-byte change and every cut of an
// encoding is refused, with no set.
func TestBinaryRefusesDamage(t *testing.T) {
	b := sealed(t, exampleSet())
	for i := range b {
		d := bytes.Clone(b)
		d[i] ^= 0x10
		if s, err := unseal(d); err == nil || s != nil {
			t.Errorf("byte %d changed: read (%v)", i, err)
		}
		if _, err := unseal(b[:i]); err == nil {
			t.Errorf("cut at %d: read", i)
		}
	}
}

// FuzzReadBinary: whatever passes the checksum, ReadBinary either refuses
// or returns a set in strict key order that encodes to an encoding it
// reads back to the same set.
func FuzzReadBinary(f *testing.F) {
	s := exampleSet()
	body, err := s.AppendBinary(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(body)
	f.Add([]byte{})
	f.Add([]byte{1, 0, 1, 1, 'k', 0})
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := unseal(binenc.Seal(append([]byte("test\n"), body...), 0))
		if err != nil {
			return
		}
		keys := got.Keys()
		for i := 1; i < len(keys); i++ {
			if keys[i-1] >= keys[i] {
				t.Fatalf("keys out of order: %q, %q", keys[i-1], keys[i])
			}
		}
		again, err := unseal(sealed(t, got))
		if err != nil {
			t.Fatalf("re-encoded set refused: %v", err)
		}
		if !sameFacts(got, again) {
			t.Fatal("re-encoded set differs")
		}
	})
}
