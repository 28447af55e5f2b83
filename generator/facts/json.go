package facts

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the set as json.MarshalIndent(s, prefix, indent)
// writes it, HTML characters escaped, without encoding/json's reflection
// and its second, indenting pass: a facts.json holds over a thousand
// facts.
// TestAppendJSONIsMarshalIndent holds it to the standard encoder.
func (s *Set) AppendJSON(dst []byte, prefix, indent string) ([]byte, error) {
	keys, fs := s.sorted()
	if len(keys) == 0 {
		return append(dst, "{}"...), nil
	}
	in1 := prefix + indent
	in2 := in1 + indent
	in3 := in2 + indent
	dst = append(dst, '{')
	for i, f := range fs {
		var err error
		if dst, err = appendFact(dst, keys[i], f, i > 0, in1, in2, in3); err != nil {
			return nil, err
		}
	}
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	return append(dst, '}'), nil
}

// appendFact appends one member of the facts object, a comma first when
// it follows another.
func appendFact(dst []byte, k string, f *Fact, comma bool, in1, in2, in3 string) ([]byte, error) {
	if comma {
		dst = append(dst, ',')
	}
	dst = append(dst, '\n')
	dst = append(dst, in1...)
	dst = appendString(dst, k)
	dst = append(dst, ": {\n"...)
	dst = append(dst, in2...)
	dst = append(dst, `"value": `...)
	var err error
	if dst, err = appendValue(dst, f.Value); err != nil {
		return nil, fmt.Errorf("fact %s: %w", k, err)
	}
	dst = appendField(dst, in2, "unit", f.Unit)
	dst = appendField(dst, in2, "display", f.Display)
	if len(f.Sources) > 0 {
		dst = append(dst, ",\n"...)
		dst = append(dst, in2...)
		dst = append(dst, `"sources": [`...)
		for j, src := range f.Sources {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '\n')
			dst = append(dst, in3...)
			dst = appendString(dst, src)
		}
		dst = append(dst, '\n')
		dst = append(dst, in2...)
		dst = append(dst, ']')
	}
	if f.Derivation != "" {
		dst = appendField(dst, in2, "derivation", f.Derivation)
	}
	if f.Reason != "" {
		dst = appendField(dst, in2, "reason", f.Reason)
	}
	dst = append(dst, '\n')
	dst = append(dst, in1...)
	return append(dst, '}'), nil
}

// appendField appends `,\n<in>"name": "value"`.
func appendField(dst []byte, in, name, value string) []byte {
	dst = append(dst, ",\n"...)
	dst = append(dst, in...)
	dst = append(dst, '"')
	dst = append(dst, name...)
	dst = append(dst, `": `...)
	return appendString(dst, value)
}

// appendValue appends a fact's value as encoding/json does.
func appendValue(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case int64:
		return strconv.AppendInt(dst, v, 10), nil
	case string:
		return appendString(dst, v), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("unsupported value %v", v)
		}
		// encoding/json's choice of format, and its short exponent.
		format := byte('f')
		if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
			format = 'e'
		}
		dst = strconv.AppendFloat(dst, v, format, -1, 64)
		if n := len(dst); format == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
		return dst, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

const hex = "0123456789abcdef"

// plainJSON marks the ASCII bytes a JSON string holds as they are: one
// lookup per byte instead of six comparisons.
var plainJSON = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// appendString appends s quoted as encoding/json quotes it with HTML
// escaping on: <, > and & as \u003c, \u003e, \u0026; U+2028 and U+2029
// escaped; invalid UTF-8 as U+FFFD.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if plainJSON[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
