package facts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Schema 2 of a facts object (the "facts" member of facts.json). Schema 1
// is one object per fact, keyed by fact key: {"value", "unit", "display",
// "sources", "derivation", "reason"}. Schema 2 writes the matrices
// Tabulate finds (a family prefix.<row>[.column] with at least three rows,
// a row being a layout such as 8xH100 or an accelerator such as H100) as
// compact tables, and keeps every other fact as in schema 1:
//
//	{
//	  "schema": 2,
//	  "sources": ["config.json", "catalog:hardware.yaml#{acc}", …],
//	  "tables": [{
//	    "rows": ["1xA100", "8xH100", …],
//	    "columns": [{"key": "fit.{row}.at_rest", "unit": "bool",
//	                 "displays": {"false": "does not fit", "true": "fits"},
//	                 "rules": ["tensor bytes ≤ {1} × {2} MiB", …],
//	                 "sources": [0, 1]}, …],
//	    "cells": [[{"v": true, "b": ["1", "81,920"]}, null, …], …]
//	  }, …],
//	  "facts": {"arch.layers": {"value": 61, "unit": "count", …}, …}
//	}
//
// A column states its key pattern, unit, derivation rules and sources
// once. Its cells hold one row each, one cell per column, null where the
// row has no such fact (trailing nulls left out). A cell is {"v": value}
// and, only where it differs from what the column implies: "d" the
// display (else the column's "displays" entry for the value, else
// Display(unit, value), "unknown" for null), "u" the unit, "k" which rule
// (else the first), "b" the values of the rule's {1}…{n} (text, or a
// number whose text is kept as written), "x" the cell's own derivation (replacing
// the rules; "" for none), "s" its own sources (indices), "r" the reason
// an unknown value is unknown. Rules and column sources hold {row} (the
// row) and {acc} (the accelerator of a layout row: B300 of 8xB300). The
// top-level "sources" array is shared, referenced by index.
//
// Every schema-1 key stays answerable: Set.UnmarshalJSON reads either
// schema back into the same key → fact set (every reader of facts.json
// decodes through it), and FirstDifference holds the two to each other.
const Schema = 2

// AppendTablesJSON appends the set as a schema-2 facts object, one table
// row, column or single fact per line, each line indented with prefix and
// indent as json.MarshalIndent would, but no space after a ':' or ',' (a
// tenth of a dossier's facts.json was those spaces and indentation).
func (s *Set) AppendTablesJSON(dst []byte, prefix, indent string) ([]byte, error) {
	return s.Tabulate().AppendJSON(dst, prefix, indent)
}

// AppendJSON appends the tabulated set as a schema-2 facts object (see
// Set.AppendTablesJSON): a build that also prints the facts page
// tabulates once.
func (tab *Tabulated) AppendJSON(dst []byte, prefix, indent string) ([]byte, error) {
	in1, in2 := prefix+indent, prefix+indent+indent
	in3, in4 := in2+indent, in2+indent+indent
	srcIndex := map[string]int{}
	var sources []string
	ref := func(src string) int {
		i, ok := srcIndex[src]
		if !ok {
			i = len(sources)
			srcIndex[src] = i
			sources = append(sources, src)
		}
		return i
	}
	// Tables are written first to a buffer of their own: the sources they
	// cite are listed before them.
	var tb []byte
	for ti, t := range tab.Tables {
		if ti > 0 {
			tb = append(tb, ',')
		}
		tb = append(tb, '\n')
		tb = append(tb, in2...)
		tb = append(tb, "{\n"...)
		tb = append(tb, in3...)
		tb = append(tb, `"rows":[`...)
		for i, r := range t.Rows {
			if i > 0 {
				tb = append(tb, ","...)
			}
			tb = appendString(tb, r)
		}
		tb = append(tb, "],\n"...)
		tb = append(tb, in3...)
		tb = append(tb, `"columns":[`...)
		for j, c := range t.Columns {
			if j > 0 {
				tb = append(tb, ',')
			}
			tb = append(tb, '\n')
			tb = append(tb, in4...)
			tb = append(tb, `{"key":`...)
			tb = appendString(tb, c.Key(t.Prefix))
			tb = append(tb, `,"unit":`...)
			tb = appendString(tb, c.Unit)
			if len(c.Displays) > 0 {
				tb = append(tb, `,"displays":{`...)
				for i, v := range slices.Sorted(maps.Keys(c.Displays)) {
					if i > 0 {
						tb = append(tb, ","...)
					}
					tb = appendString(tb, v)
					tb = append(tb, ":"...)
					tb = appendString(tb, c.Displays[v])
				}
				tb = append(tb, '}')
			}
			if len(c.Rules) > 0 {
				tb = append(tb, `,"rules":[`...)
				for i, r := range c.Rules {
					if i > 0 {
						tb = append(tb, ","...)
					}
					tb = appendString(tb, r)
				}
				tb = append(tb, ']')
			}
			if len(c.Sources) > 0 {
				tb = append(tb, `,"sources":`...)
				tb = appendIndexes(tb, c.Sources, ref)
			}
			tb = append(tb, '}')
		}
		tb = append(tb, '\n')
		tb = append(tb, in3...)
		tb = append(tb, "],\n"...)
		tb = append(tb, in3...)
		tb = append(tb, `"cells":[`...)
		for i, row := range t.Cells {
			if i > 0 {
				tb = append(tb, ',')
			}
			tb = append(tb, '\n')
			tb = append(tb, in4...)
			tb = append(tb, '[')
			// Trailing empty cells are left out: most rows of a sparse
			// table (cost.<LAYOUT>.usd_per_hour.<provider>) fill one column.
			n := len(row)
			for n > 0 && row[n-1] == nil {
				n--
			}
			for j, cell := range row[:n] {
				if j > 0 {
					tb = append(tb, ","...)
				}
				var err error
				if tb, err = appendCell(tb, t.Columns[j], cell, ref); err != nil {
					return nil, err
				}
			}
			tb = append(tb, ']')
		}
		tb = append(tb, '\n')
		tb = append(tb, in3...)
		tb = append(tb, "]\n"...)
		tb = append(tb, in2...)
		tb = append(tb, '}')
	}

	dst = append(dst, "{\n"...)
	dst = append(dst, in1...)
	dst = append(dst, `"schema":`...)
	dst = strconv.AppendInt(dst, Schema, 10)
	dst = append(dst, ",\n"...)
	dst = append(dst, in1...)
	dst = append(dst, `"sources":[`...)
	for i, src := range sources {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '\n')
		dst = append(dst, in2...)
		dst = appendString(dst, src)
	}
	if len(sources) > 0 {
		dst = append(dst, '\n')
		dst = append(dst, in1...)
	}
	dst = append(dst, "],\n"...)
	dst = append(dst, in1...)
	dst = append(dst, `"tables":[`...)
	dst = append(dst, tb...)
	if len(tab.Tables) > 0 {
		dst = append(dst, '\n')
		dst = append(dst, in1...)
	}
	dst = append(dst, "],\n"...)
	dst = append(dst, in1...)
	dst = append(dst, `"facts":{`...)
	for i, f := range tab.Singles {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '\n')
		dst = append(dst, in2...)
		dst = appendString(dst, f.Key)
		dst = append(dst, ":"...)
		var err error
		if dst, err = appendFactLine(dst, f); err != nil {
			return nil, err
		}
	}
	if len(tab.Singles) > 0 {
		dst = append(dst, '\n')
		dst = append(dst, in1...)
	}
	dst = append(dst, "}\n"...)
	dst = append(dst, prefix...)
	return append(dst, '}'), nil
}

func appendIndexes(dst []byte, srcs []string, ref func(string) int) []byte {
	dst = append(dst, '[')
	for i, src := range srcs {
		if i > 0 {
			dst = append(dst, ","...)
		}
		dst = strconv.AppendInt(dst, int64(ref(src)), 10)
	}
	return append(dst, ']')
}

// defaultDisplay is the display a fact gets when it states none.
func defaultDisplay(unit string, v any) string {
	if d := Display(unit, v); d != "" || v != nil {
		return d
	}
	return "unknown"
}

// appendCell appends one table cell: null, or the fact with what its
// column does not already say.
func appendCell(dst []byte, c *Column, cell *Cell, ref func(string) int) ([]byte, error) {
	if cell == nil {
		return append(dst, "null"...), nil
	}
	f := cell.Fact
	dst = append(dst, `{"v":`...)
	var err error
	if dst, err = appendValue(dst, f.Value); err != nil {
		return nil, fmt.Errorf("fact %s: %w", f.Key, err)
	}
	if f.Display != c.display(f) {
		dst = append(dst, `,"d":`...)
		dst = appendString(dst, f.Display)
	}
	if f.Unit != c.Unit {
		dst = append(dst, `,"u":`...)
		dst = appendString(dst, f.Unit)
	}
	if len(cell.Bindings) > 0 {
		dst = append(dst, `,"b":[`...)
		for i, b := range cell.Bindings {
			if i > 0 {
				dst = append(dst, ","...)
			}
			// A binding that reads as a JSON number is written as one:
			// the reader keeps a number's text as written.
			if isJSONNumber(b) {
				dst = append(dst, b...)
			} else {
				dst = appendString(dst, b)
			}
		}
		dst = append(dst, ']')
	}
	if cell.Rule > 0 {
		dst = append(dst, `,"k":`...)
		dst = strconv.AppendInt(dst, int64(cell.Rule), 10)
	}
	if cell.OwnDerivation || (len(c.Rules) > 0 && f.Derivation == "") {
		dst = append(dst, `,"x":`...)
		dst = appendString(dst, f.Derivation)
	}
	if cell.OwnSources {
		dst = append(dst, `,"s":`...)
		dst = appendIndexes(dst, f.Sources, ref)
	}
	if f.Reason != "" {
		dst = append(dst, `,"r":`...)
		dst = appendString(dst, f.Reason)
	}
	return append(dst, '}'), nil
}

// display is the display a cell of c shows when it states none.
func (c *Column) display(f *Fact) string {
	if f.Unit == c.Unit && len(c.Displays) > 0 {
		if vb, err := appendValue(nil, f.Value); err == nil {
			if d, ok := c.Displays[string(vb)]; ok {
				return d
			}
		}
	}
	return defaultDisplay(f.Unit, f.Value)
}

// appendFactLine appends a fact as its schema-1 object on one line.
func appendFactLine(dst []byte, f *Fact) ([]byte, error) {
	dst = append(dst, `{"value":`...)
	var err error
	if dst, err = appendValue(dst, f.Value); err != nil {
		return nil, fmt.Errorf("fact %s: %w", f.Key, err)
	}
	dst = append(dst, `,"unit":`...)
	dst = appendString(dst, f.Unit)
	dst = append(dst, `,"display":`...)
	dst = appendString(dst, f.Display)
	if len(f.Sources) > 0 {
		dst = append(dst, `,"sources":[`...)
		for i, src := range f.Sources {
			if i > 0 {
				dst = append(dst, ","...)
			}
			dst = appendString(dst, src)
		}
		dst = append(dst, ']')
	}
	if f.Derivation != "" {
		dst = append(dst, `,"derivation":`...)
		dst = appendString(dst, f.Derivation)
	}
	if f.Reason != "" {
		dst = append(dst, `,"reason":`...)
		dst = appendString(dst, f.Reason)
	}
	return append(dst, '}'), nil
}

// schema2 is a schema-2 facts object as read.
type schema2 struct {
	Schema  json.Number `json:"schema"`
	Sources []string    `json:"sources"`
	Tables  []struct {
		Rows    []string `json:"rows"`
		Columns []struct {
			Key      string            `json:"key"`
			Unit     string            `json:"unit"`
			Displays map[string]string `json:"displays"`
			Rules    []string          `json:"rules"`
			Sources  []int             `json:"sources"`
		} `json:"columns"`
		Cells [][]*struct {
			V any     `json:"v"`
			D *string `json:"d"`
			U *string `json:"u"`
			B []any   `json:"b"`
			K int     `json:"k"`
			X *string `json:"x"`
			S []int   `json:"s"`
			R string  `json:"r"`
		} `json:"cells"`
	} `json:"tables"`
	Facts map[string]json.RawMessage `json:"facts"`
}

// unmarshalSchema2 expands a schema-2 facts object into s, every key as
// schema 1 has it.
func (s *Set) unmarshalSchema2(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc schema2
	if err := dec.Decode(&doc); err != nil {
		return err
	}
	if doc.Schema != "2" {
		return fmt.Errorf("field schema: %s, this reader knows 1 (no field) and 2", doc.Schema)
	}
	s.m = make(map[string]*Fact, len(doc.Facts))
	s.keys = &keyList{}
	add := func(f *Fact) error {
		if _, dup := s.m[f.Key]; dup {
			return fmt.Errorf("fact %s: stated twice", f.Key)
		}
		s.m[f.Key] = f
		s.keys.keys = append(s.keys.keys, f.Key)
		s.keys.facts = append(s.keys.facts, f)
		return nil
	}
	source := func(where string, i int) (string, error) {
		if i < 0 || i >= len(doc.Sources) {
			return "", fmt.Errorf("%s: source %d, the file lists %d", where, i, len(doc.Sources))
		}
		return doc.Sources[i], nil
	}
	for ti, t := range doc.Tables {
		for ri, row := range t.Rows {
			where := fmt.Sprintf("tables[%d].cells[%d]", ti, ri)
			if ri >= len(t.Cells) {
				return fmt.Errorf("%s: missing for row %s", where, row)
			}
			if len(t.Cells[ri]) > len(t.Columns) {
				return fmt.Errorf("%s: %d cells for %d columns", where, len(t.Cells[ri]), len(t.Columns))
			}
			acc := rowAccelerator(row)
			for ci, c := range t.Columns[:len(t.Cells[ri])] {
				cell := t.Cells[ri][ci]
				if cell == nil {
					continue
				}
				if strings.Count(c.Key, "{row}") != 1 {
					return fmt.Errorf("tables[%d].columns[%d].key %q: wants one {row}", ti, ci, c.Key)
				}
				f := &Fact{Key: strings.Replace(c.Key, "{row}", row, 1), Unit: c.Unit, Reason: cell.R}
				cw := fmt.Sprintf("%s[%d] (%s)", where, ci, f.Key)
				v, err := numberValue(cell.V)
				if err != nil {
					return fmt.Errorf("%s: %w", cw, err)
				}
				f.Value = v
				if cell.U != nil {
					f.Unit = *cell.U
				}
				switch {
				case cell.X != nil:
					f.Derivation = *cell.X
				case cell.K < 0 || (cell.K > 0 && cell.K >= len(c.Rules)):
					return fmt.Errorf("%s: rule %d of %d", cw, cell.K, len(c.Rules))
				case len(c.Rules) > 0:
					bind, err := bindings(cell.B)
					if err != nil {
						return fmt.Errorf("%s: %w", cw, err)
					}
					if f.Derivation, err = ExpandRule(c.Rules[cell.K], row, acc, bind); err != nil {
						return fmt.Errorf("%s: %w", cw, err)
					}
				}
				if cell.S != nil {
					for _, i := range cell.S {
						src, err := source(cw, i)
						if err != nil {
							return err
						}
						f.Sources = append(f.Sources, src)
					}
				} else {
					for _, i := range c.Sources {
						tmpl, err := source(cw, i)
						if err != nil {
							return err
						}
						src, err := ExpandRule(tmpl, row, acc, nil)
						if err != nil {
							return fmt.Errorf("%s: source: %w", cw, err)
						}
						f.Sources = append(f.Sources, src)
					}
				}
				if cell.D != nil {
					f.Display = *cell.D
				} else {
					f.Display = (&Column{Unit: c.Unit, Displays: c.Displays}).display(f)
				}
				if err := add(f); err != nil {
					return fmt.Errorf("%s: %w", cw, err)
				}
			}
		}
		if len(t.Cells) != len(t.Rows) {
			return fmt.Errorf("tables[%d]: %d rows of cells for %d rows", ti, len(t.Cells), len(t.Rows))
		}
	}
	for k, r := range doc.Facts {
		f, err := decodeFact(k, r)
		if err != nil {
			return err
		}
		if err := add(f); err != nil {
			return err
		}
	}
	return nil
}

// isJSONNumber reports whether s is a number as JSON writes one without
// sign or exponent (the numbers splitNumbers finds): 0, 42, 2.69.
func isJSONNumber(s string) bool {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == 0 || (s[0] == '0' && i > 1) {
		return false
	}
	if i == len(s) {
		return true
	}
	if s[i] != '.' || i+1 == len(s) {
		return false
	}
	for j := i + 1; j < len(s); j++ {
		if !isDigit(s[j]) {
			return false
		}
	}
	return true
}

// bindings reads a cell's "b": text, or numbers kept as written.
func bindings(raw []any) ([]string, error) {
	out := make([]string, len(raw))
	for i, v := range raw {
		switch v := v.(type) {
		case string:
			out[i] = v
		case json.Number:
			out[i] = v.String()
		default:
			return nil, fmt.Errorf("binding %d: %v is neither text nor a number", i+1, v)
		}
	}
	return out, nil
}

// numberValue turns a json.Number into int64 or float64, as schema 1
// reads values.
func numberValue(v any) (any, error) {
	n, ok := v.(json.Number)
	if !ok {
		switch v.(type) {
		case nil, bool, string:
			return v, nil
		}
		return nil, fmt.Errorf("value %v is not a number, text, bool or null", v)
	}
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	if x, err := n.Float64(); err == nil {
		return x, nil
	}
	return nil, fmt.Errorf("value %s is not a number", n)
}

// FirstDifference names the first fact in which got differs from want
// (key order, value, unit, display, sources, derivation, reason), "" when
// none does. Numbers compare by value: JSON writes 28.0 as 28.
func FirstDifference(want, got *Set) string {
	wk, gk := want.Keys(), got.Keys()
	for i, k := range wk {
		if i >= len(gk) || gk[i] != k {
			return "key " + k + " is missing or out of place"
		}
		w, g := want.Get(k), got.Get(k)
		if !sameValue(w.Value, g.Value) || w.Unit != g.Unit || w.Display != g.Display || !slices.Equal(w.Sources, g.Sources) ||
			w.Derivation != g.Derivation || w.Reason != g.Reason || g.Key != k {
			return fmt.Sprintf("%s: want %#v, got %#v", k, w, g)
		}
	}
	if len(gk) > len(wk) {
		return "extra key " + gk[len(wk)]
	}
	return ""
}

func sameValue(a, b any) bool {
	af, aok := (&Fact{Value: a}).Float()
	bf, bok := (&Fact{Value: b}).Float()
	if aok && bok {
		return af == bf
	}
	return a == b
}
