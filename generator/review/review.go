// Package review compares two builds' facts.json documents and reports, in
// a few lines a pull request can carry, which models were added or
// removed, which facts changed and what input moved them, which verdicts
// flipped and which tells are new.
package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"dossier/generator/facts"
)

// Doc is one model's facts.json.
type Doc struct {
	Model    string    `json:"model"`
	Revision string    `json:"revision"`
	Facts    facts.Set `json:"facts"`
	Claims   []Claim   `json:"claims"`
}

// Claim is the part of a reviewed claim a diff compares.
type Claim struct {
	ID      string `json:"id"`
	Text    string `json:"text"`
	Verdict string `json:"verdict"`
	Tells   []int  `json:"tells"`
}

// Set is every model of one build, by model id.
type Set map[string]*Doc

// Parse reads facts.json documents keyed by their path.
func Parse(files map[string][]byte) (Set, error) {
	s := Set{}
	for name, b := range files {
		var d Doc
		if err := json.Unmarshal(b, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if d.Model == "" {
			return nil, fmt.Errorf("%s: field model: missing", name)
		}
		s[d.Model] = &d
	}
	return s, nil
}

// FromDir reads models/*/facts.json under a publish directory.
func FromDir(dir string) (Set, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(os.DirFS(dir), "models", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && path.Base(p) == "facts.json" {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				return err
			}
			files[filepath.Join(dir, filepath.FromSlash(p))] = b
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read facts under %s: %w", dir, err)
	}
	return Parse(files)
}

// FromGit reads the facts.json files committed under publishDir (relative
// to the repository root) at ref.
func FromGit(repo, ref, publishDir string) (Set, error) {
	prefix := path.Join(filepath.ToSlash(publishDir), "models") + "/"
	out, err := git(repo, "ls-tree", "-r", "--name-only", ref, "--", prefix)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, p := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path.Base(p) != "facts.json" {
			continue
		}
		b, err := git(repo, "show", ref+":"+p)
		if err != nil {
			return nil, err
		}
		files[ref+":"+p] = b
	}
	return Parse(files)
}

func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Change is one fact whose value moved.
type Change struct {
	Key   string `json:"key"`
	Old   string `json:"old"`
	New   string `json:"new"`
	Moved string `json:"moved"` // the input that moved it
	Flip  bool   `json:"verdict_flip"`
}

// ClaimChange is a claim whose verdict flipped or that gained tells.
type ClaimChange struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Old      string `json:"old_verdict"`
	New      string `json:"new_verdict"`
	NewTells []int  `json:"new_tells,omitempty"`
}

// ModelDiff is what changed for one model.
type ModelDiff struct {
	Model       string        `json:"model"`
	OldRevision string        `json:"old_revision"`
	NewRevision string        `json:"new_revision"`
	Facts       []Change      `json:"facts"`
	Claims      []ClaimChange `json:"claims"`
}

// Report is the whole diff.
type Report struct {
	Added   []string    `json:"added"`
	Removed []string    `json:"removed"`
	Changed []ModelDiff `json:"changed"`
}

// Empty reports whether nothing moved.
func (r *Report) Empty() bool { return len(r.Added)+len(r.Removed)+len(r.Changed) == 0 }

// Compare diffs base against head.
func Compare(base, head Set) *Report {
	r := &Report{Added: []string{}, Removed: []string{}, Changed: []ModelDiff{}}
	for _, m := range keys(head) {
		if base[m] == nil {
			r.Added = append(r.Added, m)
		}
	}
	for _, m := range keys(base) {
		b, h := base[m], head[m]
		if h == nil {
			r.Removed = append(r.Removed, m)
			continue
		}
		if d := diffModel(b, h); len(d.Facts)+len(d.Claims) > 0 || b.Revision != h.Revision {
			r.Changed = append(r.Changed, d)
		}
	}
	return r
}

func keys(s Set) []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func diffModel(b, h *Doc) ModelDiff {
	d := ModelDiff{Model: h.Model, OldRevision: b.Revision, NewRevision: h.Revision, Facts: []Change{}, Claims: []ClaimChange{}}
	seen := map[string]bool{}
	for _, k := range append(b.Facts.Keys(), h.Facts.Keys()...) {
		if seen[k] {
			continue
		}
		seen[k] = true
		of, nf := b.Facts.Get(k), h.Facts.Get(k)
		if equalValue(of, nf) {
			continue
		}
		c := Change{Key: k, Old: show(of), New: show(nf), Moved: moved(b, h, of, nf), Flip: isVerdict(k, of, nf)}
		d.Facts = append(d.Facts, c)
	}
	old, kept := map[string]Claim{}, map[string]bool{}
	for _, c := range b.Claims {
		old[c.ID] = c
	}
	for _, c := range h.Claims {
		kept[c.ID] = true
	}
	for _, c := range b.Claims {
		if !kept[c.ID] {
			d.Claims = append(d.Claims, ClaimChange{ID: c.ID, Text: c.Text, Old: c.Verdict, New: "removed"})
		}
	}
	for _, c := range h.Claims {
		o, ok := old[c.ID]
		var newTells []int
		for _, t := range c.Tells {
			if !containsInt(o.Tells, t) {
				newTells = append(newTells, t)
			}
		}
		if !ok || o.Verdict != c.Verdict || len(newTells) > 0 {
			d.Claims = append(d.Claims, ClaimChange{ID: c.ID, Text: c.Text, Old: orNone(o.Verdict), New: c.Verdict, NewTells: newTells})
		}
	}
	return d
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func equalValue(a, b *facts.Fact) bool {
	if a == nil || b == nil {
		return a == b
	}
	switch x := a.Value.(type) {
	case nil:
		return b.Value == nil
	case float64:
		y, ok := b.Float()
		return ok && x == y
	case int64:
		y, ok := b.Value.(int64)
		return ok && x == y
	}
	return a.Value == b.Value
}

func show(f *facts.Fact) string {
	if f == nil {
		return "absent"
	}
	if !f.Known() {
		return "unknown"
	}
	return f.Display
}

// isVerdict marks facts that are verdicts: fit booleans and the cheapest
// configuration that serves.
func isVerdict(key string, a, b *facts.Fact) bool {
	if strings.HasPrefix(key, "fit.") && (strings.HasSuffix(key, ".at_rest") || strings.HasSuffix(key, ".serving") || key == "fit.cheapest_serving") {
		return true
	}
	_, ab := a.Bool()
	_, bb := b.Bool()
	return ab || bb
}

// moved names the input behind a change: a new revision, a source whose
// version changed (a price list with a new date), or the fact's sources.
func moved(b, h *Doc, of, nf *facts.Fact) string {
	var why []string
	if b.Revision != h.Revision {
		why = append(why, "snapshot revision "+short(b.Revision)+" → "+short(h.Revision))
	}
	var os, ns []string
	if of != nil {
		os = of.Sources
	}
	if nf != nil {
		ns = nf.Sources
	}
	gone, came := difference(os, ns), difference(ns, os)
	if len(gone)+len(came) > 0 {
		why = append(why, "sources "+strings.Join(gone, ", ")+" → "+strings.Join(came, ", "))
	} else if len(ns) > 0 && b.Revision == h.Revision {
		why = append(why, "an input behind "+strings.Join(ns, ", "))
	}
	return strings.Join(why, "; ")
}

func difference(a, b []string) []string {
	var out []string
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

func short(s string) string {
	if s == "" {
		return "(none)"
	}
	return s[:min(7, len(s))]
}
