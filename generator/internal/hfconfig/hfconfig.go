// Package hfconfig is the one reader of Hugging Face config.json objects
// that arch and modeltree share: typed, alias-aware field access whose
// errors name the field with its path ("field text_config.hidden_size:
// expected an integer, found 1.5"), and one rule for integers — whole,
// non-negative and at most MaxInt, so that no size read from a config can
// overflow the arithmetic done on it.
package hfconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"dossier/generator/internal/jsoncheck"
)

// MaxInt bounds every integer read from a config: far above any real
// dimension, far below int64 overflow when a few are multiplied.
const MaxInt = 1 << 32

// Object is one JSON object of a config.
type Object map[string]json.RawMessage

// Decode decodes a file that must hold one JSON object. Valid JSON of
// another kind (an array, null) is named as such. Python's non-finite
// numbers (Infinity, -Infinity, NaN), which transformers' json module
// reads, are accepted: see Standard.
func Decode(b []byte, file string) (Object, error) {
	b = Standard(b)
	if !json.Valid(b) {
		var o Object
		err := json.Unmarshal(b, &o) // reports where the syntax breaks
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("%s: expected a JSON object, found %s", file, Kind(t))
	}
	if err := jsoncheck.Check(b, ""); err != nil {
		if file != "config.json" { // config.json field errors are named by the caller
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return nil, err
	}
	var o Object
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return o, nil
}

// Kind names the kind of a valid JSON value from its first byte.
func Kind(t []byte) string {
	t = bytes.TrimLeft(t, " \t\r\n")
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// Has reports whether key is present and not null. A NaN is present: the
// readers below say what it means for the field they read.
func (o Object) Has(key string) bool {
	r, ok := o[key]
	return ok && string(r) != "null"
}

// IsList reports whether key holds a JSON array.
func (o Object) IsList(key string) bool {
	return o.Has(key) && Kind(o[key]) == "an array"
}

// Int reads the first of keys present; key is "" when none is. A value of
// the wrong type, a fraction, a negative number or one above MaxInt is an
// error naming the field (prefix + key).
func (o Object) Int(prefix string, keys ...string) (v int64, key string, err error) {
	for _, k := range keys {
		if !o.Has(k) {
			continue
		}
		switch NonFinite(o[k]) {
		case "NaN":
			// Python's NaN is "not a number": the size is unknown, as if
			// the config did not state it.
			continue
		case "Infinity", "-Infinity":
			return 0, "", fmt.Errorf("field %s%s: %s is out of range for a size", prefix, k, NonFinite(o[k]))
		}
		var f float64
		if err := json.Unmarshal(o[k], &f); err != nil {
			// Some families (Hunyuan) state a size per layer: a list of
			// equal values reads as that value.
			var fs []float64
			if json.Unmarshal(o[k], &fs) != nil || len(fs) == 0 {
				return 0, "", fmt.Errorf("field %s%s: expected a number, found %s", prefix, k, Short(o[k]))
			}
			for _, x := range fs[1:] {
				if x != fs[0] {
					// Valid in the family's own modeling code: a reader
					// that handles per-layer values asks for them with Ints.
					return 0, "", &PerLayerError{Field: prefix + k, A: fs[0], B: x}
				}
			}
			f = fs[0]
		}
		v, err := whole(prefix+k, f)
		return v, k, err
	}
	return 0, "", nil
}

func whole(field string, f float64) (int64, error) {
	switch {
	case f != float64(int64(f)):
		return 0, fmt.Errorf("field %s: expected an integer, found %v", field, f)
	case f < 0:
		return 0, fmt.Errorf("field %s: expected a non-negative integer, found %v", field, f)
	case f > MaxInt:
		return 0, fmt.Errorf("field %s: %v is out of range (at most %d)", field, f, int64(MaxInt))
	}
	return int64(f), nil
}

// Positive is Int for a size whose zero is meaningless (layers, widths,
// heads, experts): stated, it must be at least 1. Absent, it reads 0.
func (o Object) Positive(prefix string, keys ...string) (int64, string, error) {
	v, k, err := o.Int(prefix, keys...)
	if err == nil && k != "" && v == 0 {
		return 0, "", fmt.Errorf("field %s%s: expected a positive integer, found 0", prefix, k)
	}
	return v, k, err
}

// Str reads a string; absent reads "".
func (o Object) Str(prefix, key string) (string, error) {
	if !o.Has(key) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(o[key], &s); err != nil || strings.HasPrefix(s, sentinel) {
		return "", fmt.Errorf("field %s%s: expected a string, found %s", prefix, key, Short(o[key]))
	}
	return s, nil
}

// Bool reads a boolean; absent reads false.
func (o Object) Bool(prefix, key string) (bool, error) {
	if !o.Has(key) {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(o[key], &b); err != nil {
		return false, fmt.Errorf("field %s%s: expected true or false, found %s", prefix, key, Short(o[key]))
	}
	return b, nil
}

// Sub reads a nested object; absent reads nil.
func (o Object) Sub(prefix, key string) (Object, error) {
	if !o.Has(key) {
		return nil, nil
	}
	var m Object
	if err := json.Unmarshal(o[key], &m); err != nil || m == nil {
		return nil, fmt.Errorf("field %s%s: expected an object, found %s", prefix, key, Short(o[key]))
	}
	return m, nil
}

// Ints reads a list of integers (each whole, non-negative, at most MaxInt).
func (o Object) Ints(prefix, key string) ([]int64, error) {
	if !o.Has(key) {
		return nil, nil
	}
	var fs []float64
	if err := json.Unmarshal(o[key], &fs); err != nil {
		return nil, fmt.Errorf("field %s%s: expected a list of integers, found %s", prefix, key, Short(o[key]))
	}
	out := make([]int64, len(fs))
	for i, f := range fs {
		v, err := whole(fmt.Sprintf("%s%s[%d]", prefix, key, i), f)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// Strs reads a list of strings.
func (o Object) Strs(prefix, key string) ([]string, error) {
	if !o.Has(key) {
		return nil, nil
	}
	var ss []string
	if err := json.Unmarshal(o[key], &ss); err != nil || hasSentinel(ss) {
		return nil, fmt.Errorf("field %s%s: expected a list of strings, found %s", prefix, key, Short(o[key]))
	}
	return ss, nil
}

// Short is a value cut to 40 bytes for an error message.
func Short(r json.RawMessage) string {
	if nf := NonFinite(r); nf != "" {
		return nf
	}
	s := string(r)
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// Signed reads an integer that may be negative (an index where -1 means
// "the last"); ok is false when key is absent.
func (o Object) Signed(prefix, key string) (v int64, ok bool, err error) {
	if !o.Has(key) {
		return 0, false, nil
	}
	var f float64
	if err := json.Unmarshal(o[key], &f); err != nil {
		return 0, false, fmt.Errorf("field %s%s: expected a number, found %s", prefix, key, Short(o[key]))
	}
	if f < 0 {
		if f != float64(int64(f)) || f < -MaxInt {
			return 0, false, fmt.Errorf("field %s%s: expected an integer, found %v", prefix, key, f)
		}
		return int64(f), true, nil
	}
	v, err = whole(prefix+key, f)
	return v, err == nil, err
}
