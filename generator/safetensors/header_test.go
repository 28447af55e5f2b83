package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

func file(js string) []byte {
	b := make([]byte, 8, 8+len(js))
	binary.LittleEndian.PutUint64(b, uint64(len(js)))
	return append(b, js...)
}

func TestParseValid(t *testing.T) {
	// The example from the crate's documentation, with writer padding.
	js := `{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}   `
	h, err := Parse(append(file(js), make([]byte, 16)...))
	if err != nil {
		t.Fatal(err)
	}
	if h.Len != int64(len(js)) || len(h.Tensors) != 1 || h.Metadata != nil {
		t.Fatalf("got %+v", h)
	}
	tt := h.Tensors[0]
	if tt.Name != "test" || tt.DType != "I32" || len(tt.Shape) != 2 || tt.Begin != 0 || tt.End != 16 {
		t.Fatalf("tensor %+v", tt)
	}
	if h.FileLen() != int64(8+len(js)+16) {
		t.Fatalf("FileLen %d", h.FileLen())
	}
}

func TestParseShapes(t *testing.T) {
	js := `{"__metadata__":{"format":"pt","q\u00e9":"\ud83d\ude00"},
	 "b":{"data_offsets":[1,2],"dtype":"F4","shape":[1,2],"extra":{"x":[1,2.5e3,null,true]}},
	 "a":{"dtype":"BOOL","shape":[],"data_offsets":[0,1]},
	 "e":{"dtype":"BF16","shape":[4,0],"data_offsets":[1,1]},
	 "six":{"dtype":"F6_E3M2","shape":[4],"data_offsets":[2,5]},
	 "s\"c\\a\nle":{"dtype":"F8_E8M0","shape":[3],"data_offsets":[5,8]}}`
	h, err := ParseHeader([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if h.Metadata["format"] != "pt" || h.Metadata["qé"] != "😀" {
		t.Fatalf("metadata %v", h.Metadata)
	}
	var names []string
	for _, x := range h.Tensors {
		names = append(names, x.Name)
	}
	// Sorted by offsets; the empty tensor sits at 1 before b.
	if got := strings.Join(names, "|"); got != "a|e|b|six|s\"c\\a\nle" {
		t.Fatalf("order %q", got)
	}
	if n, _ := h.Tensors[0].Elements(); n != 1 || h.Tensors[0].Shape == nil {
		t.Fatalf("scalar has %d elements, shape %v", n, h.Tensors[0].Shape)
	}
	if h.DataLen() != 8 {
		t.Fatalf("DataLen %d", h.DataLen())
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, js, want string }{
		{"empty", ``, "begin with '{'"},
		{"array", `[1]`, "begin with '{'"},
		{"leading space", ` {}`, "begin with '{'"},
		{"trailing", `{} x`, "unexpected data after"},
		{"unknown dtype", `{"w":{"dtype":"F12","shape":[1],"data_offsets":[0,2]}}`, `tensor "w": dtype "F12": expected a safetensors dtype`},
		{"non-standard E8M0", `{"w":{"dtype":"E8M0","shape":[1],"data_offsets":[0,1]}}`, `dtype "E8M0"`},
		{"negative dim", `{"w":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}}`, `tensor "w": shape: expected an array of non-negative integers`},
		{"float dim", `{"w":{"dtype":"U8","shape":[1.0],"data_offsets":[0,1]}}`, `fraction or exponent`},
		{"string dim", `{"w":{"dtype":"U8","shape":["1"],"data_offsets":[0,1]}}`, `shape`},
		{"three offsets", `{"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}}`, `expected [begin, end], found 3`},
		{"missing dtype", `{"w":{"shape":[1],"data_offsets":[0,1]}}`, `tensor "w": missing dtype`},
		{"missing offsets", `{"w":{"dtype":"U8","shape":[1]}}`, `missing data_offsets`},
		{"not object", `{"w":[1]}`, `tensor "w": byte 5: expected an object`},
		{"gap", `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"U8","shape":[1],"data_offsets":[2,3]}}`, `tensor "b": data_offsets [2, 3]: expected to begin at 1, where tensor "a" ends`},
		{"not from zero", `{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, `expected to begin at 0, where the data buffer starts`},
		{"overlap", `{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, `expected to begin at 2`},
		{"same range twice", `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, `tensor "b"`},
		{"end before begin", `{"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},"b":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},"c":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"d":{"dtype":"U8","shape":[1],"data_offsets":[1,0]}}`, `tensor "d": data_offsets [1, 0]: expected end >= begin`},
		{"wrong span", `{"w":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,6]}}`, `tensor "w": data_offsets [0, 6] span 6 bytes; expected 12 (6 elements × 16 bits / 8)`},
		{"misaligned F4", `{"w":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}}`, `not a whole number of bytes`},
		{"misaligned F6", `{"w":{"dtype":"F6_E2M3","shape":[3],"data_offsets":[0,3]}}`, `18 bits`},
		{"overflow", `{"w":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`, `element count overflows`},
		{"bit overflow", `{"w":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,0]}}`, `bit count overflows`},
		{"int64 overflow", `{"w":{"dtype":"U8","shape":[9223372036854775808],"data_offsets":[0,0]}}`, `overflows int64`},
		{"duplicate name", `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, `tensor "a": appears twice`},
		{"duplicate field", `{"a":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, `dtype given twice`},
		{"metadata number", `{"__metadata__":{"format":1}}`, `__metadata__.format: expected a string value`},
		{"metadata nested", `{"__metadata__":{"a":{"b":"c"}}}`, `expected a string value`},
		{"metadata array", `{"__metadata__":["x"]}`, `__metadata__: expected an object of strings`},
		{"unterminated", `{"a":{"dtype":"U8`, `unterminated string`},
		{"control char", "{\"a\x01\":{}}", `control character`},
		{"bad escape", `{"a\q":{}}`, `invalid escape`},
		{"lone surrogate", `{"a\ud800":{}}`, `lone surrogate`},
		{"leading zero", `{"w":{"dtype":"U8","shape":[01],"data_offsets":[0,1]}}`, `leading zero`},
		{"deep unknown", `{"w":{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, `nesting deeper`},
		{"bad unknown", `{"w":{"x":tru,"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, `expected true`},
		{"missing comma", `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]} "b":{}}`, `expected ',' or '}'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseHeader([]byte(c.js))
			if err == nil {
				t.Fatalf("no error for %s", c.js)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not *Error", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestInvalidUTF8(t *testing.T) {
	if _, err := ParseHeader([]byte("{\"\xff\":{}}")); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("got %v", err)
	}
}

func TestLengthPrefix(t *testing.T) {
	if _, err := Parse([]byte{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "at least the 8-byte length prefix") {
		t.Fatalf("short: %v", err)
	}
	big := make([]byte, 8)
	binary.LittleEndian.PutUint64(big, MaxHeaderLen+1)
	if _, err := Parse(big); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("too large: %v", err)
	}
	binary.LittleEndian.PutUint64(big, 1<<63+5)
	if _, err := HeaderLen(big); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("huge: %v", err)
	}
	binary.LittleEndian.PutUint64(big, MaxHeaderLen)
	if n, err := HeaderLen(big); err != nil || n != MaxHeaderLen {
		t.Fatalf("at the cap: %d %v", n, err)
	}
	if _, err := Parse(file(`{}`)[:9]); err == nil || !strings.Contains(err.Error(), "only 1 bytes follow") {
		t.Fatalf("truncated: %v", err)
	}
	if _, err := ParseHeader(make([]byte, MaxHeaderLen+1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ParseHeader over cap: %v", err)
	}
}

func TestReadReadsOnlyTheHeader(t *testing.T) {
	h, err := Build([]TensorInfo{{Name: "w", DType: "F32", Shape: []int64{4}}}, map[string]string{"format": "pt"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(append(b, make([]byte, 16)...))
	got, err := Read(r)
	if err != nil {
		t.Fatal(err)
	}
	if r.Len() != 16 || got.Len != h.Len || got.Metadata["format"] != "pt" {
		t.Fatalf("left %d bytes unread, header %+v", r.Len(), got)
	}
	if _, err := Read(bytes.NewReader(b[:len(b)-1])); err == nil {
		t.Fatal("short reader: no error")
	}
}

func TestBuildEncodeRoundTrip(t *testing.T) {
	in := []TensorInfo{
		{Name: "model.layers.0.mlp.experts.0.down_proj.weight_packed", DType: "U8", Shape: []int64{7168, 1792}},
		{Name: "model.layers.0.mlp.experts.0.down_proj.weight_scale", DType: "U8", Shape: []int64{7168, 112}},
		{Name: "quote\"d\tname", DType: "F4", Shape: []int64{2, 3}},
		{Name: "scalar", DType: "F32"},
	}
	h, err := Build(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.Len%8 != 0 {
		t.Fatalf("Len %d not padded to 8", h.Len)
	}
	h.Len = 99_995 // pad to an exact size, as the boundary tests do
	b, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 8+99_995 {
		t.Fatalf("encoded %d bytes", len(b))
	}
	got, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tensors) != 4 || got.Tensors[2].Name != "quote\"d\tname" || got.Tensors[2].End-got.Tensors[2].Begin != 3 || got.Len != 99_995 {
		t.Fatalf("round trip %+v", got.Tensors)
	}
	h.Len = 10
	if _, err := h.Encode(); err == nil {
		t.Fatal("Encode into a too small Len: no error")
	}
	if _, err := Build([]TensorInfo{{Name: "x", DType: "F4", Shape: []int64{1}}}, nil); err == nil {
		t.Fatal("Build of half a byte: no error")
	}
}

func TestBitSize(t *testing.T) {
	for dt, want := range map[string]int{"F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "F8_E8M0": 8, "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8, "BOOL": 8, "BF16": 16, "C64": 64, "U64": 64} {
		if got, ok := BitSize(dt); !ok || got != want {
			t.Errorf("BitSize(%s) = %d, %v", dt, got, ok)
		}
	}
	if _, ok := BitSize("FP4"); ok {
		t.Error("FP4 is not a crate dtype")
	}
}
