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

func TestLine(t *testing.T) {
	doc := []byte("{\n  \"provider\": \"x\",\n  \"prices\": [\n    {\n      \"sku\": \"a\",\n      \"gpus\": 8\n    },\n    {\"sku\": \"b\", \"gpus\": 1,\n     \"offers\": {\"count\": 3}}\n  ]\n}\n")
	for field, want := range map[string]int{
		"provider":                2,
		"prices":                  3,
		"prices[0]":               4,
		"prices[0].gpus":          6,
		"prices[1].sku":           8,
		"prices[1].offers.count":  9,
		"prices[2]":               0,
		"nothing":                 0,
		"prices[0].gpus.deeper":   0,
		"prices[1].offers.counts": 0,
	} {
		if got := Line(doc, field); got != want {
			t.Errorf("Line(%s) = %d, want %d", field, got, want)
		}
	}
	if got := Line([]byte(`{"a": [1, 2`), "b"); got != 0 {
		t.Errorf("Line on broken JSON = %d", got)
	}
}

func FuzzLine(f *testing.F) {
	f.Add([]byte(`{"prices": [{"gpus": 8}]}`), "prices[0].gpus")
	f.Add([]byte(`[[[[`), "x")
	f.Fuzz(func(t *testing.T, b []byte, field string) {
		if l := Line(b, field); l < 0 || l > len(b)+1 {
			t.Fatalf("Line = %d for %d bytes", l, len(b))
		}
	})
}
