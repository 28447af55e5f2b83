// Package pysnippet reads a Python snippet as text, without Python: a
// tokenizer for names, strings, numbers and operators, and from its tokens
// the imports, the calls with their keyword arguments and string literals,
// and the simple assignments of a string to a name. It is enough to audit a
// fine-tuning snippet copied from a tutorial; it is not a Python parser and
// accepts code Python would reject.
package pysnippet

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxBytes bounds a snippet; a fine-tuning script is a few kilobytes.
const MaxBytes = 1 << 20

// maxDepth bounds bracket nesting.
const maxDepth = 200

// TokKind is the kind of a token.
type TokKind uint8

// Token kinds.
const (
	Name TokKind = iota
	String
	Number
	Op
	Newline // end of a logical line
)

// Token is one token with the 1-based line it starts on.
type Token struct {
	Kind TokKind
	Text string // as written; for String the decoded value is Value
	// Value is a string literal's contents (escapes of the common forms
	// decoded, f-string braces kept as written).
	Value string
	Line  int
}

// Error is a snippet that cannot be read, with the line it was found on
// (0 when it concerns the whole input).
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Tokenize splits src into tokens. It fails on input that is not a text
// snippet (too large, NUL bytes, not UTF-8), on an unterminated string
// and on unbalanced brackets.
func Tokenize(src []byte) ([]Token, error) {
	if len(src) > MaxBytes {
		return nil, &Error{Msg: fmt.Sprintf("%d bytes: larger than the %d a snippet may have", len(src), MaxBytes)}
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return nil, &Error{Line: 1 + bytes.Count(src[:i], []byte{'\n'}), Msg: "a NUL byte: binary data, not a Python snippet"}
	}
	if !utf8.Valid(src) {
		return nil, &Error{Msg: "not UTF-8 text"}
	}
	s := string(src)
	var toks []Token
	line := 1
	type open struct {
		c    byte
		line int
	}
	var stack []open
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\n':
			if len(stack) == 0 && len(toks) > 0 && toks[len(toks)-1].Kind != Newline {
				toks = append(toks, Token{Kind: Newline, Text: "\n", Line: line})
			}
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
		case c == '\\' && i+1 < len(s) && (s[i+1] == '\n' || s[i+1] == '\r'):
			// explicit line continuation
			i++
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case isNameStart(c) || c >= utf8.RuneSelf:
			j := i
			for j < len(s) && (isNameChar(s[j]) || s[j] >= utf8.RuneSelf) {
				j++
			}
			if j < len(s) && (s[j] == '\'' || s[j] == '"') && isStringPrefix(s[i:j]) {
				t, n, err := readString(s, j, s[i:j], line)
				if err != nil {
					return nil, err
				}
				t.Text = s[i:n]
				toks = append(toks, t)
				line += strings.Count(s[i:n], "\n")
				i = n
				continue
			}
			toks = append(toks, Token{Kind: Name, Text: s[i:j], Line: line})
			i = j
		case c == '\'' || c == '"':
			t, n, err := readString(s, i, "", line)
			if err != nil {
				return nil, err
			}
			t.Text = s[i:n]
			toks = append(toks, t)
			line += strings.Count(s[i:n], "\n")
			i = n
		case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1])):
			j := i + 1
			for j < len(s) && (isNameChar(s[j]) || s[j] == '.' ||
				((s[j] == '+' || s[j] == '-') && (s[j-1] == 'e' || s[j-1] == 'E'))) {
				j++
			}
			toks = append(toks, Token{Kind: Number, Text: s[i:j], Line: line})
			i = j
		default:
			n := opLen(s[i:])
			op := s[i : i+n]
			switch op {
			case "(", "[", "{":
				if len(stack) >= maxDepth {
					return nil, &Error{Line: line, Msg: fmt.Sprintf("brackets nested deeper than %d", maxDepth)}
				}
				stack = append(stack, open{op[0], line})
			case ")", "]", "}":
				want := map[string]byte{")": '(', "]": '[', "}": '{'}[op]
				if len(stack) == 0 {
					return nil, &Error{Line: line, Msg: fmt.Sprintf("unbalanced %q: nothing is open", op)}
				}
				if top := stack[len(stack)-1]; top.c != want {
					return nil, &Error{Line: line, Msg: fmt.Sprintf("unbalanced %q: %q opened on line %d is still open", op, string(top.c), top.line)}
				}
				stack = stack[:len(stack)-1]
			}
			toks = append(toks, Token{Kind: Op, Text: op, Line: line})
			i += n
		}
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		return nil, &Error{Line: top.line, Msg: fmt.Sprintf("unbalanced %q: never closed", string(top.c))}
	}
	if len(toks) > 0 && toks[len(toks)-1].Kind != Newline {
		toks = append(toks, Token{Kind: Newline, Text: "\n", Line: line})
	}
	return toks, nil
}

func isNameStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isNameChar(c byte) bool  { return isNameStart(c) || isDigit(c) }
func isDigit(c byte) bool     { return c >= '0' && c <= '9' }

// isStringPrefix reports whether p is a string prefix (r, b, u, f, their
// two-letter combinations, any case).
func isStringPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf", "t", "tr", "rt":
		return true
	}
	return false
}

// opLen is the length of the operator at the start of s (longest match).
func opLen(s string) int {
	for _, op := range []string{"**=", "//=", ">>=", "<<=", "...", "->", ":=", "==", "!=", "<=", ">=", "**", "//", "<<", ">>",
		"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="} {
		if strings.HasPrefix(s, op) {
			return len(op)
		}
	}
	_, n := utf8.DecodeRuneInString(s)
	return n
}

// readString reads the string literal whose quote is at s[q].
func readString(s string, q int, prefix string, line int) (Token, int, error) {
	quote := s[q : q+1]
	triple := strings.HasPrefix(s[q:], strings.Repeat(quote, 3))
	if triple {
		quote = strings.Repeat(quote, 3)
	}
	raw := strings.ContainsAny(prefix, "rR")
	var b strings.Builder
	i := q + len(quote)
	for i < len(s) {
		if strings.HasPrefix(s[i:], quote) {
			return Token{Kind: String, Value: b.String(), Line: line}, i + len(quote), nil
		}
		c := s[i]
		if c == '\n' && !triple {
			break
		}
		if c == '\\' && i+1 < len(s) {
			if raw {
				b.WriteString(s[i : i+2])
			} else {
				switch s[i+1] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case '\n':
				default:
					b.WriteByte(s[i+1])
				}
			}
			i += 2
			continue
		}
		b.WriteByte(c)
		i++
	}
	return Token{}, 0, &Error{Line: line, Msg: "unterminated string literal"}
}
