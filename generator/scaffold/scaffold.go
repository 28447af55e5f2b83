// Package scaffold writes the draft content page for a model that has a
// snapshot but no page yet: front matter that passes content validation,
// marked draft so that only `build --drafts` publishes it, and a body that
// starts the writer from sourced figures ({{< fact … >}} references)
// rather than from numbers typed in by hand.
package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"dossier/generator/content"
	"dossier/generator/internal/safefile"
	"dossier/generator/snapshot"
)

// Slug is the page name of a Hub id: the repository name lower-cased,
// every run of other characters than letters and digits one dash, with
// no dash at either end (moonshotai/Kimi-Linear-48B-A3B-Instruct →
// kimi-linear-48b-a3b-instruct, mistralai/Mixtral-8x7B-v0.1 →
// mixtral-8x7b-v0-1). It is "" when the name has no letter or digit.
func Slug(model string) string {
	name := model
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		name = model[i+1:]
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

// Path is where the page of model lives under contentDir.
func Path(contentDir, model string) string {
	return filepath.Join(contentDir, "models", Slug(model)+".md")
}

// FactKeys are the facts the draft's body refers to. The build computes
// each of them for every model, as a value or as unknown with its reason,
// so a draft never fails on a missing fact.
var FactKeys = []string{
	"params.total", "bytes.tensors", "bytes.checkpoint", "shards.count", "download.seconds",
	"arch.family", "arch.layers", "arch.attention", "kv.bytes_per_token",
}

// Options add what the snapshot does not hold.
type Options struct {
	// Created is the Hub's createdAt for the repository, when known: a
	// hint beside the release date, which the writer fills in.
	Created string
}

// Draft is the draft page of the model snap holds, checked against the
// content rules before it is returned.
func Draft(snap *snapshot.Snapshot, opts Options) ([]byte, error) {
	if snap == nil || !snapshot.ValidModel(snap.Model) {
		return nil, errors.New("scaffold: no snapshot of a valid org/name model")
	}
	slug := Slug(snap.Model)
	if slug == "" {
		return nil, fmt.Errorf("scaffold %s: the name gives no page name", snap.Model)
	}
	org, name, _ := strings.Cut(snap.Model, "/")
	rev := "an unrecorded revision"
	if snap.Revision != "" {
		rev = "revision " + snap.Revision
	}
	created := ""
	if opts.Created != "" {
		day, _, _ := strings.Cut(opts.Created, "T")
		created = fmt.Sprintf(" (the Hub created the repository on %s; not always the release)", day)
	}
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "# Draft made by dossier from data/hub/%s/%s,\n", snap.Model, snapshot.FileName)
	fmt.Fprintf(&b, "# %s, read %s.\n", rev, snap.Fetched)
	b.WriteString("# Before setting draft: false, write the title and the organisation as the\n")
	b.WriteString("# authors style them, the release and review dates, a one-line summary, the\n")
	b.WriteString("# authors' published figures and the public claims with their evidence\n")
	b.WriteString("# (content/models/kimi-k3.md shows every field).\n")
	fmt.Fprintf(&b, "title: %s\n", strconv.Quote(name))
	fmt.Fprintf(&b, "model: %s\n", strconv.Quote(snap.Model))
	fmt.Fprintf(&b, "org: %s\n", strconv.Quote(org))
	fmt.Fprintf(&b, "# date: \"YYYY-MM-DD\"    release date%s\n", created)
	b.WriteString("# review: \"YYYY-MM-DD\"  date of this review\n")
	b.WriteString("summary: \"\"\n")
	b.WriteString("draft: true\n")
	b.WriteString("---\n")
	b.WriteString("Figures from the snapshot to write this dossier from; keep every number in\n")
	b.WriteString("the prose a fact reference like these.\n\n")
	fmt.Fprintf(&b, "- parameters: %s\n", ref("params.total"))
	fmt.Fprintf(&b, "- tensor bytes: %s\n", ref("bytes.tensors"))
	fmt.Fprintf(&b, "- checkpoint: %s; shards: %s\n", ref("bytes.checkpoint"), ref("shards.count"))
	fmt.Fprintf(&b, "- download: %s\n", ref("download.seconds"))
	fmt.Fprintf(&b, "- architecture: %s, %s layers, %s attention\n", ref("arch.family"), ref("arch.layers"), ref("arch.attention"))
	fmt.Fprintf(&b, "- KV cache per token: %s\n", ref("kv.bytes_per_token"))
	out := []byte(b.String())
	p, err := content.Parse(slug+".md", out)
	if err != nil {
		return nil, fmt.Errorf("scaffold %s: the draft does not pass the content rules: %w", snap.Model, err)
	}
	if p.Front.Model != snap.Model || !p.Front.Draft {
		return nil, fmt.Errorf("scaffold %s: the draft reads back as model %q, draft %v", snap.Model, p.Front.Model, p.Front.Draft)
	}
	return out, nil
}

func ref(key string) string { return "{{< fact " + key + " >}}" }

// ExistsError is a page that is already there: a draft never replaces it.
type ExistsError struct {
	Path  string // the file
	Model string // the model the existing page is about, when it could be read
}

func (e *ExistsError) Error() string {
	if e.Model != "" {
		return fmt.Sprintf("%s already exists (the page of %s); it is never overwritten", e.Path, e.Model)
	}
	return fmt.Sprintf("%s already exists; it is never overwritten", e.Path)
}

// Is makes errors.Is(err, fs.ErrExist) hold.
func (e *ExistsError) Is(target error) bool { return target == fs.ErrExist }

func exists(path string) *ExistsError {
	e := &ExistsError{Path: path}
	if b, err := safefile.Read(path, filepath.Dir(path), safefile.Page); err == nil {
		if p, err := content.Parse(path, b); err == nil {
			e.Model = p.Front.Model
		}
	}
	return e
}

// Taken is an *ExistsError when the page of model is already there (its
// own page, or another model's with the same name), else nil.
func Taken(contentDir, model string) error {
	path := Path(contentDir, model)
	if _, err := os.Lstat(path); err == nil {
		return exists(path)
	}
	return nil
}

// Write writes the draft of snap to contentDir/models/<slug>.md and
// returns the path. An existing file there is never replaced: the error
// is an *ExistsError naming it. The page appears whole or not at all: it
// is written to a temporary file in the same directory, synced, and
// linked into place, which fails if the name was taken meanwhile.
func Write(contentDir string, snap *snapshot.Snapshot, opts Options) (string, error) {
	b, err := Draft(snap, opts)
	if err != nil {
		return "", err
	}
	path := Path(contentDir, snap.Model)
	if err := Taken(contentDir, snap.Model); err != nil {
		return "", err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return "", fmt.Errorf("create temporary file in %s: %w", dir, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, werr := f.Write(b)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o644)
	}
	if werr != nil {
		return "", fmt.Errorf("write %s: %w", path, werr)
	}
	// A hard link does not replace an existing name, as rename would.
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", exists(path)
		}
		// A file system without hard links: rename, after checking again.
		if _, serr := os.Lstat(path); serr == nil {
			return "", exists(path)
		}
		if rerr := os.Rename(tmp, path); rerr != nil {
			return "", fmt.Errorf("write %s: %w", path, rerr)
		}
	}
	return path, nil
}
