// Package jsoncheck finds what encoding/json accepts without a word but a
// reader of config.json or snapshot.json must not: a key given twice in one
// object (encoding/json keeps the last) and a number beyond float64
// (1e999). Errors name the field by its dotted path.
package jsoncheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Check walks one JSON document. prefix is put before every field path
// ("config." for a config embedded in a snapshot). Invalid JSON is left to
// the decoder that follows, which says where the syntax breaks.
func Check(b []byte, prefix string) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	err := walk(dec, prefix, 0)
	if _, ours := err.(*Error); ours {
		return err
	}
	return nil
}

// Error names the field that is wrong.
type Error struct{ Field, Msg string }

func (e *Error) Error() string { return "field " + e.Field + ": " + e.Msg }

// maxDepth bounds the recursion on hostile input.
const maxDepth = 256

func walk(dec *json.Decoder, path string, depth int) error {
	if depth > maxDepth {
		return &Error{name(path), fmt.Sprintf("nested deeper than %d levels", maxDepth)}
	}
	t, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := t.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsInf(f, 0) {
			return &Error{name(path), fmt.Sprintf("the number %s is beyond the range of a 64-bit float", short(string(v)))}
		}
	case json.Delim:
		switch v {
		case '{':
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				child := k
				if path != "" && path[len(path)-1] != '.' {
					child = path + "." + k
				} else {
					child = path + k
				}
				if seen[k] {
					return &Error{child, "duplicate key (JSON readers disagree on which value wins)"}
				}
				seen[k] = true
				if err := walk(dec, child, depth+1); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case '[':
			for i := 0; dec.More(); i++ {
				if err := walk(dec, fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
	}
	return nil
}

func name(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Line is the line (from 1) of the value at field, a path as Check and
// Error write it ("prices[2].usd_per_hour"), or 0 when b has no such
// field or is not valid JSON.
func Line(b []byte, field string) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	off, found := locate(dec, "", field, 0)
	if !found {
		return 0
	}
	return LineAt(b, off)
}

// LineAt is the line (from 1) of byte offset off in b, as a decoder's
// SyntaxError or UnmarshalTypeError reports it.
func LineAt(b []byte, off int64) int {
	return bytes.Count(b[:max(0, min(int(off), len(b)))], []byte("\n")) + 1
}

// locate walks one value at path; found says it reached field, and off
// is then where the value's first token ends; off -1 is a syntax error.
func locate(dec *json.Decoder, path, field string, depth int) (off int64, found bool) {
	if depth > maxDepth {
		return -1, false
	}
	t, err := dec.Token()
	if err != nil {
		return -1, false
	}
	if path == field {
		return dec.InputOffset(), true
	}
	d, ok := t.(json.Delim)
	if !ok {
		return 0, false
	}
	switch d {
	case '{':
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return -1, false
			}
			k, _ := kt.(string)
			child := k
			if path != "" {
				child = path + "." + k
			}
			if off, found := locate(dec, child, field, depth+1); found || off < 0 {
				return off, found
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if off, found := locate(dec, fmt.Sprintf("%s[%d]", path, i), field, depth+1); found || off < 0 {
				return off, found
			}
		}
	default:
		return 0, false
	}
	if _, err := dec.Token(); err != nil {
		return -1, false
	}
	return 0, false
}
