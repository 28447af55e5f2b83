package hfconfig

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// Nemotron-H's config.json (nvidia/Nemotron-H-56B-Base-8K) states
// "time_step_limit": [0.0, Infinity]; Python's json reads it.
const pythonConfig = `{"model_type":"nemotron_h","time_step_limit":[0.0, Infinity],"lo":-Infinity,
"nan":NaN,"name":"Infinity and NaN in a string, \"NaN\" escaped","hidden_size":4096,
"sliding_window":Infinity,"num_hidden_layers":NaN,"vocab_size":Infinity}`

func TestPythonNumbersAreAccepted(t *testing.T) {
	o, err := Decode([]byte(pythonConfig), "config.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := NonFinite(o["lo"]); got != "-Infinity" {
		t.Errorf("lo = %q", got)
	}
	if s, err := o.Str("", "name"); err != nil || s != `Infinity and NaN in a string, "NaN" escaped` {
		t.Errorf("strings are kept as written: %q, %v", s, err)
	}
	if v, _, err := o.Int("", "hidden_size"); v != 4096 || err != nil {
		t.Errorf("hidden_size = %d, %v", v, err)
	}
	// NaN is "not a number": a size stated as NaN is unknown, not bad.
	if v, k, err := o.Int("", "num_hidden_layers"); v != 0 || k != "" || err != nil {
		t.Errorf("NaN size = %d, %q, %v; want absent", v, k, err)
	}
	// Infinity is no size: a needed field holding it is bad input, named.
	if _, _, err := o.Int("p.", "vocab_size"); err == nil || !strings.Contains(err.Error(), "field p.vocab_size: Infinity is out of range") {
		t.Errorf("Infinity size: %v", err)
	}
	// A bound of Infinity is no bound.
	if v, k, err := o.Limit("", "sliding_window"); v != 0 || k != "" || err != nil {
		t.Errorf("window Infinity = %d, %q, %v; want no limit", v, k, err)
	}
	if v, ok, err := o.Float("", "lo"); !math.IsInf(v, -1) || !ok || err != nil {
		t.Errorf("Float(-Infinity) = %v, %v, %v", v, ok, err)
	}
	if _, ok, err := o.Float("", "nan"); ok || err != nil {
		t.Errorf("Float(NaN) = %v, %v; want absent", ok, err)
	}
	if _, err := o.Str("", "lo"); err == nil || !strings.Contains(err.Error(), "expected a string, found -Infinity") {
		t.Errorf("a number is not a string: %v", err)
	}
	if _, err := o.Ints("", "time_step_limit"); err == nil || !strings.Contains(err.Error(), "time_step_limit") {
		t.Errorf("a list holding Infinity is not a list of integers: %v", err)
	}
}

func TestStandardKeepsJSONAsIs(t *testing.T) {
	for _, in := range []string{`{"a":1}`, `{"Infinity":"NaN","b":[-1,-2.5e3]}`, `{"a":"\\\"Infinity"}`} {
		if got := string(Standard([]byte(in))); got != in {
			t.Errorf("Standard(%s) = %s", in, got)
		}
	}
	if got := string(Standard([]byte(`[NaN,-Infinity]`))); got != `["\u0000NaN","\u0000-Infinity"]` {
		t.Errorf("Standard = %s", got)
	}
}

func TestPerLayerErrorIsTyped(t *testing.T) {
	o, _ := Decode([]byte(`{"moe_layer_freq":[0,1,1]}`), "config.json")
	_, _, err := o.Int("text_config.", "moe_layer_freq")
	var pl *PerLayerError
	if !errors.As(err, &pl) || pl.Field != "text_config.moe_layer_freq" || pl.A != 0 || pl.B != 1 {
		t.Errorf("err = %v", err)
	}
	if v, err := o.Ints("", "moe_layer_freq"); err != nil || len(v) != 3 {
		t.Errorf("Ints = %v, %v", v, err)
	}
}

// FuzzDecode: whatever the bytes, Decode returns an object or an error,
// never panics; what Standard writes is standard JSON whenever its input
// is JSON with Python's number tokens; and a decoded object's fields read
// without panicking.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(pythonConfig))
	f.Add([]byte(`{"a":[NaN,{"b":"Infinity\\"NaN"}],"c":-Infinity}`))
	f.Add([]byte(`{"a":"\u0000NaN"}`))
	f.Add([]byte(`[Infinity]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		std := Standard(b)
		if json.Valid(b) && string(std) != string(b) {
			t.Fatalf("Standard changed valid JSON %q into %q", b, std)
		}
		o, err := Decode(b, "config.json")
		if err != nil {
			return
		}
		for k := range o {
			_, _, _ = o.Int("", k)
			_, _, _ = o.Limit("", k)
			_, _, _ = o.Float("", k)
			_, _ = o.Str("", k)
			_, _ = o.Ints("", k)
			_ = Short(o[k])
		}
	})
}
