package safetensors

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON lexing the header parser is built on.

func (p *parser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) expect(c byte) error {
	if p.peek() != c {
		return fmt.Errorf("byte %d: expected %q, found %s", p.i, c, p.found())
	}
	p.i++
	return nil
}

// found describes the byte at the cursor for an error message.
func (p *parser) found() string {
	if p.i >= len(p.b) {
		return "end of header"
	}
	return fmt.Sprintf("%q", p.b[p.i])
}

func (p *parser) errf(tensor, format string, a ...any) error {
	return &Error{Tensor: tensor, Msg: fmt.Sprintf("byte %d: ", p.i) + fmt.Sprintf(format, a...)}
}

func (p *parser) wrap(tensor, field string, err error) error {
	msg := err.Error()
	if field != "" {
		msg = field + ": " + msg
	}
	return &Error{Tensor: tensor, Msg: msg}
}

// rawStr scans a JSON string and returns its bytes between the quotes,
// and whether it contains escapes that still need decoding.
func (p *parser) rawStr() ([]byte, bool, error) {
	if p.peek() != '"' {
		return nil, false, fmt.Errorf("byte %d: expected a string, found %s", p.i, p.found())
	}
	start := p.i + 1
	escaped := false
	for i := start; i < len(p.b); i++ {
		switch c := p.b[i]; {
		case c == '"':
			p.i = i + 1
			return p.b[start:i], escaped, nil
		case c == '\\':
			escaped = true
			i++
		case c < 0x20:
			return nil, false, fmt.Errorf("byte %d: control character in string", i)
		}
	}
	return nil, false, fmt.Errorf("byte %d: unterminated string", start-1)
}

func (p *parser) str() (string, error) {
	raw, esc, err := p.rawStr()
	if err != nil {
		return "", err
	}
	if !esc {
		return string(raw), nil
	}
	return unescape(raw)
}

func unescape(raw []byte) (string, error) {
	var sb strings.Builder
	sb.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			sb.WriteByte(c)
			continue
		}
		i++
		if i >= len(raw) {
			return "", fmt.Errorf("bad escape at end of string")
		}
		switch raw[i] {
		case '"', '\\', '/':
			sb.WriteByte(raw[i])
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r, n, err := hex4(raw[i+1:])
			if err != nil {
				return "", err
			}
			i += n
			if utf16.IsSurrogate(r) {
				// A surrogate must pair with a following \uDC00-\uDFFF.
				if i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					r2, n2, err := hex4(raw[i+3:])
					if err == nil {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							sb.WriteRune(d)
							i += 2 + n2
							continue
						}
					}
				}
				return "", fmt.Errorf("lone surrogate \\u%04x in string", r)
			}
			sb.WriteRune(r)
		default:
			return "", fmt.Errorf("invalid escape \\%c in string", raw[i])
		}
	}
	return sb.String(), nil
}

func hex4(b []byte) (rune, int, error) {
	if len(b) < 4 {
		return 0, 0, fmt.Errorf("short \\u escape in string")
	}
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, 0, fmt.Errorf("bad \\u escape in string")
		}
	}
	return r, 4, nil
}

// uint reads a JSON number that must be a non-negative integer in int64.
func (p *parser) uint() (int64, error) {
	start := p.i
	if p.peek() == '-' {
		return 0, fmt.Errorf("expected a non-negative integer, found a negative number")
	}
	var n int64
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		d := int64(p.b[p.i] - '0')
		if n > (1<<63-1-d)/10 {
			return 0, fmt.Errorf("integer at byte %d overflows int64", start)
		}
		n = n*10 + d
		p.i++
	}
	switch {
	case p.i == start:
		return 0, fmt.Errorf("expected a non-negative integer, found %s", p.found())
	case p.b[start] == '0' && p.i-start > 1:
		return 0, fmt.Errorf("integer at byte %d has a leading zero", start)
	}
	if c := p.peek(); c == '.' || c == 'e' || c == 'E' {
		return 0, fmt.Errorf("expected a non-negative integer, found a fraction or exponent at byte %d", p.i)
	}
	return n, nil
}

// uints reads an array of non-negative integers onto the shape arena.
func (p *parser) uints() ([]int64, error) {
	if err := p.expect('['); err != nil {
		return nil, err
	}
	start := len(p.shape)
	p.ws()
	if p.peek() == ']' {
		p.i++
		return p.shape[start:start:start], nil
	}
	for {
		p.ws()
		n, err := p.uint()
		if err != nil {
			return nil, err
		}
		p.shape = append(p.shape, n)
		p.ws()
		c := p.peek()
		p.i++
		if c == ']' {
			end := len(p.shape)
			return p.shape[start:end:end], nil
		}
		if c != ',' {
			p.i--
			return nil, fmt.Errorf("byte %d: expected ',' or ']', found %s", p.i, p.found())
		}
	}
}

const maxDepth = 64

// skip steps over any JSON value, checking its syntax; nesting is bounded
// so a hostile header cannot exhaust the stack.
func (p *parser) skip(depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("byte %d: nesting deeper than %d", p.i, maxDepth)
	}
	switch c := p.peek(); {
	case c == '"':
		_, _, err := p.rawStr()
		return err
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		p.i++
		p.ws()
		if p.peek() == closer {
			p.i++
			return nil
		}
		for {
			if c == '{' {
				if _, _, err := p.rawStr(); err != nil {
					return err
				}
				p.ws()
				if err := p.expect(':'); err != nil {
					return err
				}
				p.ws()
			}
			if err := p.skip(depth + 1); err != nil {
				return err
			}
			p.ws()
			next := p.peek()
			p.i++
			if next == closer {
				return nil
			}
			if next != ',' {
				p.i--
				return fmt.Errorf("byte %d: expected ',' or %q, found %s", p.i, closer, p.found())
			}
			p.ws()
		}
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	}
	return fmt.Errorf("byte %d: expected a JSON value, found %s", p.i, p.found())
}

func (p *parser) literal(word string) error {
	if !bytes.HasPrefix(p.b[p.i:], []byte(word)) {
		return fmt.Errorf("byte %d: expected %s", p.i, word)
	}
	p.i += len(word)
	return nil
}

// number checks JSON number syntax: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
func (p *parser) number() error {
	start := p.i
	if p.peek() == '-' {
		p.i++
	}
	digits := func() int {
		s := p.i
		for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
			p.i++
		}
		return p.i - s
	}
	first := p.i
	n := digits()
	if n == 0 || (n > 1 && p.b[first] == '0') {
		return fmt.Errorf("byte %d: malformed number", start)
	}
	if p.peek() == '.' {
		p.i++
		if digits() == 0 {
			return fmt.Errorf("byte %d: malformed number", start)
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.i++
		if c := p.peek(); c == '+' || c == '-' {
			p.i++
		}
		if digits() == 0 {
			return fmt.Errorf("byte %d: malformed number", start)
		}
	}
	return nil
}
