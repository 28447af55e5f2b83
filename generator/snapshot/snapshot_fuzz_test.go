package snapshot

import (
	"os"
	"path/filepath"
	"testing"

	"dossier/generator/internal/checked"
)

func FuzzDecode(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "site", "data", "hub", "moonshotai", "Kimi-K3", FileName)); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"schema":1,"census":{"U8":"x"}}`))
	// The parent of a bad count object must be found (census, headers.*).
	f.Add([]byte(`{"schema":1,"census":[]}`))
	f.Add([]byte(`{"schema":1,"headers":{"elements":{},"tensor_bytes":7}}`))
	const ok = `"schema":1,"model":"a/b","revision":"0123456789abcdef0123456789abcdef01234567","fetched":"2026-01-01","source":"s","files":[{"path":"model.safetensors","size":1000}],"shards":{"count":1,"bytes":1000,"source":"s"},"config_source":"s"`
	f.Add([]byte(`{` + ok + `,"config":null}`))
	f.Add([]byte(`{` + ok + `,"config":{},"headers":{"bytes":100,"tensors":1,"elements":{"BF16":450},"tensor_bytes":{"BF16":-900},"source":"s"}}`))
	f.Add([]byte(`{` + ok + `,"config":{},"headers":{"bytes":1001,"tensors":1,"elements":{},"tensor_bytes":{},"source":"s"}}`))
	f.Add([]byte(`{` + ok + `,"config":{},"index":{"total_size":900,"tensors":-1,"source":"s"}}`))
	f.Add([]byte(`{` + ok + `,"config":{},"tensors":{"w":"2x3","b":""},"tensors_source":"s"}`))
	f.Add([]byte(`{` + ok + `,"config":{},"tensors":{"w":"2x-3"},"tensors_source":"s"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b)
		if err != nil {
			return
		}
		// Decoded header figures are never negative and fit in the shards.
		if h := s.Header; h != nil {
			var tb int64
			for _, v := range h.TBytes {
				if v < 0 {
					t.Fatalf("negative tensor bytes %d decoded", v)
				}
				tb += v
			}
			if s.Shards.Bytes > 0 && (h.Bytes < 0 || tb > s.Shards.Bytes-h.Bytes) {
				t.Fatalf("headers %d + tensors %d exceed shards %d", h.Bytes, tb, s.Shards.Bytes)
			}
		}
		// What decodes must validate and survive a round trip.
		out, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(out); err != nil {
			t.Fatalf("re-decoding an encoded snapshot: %v", err)
		}
	})
}

// FuzzParseShape: a shape that parses is non-negative, at most maxDims
// long, its element count fits an int64, and it formats back to the input.
func FuzzParseShape(f *testing.F) {
	for _, s := range []string{"", "7", "4096x14336", "0x5", "01", "1x", "x", "-1", "4294967296x4294967296"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		shape, err := ParseShape(s)
		if err != nil {
			return
		}
		if len(shape) > maxDims {
			t.Fatalf("%q: %d dimensions", s, len(shape))
		}
		n := int64(1)
		for _, d := range shape {
			if d < 0 {
				t.Fatalf("%q: negative dimension %d", s, d)
			}
			var ok bool
			if n, ok = checked.Mul(n, d); !ok {
				t.Fatalf("%q: element count overflows", s)
			}
		}
		if back := FormatShape(shape); back != s {
			t.Fatalf("%q formats back as %q", s, back)
		}
	})
}
