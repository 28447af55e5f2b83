package hubtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

func (s *Server) hub(w http.ResponseWriter, r *http.Request) {
	p := r.URL.EscapedPath()
	switch {
	case p == "/api/models" || p == "/api/models/":
		s.listModels(w, r)
	case strings.HasPrefix(p, "/api/models/"):
		s.api(w, r, strings.Split(strings.TrimPrefix(p, "/api/models/"), "/"))
	case strings.HasPrefix(p, "/_cdn/"):
		s.serveCDN(w, r, strings.TrimPrefix(p, "/_cdn/"))
	default:
		s.resolve(w, r, strings.Split(strings.TrimPrefix(p, "/"), "/"))
	}
}

func hubError(w http.ResponseWriter, status int, code, msg string) {
	if code != "" {
		w.Header().Set("X-Error-Code", code)
	}
	w.Header().Set("X-Error-Message", msg)
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// repoFor finds the repository for a request and applies the Hub's
// access rules; it writes the error answer and returns nil on failure.
func (s *Server) repoFor(w http.ResponseWriter, r *http.Request, id string, download bool) *builtRepo {
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	repo := s.repos[id]
	valid := s.validTokens == nil || s.validTokens[token]
	s.mu.Unlock()
	if token != "" && !valid {
		hubError(w, http.StatusUnauthorized, "", "Invalid credentials in Authorization header")
		return nil
	}
	if repo == nil || (repo.Private && !repo.approved(token)) {
		// The Hub does not reveal whether a repository exists to someone
		// who cannot see it: 401 without a token, 404 with one.
		if token == "" {
			hubError(w, http.StatusUnauthorized, "RepoNotFound", "Repository not found")
		} else {
			hubError(w, http.StatusNotFound, "RepoNotFound", "Repository not found")
		}
		return nil
	}
	if download && repo.Gated && !repo.approved(token) {
		if token == "" {
			hubError(w, http.StatusUnauthorized, "GatedRepo", fmt.Sprintf("Access to model %s is restricted. You must have access to it and be authenticated to access it. Please log in.", id))
		} else {
			hubError(w, http.StatusForbidden, "GatedRepo", fmt.Sprintf("Access to model %s is restricted and you are not in the authorized list. Visit %s/%s to ask for access.", id, s.Hub.URL, id))
		}
		return nil
	}
	return repo
}

func (s *Server) api(w http.ResponseWriter, r *http.Request, segs []string) {
	if len(segs) < 2 {
		http.NotFound(w, r)
		return
	}
	id := segs[0] + "/" + segs[1]
	repo := s.repoFor(w, r, id, false)
	if repo == nil {
		return
	}
	rest := segs[2:]
	rev := "main"
	if len(rest) >= 2 {
		var err error
		if rev, err = url.PathUnescape(rest[1]); err != nil {
			http.Error(w, "bad revision", http.StatusBadRequest)
			return
		}
	}
	sha := repo.resolve(rev)
	if sha == "" && (len(rest) == 0 || rest[0] == "revision" || rest[0] == "tree") {
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return
	}
	switch {
	case len(rest) == 0 || (len(rest) == 2 && rest[0] == "revision"):
		s.modelInfo(w, repo)
	case len(rest) >= 2 && rest[0] == "tree":
		dir, _ := url.PathUnescape(strings.Join(rest[2:], "/"))
		s.tree(w, r, repo, dir)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) modelInfo(w http.ResponseWriter, repo *builtRepo) {
	org, _, _ := strings.Cut(repo.ID, "/")
	siblings := make([]map[string]string, len(repo.sorted))
	for i, p := range repo.sorted {
		siblings[i] = map[string]string{"rfilename": p}
	}
	info := map[string]any{
		"_id": repo.SHA[:24], "id": repo.ID, "modelId": repo.ID, "author": org,
		"sha": repo.SHA, "lastModified": repo.LastModified, "createdAt": repo.CreatedAt,
		"private": repo.Private, "disabled": false, "gated": false, "tags": []string{"safetensors"},
		"downloads": 0, "likes": 0,
	}
	if !repo.HideSiblings {
		info["siblings"] = siblings
	}
	if repo.Gated {
		info["gated"] = "manual"
	}
	if repo.Census != nil {
		var total int64
		for _, v := range repo.Census {
			total += v
		}
		info["safetensors"] = map[string]any{"parameters": repo.Census, "total": total}
	}
	writeJSON(w, http.StatusOK, info)
}

type treeEntry struct {
	Type string   `json:"type"`
	OID  string   `json:"oid"`
	Size int64    `json:"size"`
	Path string   `json:"path"`
	LFS  *lfsInfo `json:"lfs,omitempty"`
}

type lfsInfo struct {
	OID         string `json:"oid"`
	Size        int64  `json:"size"`
	PointerSize int    `json:"pointerSize"`
}

func (s *Server) tree(w http.ResponseWriter, r *http.Request, repo *builtRepo, dir string) {
	q := r.URL.Query()
	recursive := q.Get("recursive") == "true" || q.Get("recursive") == "1"
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	dirs := map[string]bool{}
	var entries []treeEntry
	for _, p := range repo.sorted {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		rel := strings.TrimPrefix(p, prefix)
		parts := strings.Split(rel, "/")
		for i := 1; i < len(parts); i++ {
			d := prefix + strings.Join(parts[:i], "/")
			if !dirs[d] && (recursive || i == 1) {
				dirs[d] = true
				entries = append(entries, treeEntry{Type: "directory", OID: SHAFor(d)[:40], Path: d})
			}
		}
		if !recursive && len(parts) > 1 {
			continue
		}
		b := repo.files[p]
		e := treeEntry{Type: "file", OID: SHAFor(b.oid), Size: b.listed, Path: p}
		if b.lfs {
			e.LFS = &lfsInfo{OID: b.oid, Size: b.listed, PointerSize: 134}
		}
		entries = append(entries, e)
	}
	if dir != "" && len(entries) == 0 {
		hubError(w, http.StatusNotFound, "EntryNotFound", fmt.Sprintf("%s does not exist on %q", dir, repo.SHA))
		return
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	s.mu.Lock()
	size := s.pageSize
	s.mu.Unlock()
	start, ok := pageStart(w, q, len(entries))
	if !ok {
		return
	}
	end := min(start+size, len(entries))
	if end < len(entries) {
		next := base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))
		w.Header().Set("Link", fmt.Sprintf(`<%s%s?recursive=%t&expand=false&limit=%d&cursor=%s>; rel="next"`,
			s.Upstream.URL, r.URL.EscapedPath(), recursive, size, next))
	}
	writeJSON(w, http.StatusOK, entries[start:end])
}

func (s *Server) resolve(w http.ResponseWriter, r *http.Request, segs []string) {
	if len(segs) < 5 || segs[2] != "resolve" {
		http.NotFound(w, r)
		return
	}
	id := segs[0] + "/" + segs[1]
	repo := s.repoFor(w, r, id, true)
	if repo == nil {
		return
	}
	rev, err := url.PathUnescape(segs[3])
	if err != nil {
		http.Error(w, "bad revision", http.StatusBadRequest)
		return
	}
	sha := repo.resolve(rev)
	if sha == "" {
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return
	}
	path, err := url.PathUnescape(strings.Join(segs[4:], "/"))
	b := repo.files[path]
	if err != nil || b == nil || sha != repo.SHA {
		hubError(w, http.StatusNotFound, "EntryNotFound", "Entry not found")
		return
	}
	w.Header().Set("X-Repo-Commit", sha)
	if !b.lfs {
		s.serveFile(w, r, b)
		return
	}
	w.Header().Set("X-Linked-Size", strconv.FormatInt(b.size, 10))
	w.Header().Set("X-Linked-Etag", `"`+b.oid+`"`)
	s.mu.Lock()
	relative := s.relative
	s.mu.Unlock()
	// A signed CDN URL: the signature stands in for the token.
	loc := "/repos/" + id + "/" + sha + "/" + escapePath(path) + "?X-Amz-Signature=" + b.oid[:16] + "&Expires=9999999999"
	if relative {
		loc = "/_cdn" + loc[len("/repos"):]
	} else {
		loc = s.CDN.URL + loc
	}
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusFound)
}

func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

func (s *Server) cdn(w http.ResponseWriter, r *http.Request) {
	p, ok := strings.CutPrefix(r.URL.EscapedPath(), "/repos/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.serveCDN(w, r, p)
}

// serveCDN serves {org}/{name}/{sha}/{path} to a signed URL.
func (s *Server) serveCDN(w http.ResponseWriter, r *http.Request, p string) {
	segs := strings.Split(p, "/")
	if len(segs) < 4 || r.URL.Query().Get("X-Amz-Signature") == "" {
		http.Error(w, "AccessDenied: missing signature", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	repo := s.repos[segs[0]+"/"+segs[1]]
	s.mu.Unlock()
	path, err := url.PathUnescape(strings.Join(segs[3:], "/"))
	if repo == nil || err != nil || repo.SHA != segs[2] || repo.files[path] == nil {
		http.Error(w, "NoSuchKey", http.StatusNotFound)
		return
	}
	s.serveFile(w, r, repo.files[path])
}

// pageStart reads the opaque cursor of a paginated listing of n items: an
// offset, base64-encoded as the Hub's cursors are opaque strings. A bad
// cursor answers 400.
func pageStart(w http.ResponseWriter, q url.Values, n int) (int, bool) {
	c := q.Get("cursor")
	if c == "" {
		return 0, true
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	i, err2 := strconv.Atoi(string(b))
	if err != nil || err2 != nil || i < 0 || i > n {
		http.Error(w, "bad cursor", http.StatusBadRequest)
		return 0, false
	}
	return i, true
}
