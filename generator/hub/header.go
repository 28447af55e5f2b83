package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"dossier/generator/safetensors"
)

// firstRange is the speculative first read when nothing says how long the
// header is. huggingface_hub measured that 97% of headers on the Hub fit
// in 100 kB, so one request usually does. A sharded checkpoint's index
// says more (see headerGuesses).
const firstRange = 100_000

// SafetensorsHeader reads and validates the header of a remote
// .safetensors file with at most two requests: bytes 0-99999, then, only
// if the header is longer, exactly the rest of it. A server that ignores
// Range is read from the same answer and no further than the header.
func (c *Client) SafetensorsHeader(ctx context.Context, model, revision, path string) (*safetensors.Header, FileMeta, error) {
	return c.safetensorsHeader(ctx, model, revision, path, firstRange, nil)
}

// safetensorsHeader reads the header with a first read of first bytes.
func (c *Client) safetensorsHeader(ctx context.Context, model, revision, path string, first int, onBytes func(int64)) (*safetensors.Header, FileMeta, error) {
	meta := FileMeta{Size: -1}
	if err := checkModel(model); err != nil {
		return nil, meta, err
	}
	fail := func(err error) (*safetensors.Header, FileMeta, error) {
		return nil, meta, fmt.Errorf("read header of %s: %w", path, err)
	}
	rq := &request{method: "GET", url: c.resolveURL(model, revision, path), rng: fmt.Sprintf("bytes=0-%d", first-1),
		model: model, revision: revision, file: path, onBytes: onBytes}
	var buf []byte
	var direct string // the CDN URL the first answer came from
	whole := false    // buf already holds prefix and header
	err := c.do(ctx, rq, func(r *response) error {
		meta.Commit, direct = r.commit, r.final.String()
		var err error
		if r.StatusCode == http.StatusPartialContent {
			start, _, total, err := contentRange(r.Header.Get("Content-Range"))
			if err != nil || start != 0 {
				return fmt.Errorf("answer to bytes=0-%d has Content-Range %q", first-1, r.Header.Get("Content-Range"))
			}
			meta.Size = total
			buf, err = readUpTo(r.Body, first)
			return err
		}
		// 200: the server ignored Range and sends the whole file, which may
		// be terabytes; take the prefix and the header and stop.
		meta.Size, whole = r.ContentLength, true
		buf, err = readHeaderFromStream(r.Body)
		return err
	})
	if errors.Is(err, ErrRange) {
		return fail(fmt.Errorf("%w: %w", tooShort(0), err))
	}
	if err != nil {
		return fail(err)
	}
	if !whole {
		if buf, err = c.completeHeader(ctx, rq, direct, buf, first, meta.Size); err != nil {
			return fail(err)
		}
	}
	h, err := safetensors.Parse(buf)
	if err != nil {
		return fail(err)
	}
	return h, meta, nil
}

func tooShort(n int) error {
	if n == 0 {
		return fmt.Errorf("the file is empty; a safetensors file starts with an %d-byte length", safetensors.PrefixLen)
	}
	return fmt.Errorf("the file is %d bytes; a safetensors file starts with an %d-byte length", n, safetensors.PrefixLen)
}

// completeHeader checks the first answer and, when the header runs past
// it, fetches exactly the missing bytes.
func (c *Client) completeHeader(ctx context.Context, first *request, direct string, buf []byte, asked int, size int64) ([]byte, error) {
	if len(buf) < safetensors.PrefixLen {
		return nil, tooShort(len(buf))
	}
	n, err := safetensors.HeaderLen(buf)
	if err != nil {
		return nil, err
	}
	need := safetensors.PrefixLen + n
	switch {
	case need <= int64(len(buf)):
		return buf[:need], nil
	case size >= 0 && need > size:
		return nil, fmt.Errorf("the %d-byte header runs past the end of the %d-byte file", n, size)
	case len(buf) < asked:
		return nil, fmt.Errorf("the file ends after %d bytes, inside its %d-byte header", len(buf), n)
	}
	from := int64(len(buf))
	full := make([]byte, need)
	copy(full, buf)
	rq := *first
	rq.rng = fmt.Sprintf("bytes=%d-%d", from, need-1)
	// The first answer came from the CDN after a redirect; asking it
	// directly saves the Hub a hop. If that URL has expired, go back
	// through resolve.
	if direct != "" && direct != first.url {
		rq.url = direct
		err := c.readRest(ctx, &rq, from, full[from:])
		var he *Error
		if err == nil || !errors.As(err, &he) || he.Kind == KindRange {
			return full, err
		}
		rq.url = first.url
	}
	return full, c.readRest(ctx, &rq, from, full[from:])
}

// readUpTo reads until n bytes or the end of the body, whichever is first.
func readUpTo(r io.Reader, n int) ([]byte, error) {
	buf := make([]byte, n)
	got, err := io.ReadFull(r, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil // a file shorter than the range
	}
	return buf[:got], err
}

// readRest reads bytes from..from+len(rest)-1 of the file into rest.
func (c *Client) readRest(ctx context.Context, rq *request, from int64, rest []byte) error {
	return c.do(ctx, rq, func(r *response) error {
		if r.StatusCode == http.StatusPartialContent {
			start, _, _, err := contentRange(r.Header.Get("Content-Range"))
			if err != nil || start != from {
				return fmt.Errorf("answer to %s has Content-Range %q", rq.rng, r.Header.Get("Content-Range"))
			}
		} else if _, err := io.CopyN(io.Discard, r.Body, from); err != nil {
			return fmt.Errorf("skip to byte %d of a whole-file answer: %w", from, err)
		}
		if _, err := io.ReadFull(r.Body, rest); err != nil {
			if err == io.ErrUnexpectedEOF || err == io.EOF {
				return fmt.Errorf("the file ends before byte %d (wanted bytes %d-%d)", from+int64(len(rest)), from, from+int64(len(rest))-1)
			}
			return err
		}
		return nil
	})
}

// readHeaderFromStream reads the prefix and the header it announces from
// the start of a file and nothing more.
func readHeaderFromStream(r io.Reader) ([]byte, error) {
	var prefix [safetensors.PrefixLen]byte
	got, err := io.ReadFull(r, prefix[:])
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return nil, tooShort(got)
	}
	if err != nil {
		return nil, err
	}
	n, err := safetensors.HeaderLen(prefix[:])
	if err != nil {
		return nil, err
	}
	buf := make([]byte, safetensors.PrefixLen+n)
	copy(buf, prefix[:])
	if got, err := io.ReadFull(r, buf[safetensors.PrefixLen:]); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return nil, fmt.Errorf("the file ends after %d bytes, inside its %d-byte header", safetensors.PrefixLen+got, n)
		}
		return nil, err
	}
	return buf, nil
}

// contentRange parses "bytes first-last/total"; total is -1 for "*".
func contentRange(h string) (first, last, total int64, err error) {
	bad := fmt.Errorf("bad Content-Range %q", h)
	spec, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return 0, 0, 0, bad
	}
	rng, tot, ok := strings.Cut(spec, "/")
	if !ok {
		return 0, 0, 0, bad
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return 0, 0, 0, bad
	}
	if first, err = strconv.ParseInt(a, 10, 64); err != nil {
		return 0, 0, 0, bad
	}
	if last, err = strconv.ParseInt(b, 10, 64); err != nil || last < first {
		return 0, 0, 0, bad
	}
	total = -1
	if tot != "*" {
		if total, err = strconv.ParseInt(tot, 10, 64); err != nil || total <= last {
			return 0, 0, 0, bad
		}
	}
	return first, last, total, nil
}
