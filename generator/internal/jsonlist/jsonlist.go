// Package jsonlist writes a JSON document whose last field is a long
// array one element at a time, byte for byte as json.MarshalIndent writes
// the whole document, so a writer need not hold every element at once.
package jsonlist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Placeholder stands for the array's elements in the document New takes.
var Placeholder = []int{0}

// List is a document being written.
type List struct {
	w              io.Writer
	tail           []byte // what follows the array's last element
	prefix, indent string
	n              int
	buf            bytes.Buffer
}

// New writes doc, as json.MarshalIndent(doc, "", indent) would, up to its
// array's first element. doc's last field, at the top level, is that
// array, given as Placeholder.
func New(w io.Writer, doc any, indent string) (*List, error) {
	b, err := json.MarshalIndent(doc, "", indent)
	if err != nil {
		return nil, err
	}
	prefix := strings.Repeat(indent, 2)
	mark := "\n" + prefix + "0\n"
	at := bytes.LastIndex(b, []byte(mark))
	if at < 1 || b[at-1] != '[' || !bytes.HasSuffix(b, []byte("\n"+indent+"]\n}")) || bytes.LastIndexByte(b, '"') > at {
		return nil, errors.New("jsonlist: the document's last field is not the placeholder array")
	}
	l := &List{w: w, tail: append(b[at+len(mark)-1:], '\n'), prefix: prefix, indent: indent}
	_, err = w.Write(b[:at])
	return l, err
}

// Add writes v, encoded by json.Marshal, as the array's next element.
func (l *List) Add(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	l.buf.Reset()
	if l.n > 0 {
		l.buf.WriteByte(',')
	}
	l.buf.WriteString("\n" + l.prefix)
	if err := json.Indent(&l.buf, b, l.prefix, l.indent); err != nil {
		return fmt.Errorf("jsonlist: %w", err)
	}
	l.n++
	_, err = l.w.Write(l.buf.Bytes())
	return err
}

// Close writes the rest of the document and a newline.
func (l *List) Close() error {
	tail := l.tail
	if l.n == 0 {
		tail = bytes.TrimLeft(tail, "\n "+l.indent) // "[]", as for an empty array
	}
	_, err := l.w.Write(tail)
	return err
}
