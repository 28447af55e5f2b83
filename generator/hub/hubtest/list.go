package hubtest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// listModels answers GET /api/models as the Hub does for the parameters a
// client sends to list one author's models: author= (matched without
// regard to case), sort=createdAt or lastModified (always descending, as
// the Hub sorts since direction= was dropped; ties by id), limit= (the page
// size, at most 1000 and at most SetListPageSize), and the Link rel="next"
// pagination with a cursor, pointing at the Upstream host as a mirror's
// links do. Private repositories are listed only to an approved token.
// expand= (or expand[]=) limits an entry to the properties it names, plus
// _id and id; without it an entry carries the Hub's default properties,
// which include createdAt but not sha or lastModified.
func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	valid := s.validTokens == nil || s.validTokens[token]
	size := s.listSize
	var repos []*builtRepo
	author := q.Get("author")
	for _, repo := range s.repos {
		org, _, _ := strings.Cut(repo.ID, "/")
		if author != "" && !strings.EqualFold(org, author) {
			continue
		}
		if repo.Private && !repo.approved(token) {
			continue
		}
		repos = append(repos, repo)
	}
	s.mu.Unlock()
	if token != "" && !valid {
		hubError(w, http.StatusUnauthorized, "", "Invalid credentials in Authorization header")
		return
	}
	var key func(*builtRepo) string
	switch q.Get("sort") {
	case "createdAt":
		key = func(b *builtRepo) string { return b.CreatedAt }
	case "lastModified":
		key = func(b *builtRepo) string { return b.LastModified }
	case "":
		key = func(*builtRepo) string { return "" }
	default:
		hubError(w, http.StatusBadRequest, "", fmt.Sprintf("Invalid sort parameter: %q", q.Get("sort")))
		return
	}
	sort.Slice(repos, func(i, j int) bool {
		if ki, kj := key(repos[i]), key(repos[j]); ki != kj {
			return ki > kj
		}
		return repos[i].ID < repos[j].ID
	})
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 1000 {
			hubError(w, http.StatusBadRequest, "", "Invalid limit parameter")
			return
		}
		size = min(size, n)
	}
	start, ok := pageStart(w, q, len(repos))
	if !ok {
		return
	}
	end := min(start+size, len(repos))
	if end < len(repos) {
		next := url.Values{}
		for k, v := range q {
			next[k] = v
		}
		next.Set("cursor", base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end))))
		next.Set("limit", strconv.Itoa(size))
		w.Header().Set("Link", fmt.Sprintf(`<%s/api/models?%s>; rel="next"`, s.Upstream.URL, next.Encode()))
	}
	expand := append(q["expand"], q["expand[]"]...)
	entries := make([]map[string]any, 0, end-start)
	for _, repo := range repos[start:end] {
		entries = append(entries, listEntry(repo, expand))
	}
	writeJSON(w, http.StatusOK, entries)
}

func listEntry(repo *builtRepo, expand []string) map[string]any {
	org, _, _ := strings.Cut(repo.ID, "/")
	gated := any(false)
	if repo.Gated {
		gated = "manual"
	}
	props := map[string]any{
		"author": org, "createdAt": repo.CreatedAt, "lastModified": repo.LastModified, "sha": repo.SHA,
		"private": repo.Private, "gated": gated, "downloads": 0, "likes": 0, "trendingScore": 0,
		"tags": []string{"safetensors"}, "pipeline_tag": "text-generation", "library_name": "transformers",
	}
	e := map[string]any{"_id": repo.SHA[:24], "id": repo.ID}
	if len(expand) == 0 {
		e["modelId"] = repo.ID
		for _, k := range []string{"createdAt", "private", "downloads", "likes", "trendingScore", "tags", "pipeline_tag", "library_name"} {
			e[k] = props[k]
		}
		return e
	}
	for _, k := range expand {
		if v, ok := props[k]; ok {
			e[k] = v
		}
	}
	return e
}
