package mlx_test

import (
	"testing"

	"dossier/generator/mlx"
)

// FuzzParseConfig: any config.json gives a block or an error, never a
// panic, and a block it accepts has bits and group sizes in range.
func FuzzParseConfig(f *testing.F) {
	f.Add(toy.Config())
	f.Add([]byte(`{"quantization": {"group_size": 32, "bits": 4, "mode": "mxfp4", "lm_head": false}}`))
	f.Add([]byte(`{"quantization_config": {"quant_method": "fp8"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		q, err := mlx.ParseConfig(b)
		if err != nil || q == nil {
			return
		}
		check := func(p mlx.Params) {
			if p.Bits < 1 || p.Bits > 8 || p.GroupSize < 2 || p.GroupSize&(p.GroupSize-1) != 0 {
				t.Fatalf("accepted %+v", p)
			}
		}
		check(q.Default)
		for _, p := range q.Modules {
			check(p)
		}
	})
}

// FuzzDecodeStore: any bytes give a store or an error, never a panic, and
// a store it accepts adds up.
func FuzzDecodeStore(f *testing.F) {
	f.Add(storeBytes(f))
	f.Add([]byte(`{"repo": "a/b"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := mlx.DecodeStore(b)
		if err != nil {
			return
		}
		var n int64
		for _, c := range st.Sizes.Census {
			n += c.Bytes
		}
		if n != st.Sizes.TensorBytes || st.FileBytes() < 0 {
			t.Fatalf("accepted a store whose census sums to %d of %d", n, st.Sizes.TensorBytes)
		}
	})
}
