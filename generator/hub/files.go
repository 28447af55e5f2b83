package hub

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"dossier/generator/snapshot"
)

// FileMeta is what a resolve answer says about the file.
type FileMeta struct {
	Commit string // X-Repo-Commit from the Hub's hop, "" if absent
	Size   int64  // file size, -1 when the answer did not say
}

func checkModel(model string) error {
	if !snapshot.ValidModel(model) {
		return fmt.Errorf("model %q: expected an org/name Hub id", model)
	}
	return nil
}

// resolveURL is {endpoint}/{id}/resolve/{rev}/{path}, each segment escaped.
func (c *Client) resolveURL(model, revision, path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return c.base + "/" + model + "/resolve/" + url.PathEscape(revision) + "/" + strings.Join(segs, "/")
}

// ReadFile downloads a whole file of at most limit bytes.
func (c *Client) ReadFile(ctx context.Context, model, revision, path string, limit int64) ([]byte, FileMeta, error) {
	return c.readFile(ctx, model, revision, path, limit, nil)
}

func (c *Client) readFile(ctx context.Context, model, revision, path string, limit int64, onBytes func(int64)) ([]byte, FileMeta, error) {
	meta := FileMeta{Size: -1}
	if err := checkModel(model); err != nil {
		return nil, meta, err
	}
	rq := &request{method: "GET", url: c.resolveURL(model, revision, path),
		model: model, revision: revision, file: path, onBytes: onBytes}
	var b []byte
	err := c.do(ctx, rq, func(r *response) error {
		if r.ContentLength > limit {
			return fmt.Errorf("%s is %d bytes, more than the %d this reads", path, r.ContentLength, limit)
		}
		var err error
		if b, err = readAll(r.Body, r.ContentLength, limit); err != nil {
			return err
		}
		if int64(len(b)) > limit {
			return fmt.Errorf("%s is larger than the %d bytes this reads", path, limit)
		}
		meta.Commit, meta.Size = r.commit, int64(len(b))
		return nil
	})
	if err != nil {
		return nil, meta, fmt.Errorf("read %s: %w", path, err)
	}
	return b, meta, nil
}

// readAll reads at most limit+1 bytes, sized from Content-Length up front
// so a 60 MB index is not copied through a dozen growing buffers.
func readAll(r io.Reader, length, limit int64) ([]byte, error) {
	if length < 0 || length > limit {
		return io.ReadAll(io.LimitReader(r, limit+1))
	}
	buf := bytes.NewBuffer(make([]byte, 0, length+bytes.MinRead))
	_, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	return buf.Bytes(), err
}

// ReadRange reads length bytes of a file starting at off, with one Range
// request (a server that ignores Range is read up to the end of the span).
func (c *Client) ReadRange(ctx context.Context, model, revision, path string, off, length int64) ([]byte, error) {
	if err := checkModel(model); err != nil {
		return nil, err
	}
	if off < 0 || length <= 0 || length > 1<<30 {
		return nil, fmt.Errorf("read %s: bad range %d+%d", path, off, length)
	}
	rq := &request{method: "GET", url: c.resolveURL(model, revision, path), rng: fmt.Sprintf("bytes=%d-%d", off, off+length-1),
		model: model, revision: revision, file: path}
	buf := make([]byte, length)
	if err := c.readRest(ctx, rq, off, buf); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf, nil
}
