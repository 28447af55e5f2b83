package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// ModelInfo is the part of GET /api/models/{id}/revision/{rev} the
// dossier uses.
type ModelInfo struct {
	ID           string           `json:"id"`
	SHA          string           `json:"sha"` // the commit the revision resolved to
	Private      bool             `json:"private"`
	Gated        Gated            `json:"gated"`
	LastModified string           `json:"lastModified"`
	CreatedAt    string           `json:"createdAt"` // see CreatedUnknown
	Safetensors  *SafetensorsInfo `json:"safetensors"`
	Siblings     []Sibling        `json:"siblings"`
}

// SafetensorsInfo is the Hub's own parameter census. It is
// quantization-aware (packed 4-bit payloads count two per byte, scales
// are left out) and versioned, so it is recorded beside the header sums,
// not trusted over them.
type SafetensorsInfo struct {
	Parameters map[string]int64 `json:"parameters"`
	Total      int64            `json:"total"`
}

// Sibling is one file of model info's listing.
type Sibling struct {
	RFilename string `json:"rfilename"`
}

// Gated is "" for an open repository, else "auto" or "manual"; the API
// sends false or a string.
type Gated string

func (g *Gated) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*g = Gated(s)
		return nil
	}
	var on bool
	if err := json.Unmarshal(b, &on); err != nil {
		return fmt.Errorf("gated: expected false, \"auto\" or \"manual\", found %s", b)
	}
	*g = ""
	if on {
		*g = "true"
	}
	return nil
}

// TreeEntry is one entry of the tree listing.
type TreeEntry struct {
	Type string `json:"type"` // "file" or "directory"
	Path string `json:"path"`
	Size int64  `json:"size"`
	OID  string `json:"oid"` // git blob id
	LFS  *struct {
		OID  string `json:"oid"` // sha256 of the content
		Size int64  `json:"size"`
	} `json:"lfs,omitempty"`
}

// JSON bodies are read whole; these caps keep a broken or hostile server
// from filling memory.
const (
	maxInfoBytes = 64 << 20
	maxPageBytes = 64 << 20
	maxPages     = 10_000
)

// ModelInfo fetches model info at revision; "" asks for the default
// branch through /api/models/{id}.
func (c *Client) ModelInfo(ctx context.Context, model, revision string) (*ModelInfo, error) {
	if err := checkModel(model); err != nil {
		return nil, err
	}
	rq := &request{method: "GET", model: model, revision: revision, url: c.base + "/api/models/" + model}
	if revision != "" {
		// A branch such as refs/pr/1 must be one escaped segment.
		rq.url += "/revision/" + url.PathEscape(revision)
	}
	var info ModelInfo
	err := c.do(ctx, rq, func(r *response) error {
		return decodeJSON(r.Body, maxInfoBytes, &info)
	})
	if err != nil {
		return nil, fmt.Errorf("model info: %w", err)
	}
	return &info, nil
}

// ListTree lists every file and directory of the repository at revision,
// following the pagination.
func (c *Client) ListTree(ctx context.Context, model, revision string) ([]TreeEntry, error) {
	return c.listTree(ctx, model, revision, nil)
}

func (c *Client) listTree(ctx context.Context, model, revision string, onBytes func(int64)) ([]TreeEntry, error) {
	if err := checkModel(model); err != nil {
		return nil, err
	}
	first := c.base + "/api/models/" + model + "/tree/" + url.PathEscape(revision) + "?recursive=true"
	rq := request{method: "GET", url: first, model: model, revision: revision, onBytes: onBytes}
	return getPages[TreeEntry](ctx, c, "tree listing of "+model, rq, nil)
}

// getPages GETs rq and every page its Link rel="next" headers lead to,
// each link rewritten to the endpoint (see rewriteNext), and returns the
// JSON arrays of all pages joined. enough, when set, is asked after each
// page with the count so far and stops the paging when it says so. what
// names the listing in errors.
func getPages[T any](ctx context.Context, c *Client, what string, rq request, enough func(n int) bool) ([]T, error) {
	next := rq.url
	var all []T
	seen := map[string]bool{}
	for page := 1; next != ""; page++ {
		if page > maxPages || seen[next] {
			return nil, fmt.Errorf("%s: pagination does not end (page %d)", what, page)
		}
		seen[next] = true
		r := rq
		r.url = next
		var items []T
		var link string
		var base *url.URL
		err := c.do(ctx, &r, func(resp *response) error {
			// A retried page starts again from nothing.
			items = nil
			link, base = resp.Header.Get("Link"), resp.final
			return decodeJSON(resp.Body, maxPageBytes, &items)
		})
		if err != nil {
			return nil, fmt.Errorf("%s, page %d: %w", what, page, err)
		}
		all = append(all, items...)
		if enough != nil && enough(len(all)) {
			break
		}
		next = ""
		if n := nextLink(link); n != "" {
			u, err := c.rewriteNext(base, n)
			if err != nil {
				return nil, fmt.Errorf("%s, page %d: %w", what, page, err)
			}
			next = u
		}
	}
	return all, nil
}

// nextLink returns the URL of the rel="next" entry of a Link header.
func nextLink(h string) string {
	for h != "" {
		open := strings.IndexByte(h, '<')
		if open < 0 {
			return ""
		}
		end := strings.IndexByte(h[open:], '>')
		if end < 0 {
			return ""
		}
		target := h[open+1 : open+end]
		rest := h[open+end+1:]
		params := rest
		if i := strings.IndexByte(rest, '<'); i >= 0 {
			params = rest[:i]
		}
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(p), ",")), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "rel") {
				for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(v), `"`)) {
					if strings.EqualFold(rel, "next") {
						return target
					}
				}
			}
		}
		h = rest
	}
	return ""
}

// rewriteNext resolves a next link against the page it came from and
// points it at the configured endpoint: mirrors return absolute links to
// huggingface.co (huggingface_hub PR #3646, hf-mirror-site#65), which
// would take the sync off the mirror and, behind a firewall, fail.
func (c *Client) rewriteNext(page *url.URL, next string) (string, error) {
	u, err := page.Parse(next)
	if err != nil {
		return "", fmt.Errorf("bad Link next URL: %w", err)
	}
	if sameOrigin(u, c.endpoint) {
		return u.String(), nil
	}
	prefix := strings.TrimRight(c.endpoint.EscapedPath(), "/")
	p := u.EscapedPath()
	if prefix != "" && !strings.HasPrefix(p, prefix+"/") {
		p = prefix + p
	}
	out := c.endpoint.Scheme + "://" + c.endpoint.Host + p
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out, nil
}

func decodeJSON(r io.Reader, limit int64, v any) error {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return err
	}
	if int64(len(b)) > limit {
		return fmt.Errorf("response larger than %d bytes", limit)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode JSON response: %w", err)
	}
	return nil
}
