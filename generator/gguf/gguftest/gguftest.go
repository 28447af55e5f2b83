// Package gguftest writes valid GGUF headers for test fixtures: the
// metadata and tensor infos of a file whose tensor data is never
// materialized (a fake Hub serves zeros after the header).
package gguftest

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"

	"dossier/generator/gguf"
)

// KV is one metadata entry. Value is a Go value whose type picks the GGUF
// type: uint8, int8, uint16, int16, uint32, int32, float32, bool, string,
// uint64, int64, float64, or a slice of one of them (an array). An
// alias of a struct literal, so that fixtures read {"key", value}
// without go vet asking for field names.
type KV = struct {
	Key   string
	Value any
}

// Tensor is one tensor: Dims innermost first, as ggml orders them.
type Tensor = struct {
	Name string
	Type gguf.Type
	Dims []int64
}

// File describes a GGUF file.
type File struct {
	Version   uint32 // 3 when 0
	KV        []KV
	Tensors   []Tensor
	Alignment int64 // written as general.alignment when not 0 or 32
}

// Encode returns the header (magic through the padding before the data)
// and the length of the whole file. It panics on a Value of a type GGUF
// has no encoding for: a fixture bug.
func Encode(f File) (header []byte, size int64) {
	v := f.Version
	if v == 0 {
		v = 3
	}
	kvs := f.KV
	align := f.Alignment
	if align == 0 {
		align = gguf.DefaultAlignment
	}
	if align != gguf.DefaultAlignment {
		kvs = append(append([]KV(nil), kvs...), KV{"general.alignment", uint32(align)})
	}
	b := []byte(gguf.Magic)
	b = binary.LittleEndian.AppendUint32(b, v)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(f.Tensors)))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(kvs)))
	for _, kv := range kvs {
		b = appendString(b, kv.Key)
		b = appendValue(b, kv.Value)
	}
	var off int64
	for _, t := range f.Tensors {
		b = appendString(b, t.Name)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(t.Dims)))
		for _, d := range t.Dims {
			b = binary.LittleEndian.AppendUint64(b, uint64(d))
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(t.Type))
		b = binary.LittleEndian.AppendUint64(b, uint64(off))
		off = pad(off+Bytes(t), align)
	}
	for int64(len(b))%align != 0 {
		b = append(b, 0)
	}
	last := off
	if n := len(f.Tensors); n > 0 {
		// The file ends at the last tensor's bytes, unpadded, as
		// llama.cpp's writer leaves it.
		t := f.Tensors[n-1]
		last = off - pad(Bytes(t), align) + Bytes(t)
	}
	return b, int64(len(b)) + last
}

// Bytes is a tensor's size on disk computed from its type's block size.
func Bytes(t Tensor) int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n / t.Type.BlockSize() * t.Type.BlockBytes()
}

func pad(n, a int64) int64 { return (n + a - 1) / a * a }

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}

func typeOf(v any) gguf.ValueType {
	switch v.(type) {
	case uint8:
		return gguf.Uint8
	case int8:
		return gguf.Int8
	case uint16:
		return gguf.Uint16
	case int16:
		return gguf.Int16
	case uint32:
		return gguf.Uint32
	case int32:
		return gguf.Int32
	case float32:
		return gguf.Float32
	case bool:
		return gguf.Bool
	case string:
		return gguf.String
	case uint64:
		return gguf.Uint64
	case int64:
		return gguf.Int64
	case float64:
		return gguf.Float64
	}
	panic(fmt.Sprintf("gguftest: no GGUF type for %T", v))
}

func appendValue(b []byte, v any) []byte {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		b = binary.LittleEndian.AppendUint32(b, uint32(typeOf(v)))
		return appendScalar(b, v)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(gguf.Array))
	b = binary.LittleEndian.AppendUint32(b, uint32(typeOf(reflect.Zero(rv.Type().Elem()).Interface())))
	b = binary.LittleEndian.AppendUint64(b, uint64(rv.Len()))
	for i := range rv.Len() {
		b = appendScalar(b, rv.Index(i).Interface())
	}
	return b
}

func appendScalar(b []byte, v any) []byte {
	le := binary.LittleEndian
	switch x := v.(type) {
	case uint8:
		return append(b, x)
	case int8:
		return append(b, byte(x))
	case uint16:
		return le.AppendUint16(b, x)
	case int16:
		return le.AppendUint16(b, uint16(x))
	case uint32:
		return le.AppendUint32(b, x)
	case int32:
		return le.AppendUint32(b, uint32(x))
	case float32:
		return le.AppendUint32(b, math.Float32bits(x))
	case bool:
		if x {
			return append(b, 1)
		}
		return append(b, 0)
	case string:
		return appendString(b, x)
	case uint64:
		return le.AppendUint64(b, x)
	case int64:
		return le.AppendUint64(b, uint64(x))
	case float64:
		return le.AppendUint64(b, math.Float64bits(x))
	}
	panic(fmt.Sprintf("gguftest: no GGUF type for %T", v))
}
