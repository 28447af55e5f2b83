// Package facts holds the generator's spine: every number a page prints is
// a Fact with its unit, display string, sources and derivation. A fact that
// cannot be derived is still present, with a nil value and the reason.
package facts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Units used by facts. The unit decides how a value is displayed.
const (
	UnitBytes   = "bytes"
	UnitParams  = "parameters"
	UnitCount   = "count"
	UnitRatio   = "ratio"    // x:1
	UnitShare   = "fraction" // 0..1, shown as a percentage
	UnitBool    = "bool"
	UnitSeconds = "seconds"
	UnitUSDHour = "usd_per_hour"
	UnitUSD     = "usd"
	UnitBits    = "bits_per_parameter"
	UnitTokens  = "tokens"
	// UnitTokensPerSec is a generation or prefill rate.
	UnitTokensPerSec = "tokens_per_second"
	UnitText         = "text"

	UnitBytesPerSecond = "bytes_per_second"
)

// Fact is one figure with its provenance.
type Fact struct {
	Key        string   `json:"-"`
	Value      any      `json:"value"` // int64, float64, bool, string or nil (unknown)
	Unit       string   `json:"unit"`
	Display    string   `json:"display"`
	Sources    []string `json:"sources,omitempty"`
	Derivation string   `json:"derivation,omitempty"`
	Reason     string   `json:"reason,omitempty"` // why the value is unknown
	// Bound is BoundUpper when the value is a ceiling (a speed from peak
	// bandwidths, uncalibrated): a claim above it is refuted, one below
	// it is not confirmed. Its derivation says so in facts.json.
	Bound string `json:"-"`
	// ErrorP90 is, for a calibrated prediction, its regime's 90th
	// percentile of max(predicted ÷ measured, measured ÷ predicted) − 1:
	// a claim is compared within that band, not to the figure alone.
	ErrorP90 float64 `json:"-"`
}

// BoundUpper marks a fact whose value is an upper bound.
const BoundUpper = "upper"

// Known reports whether the fact has a value.
func (f *Fact) Known() bool { return f != nil && f.Value != nil }

// Int returns an integer value; ok is false for unknown or non-integer facts.
func (f *Fact) Int() (int64, bool) {
	if f == nil {
		return 0, false
	}
	v, ok := f.Value.(int64)
	return v, ok
}

// Float returns the value as a float64 for any numeric fact.
func (f *Fact) Float() (float64, bool) {
	if f == nil {
		return 0, false
	}
	switch v := f.Value.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// Bool returns a boolean value.
func (f *Fact) Bool() (bool, bool) {
	if f == nil {
		return false, false
	}
	v, ok := f.Value.(bool)
	return v, ok
}

// Set is the facts of one model, keyed by fact key.
type Set struct {
	m    map[string]*Fact
	keys *keyList // shared, like m, by copies of the set
}

// keyList is a set's keys and their facts, the first sortedN of them
// sorted by key: pages ask for them in order often, and a model adds over
// a thousand facts. facts[i] is the fact of keys[i], so an ordered walk
// looks nothing up.
type keyList struct {
	mu      sync.Mutex
	keys    []string
	facts   []*Fact
	sortedN int
}

func (l *keyList) add(k string, f *Fact) {
	l.mu.Lock()
	l.keys = append(l.keys, k)
	l.facts = append(l.facts, f)
	l.mu.Unlock()
}

// replace points k, already in the list, at f.
func (l *keyList) replace(k string, f *Fact) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i, ok := slices.BinarySearch(l.keys[:l.sortedN], k); ok {
		l.facts[i] = f
	} else if i := slices.Index(l.keys[l.sortedN:], k); i >= 0 {
		l.facts[l.sortedN+i] = f
	}
}

// sort orders keys and facts together; l.mu is held. The keys added since
// the last sort are sorted alone and merged in: sizing adds its priced
// facts last, to a set already read back sorted.
func (l *keyList) sort() {
	type entry struct {
		key  string
		fact *Fact
	}
	es := make([]entry, len(l.keys)-l.sortedN)
	for i, k := range l.keys[l.sortedN:] {
		es[i] = entry{k, l.facts[l.sortedN+i]}
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	keys, fs := l.keys, l.facts
	if l.sortedN > 0 {
		// Merge from the back, so the sorted prefix moves in place.
		i, j := l.sortedN-1, len(es)-1
		for k := len(keys) - 1; j >= 0; k-- {
			if i >= 0 && keys[i] > es[j].key {
				keys[k], fs[k] = keys[i], fs[i]
				i--
			} else {
				keys[k], fs[k] = es[j].key, es[j].fact
				j--
			}
		}
	} else {
		for i, e := range es {
			keys[i], fs[i] = e.key, e.fact
		}
	}
	l.sortedN = len(keys)
}

// NewSet returns an empty set.
func NewSet() *Set { return &Set{m: map[string]*Fact{}, keys: &keyList{}} }

// NewSetSize returns an empty set with room for about n facts: a model's
// sizing adds over a thousand, and growing the map was a hundredth of a
// build.
func NewSetSize(n int) *Set {
	return &Set{m: make(map[string]*Fact, n), keys: &keyList{keys: make([]string, 0, n), facts: make([]*Fact, 0, n)}}
}

// Add stores f, replacing a fact with the same key, and returns it. The
// display string is filled from the unit when empty.
func (s *Set) Add(f Fact) *Fact {
	if f.Display == "" {
		f.Display = Display(f.Unit, f.Value)
	}
	if f.Value == nil && f.Display == "" {
		f.Display = "unknown"
	}
	p := &f
	if _, ok := s.m[f.Key]; ok {
		s.keys.replace(f.Key, p)
	} else {
		s.keys.add(f.Key, p)
	}
	s.m[f.Key] = p
	return p
}

// Unknown records that key could not be derived, and why.
func (s *Set) Unknown(key, unit, reason string) *Fact {
	return s.Add(Fact{Key: key, Unit: unit, Display: "unknown", Reason: reason})
}

// Get returns the fact for key, or nil.
func (s *Set) Get(key string) *Fact { return s.m[key] }

// Len is the number of facts.
func (s *Set) Len() int { return len(s.m) }

// Keys returns the keys in sorted order.
func (s *Set) Keys() []string { return slices.Clone(s.sortedKeys()) }

// Prefixed yields, in order, the keys that start with prefix ("" for
// every key), each with the rest of the key after prefix: they are
// adjacent in key order, so this costs their number, not the set's.
// Adding facts while iterating is not allowed.
func (s *Set) Prefixed(prefix string) iter.Seq2[string, string] {
	return func(yield func(key, rest string) bool) {
		keys := s.sortedKeys()
		for _, k := range keys[sort.SearchStrings(keys, prefix):] {
			rest, ok := strings.CutPrefix(k, prefix)
			if !ok || !yield(k, rest) {
				return
			}
		}
	}
}

// sortedKeys returns s.keys, sorting them first if a fact was added since.
func (s *Set) sortedKeys() []string {
	keys, _ := s.sorted()
	return keys
}

// All yields every fact in key order. Adding facts while iterating is not
// allowed.
func (s *Set) All() iter.Seq[*Fact] {
	return func(yield func(*Fact) bool) {
		_, facts := s.sorted()
		for _, f := range facts {
			if !yield(f) {
				return
			}
		}
	}
}

// sorted returns the keys in order and, index for index, their facts.
func (s *Set) sorted() ([]string, []*Fact) {
	if s.keys == nil {
		return nil, nil
	}
	l := s.keys
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sortedN < len(l.keys) {
		l.sort()
	}
	return l.keys, l.facts
}

// Map returns the facts keyed by key (shared, not copied).
func (s *Set) Map() map[string]*Fact { return s.m }

// MarshalJSON writes the facts as an object in key order.
func (s *Set) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range s.sortedKeys() {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		fb, err := marshalNoEscape(s.m[k])
		if err != nil {
			return nil, fmt.Errorf("fact %s: %w", k, err)
		}
		buf.Write(fb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads a facts object of either schema (see Schema),
// keeping integers as int64: every reader of facts.json decodes through it.
func (s *Set) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	// A schema-1 fact is an object; schema 2 marks itself with a number.
	if v, ok := raw["schema"]; ok && len(v) > 0 && v[0] != '{' {
		return s.unmarshalSchema2(b)
	}
	s.m = make(map[string]*Fact, len(raw))
	s.keys = &keyList{keys: make([]string, 0, len(raw)), facts: make([]*Fact, 0, len(raw))}
	for k, r := range raw {
		f, err := decodeFact(k, r)
		if err != nil {
			return err
		}
		s.m[k] = f
		s.keys.keys = append(s.keys.keys, k)
		s.keys.facts = append(s.keys.facts, f)
	}
	return nil
}

// decodeFact reads one schema-1 fact object.
func decodeFact(k string, r json.RawMessage) (*Fact, error) {
	dec := json.NewDecoder(bytes.NewReader(r))
	dec.UseNumber()
	var f Fact
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("fact %s: %w", k, err)
	}
	v, err := numberValue(f.Value)
	if err != nil {
		return nil, fmt.Errorf("fact %s: %w", k, err)
	}
	f.Value, f.Key = v, k
	return &f, nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
