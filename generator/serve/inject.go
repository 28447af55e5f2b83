package serve

import (
	"bytes"
	"errors"
	"io"
)

// Pages are served from disk with the reload script spliced in, never
// read whole: one 50 MB page held per request drove the server to 2 GB.

// bodyTag is where the reload script goes: before the page's last one.
const bodyTag = "</body>"

// bodyEnd is the offset of the last </body> (ASCII case-insensitively) in
// the size bytes of r, or -1 when there is none. It reads backwards a
// chunk at a time: the tag is at the end of every page the build writes.
func bodyEnd(r io.ReaderAt, size int64) (int64, error) {
	const chunk = 64 << 10
	overlap := int64(len(bodyTag) - 1) // a tag across two chunks
	buf := make([]byte, chunk+overlap)
	for end := size; end > 0; {
		start := max(0, end-chunk)
		b := buf[:end-start+min(overlap, size-end)]
		if _, err := r.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return -1, err
		}
		for i := len(b) - len(bodyTag); i >= 0; i-- {
			if bytes.EqualFold(b[i:i+len(bodyTag)], []byte(bodyTag)) {
				return start + int64(i), nil
			}
		}
		end = start
	}
	return -1, nil
}

// injected is the page in r (size bytes) with ScriptTag before its last
// </body>, or appended when it has none, as a ReadSeeker over r: nothing
// but the search buffer is held in memory.
func injected(r io.ReaderAt, size int64) (io.ReadSeeker, error) {
	at, err := bodyEnd(r, size)
	if err != nil {
		return nil, err
	}
	if at < 0 {
		return newSplice(segment{r, 0, size}, bytesSegment("\n"+ScriptTag)), nil
	}
	return newSplice(segment{r, 0, at}, bytesSegment(ScriptTag+"\n"), segment{r, at, size - at}), nil
}

// segment is n bytes of r from off.
type segment struct {
	r   io.ReaderAt
	off int64
	n   int64
}

func bytesSegment(s string) segment {
	return segment{bytes.NewReader([]byte(s)), 0, int64(len(s))}
}

// splice reads its segments one after the other; it seeks, so that
// http.ServeContent can answer Range requests and learn the size.
type splice struct {
	segs []segment
	size int64
	pos  int64
}

func newSplice(segs ...segment) *splice {
	s := &splice{segs: segs}
	for _, g := range segs {
		s.size += g.n
	}
	return s
}

func (s *splice) Read(p []byte) (int, error) {
	base := int64(0)
	for _, g := range s.segs {
		if s.pos < base+g.n {
			k := min(int64(len(p)), base+g.n-s.pos)
			n, err := g.r.ReadAt(p[:k], g.off+s.pos-base)
			s.pos += int64(n)
			switch {
			case int64(n) == k:
				return n, nil
			case err == nil || errors.Is(err, io.EOF):
				return n, io.ErrUnexpectedEOF // the file shrank while served
			}
			return n, err
		}
		base += g.n
	}
	return 0, io.EOF
}

func (s *splice) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += s.pos
	case io.SeekEnd:
		offset += s.size
	}
	if offset < 0 {
		return 0, errors.New("seek before the start")
	}
	s.pos = offset
	return offset, nil
}
