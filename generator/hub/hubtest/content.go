package hubtest

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

// serveFile answers with a file's bytes, honouring Range unless the
// server is set to ignore it.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, b *built) {
	s.mu.Lock()
	ignore := s.ignoreRange
	s.mu.Unlock()
	w = &countingWriter{ResponseWriter: w, s: s}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("ETag", `"`+b.oid+`"`)
	if ignore {
		w.Header().Set("Content-Length", strconv.FormatInt(b.size, 10))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			io.Copy(w, &virtualFile{b: b})
		}
		return
	}
	http.ServeContent(w, r, "", time.Time{}, &virtualFile{b: b})
}

// countingWriter adds the body bytes it passes on to the server's total.
type countingWriter struct {
	http.ResponseWriter
	s *Server
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.s.mu.Lock()
	w.s.served += int64(n)
	w.s.mu.Unlock()
	return n, err
}

// virtualFile reads as the file's prefix followed by zeros up to its
// size, so a terabyte shard costs only its header.
type virtualFile struct {
	b   *built
	off int64
}

func (v *virtualFile) Read(p []byte) (int, error) {
	if v.off >= v.b.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), v.b.size-v.off)]
	n := 0
	if v.off < int64(len(v.b.prefix)) {
		n = copy(p, v.b.prefix[v.off:])
	}
	clear(p[n:])
	v.off += int64(len(p))
	return len(p), nil
}

func (v *virtualFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		off += v.off
	case io.SeekEnd:
		off += v.b.size
	default:
		return 0, errors.New("bad whence")
	}
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	v.off = off
	return off, nil
}
