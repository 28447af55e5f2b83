package safetensors

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Build lays tensors out contiguously in the order given, as a writer
// does, and returns a validated header whose Len is the JSON length
// space-padded to a multiple of 8. Begin and End of the input are ignored.
// It exists for tests and fakes that need real headers.
func Build(tensors []TensorInfo, metadata map[string]string) (*Header, error) {
	h := &Header{Tensors: make([]TensorInfo, len(tensors)), Metadata: metadata}
	var off int64
	for i, t := range tensors {
		if _, ok := bitsizes[t.DType]; !ok {
			return nil, &Error{Tensor: t.Name, Msg: fmt.Sprintf("dtype %q: expected a safetensors dtype (%s)", t.DType, knownDTypes)}
		}
		n, ok := t.Elements()
		if !ok || n > (1<<63-1)/64 {
			return nil, &Error{Tensor: t.Name, Msg: fmt.Sprintf("shape %v: element count overflows", t.Shape)}
		}
		nbits := n * int64(bitsizes[t.DType])
		if nbits%8 != 0 {
			return nil, &Error{Tensor: t.Name, Msg: fmt.Sprintf("%d elements of %s are not a whole number of bytes", n, t.DType)}
		}
		t.Shape = slices.Clone(t.Shape)
		if t.Shape == nil {
			t.Shape = []int64{}
		}
		t.Begin, t.End = off, off+nbits/8
		off = t.End
		h.Tensors[i] = t
	}
	js, err := h.appendJSON(nil)
	if err != nil {
		return nil, err
	}
	h.Len = int64(len(js)+7) / 8 * 8
	if err := h.validate(); err != nil {
		return nil, err
	}
	return h, nil
}

// Encode returns the start of the file: the length prefix and the JSON,
// space-padded to Len bytes. Raise Len before calling to pad further.
func (h *Header) Encode() ([]byte, error) {
	buf := make([]byte, PrefixLen, PrefixLen+h.Len)
	buf, err := h.appendJSON(buf)
	if err != nil {
		return nil, err
	}
	js := int64(len(buf) - PrefixLen)
	if js > h.Len {
		return nil, &Error{Msg: fmt.Sprintf("JSON is %d bytes, longer than Len %d", js, h.Len)}
	}
	for int64(len(buf)-PrefixLen) < h.Len {
		buf = append(buf, ' ')
	}
	binary.LittleEndian.PutUint64(buf, uint64(h.Len))
	return buf, nil
}

func (h *Header) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	first := true
	if h.Metadata != nil {
		b = append(b, `"__metadata__":{`...)
		keys := make([]string, 0, len(h.Metadata))
		for k := range h.Metadata {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendString(b, k); err != nil {
				return nil, err
			}
			b = append(b, ':')
			if b, err = appendString(b, h.Metadata[k]); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
		first = false
	}
	for _, t := range h.Tensors {
		if !first {
			b = append(b, ',')
		}
		first = false
		var err error
		if b, err = appendString(b, t.Name); err != nil {
			return nil, err
		}
		b = append(b, `:{"dtype":"`...)
		b = append(b, t.DType...)
		b = append(b, `","shape":[`...)
		for i, d := range t.Shape {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, d, 10)
		}
		b = append(b, `],"data_offsets":[`...)
		b = strconv.AppendInt(b, t.Begin, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, t.End, 10)
		b = append(b, "]}"...)
	}
	return append(b, '}'), nil
}

func appendString(b []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("string %q is not valid UTF-8", s)
	}
	return AppendQuoted(b, s), nil
}

// AppendQuoted appends s as a JSON string the way the safetensors writer
// escapes names: quotes, backslashes and control bytes only. The caller
// ensures s is valid UTF-8.
func AppendQuoted(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
