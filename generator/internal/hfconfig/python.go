package hfconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// sentinel starts the JSON string Standard writes in place of a Python
// non-finite number. No real config string starts with a NUL, so the
// replacement does not collide with one.
const sentinel = "\x00"

// Python's json module writes and reads three number tokens that JSON
// lacks; configs on the Hub carry them (Nemotron-H's time_step_limit holds
// Infinity).
var pythonTokens = []string{"-Infinity", "Infinity", "NaN"}

// Standard rewrites Python's non-finite numbers outside strings into JSON
// strings "\u0000Infinity", "\u0000-Infinity" and "\u0000NaN" so that the
// document is standard JSON (storable in a snapshot) and the readers of
// this package still know the number they stood for. Other bytes are kept;
// input without such tokens is returned as is.
func Standard(b []byte) []byte {
	var out []byte
	inString, escaped, last := false, false, 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		if c != '-' && c != 'I' && c != 'N' {
			continue
		}
		for _, tok := range pythonTokens {
			if !bytes.HasPrefix(b[i:], []byte(tok)) {
				continue
			}
			if out == nil {
				out = make([]byte, 0, len(b)+64)
			}
			out = append(out, b[last:i]...)
			out = append(out, `"\u0000`...)
			out = append(out, tok...)
			out = append(out, '"')
			i += len(tok) - 1
			last = i + 1
			break
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// NonFinite returns "Infinity", "-Infinity" or "NaN" when r is a value
// Standard rewrote, else "".
func NonFinite(r json.RawMessage) string {
	if !bytes.HasPrefix(r, []byte(`"\u0000`)) {
		return ""
	}
	var s string
	if json.Unmarshal(r, &s) != nil {
		return ""
	}
	for _, tok := range pythonTokens {
		if s == sentinel+tok {
			return tok
		}
	}
	return ""
}

func hasSentinel(ss []string) bool {
	for _, s := range ss {
		if strings.HasPrefix(s, sentinel) {
			return true
		}
	}
	return false
}

// Float reads a number; Infinity and -Infinity read as ±Inf, NaN as absent
// (ok false). A value of another type is an error naming the field.
func (o Object) Float(prefix, key string) (v float64, ok bool, err error) {
	if !o.Has(key) {
		return 0, false, nil
	}
	switch NonFinite(o[key]) {
	case "NaN":
		return 0, false, nil
	case "Infinity":
		return math.Inf(1), true, nil
	case "-Infinity":
		return math.Inf(-1), true, nil
	}
	if err := json.Unmarshal(o[key], &v); err != nil {
		return 0, false, fmt.Errorf("field %s%s: expected a number, found %s", prefix, key, Short(o[key]))
	}
	return v, true, nil
}

// Limit reads a bound such as a window: Infinity means "no limit" and
// reads as absent (0, key ""), as does NaN; otherwise it is Int.
func (o Object) Limit(prefix string, keys ...string) (int64, string, error) {
	for _, k := range keys {
		if nf := NonFinite(o[k]); nf == "Infinity" || nf == "NaN" {
			return 0, "", nil
		}
		if o.Has(k) {
			return o.Int(prefix, k)
		}
	}
	return 0, "", nil
}

// PerLayerError is a field stating one size per layer whose values differ
// where a reader asked for one size.
type PerLayerError struct {
	Field string
	A, B  float64
}

func (e *PerLayerError) Error() string {
	return fmt.Sprintf("field %s: per-layer values differ (%v, %v): not supported", e.Field, e.A, e.B)
}

// Objects reads a list of objects (nemotron-nas block_configs); absent
// reads nil.
func (o Object) Objects(prefix, key string) ([]Object, error) {
	if !o.Has(key) {
		return nil, nil
	}
	var os []Object
	if err := json.Unmarshal(o[key], &os); err != nil {
		return nil, fmt.Errorf("field %s%s: expected a list of objects, found %s", prefix, key, Short(o[key]))
	}
	for i, x := range os {
		if x == nil {
			return nil, fmt.Errorf("field %s%s[%d]: expected an object, found null", prefix, key, i)
		}
	}
	return os, nil
}
