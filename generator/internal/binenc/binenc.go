// Package binenc is the small binary encoding of what a build keeps for the
// next one (facts.Set.AppendBinary, sizing.ModelSide): varints and
// length-prefixed strings after a header line, a CRC-32C of everything
// before it at the end. A damaged encoding is refused, never misread.
package binenc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// AppendString appends s with its length first.
func AppendString(dst []byte, s string) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(s))), s...)
}

// AppendFloat appends the bits of v, so a value reads back exactly.
func AppendFloat(dst []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}

// Seal appends the checksum of dst[start:], where the encoding began.
func Seal(dst []byte, start int) []byte {
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// Open checks b's header and checksum and returns a reader of what lies
// between them. The strings it reads share one copy of b.
func Open(b []byte, header string) (*Reader, error) {
	if len(b) < len(header)+4 || string(b[:len(header)]) != header {
		return nil, errors.New("no header")
	}
	end := len(b) - 4
	if crc32.Checksum(b[:end], castagnoli) != binary.LittleEndian.Uint32(b[end:]) {
		return nil, errors.New("checksum mismatch")
	}
	return &Reader{s: string(b[len(header):end]), end: end}, nil
}

// Reader reads the encoding. The first error sticks (Err); every read
// after it returns a zero value.
type Reader struct {
	s   string
	err error
	end int // where the bytes Open read end in its b
}

// Err is the first error, nil when every read so far succeeded.
func (r *Reader) Err() error { return r.err }

// Rest is how many bytes are left unread.
func (r *Reader) Rest() int { return len(r.s) }

// Bytes reads a string AppendString wrote and returns where it lies in the
// b Open was given, so that a caller can read it there without a copy.
func (r *Reader) Bytes() (start, end int) {
	n := r.Count()
	end = r.end - len(r.s) + n
	r.s = r.s[n:]
	return end - n, end
}

// Fail records msg as the error unless there is one already.
func (r *Reader) Fail(msg string) {
	if r.err == nil {
		r.err = fmt.Errorf("at %d bytes from the end: %s", len(r.s), msg)
	}
	r.s = ""
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	var v uint64
	for i := 0; i < len(r.s) && i < binary.MaxVarintLen64; i++ {
		c := r.s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // beyond 64 bits
			}
			r.s = r.s[i+1:]
			return v | uint64(c)<<(7*i)
		}
		v |= uint64(c&0x7f) << (7 * i)
	}
	r.Fail("bad varint")
	return 0
}

// Varint reads a signed varint.
func (r *Reader) Varint() int64 {
	u := r.Uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

// Count reads a length or a count, which can be no larger than what is
// left, in bytes: a damaged one cannot ask for more than a few times the
// encoding's size (a caller whose elements take more bytes checks that
// too).
func (r *Reader) Count() int {
	n := r.Uvarint()
	if n > uint64(len(r.s)) {
		r.Fail("count beyond the end")
		return 0
	}
	return int(n)
}

// String reads a string AppendString wrote.
func (r *Reader) String() string {
	n := r.Count()
	v := r.s[:n]
	r.s = r.s[n:]
	return v
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if r.s == "" {
		r.Fail("unexpected end")
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

// Float reads a float64 AppendFloat wrote.
func (r *Reader) Float() float64 {
	if len(r.s) < 8 {
		r.Fail("unexpected end")
		return 0
	}
	var v uint64
	for i := range 8 {
		v |= uint64(r.s[i]) << (8 * i)
	}
	r.s = r.s[8:]
	return math.Float64frombits(v)
}
