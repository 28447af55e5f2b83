package safetensors

import (
	"fmt"
	"testing"
)

// A K3-sized shard: about 5,180 tensors and 790 kB of header.
func BenchmarkParseShard(b *testing.B) {
	var ts []TensorInfo
	for i := 0; len(ts) < 5180; i++ {
		base := fmt.Sprintf("language_model.model.layers.%d.mlp.experts.%d.down_proj.", i/896, i%896)
		ts = append(ts,
			TensorInfo{Name: base + "weight_packed", DType: "U8", Shape: []int64{7168, 1792}},
			TensorInfo{Name: base + "weight_scale", DType: "U8", Shape: []int64{7168, 112}},
			TensorInfo{Name: base + "weight_shape", DType: "I32", Shape: []int64{2}})
	}
	h, err := Build(ts, nil)
	if err != nil {
		b.Fatal(err)
	}
	buf, err := h.Encode()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(buf); err != nil {
			b.Fatal(err)
		}
	}
}
