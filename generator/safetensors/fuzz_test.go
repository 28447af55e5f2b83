package safetensors

import (
	"errors"
	"testing"
)

func FuzzParseHeader(f *testing.F) {
	seeds := []string{
		`{}`,
		`{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}  `,
		`{"__metadata__":{"format":"pt"},"a":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}}`,
		`{"a":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`,
		`{"a\u00e9":{"dtype":"BF16","shape":[],"data_offsets":[0,2],"x":[{"y":null}]}}`,
		`{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,0]}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
		f.Add(file(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, parse := range []func([]byte) (*Header, error){ParseHeader, Parse} {
			h, err := parse(b)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v is not *Error", err)
				}
				continue
			}
			// Whatever parses must be internally consistent and census-able.
			var end int64
			for _, x := range h.Tensors {
				if x.Begin != end || x.End < x.Begin {
					t.Fatalf("accepted bad offsets %+v", x)
				}
				end = x.End
			}
			var c Census
			_ = c.Add(h)
		}
	})
}
