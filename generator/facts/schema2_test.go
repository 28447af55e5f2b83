package facts

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
)

// readV1 reads the frozen schema-1 facts.json under testdata/v1 (Llama 3.1
// 8B as main published it before schema 2) as its facts set.
func readV1(t *testing.T) *Set {
	t.Helper()
	f, err := os.Open("testdata/v1/llama-3-1-8b.facts.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(`"schema"`)) {
		t.Fatal("the frozen file is not schema 1")
	}
	var doc struct {
		Facts *Set `json:"facts"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Facts == nil || doc.Facts.Len() < 1000 {
		t.Fatalf("read %v facts from the frozen schema-1 file", doc.Facts)
	}
	return doc.Facts
}

// sameFacts fails at the first difference between two sets.
func sameFacts(t *testing.T, want, got *Set) {
	t.Helper()
	if d := FirstDifference(want, got); d != "" {
		t.Fatal(d)
	}
}

func decodeSet(t *testing.T, b []byte) *Set {
	t.Helper()
	var s Set
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return &s
}

// TestSchema2RoundTrip: the frozen schema-1 facts, written as schema 2
// and read back, are the same facts; and schema 2 is smaller.
func TestSchema2RoundTrip(t *testing.T) {
	v1 := readV1(t)
	b, err := v1.AppendTablesJSON(nil, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatal("schema 2 is not valid JSON")
	}
	sameFacts(t, v1, decodeSet(t, b))
	old, _ := v1.AppendJSON(nil, "", "  ")
	t.Logf("Llama 3.1 8B facts: schema 1 %d bytes, schema 2 %d bytes", len(old), len(b))
	if len(b)*3 > len(old) {
		t.Errorf("schema 2 is %d bytes, over a third of schema 1's %d", len(b), len(old))
	}
}

// TestTabulateFindsTheMatrices: the layout and accelerator families become
// tables whose columns state each rule once, and most cells of the big
// families follow a rule instead of repeating their derivation.
func TestTabulateFindsTheMatrices(t *testing.T) {
	tab := readV1(t).Tabulate()
	byPrefix := map[string]*Table{}
	for _, tb := range tab.Tables {
		byPrefix[tb.Prefix] = tb
	}
	for _, p := range []string{"serving", "fit", "deploy", "speed", "cost", "fit.min_gpus", "deploy.smallest_of", "min_gpus"} {
		if byPrefix[p] == nil {
			t.Errorf("no table for %s.<row>", p)
		}
	}
	for _, f := range tab.Singles {
		segs := strings.Split(f.Key, ".")
		if _, layout := layoutRow(segs[min(1, len(segs)-1)]); segs[0] == "serving" && layout {
			t.Errorf("%s stayed outside the serving table", f.Key)
		}
	}
	serving := byPrefix["serving"]
	var cells, own int
	for i := range serving.Rows {
		for _, c := range serving.Cells[i] {
			if c != nil {
				cells++
				if c.OwnDerivation {
					own++
				}
			}
		}
	}
	if own*10 > cells {
		t.Errorf("%d of %d serving cells state their own derivation", own, cells)
	}
	// A rule and its bindings give back the derivation.
	for j, c := range serving.Columns {
		for i, row := range serving.Rows {
			cell := serving.Cells[i][j]
			if cell == nil || cell.OwnDerivation || cell.Fact.Derivation == "" {
				continue
			}
			got, err := ExpandRule(c.Rules[cell.Rule], row, rowAccelerator(row), cell.Bindings)
			if err != nil || got != cell.Fact.Derivation {
				t.Fatalf("%s: rule %q gives %q, %v", cell.Fact.Key, c.Rules[cell.Rule], got, err)
			}
		}
	}
}

// TestRowKeys: a fact of a table links to its row, the key up to the
// row; a fact outside the tables has no row.
func TestRowKeys(t *testing.T) {
	set := readV1(t)
	tab := set.Tabulate()
	rows := tab.RowKeys()
	for k, want := range map[string]string{
		"serving.8xH100.fits":     "serving.8xH100",
		"fit.8xH100.at_rest":      "fit.8xH100",
		"fit.min_gpus.H100":       "fit.min_gpus.H100",
		"deploy.smallest_of.H100": "deploy.smallest_of.H100",
	} {
		if set.Get(k) == nil {
			t.Fatalf("the fixture has no %s", k)
		}
		if got := rows[k]; got != want {
			t.Errorf("%s: row %q, want %q", k, got, want)
		}
	}
	for _, f := range tab.Singles {
		if r, ok := rows[f.Key]; ok {
			t.Errorf("%s is outside the tables but has the row %s", f.Key, r)
		}
	}
	var cells int
	for _, tb := range tab.Tables {
		for i := range tb.Rows {
			for _, c := range tb.Cells[i] {
				if c != nil {
					cells++
				}
			}
		}
	}
	if len(rows) != cells {
		t.Errorf("%d row keys for %d cells", len(rows), cells)
	}
}

// TestSchema2Example: the example set (every kind of value, escapes,
// unknowns) and a small matrix read back as schema 1 reads them back, with a NUL, braces and a unit of its own
// round-trip.
func TestSchema2Example(t *testing.T) {
	s := exampleSet()
	for i, row := range []string{"1xH100", "2xH100", "8xH100", "4xA100-40GB", "16xCPUHost"} {
		n := int64(i + 1)
		s.Add(Fact{Key: "serving." + row + ".fits", Value: i%2 == 0, Unit: UnitBool, Display: map[bool]string{true: "fits", false: "does not fit"}[i%2 == 0],
			Sources: []string{"catalog:hardware.yaml#" + rowAccelerator(row), "config.json"}, Derivation: "weights ≤ " + row + " × 80 GB, margin " + strings.Repeat("1", i+1)})
		s.Add(Fact{Key: "serving." + row + ".odd", Value: n, Unit: UnitCount, Derivation: map[bool]string{true: "has {braces} " + row, false: "nul \x00 " + row}[i < 2]})
		if i != 3 {
			s.Unknown("cost."+row+".usd", UnitUSD, "no price for "+row)
		}
	}
	s.Add(Fact{Key: "serving.8xH100.unit", Value: 1.5, Unit: UnitRatio})
	s.Add(Fact{Key: "serving.1xH100.unit", Value: 1.5, Unit: UnitSeconds})
	s.Add(Fact{Key: "serving.2xH100.unit", Value: 1.5, Unit: UnitRatio})
	for _, ind := range [][2]string{{"", "  "}, {"  ", "\t"}} {
		b, err := s.AppendTablesJSON(nil, ind[0], ind[1])
		if err != nil {
			t.Fatal(err)
		}
		sameFacts(t, viaSchema1(t, s), decodeSet(t, b))
	}
}

// viaSchema1 is s as schema 1 reads back: JSON replaces invalid UTF-8.
func viaSchema1(t *testing.T, s *Set) *Set {
	t.Helper()
	b, err := s.AppendJSON(nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return decodeSet(t, b)
}

// TestSchema2BadInput: a malformed schema-2 object is an error naming
// where, never a partial set.
func TestSchema2BadInput(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"schema": 3}`, "schema: 3"},
		{`{"schema": 2, "tables": [{"rows": ["1xH100"], "columns": [{"key": "a.b", "unit": "count"}], "cells": [[{"v": 1}]]}]}`, "one {row}"},
		{`{"schema": 2, "tables": [{"rows": ["1xH100"], "columns": [{"key": "a.{row}", "unit": "count"}], "cells": [[{"v": 1}, null]]}]}`, "2 cells for 1 columns"},
		{`{"schema": 2, "tables": [{"rows": ["1xH100", "2xH100"], "columns": [{"key": "a.{row}", "unit": "count"}], "cells": [[{"v": 1}]]}]}`, "missing for row 2xH100"},
		{`{"schema": 2, "tables": [{"rows": ["1xH100"], "columns": [{"key": "a.{row}", "unit": "count", "sources": [4]}], "cells": [[{"v": 1}]]}]}`, "source 4"},
		{`{"schema": 2, "tables": [{"rows": ["1xH100"], "columns": [{"key": "a.{row}", "unit": "count", "rules": ["{2} GB"]}], "cells": [[{"v": 1, "b": ["3"]}]]}]}`, "placeholder {2}"},
		{`{"schema": 2, "tables": [{"rows": ["H100"], "columns": [{"key": "a.{row}", "unit": "count", "rules": ["{acc}"]}], "cells": [[{"v": 1}]]}]}`, "not a layout"},
		{`{"schema": 2, "tables": [{"rows": ["1xH100"], "columns": [{"key": "a.{row}", "unit": "count", "rules": ["x"]}], "cells": [[{"v": 1, "k": 1}]]}]}`, "rule 1 of 1"},
		{`{"schema": 2, "tables": [{"rows": ["1xH100"], "columns": [{"key": "a.{row}", "unit": "count"}], "cells": [[{"v": [1]}]]}]}`, "not a number"},
		{`{"schema": 2, "tables": [{"rows": ["1xH100"], "columns": [{"key": "a.{row}", "unit": "count"}], "cells": [[{"v": 1}]]}], "facts": {"a.1xH100": {"value": 2, "unit": "count"}}}`, "stated twice"},
	} {
		var s Set
		err := json.Unmarshal([]byte(tc.doc), &s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.doc, err, tc.want)
		}
	}
}

// FuzzSchema2 round-trips sets of generated matrix facts, and reads
// arbitrary bytes as a schema-2 object without panicking.
func FuzzSchema2(f *testing.F) {
	f.Add("8xH100", "tensor bytes ≤ 8 × 80 GB", "catalog:hardware.yaml#H100", int64(3), `{"schema": 2}`)
	f.Add("2xB300", "{row} {1}", "", int64(-1), `{"schema": 2, "tables": [{"rows": ["1xH100"], "columns": [{"key": "a.{row}", "unit": "count", "rules": ["{1}"]}], "cells": [[{"v": 1, "b": ["3"]}]]}]}`)
	f.Fuzz(func(t *testing.T, row, derivation, source string, v int64, raw string) {
		var any Set
		_ = json.Unmarshal([]byte(raw), &any)
		if strings.Contains(row, ".") || row == "" {
			return
		}
		s := NewSet()
		for i, r := range []string{row, "1x" + row, "2x" + row, "3xH100"} {
			s.Add(Fact{Key: "serving." + r + ".fits", Value: v + int64(i), Unit: UnitCount, Derivation: derivation + r,
				Sources: []string{source + r}})
			s.Add(Fact{Key: "fit." + r, Value: derivation, Unit: UnitText, Derivation: derivation})
		}
		b, err := s.AppendTablesJSON(nil, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		sameFacts(t, viaSchema1(t, s), decodeSet(t, b))
	})
}

// TestSplitNumbers: numbers as derivations print them, and the rest.
func TestSplitNumbers(t *testing.T) {
	sk, nums := splitNumbers("1,048,576 tokens × 2.69, 8xH100 v1. 3,x 0.5.")
	if want := "\x00 tokens × \x00, \x00xH\x00 v\x00. \x00,x \x00."; sk != want || strings.Join(nums, "|") != "1,048,576|2.69|8|100|1|3|0.5" {
		t.Errorf("%q %q", sk, nums)
	}
	if sk, nums := splitNumbers("no numbers"); sk != "no numbers" || nums != nil {
		t.Errorf("%q %q", sk, nums)
	}
	for seg, want := range map[string]string{"8xH100": "H100", "48xA100-40GB": "A100-40GB", "x8": "", "8x": "", "8x1": "", "8xA.": "", "H100": ""} {
		if acc, ok := layoutRow(seg); acc != want || ok != (want != "") {
			t.Errorf("layoutRow(%q) = %q, %v", seg, acc, ok)
		}
	}
}

func TestIsJSONNumber(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "42": true, "2.69": true, "007": false, "1,024": false, "1.": false, ".5": false, "": false, "-1": false, "0.50": true, "1e5": false} {
		if got := isJSONNumber(s); got != want {
			t.Errorf("isJSONNumber(%q) = %v", s, got)
		}
		if want && !json.Valid([]byte(s)) {
			t.Errorf("%q is not JSON", s)
		}
	}
}
