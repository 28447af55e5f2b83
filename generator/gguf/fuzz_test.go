package gguf_test

import (
	"errors"
	"testing"

	"dossier/generator/gguf"
	"dossier/generator/gguf/gguftest"
)

func FuzzParse(f *testing.F) {
	q4, _ := gguf.TypeByName("Q4_K")
	f32, _ := gguf.TypeByName("F32")
	h, size := gguftest.Encode(gguftest.File{
		KV: []gguftest.KV{{"general.architecture", "llama"}, {"llama.block_count", uint32(1)},
			{"a", []string{"x", "yz"}}, {"b", []int32{1, 2}}, {"c", 1.5}},
		Tensors: []gguftest.Tensor{{"blk.0.w", q4, []int64{256, 2}}, {"n", f32, []int64{3}}},
	})
	f.Add(h, size)
	f.Add(h[:40], size)
	f.Add([]byte("GGUF\x03\x00\x00\x00"), int64(8))
	f.Fuzz(func(t *testing.T, b []byte, size int64) {
		hd, err := gguf.Parse(b, size)
		if err != nil {
			var e *gguf.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not *gguf.Error", err)
			}
			return
		}
		if hd.Len > int64(len(b)) || hd.DataOffset < hd.Len || hd.DataOffset%hd.Alignment != 0 {
			t.Fatalf("accepted header with len %d, data at %d, %d bytes read", hd.Len, hd.DataOffset, len(b))
		}
		var end int64
		for _, ti := range hd.Tensors {
			if !ti.Type.Known() || ti.Offset != end || ti.Bytes() < 0 {
				t.Fatalf("accepted tensor %+v at expected offset %d", ti, end)
			}
			end = (ti.Offset + ti.Bytes() + hd.Alignment - 1) / hd.Alignment * hd.Alignment
		}
	})
}
