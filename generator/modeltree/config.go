package modeltree

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// maxDim bounds every size read from a config, so that shapes stay far from
// int64 overflow and a hostile config cannot ask for absurd work.
const maxDim = 1 << 32

// reader reads typed fields from one JSON object. The first error sticks
// (like bufio.Scanner): families read all fields, then check r.err once.
// Errors name the full field path, e.g. "text_config.hidden_size".
type reader struct {
	m    map[string]any
	path string
	err  *error // shared by the readers of sub-objects
}

func parseJSON(data []byte, what string) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: expected a JSON object, found %s", what, jsonKind(v))
	}
	return m, nil
}

// jsonKind names the kind of a decoded JSON value that is not an object.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

func newReader(m map[string]any, path string) *reader {
	return &reader{m: m, path: path, err: new(error)}
}

func (r *reader) field(key string) string {
	if r.path == "" {
		return key
	}
	return r.path + "." + key
}

func (r *reader) fail(format string, args ...any) {
	if *r.err == nil {
		*r.err = fmt.Errorf(format, args...)
	}
}

// Err is the first error met by this reader or any of its sub-readers.
func (r *reader) Err() error { return *r.err }

func (r *reader) has(key string) bool {
	v, ok := r.m[key]
	return ok && v != nil
}

// sub returns the reader of an object field, or nil when it is absent/null.
func (r *reader) sub(key string) *reader {
	v, ok := r.m[key]
	if !ok || v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		r.fail("config field %s: want an object, got %T", r.field(key), v)
		return nil
	}
	return &reader{m: m, path: r.field(key), err: r.err}
}

func (r *reader) toInt(key string, v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		r.fail("config field %s: want an integer, got %T", r.field(key), v)
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	// Configs occasionally write 4096.0.
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxDim {
		r.fail("config field %s: want an integer, got %s", r.field(key), n)
		return 0, false
	}
	return int64(f), true
}

// intOpt reads an optional integer; absent or null gives def.
func (r *reader) intOpt(key string, def int64) int64 {
	v, ok := r.m[key]
	if !ok || v == nil {
		return def
	}
	n, ok := r.toInt(key, v)
	if !ok {
		return def
	}
	if n < 0 || n > maxDim {
		r.fail("config field %s: %d out of range", r.field(key), n)
		return def
	}
	return n
}

// size reads a required positive integer, trying alternative key spellings
// in order (families disagree: num_experts vs n_routed_experts).
func (r *reader) size(keys ...string) int64 {
	for _, k := range keys {
		if r.has(k) {
			n := r.intOpt(k, 0)
			if n <= 0 && r.Err() == nil {
				r.fail("config field %s: must be positive, got %d", r.field(k), n)
			}
			return n
		}
	}
	r.fail("config: missing required field %s", r.field(strings.Join(keys, "|")))
	return 0
}

// sizeOpt is size with a default for an absent field.
func (r *reader) sizeOpt(key string, def int64) int64 {
	if !r.has(key) {
		return def
	}
	return r.size(key)
}

func (r *reader) str(key string) string {
	v, ok := r.m[key]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		r.fail("config field %s: want a string, got %T", r.field(key), v)
	}
	return s
}

func (r *reader) boolOpt(key string, def bool) bool {
	v, ok := r.m[key]
	if !ok || v == nil {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		r.fail("config field %s: want a boolean, got %T", r.field(key), v)
		return def
	}
	return b
}

func (r *reader) list(key string) []any {
	v, ok := r.m[key]
	if !ok || v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		r.fail("config field %s: want a list, got %T", r.field(key), v)
	}
	return l
}

func (r *reader) ints(key string) []int64 {
	l := r.list(key)
	out := make([]int64, 0, len(l))
	for i, v := range l {
		n, ok := r.toInt(fmt.Sprintf("%s[%d]", key, i), v)
		if !ok {
			return nil
		}
		out = append(out, n)
	}
	return out
}

func (r *reader) strs(key string) []string {
	l := r.list(key)
	out := make([]string, 0, len(l))
	for i, v := range l {
		s, ok := v.(string)
		if !ok {
			r.fail("config field %s[%d]: want a string, got %T", r.field(key), i, v)
			return nil
		}
		out = append(out, s)
	}
	return out
}

// storageDType maps a config dtype ("bfloat16", "torch.float16") to the
// safetensors name; checkpoints without one are taken as BF16.
func storageDType(r *reader) string {
	s := r.str("dtype")
	if s == "" {
		s = r.str("torch_dtype")
	}
	switch strings.TrimPrefix(s, "torch.") {
	case "float16", "half":
		return "F16"
	case "float32", "float":
		return "F32"
	}
	return "BF16"
}
