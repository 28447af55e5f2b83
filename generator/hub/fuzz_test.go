package hub

import "testing"

func FuzzParseIndex(f *testing.F) {
	for _, s := range []string{
		`{"metadata":{"total_size":12},"weight_map":{"a":"b","c\"":"d"}}`,
		`{"metadata":{"total_size":1.5e3},"weight_map":{},"x":[1,{"y":null}]}`,
		`{"weight_map":{"a":"b\\"}}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		total, n, err := parseIndex(b)
		if err == nil && (total <= 0 || n < 0) {
			t.Fatalf("accepted total %d, %d entries", total, n)
		}
	})
}
