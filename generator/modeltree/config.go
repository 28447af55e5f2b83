package modeltree

import (
	"fmt"
	"strings"

	"dossier/generator/internal/hfconfig"
)

// reader reads typed fields of one config object through the shared
// reader (internal/hfconfig). The first error sticks (like bufio.Scanner):
// families read all fields, then check r.Err once. Errors name the full
// field path, e.g. "text_config.hidden_size".
type reader struct {
	o    hfconfig.Object
	path string
	err  *error // shared by the readers of sub-objects
}

func newReader(o hfconfig.Object, path string) *reader {
	return &reader{o: o, path: path, err: new(error)}
}

// prefix is the path prefix hfconfig puts before a key in its errors.
func (r *reader) prefix() string {
	if r.path == "" {
		return ""
	}
	return r.path + "."
}

func (r *reader) field(key string) string { return r.prefix() + key }

func (r *reader) fail(format string, args ...any) {
	if *r.err == nil {
		*r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) keep(err error) {
	if *r.err == nil && err != nil {
		*r.err = err
	}
}

// Err is the first error met by this reader or any of its sub-readers.
func (r *reader) Err() error { return *r.err }

func (r *reader) has(key string) bool { return r.o.Has(key) }

// sub returns the reader of an object field, or nil when it is absent/null.
func (r *reader) sub(key string) *reader {
	o, err := r.o.Sub(r.prefix(), key)
	r.keep(err)
	if o == nil {
		return nil
	}
	return &reader{o: o, path: r.field(key), err: r.err}
}

// intOpt reads an optional integer; absent or null gives def.
func (r *reader) intOpt(key string, def int64) int64 {
	v, k, err := r.o.Int(r.prefix(), key)
	r.keep(err)
	if k == "" || err != nil {
		return def
	}
	return v
}

// size reads a required positive integer, trying alternative key spellings
// in order (families disagree: num_experts vs n_routed_experts).
func (r *reader) size(keys ...string) int64 {
	v, k, err := r.o.Positive(r.prefix(), keys...)
	r.keep(err)
	if k == "" && err == nil {
		r.fail("config: missing required field %s", r.field(strings.Join(keys, "|")))
	}
	return v
}

// sizeOpt is size with a default for an absent field.
func (r *reader) sizeOpt(key string, def int64) int64 {
	if !r.has(key) {
		return def
	}
	return r.size(key)
}

func (r *reader) str(key string) string {
	s, err := r.o.Str(r.prefix(), key)
	r.keep(err)
	return s
}

func (r *reader) boolOpt(key string, def bool) bool {
	if !r.has(key) {
		return def
	}
	b, err := r.o.Bool(r.prefix(), key)
	r.keep(err)
	if err != nil {
		return def
	}
	return b
}

func (r *reader) ints(key string) []int64 {
	v, err := r.o.Ints(r.prefix(), key)
	r.keep(err)
	return v
}

func (r *reader) strs(key string) []string {
	v, err := r.o.Strs(r.prefix(), key)
	r.keep(err)
	return v
}

// keys lists the object's keys (compressed-tensors config_groups).
func (r *reader) keys() []string {
	out := make([]string, 0, len(r.o))
	for k := range r.o {
		out = append(out, k)
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
