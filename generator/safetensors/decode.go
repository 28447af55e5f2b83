package safetensors

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// decode turns header JSON into a Header without validating offsets.
// A dedicated parser rather than encoding/json: a K3-sized checkpoint
// carries 75 MB of headers, the shape of every entry is known, and errors
// can name the tensor they are about.
func decode(js []byte) (*Header, error) {
	if !utf8.Valid(js) {
		return nil, &Error{Msg: "header is not valid UTF-8"}
	}
	if len(js) == 0 || js[0] != '{' {
		return nil, &Error{Msg: "header must begin with '{'"}
	}
	p := &parser{b: js, i: 1}
	h := &Header{Tensors: make([]TensorInfo, 0, len(js)/128)}
	seen := make(map[string]struct{}, len(js)/128)
	p.ws()
	if p.peek() == '}' {
		p.i++
	} else {
		for {
			name, err := p.str()
			if err != nil {
				return nil, p.wrap("", "tensor name", err)
			}
			// One map operation: a name already present leaves the size alone.
			n := len(seen)
			seen[name] = struct{}{}
			if len(seen) == n {
				return nil, &Error{Tensor: name, Msg: "appears twice in the header"}
			}
			p.ws()
			if err := p.expect(':'); err != nil {
				return nil, p.wrap(name, "", err)
			}
			p.ws()
			if name == "__metadata__" {
				if h.Metadata, err = p.metadata(); err != nil {
					return nil, err
				}
			} else {
				t, err := p.tensor(name)
				if err != nil {
					return nil, err
				}
				h.Tensors = append(h.Tensors, t)
			}
			p.ws()
			c := p.peek()
			p.i++
			if c == '}' {
				break
			}
			if c != ',' {
				return nil, p.errf("", "expected ',' or '}' after tensor %q", name)
			}
			p.ws()
		}
	}
	// The writer pads with spaces to align the data; readers accept any
	// trailing JSON whitespace, nothing else.
	p.ws()
	if p.i < len(p.b) {
		return nil, p.errf("", "unexpected data after the header object")
	}
	return h, nil
}

type parser struct {
	b     []byte
	i     int
	shape []int64 // arena the tensors' shapes are cut from
}

var (
	keyDType   = []byte("dtype")
	keyShape   = []byte("shape")
	keyOffsets = []byte("data_offsets")
)

// dtypeNames interns dtype strings so a header of half a million tensors
// does not allocate half a million copies of "BF16".
var dtypeNames = func() map[string]string {
	m := make(map[string]string, len(bitsizes))
	for k := range bitsizes {
		m[k] = k
	}
	return m
}()

func (p *parser) tensor(name string) (TensorInfo, error) {
	t := TensorInfo{Name: name}
	if p.peek() != '{' {
		return t, p.errf(name, "expected an object with dtype, shape and data_offsets, found %s", p.found())
	}
	p.i++
	var haveDType, haveShape, haveOffsets bool
	p.ws()
	if p.peek() == '}' {
		p.i++
		return t, &Error{Tensor: name, Msg: "missing dtype, shape and data_offsets"}
	}
	for {
		key, esc, err := p.rawStr()
		if err != nil {
			return t, p.wrap(name, "field name", err)
		}
		if esc {
			s, err := unescape(key)
			if err != nil {
				return t, p.wrap(name, "field name", err)
			}
			key = []byte(s)
		}
		p.ws()
		if err := p.expect(':'); err != nil {
			return t, p.wrap(name, string(key), err)
		}
		p.ws()
		switch {
		case bytes.Equal(key, keyDType):
			if haveDType {
				return t, &Error{Tensor: name, Msg: "dtype given twice"}
			}
			haveDType = true
			raw, esc, err := p.rawStr()
			if err != nil {
				return t, p.wrap(name, "dtype", err)
			}
			s := string(raw)
			if esc {
				if s, err = unescape(raw); err != nil {
					return t, p.wrap(name, "dtype", err)
				}
			}
			dt, ok := dtypeNames[s]
			if !ok {
				return t, &Error{Tensor: name, Msg: fmt.Sprintf("dtype %q: expected a safetensors dtype (%s)", s, knownDTypes)}
			}
			t.DType = dt
		case bytes.Equal(key, keyShape):
			if haveShape {
				return t, &Error{Tensor: name, Msg: "shape given twice"}
			}
			haveShape = true
			if t.Shape, err = p.uints(); err != nil {
				return t, p.wrap(name, "shape: expected an array of non-negative integers", err)
			}
		case bytes.Equal(key, keyOffsets):
			if haveOffsets {
				return t, &Error{Tensor: name, Msg: "data_offsets given twice"}
			}
			haveOffsets = true
			mark := len(p.shape)
			offs, err := p.uints()
			if err != nil {
				return t, p.wrap(name, "data_offsets: expected [begin, end] as non-negative integers", err)
			}
			if len(offs) != 2 {
				return t, &Error{Tensor: name, Msg: fmt.Sprintf("data_offsets: expected [begin, end], found %d numbers", len(offs))}
			}
			t.Begin, t.End = offs[0], offs[1]
			p.shape = p.shape[:mark] // offsets need not stay on the arena
		default:
			// The crate ignores unknown fields; so do we, but they must be JSON.
			if err := p.skip(0); err != nil {
				return t, p.wrap(name, string(key), err)
			}
		}
		p.ws()
		c := p.peek()
		p.i++
		if c == '}' {
			break
		}
		if c != ',' {
			p.i--
			return t, p.errf(name, "expected ',' or '}', found %s", p.found())
		}
		p.ws()
	}
	switch {
	case !haveDType:
		return t, &Error{Tensor: name, Msg: "missing dtype"}
	case !haveShape:
		return t, &Error{Tensor: name, Msg: "missing shape"}
	case !haveOffsets:
		return t, &Error{Tensor: name, Msg: "missing data_offsets"}
	}
	return t, nil
}

// metadata reads __metadata__: null, or an object of string values only.
func (p *parser) metadata() (map[string]string, error) {
	const field = "__metadata__"
	if bytes.HasPrefix(p.b[p.i:], []byte("null")) {
		p.i += 4
		return nil, nil
	}
	if p.peek() != '{' {
		return nil, p.errf("", "%s: expected an object of strings, found %s", field, p.found())
	}
	p.i++
	m := map[string]string{}
	p.ws()
	if p.peek() == '}' {
		p.i++
		return m, nil
	}
	for {
		k, err := p.str()
		if err != nil {
			return nil, p.wrap("", field+" key", err)
		}
		p.ws()
		if err := p.expect(':'); err != nil {
			return nil, p.wrap("", field+"."+k, err)
		}
		p.ws()
		if p.peek() != '"' {
			return nil, p.errf("", "%s.%s: expected a string value, found %s", field, k, p.found())
		}
		v, err := p.str()
		if err != nil {
			return nil, p.wrap("", field+"."+k, err)
		}
		if _, dup := m[k]; dup {
			return nil, p.errf("", "%s.%s appears twice", field, k)
		}
		m[k] = v
		p.ws()
		c := p.peek()
		p.i++
		if c == '}' {
			return m, nil
		}
		if c != ',' {
			p.i--
			return nil, p.errf("", "%s: expected ',' or '}', found %s", field, p.found())
		}
		p.ws()
	}
}

const knownDTypes = "BOOL, F4, F6_E2M3, F6_E3M2, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ, I16, U16, F16, BF16, I32, U32, F32, C64, F64, I64, U64"
