// Package gguf reads GGUF headers — the metadata key-value table and the
// tensor infos that start every llama.cpp model file — without the tensor
// data, and sums them into a quant's sizes. The reader is bounded: every
// count, string and array length is checked against the limits below and
// against the bytes actually present before anything is allocated, so a
// hostile header costs at most its own length.
package gguf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Limits on what a header may declare. llama.cpp's own reader
// (ggml/src/gguf.cpp) takes any count that fits in memory; ours reads
// remote files, so it refuses sizes no published model comes near.
const (
	// MaxHeaderBytes bounds the metadata and tensor infos together. The
	// largest tokenizers (256k tokens with their merges) take about 10 MB.
	MaxHeaderBytes = 64 << 20
	// MaxTensors bounds the tensor count of one file. A 61-layer MoE with
	// fused expert tensors has about 1,200; per-expert tensors ×384 would
	// be 70,000.
	MaxTensors = 1 << 20
	// MaxKVs bounds the metadata key count.
	MaxKVs = 1 << 16
	// MaxArrayLen bounds the elements of one metadata array.
	MaxArrayLen = 1 << 24
	// MaxStringLen bounds one metadata string (chat templates are tens of
	// kilobytes).
	MaxStringLen = 16 << 20
	// MaxNameLen is GGML_MAX_NAME - 1: llama.cpp refuses longer tensor names.
	MaxNameLen = 63
	// MaxDims is GGML_MAX_DIMS.
	MaxDims = 4
	// maxNesting bounds arrays of arrays.
	maxNesting = 3
	// keptArrayLen: numeric arrays up to this length keep their values
	// (per-layer head counts, sliding-window patterns); longer ones, such
	// as token types, keep only their length.
	keptArrayLen = 4096
	// DefaultAlignment is general.alignment's default.
	DefaultAlignment = 32
)

// Magic is the first four bytes of a GGUF file.
const Magic = "GGUF"

// ErrTruncated is wrapped by the error for a buffer that ends inside the
// header; a caller holding only a prefix of the file reads more and
// parses again.
var ErrTruncated = errors.New("the header runs past the bytes read")

// ErrUnknownType is wrapped by the error for a tensor whose ggml type this
// reader does not know.
var ErrUnknownType = errors.New("unknown ggml type")

// ValueType is a metadata value's type (gguf_type in gguf.h).
type ValueType uint32

// Metadata value types.
const (
	Uint8 ValueType = iota
	Int8
	Uint16
	Int16
	Uint32
	Int32
	Float32
	Bool
	String
	Array
	Uint64
	Int64
	Float64
)

var valueTypeNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string", "array", "uint64", "int64", "float64"}

func (t ValueType) String() string {
	if int(t) < len(valueTypeNames) {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("value type %d", uint32(t))
}

// scalarSize is the encoded size of a fixed-width value type, 0 for
// string and array.
func (t ValueType) scalarSize() int {
	switch t {
	case Uint8, Int8, Bool:
		return 1
	case Uint16, Int16:
		return 2
	case Uint32, Int32, Float32:
		return 4
	case Uint64, Int64, Float64:
		return 8
	}
	return 0
}

func (t ValueType) integer() bool {
	switch t {
	case Uint8, Int8, Uint16, Int16, Uint32, Int32, Uint64, Int64, Bool:
		return true
	}
	return false
}

// Value is one metadata value. Scalars fill one field by type; arrays
// give their element type and length, and keep their elements only when
// they are integers or booleans and at most keptArrayLen long (Ints).
type Value struct {
	Type  ValueType
	Int   int64 // integer and bool scalars (uint64 above MaxInt64 is refused)
	Float float64
	Str   string

	Elem ValueType
	Len  uint64
	Ints []int64
}

// KV is one metadata entry.
type KV struct {
	Key   string
	Value Value
}

// TensorInfo is one tensor's entry: Dims innermost first, as ggml orders
// them (ne[0] is the row length); Offset relative to the data section.
type TensorInfo struct {
	Name   string
	Dims   []int64
	Type   Type
	Offset int64
}

// Elements is the product of the dims.
func (t TensorInfo) Elements() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d // bounded when parsed
	}
	return n
}

// Bytes is the tensor's size on disk: whole blocks of its type.
func (t TensorInfo) Bytes() int64 {
	return t.Elements() / t.Type.BlockSize() * t.Type.BlockBytes()
}

// Header is a parsed and validated GGUF header.
type Header struct {
	Version   uint32
	KV        []KV
	Tensors   []TensorInfo
	Alignment int64
	// Len is the bytes from the start of the file to the end of the
	// tensor infos; DataOffset is Len rounded up to Alignment, where the
	// tensor data starts; DataLen is the data section's length.
	Len, DataOffset, DataLen int64
}

// Lookup returns the value of key.
func (h *Header) Lookup(key string) (Value, bool) {
	for _, kv := range h.KV {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return Value{}, false
}

// Error is a header that breaks the format or a limit.
type Error struct {
	At  int64 // byte offset where the fault was found
	Msg string
	Err error // ErrTruncated, ErrUnknownType or nil
}

func (e *Error) Error() string { return fmt.Sprintf("gguf header: byte %d: %s", e.At, e.Msg) }

func (e *Error) Unwrap() error { return e.Err }

type reader struct {
	buf []byte
	pos int64
}

func (r *reader) fail(format string, args ...any) error {
	return &Error{At: r.pos, Msg: fmt.Sprintf(format, args...)}
}

func (r *reader) take(n int64, what string) ([]byte, error) {
	if n < 0 || n > int64(len(r.buf))-r.pos {
		return nil, &Error{At: r.pos, Msg: fmt.Sprintf("%s (%d bytes) runs past the %d bytes read", what, n, len(r.buf)), Err: ErrTruncated}
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b, nil
}

func (r *reader) u32(what string) (uint32, error) {
	b, err := r.take(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (r *reader) u64(what string) (uint64, error) {
	b, err := r.take(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

func (r *reader) str(what string, limit uint64) (string, error) {
	at := r.pos
	n, err := r.u64(what + " length")
	if err != nil {
		return "", err
	}
	if n > limit {
		return "", &Error{At: at, Msg: fmt.Sprintf("%s length %d is over the limit of %d", what, n, limit)}
	}
	b, err := r.take(int64(n), what)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Parse reads a header from the start of a file. buf may hold more than
// the header (the rest is ignored) or less: then the error wraps
// ErrTruncated. fileSize, when not negative, is the length of the whole
// file, which the tensor data must fit in.
func Parse(buf []byte, fileSize int64) (*Header, error) {
	r := &reader{buf: buf}
	magic, err := r.take(4, "magic")
	if err != nil {
		return nil, err
	}
	if string(magic) != Magic {
		return nil, &Error{At: 0, Msg: fmt.Sprintf("magic %q is not %q: not a GGUF file", magic, Magic)}
	}
	v, err := r.u32("version")
	if err != nil {
		return nil, err
	}
	switch {
	case v == 2 || v == 3:
	case v == 1:
		return nil, &Error{At: 4, Msg: "version 1 (32-bit counts) is not supported; llama.cpp dropped it too"}
	case bits.ReverseBytes32(v) == 2 || bits.ReverseBytes32(v) == 3:
		return nil, &Error{At: 4, Msg: "big-endian GGUF is not supported"}
	default:
		return nil, &Error{At: 4, Msg: fmt.Sprintf("version %d is not 2 or 3", v)}
	}
	h := &Header{Version: v, Alignment: DefaultAlignment}
	at := r.pos
	nt, err := r.u64("tensor count")
	if err != nil {
		return nil, err
	}
	if nt > MaxTensors {
		return nil, &Error{At: at, Msg: fmt.Sprintf("tensor count %d is over the limit of %d", nt, MaxTensors)}
	}
	at = r.pos
	nkv, err := r.u64("metadata count")
	if err != nil {
		return nil, err
	}
	if nkv > MaxKVs {
		return nil, &Error{At: at, Msg: fmt.Sprintf("metadata count %d is over the limit of %d", nkv, MaxKVs)}
	}
	// Every entry takes at least 12 bytes (key length and type), every
	// tensor info at least 24: room is made for no more than the bytes
	// read can hold, whatever the counts say.
	h.KV = make([]KV, 0, min(nkv, uint64(len(buf))/12+1))
	seen := make(map[string]bool, cap(h.KV))
	for i := uint64(0); i < nkv; i++ {
		kat := r.pos
		key, err := r.str(fmt.Sprintf("key %d", i), 65535)
		if err != nil {
			return nil, err
		}
		if key == "" {
			return nil, &Error{At: kat, Msg: fmt.Sprintf("key %d is empty", i)}
		}
		if seen[key] {
			return nil, &Error{At: kat, Msg: fmt.Sprintf("key %q appears twice", key)}
		}
		seen[key] = true
		t, err := r.u32(key + " type")
		if err != nil {
			return nil, err
		}
		val, err := r.value(key, ValueType(t), 0)
		if err != nil {
			return nil, err
		}
		h.KV = append(h.KV, KV{Key: key, Value: val})
		if r.pos > MaxHeaderBytes {
			return nil, r.fail("header is over the limit of %d bytes", MaxHeaderBytes)
		}
	}
	if a, ok := h.Lookup("general.alignment"); ok {
		if a.Type != Uint32 || a.Int <= 0 || a.Int&(a.Int-1) != 0 {
			return nil, &Error{At: r.pos, Msg: fmt.Sprintf("general.alignment must be a uint32 power of two, not %s %d", a.Type, a.Int)}
		}
		h.Alignment = a.Int
	}
	h.Tensors = make([]TensorInfo, 0, min(nt, uint64(len(buf))/24+1))
	names := make(map[string]bool, cap(h.Tensors))
	for i := uint64(0); i < nt; i++ {
		t, err := r.tensorInfo(i)
		if err != nil {
			return nil, err
		}
		if names[t.Name] {
			return nil, r.fail("tensor %q appears twice", t.Name)
		}
		names[t.Name] = true
		h.Tensors = append(h.Tensors, t)
		if r.pos > MaxHeaderBytes {
			return nil, r.fail("header is over the limit of %d bytes", MaxHeaderBytes)
		}
	}
	h.Len = r.pos
	h.DataOffset = pad(h.Len, h.Alignment)
	// llama.cpp requires each tensor at the running, aligned end of the
	// ones before it (gguf.cpp: "tensor has offset X, expected Y").
	var end int64
	for _, t := range h.Tensors {
		if t.Offset != end {
			return nil, &Error{At: h.Len, Msg: fmt.Sprintf("tensor %q has data offset %d, expected %d", t.Name, t.Offset, end)}
		}
		end = pad(t.Offset+t.Bytes(), h.Alignment)
		if end > math.MaxInt64/2 {
			return nil, &Error{At: h.Len, Msg: fmt.Sprintf("tensor %q ends past any file", t.Name)}
		}
	}
	h.DataLen = end
	if fileSize >= 0 && h.DataOffset+lastEnd(h) > fileSize {
		return nil, &Error{At: h.Len, Msg: fmt.Sprintf("tensor data ends at byte %d, past the end of the %d-byte file", h.DataOffset+lastEnd(h), fileSize)}
	}
	return h, nil
}

// lastEnd is where the last tensor's bytes end (without its padding).
func lastEnd(h *Header) int64 {
	if len(h.Tensors) == 0 {
		return 0
	}
	t := h.Tensors[len(h.Tensors)-1]
	return t.Offset + t.Bytes()
}

func pad(n, align int64) int64 { return (n + align - 1) / align * align }

func (r *reader) value(key string, t ValueType, depth int) (Value, error) {
	v := Value{Type: t}
	switch {
	case t == String:
		s, err := r.str(key, MaxStringLen)
		v.Str = s
		return v, err
	case t == Array:
		if depth >= maxNesting {
			return v, r.fail("%s: arrays nested deeper than %d", key, maxNesting)
		}
		et, err := r.u32(key + " element type")
		if err != nil {
			return v, err
		}
		v.Elem = ValueType(et)
		at := r.pos
		n, err := r.u64(key + " length")
		if err != nil {
			return v, err
		}
		if n > MaxArrayLen {
			return v, &Error{At: at, Msg: fmt.Sprintf("%s: array length %d is over the limit of %d", key, n, MaxArrayLen)}
		}
		v.Len = n
		if sz := v.Elem.scalarSize(); sz > 0 {
			b, err := r.take(int64(n)*int64(sz), key+" array")
			if err != nil {
				return v, err
			}
			if v.Elem.integer() && n <= keptArrayLen {
				v.Ints = make([]int64, n)
				for i := range v.Ints {
					x, err := decodeInt(v.Elem, b[i*sz:(i+1)*sz])
					if err != nil {
						return v, r.fail("%s[%d]: %v", key, i, err)
					}
					v.Ints[i] = x
				}
			}
			return v, nil
		}
		if v.Elem != String && v.Elem != Array {
			return v, r.fail("%s: array of unknown %s", key, v.Elem)
		}
		for i := uint64(0); i < n; i++ {
			if _, err := r.value(key, v.Elem, depth+1); err != nil {
				return v, err
			}
		}
		return v, nil
	}
	sz := t.scalarSize()
	if sz == 0 {
		return v, r.fail("%s: unknown %s", key, t)
	}
	b, err := r.take(int64(sz), key)
	if err != nil {
		return v, err
	}
	switch t {
	case Float32:
		v.Float = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case Float64:
		v.Float = math.Float64frombits(binary.LittleEndian.Uint64(b))
	default:
		x, err := decodeInt(t, b)
		if err != nil {
			return v, r.fail("%s: %v", key, err)
		}
		v.Int = x
	}
	return v, nil
}

func decodeInt(t ValueType, b []byte) (int64, error) {
	switch t {
	case Uint8:
		return int64(b[0]), nil
	case Int8:
		return int64(int8(b[0])), nil
	case Bool:
		if b[0] > 1 {
			return 0, fmt.Errorf("bool byte %d is not 0 or 1", b[0])
		}
		return int64(b[0]), nil
	case Uint16:
		return int64(binary.LittleEndian.Uint16(b)), nil
	case Int16:
		return int64(int16(binary.LittleEndian.Uint16(b))), nil
	case Uint32:
		return int64(binary.LittleEndian.Uint32(b)), nil
	case Int32:
		return int64(int32(binary.LittleEndian.Uint32(b))), nil
	case Uint64:
		x := binary.LittleEndian.Uint64(b)
		if x > math.MaxInt64 {
			return 0, fmt.Errorf("uint64 %d is over %d", x, int64(math.MaxInt64))
		}
		return int64(x), nil
	case Int64:
		return int64(binary.LittleEndian.Uint64(b)), nil
	}
	return 0, fmt.Errorf("%s is not an integer", t)
}

func (r *reader) tensorInfo(i uint64) (TensorInfo, error) {
	at := r.pos
	name, err := r.str(fmt.Sprintf("tensor %d name", i), MaxNameLen)
	if err != nil {
		return TensorInfo{}, err
	}
	if name == "" {
		return TensorInfo{}, &Error{At: at, Msg: fmt.Sprintf("tensor %d has an empty name", i)}
	}
	t := TensorInfo{Name: name}
	nd, err := r.u32(name + " dims")
	if err != nil {
		return t, err
	}
	if nd == 0 || nd > MaxDims {
		return t, r.fail("tensor %q has %d dims, not 1 to %d", name, nd, MaxDims)
	}
	t.Dims = make([]int64, nd)
	n := uint64(1)
	for d := range t.Dims {
		x, err := r.u64(name + " dim")
		if err != nil {
			return t, err
		}
		hi, lo := bits.Mul64(n, x)
		if x > math.MaxInt64 || hi != 0 || lo > math.MaxInt64/8 {
			return t, r.fail("tensor %q has more elements than any file holds", name)
		}
		n = lo
		t.Dims[d] = int64(x)
	}
	ty, err := r.u32(name + " type")
	if err != nil {
		return t, err
	}
	t.Type = Type(ty)
	if !t.Type.Known() {
		return t, &Error{At: r.pos - 4, Msg: fmt.Sprintf("tensor %q has ggml type %d, which this reader does not know", name, ty), Err: ErrUnknownType}
	}
	if t.Dims[0]%t.Type.BlockSize() != 0 {
		return t, r.fail("tensor %q: row length %d is not a multiple of %s's block of %d", name, t.Dims[0], t.Type, t.Type.BlockSize())
	}
	off, err := r.u64(name + " offset")
	if err != nil {
		return t, err
	}
	if off > math.MaxInt64/2 {
		return t, r.fail("tensor %q has data offset %d, past any file", name, off)
	}
	t.Offset = int64(off)
	return t, nil
}
