package hub

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// parseIndex reads metadata.total_size and counts the weight_map entries
// of model.safetensors.index.json. K3's index is 60 MB with half a
// million entries, so the file is walked once by a small scanner instead
// of encoding/json, which would buffer, validate and skip it in several
// passes; only the small metadata object goes through encoding/json.
func parseIndex(b []byte) (totalSize int64, tensors int, err error) {
	return parseIndexEach(b, nil)
}

// parseIndexEach is parseIndex calling each for every weight_map member
// whose value is a string: tensor name and shard file, raw.
func parseIndexEach(b []byte, each func(name, file []byte)) (totalSize int64, tensors int, err error) {
	s := &scanner{b: b, member: each}
	s.ws()
	if !s.eat('{') {
		return 0, 0, s.errorf("expected a JSON object with metadata and weight_map")
	}
	var meta []byte
	haveMap := false
	s.ws()
	if s.eat('}') {
		return 0, 0, fmt.Errorf("metadata.total_size: missing; expected the tensor byte count")
	}
	for {
		key, err := s.str()
		if err != nil {
			return 0, 0, err
		}
		s.ws()
		if !s.eat(':') {
			return 0, 0, s.errorf("expected ':' after %q", key)
		}
		s.ws()
		start := s.i
		switch string(key) {
		case "weight_map":
			if tensors, err = s.countMembers(); err != nil {
				return 0, 0, fmt.Errorf("weight_map: %w", err)
			}
			haveMap = true
		default:
			if err := s.skip(0); err != nil {
				return 0, 0, fmt.Errorf("%s: %w", key, err)
			}
			if string(key) == "metadata" {
				meta = b[start:s.i]
			}
		}
		s.ws()
		if s.eat('}') {
			break
		}
		if !s.eat(',') {
			return 0, 0, s.errorf("expected ',' or '}'")
		}
		s.ws()
	}
	s.ws()
	if s.i != len(b) {
		return 0, 0, s.errorf("unexpected data after the index object")
	}
	if totalSize, err = readTotalSize(meta); err != nil {
		return 0, 0, err
	}
	if !haveMap {
		return 0, 0, fmt.Errorf("weight_map: missing; expected an object of tensor → shard")
	}
	return totalSize, tensors, nil
}

func readTotalSize(meta []byte) (int64, error) {
	if meta == nil {
		return 0, fmt.Errorf("metadata.total_size: missing; expected the tensor byte count")
	}
	var m struct {
		TotalSize json.Number `json:"total_size"`
	}
	dec := json.NewDecoder(bytes.NewReader(meta))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return 0, fmt.Errorf("metadata: expected an object: %w", err)
	}
	if m.TotalSize == "" {
		return 0, fmt.Errorf("metadata.total_size: missing; expected the tensor byte count")
	}
	n, err := m.TotalSize.Int64()
	if err != nil {
		// Some writers emit 1.5e10 or 123.0; accept integral values.
		f, ferr := m.TotalSize.Float64()
		if ferr != nil || f != float64(int64(f)) || f > 1<<62 {
			return 0, fmt.Errorf("metadata.total_size: expected a positive integer, found %s", m.TotalSize)
		}
		n = int64(f)
	}
	if n <= 0 {
		return 0, fmt.Errorf("metadata.total_size: expected a positive integer, found %s", m.TotalSize)
	}
	return n, nil
}

// scanner is a minimal JSON walker: enough to step over values and find
// members, checking structure but not every detail of number syntax.
type scanner struct {
	b      []byte
	i      int
	member func(key, value []byte) // called by countMembers for string values
}

func (s *scanner) errorf(format string, a ...any) error {
	return fmt.Errorf("byte %d: "+format, append([]any{s.i}, a...)...)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str steps over a string and returns its raw contents.
func (s *scanner) str() ([]byte, error) {
	if !s.eat('"') {
		return nil, s.errorf("expected a string")
	}
	start := s.i
	for {
		j := bytes.IndexByte(s.b[s.i:], '"')
		if j < 0 {
			return nil, fmt.Errorf("byte %d: unterminated string", start-1)
		}
		s.i += j
		// The quote ends the string unless an odd number of backslashes
		// precede it.
		k := s.i
		for k > start && s.b[k-1] == '\\' {
			k--
		}
		s.i++
		if (s.i-1-k)%2 == 0 {
			return s.b[start : s.i-1], nil
		}
	}
}

// countMembers steps over an object and returns its member count.
func (s *scanner) countMembers() (int, error) {
	if !s.eat('{') {
		return 0, s.errorf("expected an object")
	}
	s.ws()
	if s.eat('}') {
		return 0, nil
	}
	n := 0
	for {
		key, err := s.str()
		if err != nil {
			return 0, err
		}
		s.ws()
		if !s.eat(':') {
			return 0, s.errorf("expected ':'")
		}
		s.ws()
		start := s.i
		if err := s.skip(1); err != nil {
			return 0, err
		}
		if s.member != nil && s.b[start] == '"' {
			s.member(key, s.b[start+1:s.i-1])
		}
		n++
		s.ws()
		if s.eat('}') {
			return n, nil
		}
		if !s.eat(',') {
			return 0, s.errorf("expected ',' or '}'")
		}
		s.ws()
	}
}

const maxIndexDepth = 64

func (s *scanner) skip(depth int) error {
	if depth > maxIndexDepth {
		return s.errorf("nesting deeper than %d", maxIndexDepth)
	}
	if s.i >= len(s.b) {
		return s.errorf("unexpected end of file")
	}
	switch c := s.b[s.i]; c {
	case '"':
		_, err := s.str()
		return err
	case '{', '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		s.i++
		s.ws()
		if s.eat(closer) {
			return nil
		}
		for {
			if c == '{' {
				if _, err := s.str(); err != nil {
					return err
				}
				s.ws()
				if !s.eat(':') {
					return s.errorf("expected ':'")
				}
				s.ws()
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			s.ws()
			if s.eat(closer) {
				return nil
			}
			if !s.eat(',') {
				return s.errorf("expected ',' or %q", closer)
			}
			s.ws()
		}
	}
	// A number or a literal: step over its characters.
	start := s.i
	for s.i < len(s.b) && bytes.IndexByte([]byte("0123456789+-.eEtruefalsn"), s.b[s.i]) >= 0 {
		s.i++
	}
	if s.i == start {
		return s.errorf("expected a JSON value")
	}
	return nil
}

// Header size guesses from the index, for a first read that holds the
// whole header. A tensor's entry is its quoted name and about a hundred
// bytes: {"dtype":"BF16","shape":[...],"data_offsets":[from,to]} and a
// comma; tensorEntryBytes bounds that for shapes of up to four dimensions
// of up to six digits and offsets of up to thirteen digits. A guess that
// falls short costs one more request, as without the index.
const (
	tensorEntryBytes = 112
	headerSlackBytes = 8 << 10 // the length prefix, __metadata__, padding
	maxHeaderGuess   = 64 << 20
)

// headerGuesses returns, per shard file named in the index, how many
// bytes its prefix and header probably take.
func headerGuesses(b []byte) (map[string]int64, error) {
	sums := map[string]*int64{} // a lookup by string(file) does not allocate
	_, _, err := parseIndexEach(b, func(name, file []byte) {
		n := sums[string(file)]
		if n == nil {
			n = new(int64)
			sums[string(file)] = n
		}
		*n += int64(len(name)) + tensorEntryBytes
	})
	if err != nil {
		return nil, err
	}
	guess := make(map[string]int64, len(sums))
	for f, n := range sums {
		guess[f] = min(*n+headerSlackBytes, maxHeaderGuess)
	}
	return guess, nil
}
