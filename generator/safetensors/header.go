// Package safetensors reads safetensors headers: the 8-byte length prefix
// and the JSON table of tensors that starts every .safetensors file. It
// validates them as strictly as the reference Rust crate does, so a header
// that passes here describes a file the crate would load, and it sums
// headers into a census by dtype and by role.
package safetensors

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
)

// PrefixLen is the size of the little-endian u64 that precedes the header.
const PrefixLen = 8

// MaxHeaderLen is the largest header accepted, in bytes. The Rust crate
// allows 100 MB; huggingface_hub and huggingface.js stop at 25 MB, and so
// do we, because the header is read into memory from a remote file.
const MaxHeaderLen = 25_000_000

// ErrTooLarge is wrapped by the error for a header longer than MaxHeaderLen.
var ErrTooLarge = errors.New("safetensors header too large")

// Header is a parsed and validated safetensors header.
type Header struct {
	// Tensors in file order: sorted by data offsets, contiguous from 0.
	Tensors  []TensorInfo
	Metadata map[string]string // __metadata__, nil when absent
	Len      int64             // N: bytes of JSON after the prefix, padding included
}

// TensorInfo is one entry of the header. Begin and End are byte offsets
// into the data buffer that follows the header, not into the file.
type TensorInfo struct {
	Name, DType string
	Shape       []int64
	Begin, End  int64
}

// Error is a header that breaks the format. Tensor names the entry at
// fault, and is empty for problems with the header as a whole.
type Error struct {
	Tensor string
	Msg    string
	Err    error // a sentinel such as ErrTooLarge, or nil
}

func (e *Error) Error() string {
	if e.Tensor != "" {
		return fmt.Sprintf("safetensors header: tensor %q: %s", e.Tensor, e.Msg)
	}
	return "safetensors header: " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Elements returns the product of the shape: 1 for a scalar, 0 for an
// empty tensor, and false when the product overflows int64.
func (t TensorInfo) Elements() (int64, bool) {
	n := uint64(1)
	for _, d := range t.Shape {
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > 1<<63-1 {
			return 0, false
		}
		n = lo
	}
	return int64(n), true
}

// Bytes returns End-Begin, the bytes the tensor occupies.
func (t TensorInfo) Bytes() int64 { return t.End - t.Begin }

// DataLen is the size of the data buffer: the end of the last tensor.
func (h *Header) DataLen() int64 {
	if len(h.Tensors) == 0 {
		return 0
	}
	return h.Tensors[len(h.Tensors)-1].End
}

// FileLen is the size a file holding exactly this header and its data must
// have: the crate rejects trailing bytes and short files alike.
func (h *Header) FileLen() int64 { return PrefixLen + h.Len + h.DataLen() }

// HeaderLen decodes the length prefix and checks it against MaxHeaderLen.
func HeaderLen(prefix []byte) (int64, error) {
	if len(prefix) < PrefixLen {
		return 0, &Error{Msg: fmt.Sprintf("file holds %d bytes; expected at least the %d-byte length prefix", len(prefix), PrefixLen)}
	}
	n := binary.LittleEndian.Uint64(prefix)
	if n > MaxHeaderLen {
		return 0, &Error{Msg: fmt.Sprintf("header length %d exceeds the %d-byte limit", n, MaxHeaderLen), Err: ErrTooLarge}
	}
	return int64(n), nil
}

// Parse reads a header from the beginning of a file: b holds the prefix
// and at least N bytes after it; anything beyond is ignored.
func Parse(b []byte) (*Header, error) {
	n, err := HeaderLen(b)
	if err != nil {
		return nil, err
	}
	if rest := int64(len(b) - PrefixLen); n > rest {
		return nil, &Error{Msg: fmt.Sprintf("prefix announces a %d-byte header but only %d bytes follow it", n, rest)}
	}
	return ParseHeader(b[PrefixLen : PrefixLen+n])
}

// Read reads the prefix and the header from r, and never more than that.
func Read(r io.Reader) (*Header, error) {
	var prefix [PrefixLen]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return nil, fmt.Errorf("read safetensors length prefix: %w", err)
	}
	n, err := HeaderLen(prefix[:])
	if err != nil {
		return nil, err
	}
	js := make([]byte, n)
	if _, err := io.ReadFull(r, js); err != nil {
		return nil, fmt.Errorf("read %d-byte safetensors header: %w", n, err)
	}
	return ParseHeader(js)
}

// ParseHeader parses and validates the N bytes of JSON after the prefix.
func ParseHeader(js []byte) (*Header, error) {
	if len(js) > MaxHeaderLen {
		return nil, &Error{Msg: fmt.Sprintf("header length %d exceeds the %d-byte limit", len(js), MaxHeaderLen), Err: ErrTooLarge}
	}
	h, err := decode(js)
	if err != nil {
		return nil, err
	}
	h.Len = int64(len(js))
	if err := h.validate(); err != nil {
		return nil, err
	}
	return h, nil
}

// validate applies the crate's rules: sorted by offsets, every tensor
// begins where the previous one ended (no gaps, overlaps or duplicates),
// and its span is exactly elements × bits / 8 bytes.
func (h *Header) validate() error {
	slices.SortStableFunc(h.Tensors, func(a, b TensorInfo) int {
		if a.Begin != b.Begin {
			return cmpInt(a.Begin, b.Begin)
		}
		return cmpInt(a.End, b.End)
	})
	var prevEnd int64
	prevName := ""
	for _, t := range h.Tensors {
		if t.Begin != prevEnd {
			where := "the data buffer starts"
			if prevName != "" {
				where = fmt.Sprintf("tensor %q ends", prevName)
			}
			return &Error{Tensor: t.Name, Msg: fmt.Sprintf("data_offsets [%d, %d]: expected to begin at %d, where %s (gap, overlap or duplicate)", t.Begin, t.End, prevEnd, where)}
		}
		if t.End < t.Begin {
			return &Error{Tensor: t.Name, Msg: fmt.Sprintf("data_offsets [%d, %d]: expected end >= begin", t.Begin, t.End)}
		}
		n, ok := t.Elements()
		if !ok {
			return &Error{Tensor: t.Name, Msg: fmt.Sprintf("shape %v: element count overflows", t.Shape)}
		}
		bs := int64(bitsizes[t.DType])
		hi, nbits := bits.Mul64(uint64(n), uint64(bs))
		if hi != 0 || nbits > 1<<63-1 {
			return &Error{Tensor: t.Name, Msg: fmt.Sprintf("shape %v of %s: bit count overflows", t.Shape, t.DType)}
		}
		if nbits%8 != 0 {
			return &Error{Tensor: t.Name, Msg: fmt.Sprintf("%d elements of %s are %d bits, not a whole number of bytes", n, t.DType, nbits)}
		}
		if want := int64(nbits / 8); t.End-t.Begin != want {
			return &Error{Tensor: t.Name, Msg: fmt.Sprintf("data_offsets [%d, %d] span %d bytes; expected %d (%d elements × %d bits / 8)", t.Begin, t.End, t.End-t.Begin, want, n, bs)}
		}
		prevEnd, prevName = t.End, t.Name
	}
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
