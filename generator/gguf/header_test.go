package gguf_test

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"dossier/generator/gguf"
	"dossier/generator/gguf/gguftest"
)

func typ(t *testing.T, name string) gguf.Type {
	t.Helper()
	ty, ok := gguf.TypeByName(name)
	if !ok {
		t.Fatalf("no ggml type %s", name)
	}
	return ty
}

// Every metadata value type round-trips, arrays included, and the
// tensor infos come back with their dims, types and aligned offsets.
func TestParseEveryValueType(t *testing.T) {
	f := gguftest.File{
		KV: []gguftest.KV{
			{"u8", uint8(200)}, {"i8", int8(-100)}, {"u16", uint16(60000)}, {"i16", int16(-30000)},
			{"u32", uint32(4_000_000_000)}, {"i32", int32(-2_000_000_000)}, {"f32", float32(0.5)},
			{"bool", true}, {"str", "héllo"}, {"u64", uint64(1) << 40}, {"i64", int64(-1) << 40},
			{"f64", 1e-300}, {"arr.i32", []int32{1, -2, 3}}, {"arr.str", []string{"a", "bc", ""}},
			{"arr.bool", []bool{true, false}}, {"arr.f32", []float32{1, 2}},
		},
		Tensors: []gguftest.Tensor{
			{"token_embd.weight", typ(t, "Q4_K"), []int64{512, 10}},
			{"output_norm.weight", typ(t, "F32"), []int64{7}}, // 28 bytes, padded to 32
			{"output.weight", typ(t, "Q6_K"), []int64{256, 3}},
		},
	}
	buf, size := gguftest.Encode(f)
	h, err := gguf.Parse(buf, size)
	if err != nil {
		t.Fatal(err)
	}
	ints := map[string]int64{"u8": 200, "i8": -100, "u16": 60000, "i16": -30000, "u32": 4_000_000_000,
		"i32": -2_000_000_000, "bool": 1, "u64": 1 << 40, "i64": -1 << 40}
	for k, want := range ints {
		if v, ok := h.Lookup(k); !ok || v.Int != want {
			t.Errorf("%s = %+v, want %d", k, v, want)
		}
	}
	if v, _ := h.Lookup("f32"); v.Float != 0.5 || v.Type != gguf.Float32 {
		t.Errorf("f32 = %+v", v)
	}
	if v, _ := h.Lookup("f64"); v.Float != 1e-300 {
		t.Errorf("f64 = %+v", v)
	}
	if v, _ := h.Lookup("str"); v.Str != "héllo" {
		t.Errorf("str = %+v", v)
	}
	if v, _ := h.Lookup("arr.i32"); v.Elem != gguf.Int32 || v.Len != 3 || len(v.Ints) != 3 || v.Ints[1] != -2 {
		t.Errorf("arr.i32 = %+v", v)
	}
	if v, _ := h.Lookup("arr.str"); v.Elem != gguf.String || v.Len != 3 {
		t.Errorf("arr.str = %+v", v)
	}
	if v, _ := h.Lookup("arr.bool"); len(v.Ints) != 2 || v.Ints[0] != 1 {
		t.Errorf("arr.bool = %+v", v)
	}
	if len(h.Tensors) != 3 {
		t.Fatalf("%d tensors", len(h.Tensors))
	}
	// Q4_K: 512×10 elements = 20 blocks × 144 B = 2880 (a multiple of 32);
	// F32: 7 × 4 = 28 → next at 2880+32; Q6_K: 3 blocks × 210 = 630.
	wantOff := []int64{0, 2880, 2912}
	wantBytes := []int64{2880, 28, 630}
	for i, ti := range h.Tensors {
		if ti.Offset != wantOff[i] || ti.Bytes() != wantBytes[i] {
			t.Errorf("%s: offset %d bytes %d, want %d %d", ti.Name, ti.Offset, ti.Bytes(), wantOff[i], wantBytes[i])
		}
	}
	if h.DataOffset%32 != 0 || h.DataOffset < h.Len || size != h.DataOffset+2912+630 {
		t.Errorf("data offset %d, len %d, size %d", h.DataOffset, h.Len, size)
	}
}

// Bytes per type against a hand count from the block sizes.
func TestTensorBytesByHand(t *testing.T) {
	cases := []struct {
		typ   string
		n     int64 // elements
		bytes int64
	}{
		{"Q4_K", 4096 * 4096, 4096 * 4096 / 256 * 144},
		{"Q6_K", 256, 210},
		{"Q8_0", 7168, 7168 / 32 * 34},
		{"IQ2_XXS", 2048 * 7168, 2048 * 7168 / 256 * 66},
		{"IQ1_S", 256, 50},
		{"Q2_K", 256, 84},
		{"Q3_K", 256, 110},
		{"Q5_K", 256, 176},
		{"IQ4_XS", 256, 136},
		{"MXFP4", 32, 17},
		{"BF16", 10, 20},
		{"F32", 10, 40},
		{"Q4_0", 32, 18},
		{"Q1_0", 128, 18},
	}
	for _, c := range cases {
		ti := gguf.TensorInfo{Type: typ(t, c.typ), Dims: []int64{c.n}}
		if got := ti.Bytes(); got != c.bytes {
			t.Errorf("%s × %d: %d bytes, want %d", c.typ, c.n, got, c.bytes)
		}
	}
}

func TestParseRefusesBadHeaders(t *testing.T) {
	good, size := gguftest.Encode(gguftest.File{
		KV:      []gguftest.KV{{"general.architecture", "llama"}},
		Tensors: []gguftest.Tensor{{"a.weight", typ(t, "Q8_0"), []int64{32}}},
	})
	le := binary.LittleEndian
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name  string
		buf   []byte
		size  int64
		want  string
		trunc bool
	}{
		{"truncated header", good[:30], size, "runs past", true},
		{"tensor count 2^40", mutate(func(b []byte) []byte { le.PutUint64(b[8:], 1<<40); return b }), size, "tensor count 1099511627776 is over the limit", false},
		{"string length beyond the file", mutate(func(b []byte) []byte { le.PutUint64(b[56:], 1<<20); return b }), size, "general.architecture (1048576 bytes) runs past", true},
		{"string length over the limit", mutate(func(b []byte) []byte { le.PutUint64(b[24:], 1<<40); return b }), size, "over the limit of 65535", false},
		{"unknown ggml type", mutate(func(b []byte) []byte {
			i := strings.Index(string(b), "a.weight") + len("a.weight") + 4 + 8
			le.PutUint32(b[i:], 99)
			return b
		}), size, "ggml type 99", false},
		{"bad magic", mutate(func(b []byte) []byte { b[0] = 'X'; return b }), size, "not a GGUF file", false},
		{"version 1", mutate(func(b []byte) []byte { le.PutUint32(b[4:], 1); return b }), size, "version 1", false},
		{"data past the file", good, size - 1, "past the end of the", false},
	}
	for _, c := range cases {
		_, err := gguf.Parse(c.buf, c.size)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
			continue
		}
		if errors.Is(err, gguf.ErrTruncated) != c.trunc {
			t.Errorf("%s: ErrTruncated = %t", c.name, !c.trunc)
		}
	}
	if _, err := gguf.Parse(mutate(func(b []byte) []byte {
		i := strings.Index(string(b), "a.weight") + len("a.weight") + 4 + 8
		le.PutUint32(b[i:], 99)
		return b
	}), size); !errors.Is(err, gguf.ErrUnknownType) {
		t.Errorf("unknown type: %v does not wrap ErrUnknownType", err)
	}
}

func TestAlignment(t *testing.T) {
	buf, size := gguftest.Encode(gguftest.File{
		Alignment: 64,
		Tensors: []gguftest.Tensor{
			{"a", typ(t, "F16"), []int64{3}},
			{"b", typ(t, "F16"), []int64{3}},
		},
	})
	h, err := gguf.Parse(buf, size)
	if err != nil {
		t.Fatal(err)
	}
	if h.Alignment != 64 || h.Tensors[1].Offset != 64 || h.DataOffset%64 != 0 {
		t.Errorf("alignment %d, second offset %d, data at %d", h.Alignment, h.Tensors[1].Offset, h.DataOffset)
	}
}
