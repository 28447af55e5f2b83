package hfconfig

import (
	"strings"
	"testing"
)

func TestIntegersFollowOneRule(t *testing.T) {
	o, err := Decode([]byte(`{"a":4096,"b":4096.0,"c":1.5,"d":-1,"e":1e12,"f":"x","g":[8,8,8],"h":[8,9],"z":0,"n":null}`), "config.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		want int64
		err  string
	}{
		{"a", 4096, ""}, {"b", 4096, ""}, {"g", 8, ""}, {"n", 0, ""},
		{"c", 0, "field p.c: expected an integer, found 1.5"},
		{"d", 0, "field p.d: expected a non-negative integer"},
		{"e", 0, "field p.e: 1e+12 is out of range"},
		{"f", 0, `field p.f: expected a number, found "x"`},
		{"h", 0, "field p.h: per-layer values differ"},
	} {
		v, _, err := o.Int("p.", tc.key)
		if tc.err == "" && (err != nil || v != tc.want) {
			t.Errorf("%s: %d, %v; want %d", tc.key, v, err, tc.want)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: err %v, want %q", tc.key, err, tc.err)
		}
	}
	if _, _, err := o.Positive("", "z"); err == nil || !strings.Contains(err.Error(), "expected a positive integer") {
		t.Errorf("zero size: %v", err)
	}
	if v, ok, err := o.Signed("", "d"); v != -1 || !ok || err != nil {
		t.Errorf("signed -1: %d %v %v", v, ok, err)
	}
	for in, want := range map[string]string{`[1]`: "found an array", `null`: "found null", `{"a":`: "config.json"} {
		if _, err := Decode([]byte(in), "config.json"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%s) = %v, want %q", in, err, want)
		}
	}
}
