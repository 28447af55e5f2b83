package hub

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"dossier/generator/gguf"
)

// ggufReads are the ends of the successive reads of a GGUF header: its
// length is not stored up front, so the reader asks for a prefix, parses
// and asks for more only when the header runs past it. 256 KiB holds the
// headers of split shards after the first (tensor infos only, a few
// kilobytes); 8 MiB a first shard with a 256k-token tokenizer. Past
// that, one more read up to gguf.MaxHeaderBytes.
var ggufReads = []int64{256 << 10, 8 << 20, gguf.MaxHeaderBytes}

// GGUFHeader reads and validates the header of a remote .gguf file with
// one Range request, a second (to 8 MiB) when the header is longer than
// 256 KiB, and a third only past 8 MiB. A server that ignores Range is
// read from the first answer and no further than the header.
func (c *Client) GGUFHeader(ctx context.Context, model, revision, path string) (*gguf.Header, FileMeta, error) {
	return c.ggufHeader(ctx, model, revision, path, ggufReads, nil)
}

func (c *Client) ggufHeader(ctx context.Context, model, revision, path string, reads []int64, onBytes func(int64)) (*gguf.Header, FileMeta, error) {
	meta := FileMeta{Size: -1}
	if err := checkModel(model); err != nil {
		return nil, meta, err
	}
	fail := func(err error) (*gguf.Header, FileMeta, error) {
		return nil, meta, fmt.Errorf("read GGUF header of %s: %w", path, err)
	}
	first := reads[0]
	rq := &request{method: "GET", url: c.resolveURL(model, revision, path), rng: fmt.Sprintf("bytes=0-%d", first-1),
		model: model, revision: revision, file: path, onBytes: onBytes}
	var buf []byte
	var direct string
	whole := false // buf holds all the answer will give
	eof := false   // an answer ended before the bytes asked for
	err := c.do(ctx, rq, func(r *response) error {
		meta.Commit, direct = r.commit, r.final.String()
		if r.StatusCode == http.StatusPartialContent {
			start, _, total, err := contentRange(r.Header.Get("Content-Range"))
			if err != nil || start != 0 {
				return fmt.Errorf("answer to bytes=0-%d has Content-Range %q", first-1, r.Header.Get("Content-Range"))
			}
			meta.Size = total
			buf, err = readUpTo(r.Body, int(first))
			eof = len(buf) < int(first)
			return err
		}
		// 200: the whole file; read it in the same steps, parsing after
		// each, and stop at the end of the header.
		meta.Size, whole = r.ContentLength, true
		buf = buf[:0]
		for _, end := range reads {
			want := int(end) - len(buf)
			more, err := readUpTo(r.Body, want)
			buf = append(buf, more...)
			if err != nil {
				return err
			}
			eof = len(more) < want
			if _, err := gguf.Parse(buf, meta.Size); !errors.Is(err, gguf.ErrTruncated) || eof {
				return nil
			}
		}
		return nil
	})
	if errors.Is(err, ErrRange) {
		return fail(fmt.Errorf("the file is empty; a GGUF file starts with %q", gguf.Magic))
	}
	if err != nil {
		return fail(err)
	}
	for i := 0; ; i++ {
		h, err := gguf.Parse(buf, meta.Size)
		if err == nil {
			return h, meta, nil
		}
		if !errors.Is(err, gguf.ErrTruncated) {
			return fail(err)
		}
		have := int64(len(buf))
		switch {
		case meta.Size >= 0 && have >= meta.Size, eof:
			return fail(fmt.Errorf("the file ends after %d bytes, inside its header: %w", have, err))
		case i+1 >= len(reads) || whole:
			return fail(fmt.Errorf("the header is longer than the limit of %d bytes", gguf.MaxHeaderBytes))
		}
		end := reads[i+1]
		if meta.Size >= 0 {
			end = min(end, meta.Size)
		}
		rest := make([]byte, end-have)
		if err := c.readMore(ctx, rq, direct, have, rest); err != nil {
			return fail(err)
		}
		buf = append(buf, rest...)
	}
}

// readMore reads bytes from..from+len(rest)-1 with one Range request,
// from the CDN URL the first answer came from when it redirected there,
// back through resolve when that URL has expired.
func (c *Client) readMore(ctx context.Context, first *request, direct string, from int64, rest []byte) error {
	rq := *first
	rq.rng = fmt.Sprintf("bytes=%d-%d", from, from+int64(len(rest))-1)
	if direct != "" && direct != first.url {
		rq.url = direct
		err := c.readRest(ctx, &rq, from, rest)
		var he *Error
		if err == nil || !errors.As(err, &he) || he.Kind == KindRange {
			return err
		}
		rq.url = first.url
	}
	return c.readRest(ctx, &rq, from, rest)
}

// GGUFRepo is a quant repository read at one commit: every quant's
// files, combined from their headers.
type GGUFRepo struct {
	Model, Revision string // Revision: the commit sha the Hub answered
	Quants          []*gguf.Quant
}

// ReadGGUF lists a GGUF repository at revision, groups its .gguf files
// into quants (split shards together, every shard present) and reads
// each file's header by Range, conc at a time, pinned to the commit the
// Hub answered.
func ReadGGUF(ctx context.Context, c *Client, model, revision string, conc int) (*GGUFRepo, error) {
	if revision == "" {
		revision = "main"
	}
	info, err := resolve(ctx, c, model, revision)
	if err != nil {
		return nil, fmt.Errorf("%s@%s: %w", model, revision, err)
	}
	sha := info.SHA
	tree, err := c.ListTree(ctx, model, sha)
	if err != nil {
		return nil, fmt.Errorf("%s@%s: %w", model, sha, err)
	}
	var listed []gguf.Listed
	for _, e := range tree {
		if e.Type == "file" {
			listed = append(listed, gguf.Listed{Path: e.Path, Size: e.Size})
		}
	}
	groups, err := gguf.GroupFiles(listed)
	if err != nil {
		return nil, fmt.Errorf("%s@%s: %w", model, sha, err)
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("%s@%s: no .gguf model files in the repository", model, sha)
	}
	type job struct{ g, f int }
	headers := make([][]*gguf.Header, len(groups))
	var jobs []job
	for gi, g := range groups {
		headers[gi] = make([]*gguf.Header, len(g.Files))
		for fi := range g.Files {
			jobs = append(jobs, job{gi, fi})
		}
	}
	ch := make(chan job)
	grp := newGroup(ctx)
	grp.Go(func(ctx context.Context) error {
		defer close(ch)
		for _, j := range jobs {
			select {
			case ch <- j:
			case <-ctx.Done():
				return nil
			}
		}
		return nil
	})
	for range max(1, min(conc, len(jobs))) {
		grp.Go(func(ctx context.Context) error {
			for j := range ch {
				f := groups[j.g].Files[j.f]
				h, meta, err := c.ggufHeader(ctx, model, sha, f.Path, ggufReads, nil)
				if err != nil {
					return err
				}
				if meta.Commit != "" && meta.Commit != sha {
					return fmt.Errorf("%s: the Hub answered from commit %s, not %s", f.Path, meta.Commit, sha)
				}
				if meta.Size >= 0 && f.Size > 0 && meta.Size != f.Size {
					return fmt.Errorf("%s: the listing says %d bytes, the file is %d", f.Path, f.Size, meta.Size)
				}
				headers[j.g][j.f] = h
			}
			return nil
		})
	}
	if err := grp.Wait(); err != nil {
		return nil, fmt.Errorf("%s@%s: %w", model, sha, err)
	}
	repo := &GGUFRepo{Model: model, Revision: sha}
	for gi, g := range groups {
		q, err := gguf.Combine(g, headers[gi])
		if err != nil {
			return nil, fmt.Errorf("%s@%s: %w", model, sha, err)
		}
		repo.Quants = append(repo.Quants, q)
	}
	return repo, nil
}
