package hub

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"dossier/generator/snapshot"
)

// ListedModel is one entry of GET /api/models. The Hub's default answer
// carries id and createdAt; sha and lastModified only when the endpoint
// sends them (an expand= request, some mirrors), else they are "".
type ListedModel struct {
	ID           string `json:"id"`
	CreatedAt    string `json:"createdAt"`
	SHA          string `json:"sha,omitempty"`
	LastModified string `json:"lastModified,omitempty"`
	Private      bool   `json:"private"`
	Gated        Gated  `json:"gated"`
}

// CreatedUnknown is the createdAt the Hub gives every repository created
// before it began storing creation dates (hub-docs docs/hub/api.md).
const CreatedUnknown = "2022-03-02T23:29:04.000Z"

// Created is CreatedAt as a time; ok is false when the Hub does not know
// it (absent, unparsable, or the CreatedUnknown sentinel).
func (m ListedModel) Created() (t time.Time, ok bool) {
	if m.CreatedAt == "" || m.CreatedAt == CreatedUnknown {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, m.CreatedAt)
	return t, err == nil
}

// listPageSize is the most models asked for per page; huggingface.js caps
// its limit at 500.
const listPageSize = 500

var authorRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ListModels lists author's models newest first: GET /api/models?
// author=…&sort=createdAt&direction=-1&limit=…, following the Link
// pagination (rewritten to the endpoint, as the tree listing is). limit
// is the most models returned; 0 or less lists them all. The Hub sorts
// descending whatever direction says (huggingface_hub dropped the
// parameter, huggingface_hub#3630); the answer is sorted by createdAt
// here too, stably, so a server that ignores sort= still gives the newest
// first among the models it returned. Entries that repeat across pages
// are kept once. An entry of another author is an error: an endpoint
// that ignores author= would otherwise hand back the whole Hub.
func (c *Client) ListModels(ctx context.Context, author string, limit int) ([]ListedModel, error) {
	if !authorRe.MatchString(author) || strings.Contains(author, "..") {
		return nil, fmt.Errorf("list models: %q is not a Hub user or organisation name", author)
	}
	per := listPageSize
	if limit > 0 && limit < per {
		per = limit
	}
	q := url.Values{
		"author":    {author},
		"sort":      {"createdAt"},
		"direction": {"-1"},
		"limit":     {strconv.Itoa(per)},
	}
	rq := request{method: "GET", url: c.base + "/api/models?" + q.Encode()}
	var enough func(int) bool
	if limit > 0 {
		enough = func(n int) bool { return n >= limit }
	}
	what := "models of " + author
	all, err := getPages[ListedModel](ctx, c, what, rq, enough)
	if err != nil {
		return nil, fmt.Errorf("list %w", err)
	}
	seen := map[string]bool{}
	out := all[:0]
	for _, m := range all {
		org, _, _ := strings.Cut(m.ID, "/")
		if !strings.EqualFold(org, author) || !snapshot.ValidModel(m.ID) {
			return nil, fmt.Errorf("list %s: the endpoint answered with %q, which is not a model of %s (does %s ignore author=?)", what, m.ID, author, c.base)
		}
		if seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool {
		ti, iok := out[i].Created()
		tj, jok := out[j].Created()
		if iok != jok {
			return iok // known dates before unknown ones
		}
		return ti.After(tj)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
