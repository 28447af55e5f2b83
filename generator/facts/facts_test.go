package facts

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestDisplayRules(t *testing.T) {
	for _, tc := range []struct {
		unit string
		v    any
		want string
	}{
		{UnitBytes, int64(1560936091448), "1,560.9 GB (1,453.7 GiB)"},
		{UnitBytes, int64(75766584), "75.8 MB (72.3 MiB)"},
		{UnitBytes, int64(27648), "27.6 KB (27.0 KiB)"},
		{UnitBytes, int64(4718592), "4.7 MB (4.5 MiB)"},
		{UnitBytes, int64(512), "512 B"},
		{UnitBytes, int64(12_500_000_000_000), "12.5 TB (11.4 TiB)"},
		{UnitBytes, int64(-120860324864), "-120.9 GB (-112.6 GiB)"},
		{UnitParams, int64(2779931837184), "2.78 T"},
		{UnitParams, int64(104189614848), "104 B"},
		{UnitParams, int64(57179884544), "57.2 B"},
		{UnitParams, int64(8030261248), "8.03 B"},
		{UnitParams, int64(447358976), "447 M"},
		{UnitParams, int64(999_600_000), "1.00 B"},
		{UnitRatio, 69.0 / 24.0, "2.9:1"},
		{UnitRatio, 3.0, "3.0:1"},
		{UnitShare, 16.0 / 896.0, "1.8%"},
		{UnitShare, 2722740830208.0 / 2779931837184.0, "97.9%"},
		{UnitCount, int64(497220), "497,220"},
		{UnitUSDHour, 47.84, "$47.84/h"},
		{UnitUSD, 0.0000065, "<$0.01"},
		{UnitSeconds, 12359.0, "12,359 s (3.4 h)"},
		{UnitSeconds, 4247096 / 126.3e6, "34 ms"},
		{UnitSeconds, 0.5, "0.5 s"},
		{UnitBool, false, "no"},
		{UnitBytes, nil, "unknown"},
	} {
		if got := Display(tc.unit, tc.v); got != tc.want {
			t.Errorf("Display(%s, %v) = %q, want %q", tc.unit, tc.v, got, tc.want)
		}
	}
}

func TestJSONRoundTripKeepsIntegers(t *testing.T) {
	s := NewSet()
	s.Add(Fact{Key: "bytes.checkpoint", Value: int64(1560936091448), Unit: UnitBytes, Sources: []string{"hub:tree"}})
	s.Add(Fact{Key: "arch.linear_to_full_ratio", Value: 2.875, Unit: UnitRatio})
	s.Unknown("kv.bytes_per_token", UnitBytes, "config lacks num_key_value_heads")
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Set
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if v, ok := back.Get("bytes.checkpoint").Int(); !ok || v != 1560936091448 {
		t.Errorf("bytes.checkpoint = %v, %v", v, ok)
	}
	if v, _ := back.Get("arch.linear_to_full_ratio").Float(); v != 2.875 {
		t.Errorf("ratio = %v", v)
	}
	u := back.Get("kv.bytes_per_token")
	if u.Known() || u.Reason == "" || u.Display != "unknown" {
		t.Errorf("unknown fact lost its reason: %+v", u)
	}
}

func TestRoundSig(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		n    int
		want float64
	}{{2779931837184, 2, 2.8e12}, {30532122624, 2, 31e9}, {104189614848, 3, 104e9}, {0.0374, 2, 0.037}, {0, 2, 0}} {
		if got := RoundSig(tc.x, tc.n); got != tc.want {
			t.Errorf("RoundSig(%v, %d) = %v, want %v", tc.x, tc.n, got, tc.want)
		}
	}
}

func TestShortBytesNeverZeroGB(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{1560936091448, "1,560.9 GB"}, {4718592, "4.7 MB"}, {27648, "27.6 KB"}, {-22.7e9, "-22.7 GB"}, {900, "900 B"}} {
		if got := GB(tc.v); got != tc.want {
			t.Errorf("GB(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := BytesIn(2e6, 4.7e6); got != "2.0 MB" {
		t.Errorf("BytesIn(2e6, 4.7e6) = %q", got)
	}
	if got := BytesIn(400e9, 1600e9); got != "400 GB" {
		t.Errorf("BytesIn(400e9, 1600e9) = %q", got)
	}
}

// The ordered walk keeps each key's fact beside it: a fact replaced before
// or after the keys were sorted is the one All yields and AppendJSON
// writes, and a key added after a walk takes its place in order.
func TestAllFollowsAddAndReplace(t *testing.T) {
	// A set made with room for facts (NewSetSize) behaves as one made empty.
	for _, s := range []*Set{NewSet(), NewSetSize(2)} {
		allFollowsAddAndReplace(t, s)
	}
}

func allFollowsAddAndReplace(t *testing.T, s *Set) {
	t.Helper()
	s.Add(Fact{Key: "c", Value: int64(3), Unit: UnitCount})
	s.Add(Fact{Key: "a", Value: int64(1), Unit: UnitCount})
	s.Add(Fact{Key: "b", Value: int64(2), Unit: UnitCount})
	s.Add(Fact{Key: "c", Value: int64(30), Unit: UnitCount}) // replaced while unsorted
	walk := func() string {
		var out []string
		for f := range s.All() {
			n, _ := f.Int()
			out = append(out, fmt.Sprintf("%s=%d", f.Key, n))
		}
		return strings.Join(out, " ")
	}
	if got := walk(); got != "a=1 b=2 c=30" {
		t.Fatalf("walk %q", got)
	}
	s.Add(Fact{Key: "a", Value: int64(10), Unit: UnitCount}) // replaced once sorted
	s.Add(Fact{Key: "ab", Value: int64(5), Unit: UnitCount}) // added once sorted
	if got := walk(); got != "a=10 ab=5 b=2 c=30" {
		t.Fatalf("walk %q", got)
	}
	appendsAsMarshalIndent(t, s, "", "  ")
}

// TestKeysStaySortedAsFactsAreAdded adds facts in a scrambled order,
// asking for the keys in between (each sort merges the keys added since
// the last), replacing some, and checks every walk is in key order with
// each key's own fact.
func TestKeysStaySortedAsFactsAreAdded(t *testing.T) {
	s := NewSet()
	for i := range 500 {
		k := fmt.Sprintf("k%03d", (i*337)%500)
		s.Add(Fact{Key: k, Value: int64(i)})
		if i%7 == 0 {
			s.Add(Fact{Key: k, Value: int64(-i)}) // a replacement
		}
		if i%31 == 0 || i == 499 {
			keys := s.Keys()
			if !slices.IsSorted(keys) || len(keys) != s.Len() {
				t.Fatalf("after %d adds: keys out of order or missing", i+1)
			}
			j := 0
			for f := range s.All() {
				if f.Key != keys[j] || s.Get(f.Key) != f {
					t.Fatalf("after %d adds: fact %d is %s, not %s's", i+1, j, f.Key, keys[j])
				}
				j++
			}
		}
	}
}
