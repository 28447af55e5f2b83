package snapshot

import (
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// valid is a small snapshot that validates: one 1000-byte shard.
func valid() map[string]any {
	return map[string]any{
		"schema":        1,
		"model":         "acme/tiny",
		"revision":      strings.Repeat("a", 40),
		"fetched":       "2026-01-01",
		"source":        "test",
		"files":         []any{map[string]any{"path": "model.safetensors", "size": 1000}},
		"shards":        map[string]any{"count": 1, "bytes": 1000, "source": "test"},
		"config":        map[string]any{"hidden_size": 8},
		"config_source": "test",
	}
}

// headers is a headers section consistent with valid(): 100 + 900 = 1000.
func headers() map[string]any {
	return map[string]any{
		"bytes":        100,
		"tensors":      2,
		"elements":     map[string]any{"BF16": 450},
		"tensor_bytes": map[string]any{"BF16": 900},
		"source":       "test",
	}
}

func encode(t *testing.T, m map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestValidBaseline(t *testing.T) {
	m := valid()
	m["headers"] = headers()
	m["index"] = map[string]any{"total_size": 900, "tensors": 2, "source": "test"}
	if _, err := Decode(encode(t, m)); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeRejectsWithFieldAndExpectation(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"negative tensor bytes", func(m map[string]any) {
			h := headers()
			h["tensor_bytes"] = map[string]any{"BF16": -5}
			m["headers"] = h
		}, "field headers.tensor_bytes.BF16: expected a non-negative integer, found -5"},
		{"negative elements", func(m map[string]any) {
			h := headers()
			h["elements"] = map[string]any{"BF16": -1}
			m["headers"] = h
		}, "field headers.elements.BF16: expected a non-negative integer, found -1"},
		{"negative header bytes", func(m map[string]any) {
			h := headers()
			h["bytes"] = -1
			m["headers"] = h
		}, "field headers.bytes: expected a non-negative byte count, found -1"},
		{"negative header tensors", func(m map[string]any) {
			h := headers()
			h["tensors"] = -1
			m["headers"] = h
		}, "field headers.tensors: expected a non-negative tensor count, found -1"},
		{"header bytes beyond shard bytes", func(m map[string]any) {
			h := headers()
			h["bytes"] = 1001
			h["tensor_bytes"] = map[string]any{}
			m["headers"] = h
		}, "field headers.bytes: header bytes 1001 exceed the shard bytes 1000"},
		{"tensor plus header bytes beyond shard bytes", func(m map[string]any) {
			h := headers()
			h["tensor_bytes"] = map[string]any{"BF16": 900, "U8": 1}
			m["headers"] = h
		}, "field headers.tensor_bytes: expected the tensor bytes plus the header bytes 100 to be at most the shard bytes 1000, found tensor bytes 901"},
		{"tensor bytes overflowing int64", func(m map[string]any) {
			h := headers()
			h["tensor_bytes"] = map[string]any{"BF16": int64(1) << 62, "U8": int64(1) << 62, "I8": int64(1) << 62}
			m["headers"] = h
		}, "field headers.tensor_bytes: expected the tensor bytes plus the header bytes 100 to be at most the shard bytes 1000, found tensor bytes beyond the int64 range"},
		{"negative index tensors", func(m map[string]any) {
			m["index"] = map[string]any{"total_size": 900, "tensors": -1, "source": "test"}
		}, "field index.tensors: expected a non-negative tensor count, found -1"},
		{"index beyond shard bytes", func(m map[string]any) {
			m["index"] = map[string]any{"total_size": 1001, "tensors": 1, "source": "test"}
		}, "field index.total_size: tensor bytes 1001 exceed the shard bytes 1000"},
		{"null config", func(m map[string]any) { m["config"] = nil },
			"field config: expected a JSON object, found null"},
		{"array config", func(m map[string]any) { m["config"] = []any{} },
			"field config: expected a JSON object, found an array"},
		{"census array", func(m map[string]any) { m["census"] = []any{}; m["census_source"] = "test" },
			"field census: expected an object of dtype: integer, found an array"},
		{"census string value", func(m map[string]any) { m["census"] = map[string]any{"BF16": "x"}; m["census_source"] = "test" },
			`field census.BF16: expected an integer, found "x"`},
		{"elements array", func(m map[string]any) {
			h := headers()
			h["elements"] = []any{1}
			m["headers"] = h
		}, "field headers.elements: expected an object of dtype: integer, found an array"},
		{"tensor_bytes number", func(m map[string]any) {
			h := headers()
			h["tensor_bytes"] = 7
			m["headers"] = h
		}, "field headers.tensor_bytes: expected an object of dtype: integer, found a number"},
		{"tensor shapes without a source", func(m map[string]any) {
			m["tensors"] = map[string]any{"w": "2x3"}
		}, "field tensors_source: missing: the tensor shapes need a source"},
		{"more shapes than the headers hold", func(m map[string]any) {
			m["headers"] = headers()
			m["tensors"] = map[string]any{"a": "1", "b": "2", "c": "3"}
			m["tensors_source"] = "test"
		}, "field tensors: 3 shapes kept, but the headers hold 2 tensors"},
		{"negative dimension", func(m map[string]any) {
			m["tensors"] = map[string]any{"w": "2x-3"}
			m["tensors_source"] = "test"
		}, `field tensors.w: expected dimensions like 4096x14336, found "2x-3"`},
		{"shape as an array", func(m map[string]any) {
			m["tensors"] = map[string]any{"w": []any{2, 3}}
			m["tensors_source"] = "test"
		}, "field tensors: expected a string, found array"},
		{"shape past int64", func(m map[string]any) {
			m["tensors"] = map[string]any{"w": "4294967296x4294967296"}
			m["tensors_source"] = "test"
		}, `field tensors.w: "4294967296x4294967296" holds more than 9223372036854775807 elements`},
		{"tensor_bytes fraction", func(m map[string]any) {
			h := headers()
			h["tensor_bytes"] = map[string]any{"BF16": 1.5}
			m["headers"] = h
		}, "field headers.tensor_bytes.BF16: expected an integer, found 1.5"},
	} {
		m := valid()
		tc.edit(m)
		_, err := Decode(encode(t, m))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v\nwant %s", tc.name, err, tc.want)
		}
	}
}

func TestCountsErrorNamesTheFieldInDocumentOrder(t *testing.T) {
	// Hand-written JSON: key order, duplicates and case matter here.
	base := `"schema":1,"model":"acme/tiny","revision":"` + strings.Repeat("a", 40) + `","fetched":"d","source":"s","files":[],"shards":{"count":0,"bytes":0,"source":""},"config":{},"config_source":"s"`
	for _, tc := range []struct{ in, want string }{
		{`{"headers":{"elements":{},"tensor_bytes":{"U8":true}},"census":{"BF16":"x"},` + base + `}`,
			"field headers.tensor_bytes.U8: expected an integer, found true"},
		{`{"census":{},"census":[],` + base + `}`,
			"field census: duplicate key (JSON readers disagree on which value wins)"},
		{`{"Census":null,"HEADERS":{"Elements":"x"},` + base + `}`,
			`field headers.elements: expected an object of dtype: integer, found a string`},
	} {
		_, err := Decode([]byte(tc.in))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v\nwant %s", tc.in, err, tc.want)
		}
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: %T is not a *FieldError", tc.in, err)
		}
	}
}

func TestIndexWithoutListing(t *testing.T) {
	// An index recorded from the index file alone, without a listing.
	m := valid()
	m["files"] = []any{}
	m["shards"] = map[string]any{"count": 0, "bytes": 0, "source": "listing not captured"}
	m["index"] = map[string]any{"total_size": 900, "tensors": 2, "source": "test"}
	m["headers"] = headers()
	if _, err := Decode(encode(t, m)); err != nil {
		t.Fatal(err)
	}
}

func TestShippedSnapshotsValidate(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "site", "data", "hub", "*", "*", FileName))
	if len(paths) == 0 {
		t.Fatal("no fixture snapshots under testdata/site/data/hub")
	}
	for _, p := range paths {
		if _, err := Load(p); err != nil {
			t.Error(err)
		}
	}
}

// TestShapesRoundTrip: what FormatShape writes ParseShape reads back, a
// scalar included, and a snapshot keeping shapes survives Encode/Decode.
func TestShapesRoundTrip(t *testing.T) {
	for _, shape := range [][]int64{{}, {7}, {4096, 14336}, {128, 2, 0, 5}} {
		got, err := ParseShape(FormatShape(shape))
		if err != nil || !slices.Equal(got, shape) {
			t.Errorf("%v: read back %v, %v", shape, got, err)
		}
	}
	for _, bad := range []string{"x", "1x", "01", "+1", "1 x2", "1x2x3x4x5x6x7x8x9x10x11x12x13x14x15x16x17"} {
		if _, err := ParseShape(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	m := valid()
	m["headers"] = headers()
	m["tensors"] = map[string]any{"model.layers.0.mlp.up_proj.weight": "30x15", "model.norm.weight": ""}
	m["tensors_source"] = "test"
	s, err := Decode(encode(t, m))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"model.layers.0.mlp.up_proj.weight": "30x15",`) {
		t.Errorf("a shape is not one line:\n%s", b)
	}
	back, err := Decode(b)
	if err != nil || !maps.Equal(back.Tensors, s.Tensors) {
		t.Fatalf("round trip: %v, %v", back, err)
	}
}
