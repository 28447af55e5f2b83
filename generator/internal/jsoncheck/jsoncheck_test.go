package jsoncheck

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct{ in, prefix, want string }{
		{`{"a": 1, "b": {"c": [1, 2, {"d": 3}]}}`, "", ""},
		{`{"a": 1, "a": 2}`, "", "field a: duplicate key"},
		{`{"a": {"b": 1, "b": 1}}`, "config.", "field config.a.b: duplicate key"},
		{`{"a": [0, 1e999]}`, "", "field a[1]: the number 1e999"},
		{`{"rope_theta": -1e400}`, "config.", "field config.rope_theta: the number -1e400"},
		{`{"a": 1`, "", ""}, // syntax is the decoder's to report
		{`[{"x": 1, "x": 1}]`, "", "field [0].x: duplicate key"},
	} {
		err := Check([]byte(tc.in), tc.prefix)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("Check(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte(`{"a": [1, {"b": 1e999}]}`))
	f.Add([]byte(`{"a": 1, "a": 2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = Check(b, "")
	})
}
