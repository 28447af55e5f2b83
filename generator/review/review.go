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
	"dossier/generator/internal/safefile"
)

// Doc is one model's facts.json.
type Doc struct {
	// Slug is the dossier's directory name, from the path it was read
	// from: the content page models/<slug>.md it was built from.
	Slug     string    `json:"-"`
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
	Scope   string `json:"scope"`
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
		d.Slug = path.Base(path.Dir(filepath.ToSlash(name)))
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
			b, err := safefile.Read(filepath.Join(dir, filepath.FromSlash(p)), dir, safefile.Largest)
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

// ChangedInputs lists the files under paths (relative to the repository
// root) that differ between ref and the working tree, including new files
// not yet committed: the inputs a report names.
func ChangedInputs(repo, ref string, paths []string) ([]string, error) {
	diff, err := git(repo, append([]string{"diff", "--name-only", ref, "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	untracked, err := git(repo, append([]string{"ls-files", "--others", "--exclude-standard", "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := []string{}
	for _, p := range strings.Split(string(diff)+string(untracked), "\n") {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
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

// Value is one side of a changed fact: the number (or bool, or text) with
// its unit, as in facts.json, and the display a page shows. Value is null
// when the fact is unknown, with the reason.
type Value struct {
	Value   any    `json:"value"`
	Unit    string `json:"unit"`
	Display string `json:"display"`
	Reason  string `json:"reason,omitempty"`
}

// Change is one fact whose value moved. Old is null for a fact the base
// did not have, New for one the head dropped.
type Change struct {
	Key   string `json:"key"`
	Old   *Value `json:"old"`
	New   *Value `json:"new"`
	Moved string `json:"moved"` // the input that moved it
	Flip  bool   `json:"verdict_flip"`
}

// LayoutSwitch is the facts a build computes for one layout only (speed
// and $/M tokens, for the cheapest layout that serves) that stopped being
// computed for some layouts and started for others: one line in a
// report, not one row per fact.
type LayoutSwitch struct {
	From  []string `json:"from"`  // layouts whose facts are no longer computed
	To    []string `json:"to"`    // layouts whose facts are now computed
	Facts int      `json:"facts"` // fact changes the line stands for
}

// Sentence says what the switch did, as a report line.
func (l *LayoutSwitch) Sentence() string {
	s := "speed now computed for " + strings.Join(l.To, ", ")
	switch {
	case len(l.To) == 0:
		s = "speed no longer computed for " + strings.Join(l.From, ", ")
	case len(l.From) > 0:
		s += " instead of " + strings.Join(l.From, ", ")
	}
	return s + " (" + facts.Count(l.Facts, "fact") + ")"
}

// ClaimChange is a claim whose verdict flipped or that gained tells.
type ClaimChange struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Old      string `json:"old_verdict"`
	New      string `json:"new_verdict"`
	NewTells []int  `json:"new_tells,omitempty"`
}

// ModelDiff is what changed for one model, less the changes it shares
// with other models (Report.Common). OldRevision is set only when the
// snapshot revision changed and the base recorded one.
type ModelDiff struct {
	Model       string        `json:"model"`
	Revision    string        `json:"revision,omitempty"`
	OldRevision string        `json:"old_revision,omitempty"`
	Facts       []Change      `json:"facts"`
	Layout      *LayoutSwitch `json:"layout_switch,omitempty"`
	Claims      []ClaimChange `json:"claims"`
}

// CommonChange is one fact change identical (same key, values and cause)
// in several models: a report shows it once with the models.
type CommonChange struct {
	Change
	Models []string `json:"models"`
}

// AddedModel is a model new in the head, with its headline figures.
type AddedModel struct {
	Model    string           `json:"model"`
	Revision string           `json:"revision,omitempty"`
	Headline map[string]Value `json:"headline"`
}

// Flip is a verdict that changed: a verdict fact, with its values, or a
// claim's verdict (text).
type Flip struct {
	Model string `json:"model"`
	What  string `json:"what"` // fact key, or "claim ID"
	Old   *Value `json:"old"`
	New   *Value `json:"new"`
	// Effects are what a flip of the cheapest serving layout does to the
	// figures of the layout served: $/M output tokens, batch-1 decode.
	Effects []Effect `json:"effects,omitempty"`
}

// Effect is one figure of the layout before a flip against the one after.
type Effect struct {
	What string `json:"what"`
	Old  *Value `json:"old"`
	New  *Value `json:"new"`
}

// effects are the per-token cost and speed of the cheapest layout before
// (in base) and after (in head) it flipped from old to new.
func effects(b, h *Doc, old, new *Value) []Effect {
	o, ok1 := old.Value.(string)
	n, ok2 := new.Value.(string)
	if !ok1 || !ok2 {
		return nil
	}
	var out []Effect
	for _, e := range []struct{ what, key string }{
		{"$/M output tokens", "cost.%s.usd_per_million_output_tokens"},
		{"batch-1 decode", "speed.%s.decode_tokens_per_second"},
	} {
		ov, nv := value(b.Facts.Get(fmt.Sprintf(e.key, o))), value(h.Facts.Get(fmt.Sprintf(e.key, n)))
		if ov != nil || nv != nil {
			out = append(out, Effect{e.what, ov, nv})
		}
	}
	return out
}

// verdictValue is a claim's verdict as a report value.
func verdictValue(v string) *Value {
	return &Value{Value: v, Unit: facts.UnitText, Display: v}
}

// Summary is the top of a report: which inputs changed, which models that
// affected, which verdicts flipped.
type Summary struct {
	// InputsKnown is false when the base is a directory: the input files
	// are compared only against a git ref.
	InputsKnown    bool     `json:"inputs_known"`
	InputsChanged  []string `json:"inputs_changed"`
	ModelsAffected []string `json:"models_affected"`
	ModelsTotal    int      `json:"models_total"`
	VerdictsFlip   []Flip   `json:"verdicts_flipped"`
	// Notes are inputs that look wrong from the facts they moved: a
	// price list whose prices changed while its date did not.
	Notes []string `json:"notes"`
}

// Report is the whole diff.
type Report struct {
	Summary Summary        `json:"summary"`
	Added   []AddedModel   `json:"added"`
	Removed []string       `json:"removed"`
	Common  []CommonChange `json:"common"`
	Changed []ModelDiff    `json:"changed"`
}

// Empty reports whether no model moved.
func (r *Report) Empty() bool {
	return len(r.Added)+len(r.Removed)+len(r.Changed)+len(r.Common) == 0
}

// Headline are the figures an added model is introduced with, and that a
// corrections log names one by one: the numeric columns of the site's
// model table.
var Headline = []string{"params.total", "params.active_no_embedding", "bytes.checkpoint", "bits_per_param",
	"fit.cheapest_serving", "cost.cheapest_serving.usd_per_hour"}

// Compare diffs base against head. inputs are the input files that changed
// between them (relative to the repository root), or nil when unknown.
func Compare(base, head Set, inputs []string) *Report {
	r := &Report{Added: []AddedModel{}, Removed: []string{}, Common: []CommonChange{}, Changed: []ModelDiff{}}
	r.Summary = Summary{InputsKnown: inputs != nil, InputsChanged: append([]string{}, inputs...), ModelsAffected: []string{}, VerdictsFlip: []Flip{}, Notes: []string{}}
	noted := map[string]bool{}
	all := map[string]bool{}
	for _, m := range keys(head) {
		all[m] = true
		if base[m] == nil {
			h := head[m]
			a := AddedModel{Model: m, Revision: h.Revision, Headline: map[string]Value{}}
			for _, k := range Headline {
				if v := value(h.Facts.Get(k)); v != nil {
					a.Headline[k] = *v
				}
			}
			r.Added = append(r.Added, a)
			r.Summary.ModelsAffected = append(r.Summary.ModelsAffected, m)
		}
	}
	for _, m := range keys(base) {
		all[m] = true
		b, h := base[m], head[m]
		if h == nil {
			r.Removed = append(r.Removed, m)
			r.Summary.ModelsAffected = append(r.Summary.ModelsAffected, m)
			continue
		}
		d, notes := diffModel(b, h, inputs)
		for _, n := range notes {
			if !noted[n.source] {
				noted[n.source] = true
				r.Summary.Notes = append(r.Summary.Notes, n.String(m))
			}
		}
		if len(d.Facts)+len(d.Claims) > 0 || d.Layout != nil || b.Revision != h.Revision {
			r.Changed = append(r.Changed, d)
			r.Summary.ModelsAffected = append(r.Summary.ModelsAffected, m)
			// A verdict flips when it had a value before and after; a new
			// or dropped verdict (or claim) is a change, not a flip.
			for _, c := range d.Facts {
				if c.Flip && c.Old != nil && c.New != nil {
					f := Flip{Model: m, What: c.Key, Old: c.Old, New: c.New}
					if c.Key == "fit.cheapest_serving" {
						f.Effects = effects(b, h, c.Old, c.New)
					}
					r.Summary.VerdictsFlip = append(r.Summary.VerdictsFlip, f)
				}
			}
			for _, c := range d.Claims {
				if c.Old != c.New && c.Old != "none" && c.New != "removed" {
					r.Summary.VerdictsFlip = append(r.Summary.VerdictsFlip, Flip{Model: m, What: "claim " + c.ID, Old: verdictValue(c.Old), New: verdictValue(c.New)})
				}
			}
		}
	}
	sort.Strings(r.Summary.ModelsAffected)
	r.Summary.ModelsTotal = len(all)
	r.Summary.Notes = append(r.Summary.Notes, unpublishedPages(base, head, inputs)...)
	r.collapse()
	return r
}

// unpublishedPages notes each changed content page that no dossier of
// either build comes from: a draft (built only with --drafts) or a page
// removed, whose change a report would otherwise not show at all.
func unpublishedPages(base, head Set, inputs []string) []string {
	built := map[string]bool{}
	for _, s := range []Set{base, head} {
		for _, d := range s {
			built[d.Slug] = true
		}
	}
	var out []string
	for _, in := range inputs {
		dir, name := path.Split(in)
		slug, ok := strings.CutSuffix(name, ".md")
		if !ok || path.Base(path.Clean(dir)) != "models" || built[slug] {
			continue
		}
		out = append(out, "`"+in+"` changed but no published dossier comes from it: a draft (published only with `build --drafts`) or a removed page")
	}
	return out
}

// collapse moves each fact change that several models share, with the
// same values and cause, out of the models into Common.
func (r *Report) collapse() {
	type group struct {
		change Change
		models []string
	}
	groups := map[string]*group{}
	var order []string
	for _, d := range r.Changed {
		for _, c := range d.Facts {
			k := changeKey(c)
			if groups[k] == nil {
				groups[k] = &group{change: c}
				order = append(order, k)
			}
			groups[k].models = append(groups[k].models, d.Model)
		}
	}
	for _, k := range order {
		if g := groups[k]; len(g.models) > 1 {
			r.Common = append(r.Common, CommonChange{Change: g.change, Models: g.models})
		}
	}
	sort.SliceStable(r.Common, func(i, j int) bool {
		a, b := r.Common[i], r.Common[j]
		if len(a.Models) != len(b.Models) {
			return len(a.Models) > len(b.Models)
		}
		return a.Key < b.Key
	})
	kept := r.Changed[:0]
	for _, d := range r.Changed {
		facts := []Change{}
		for _, c := range d.Facts {
			if len(groups[changeKey(c)].models) == 1 {
				facts = append(facts, c)
			}
		}
		d.Facts = facts
		if len(d.Facts)+len(d.Claims) > 0 || d.Layout != nil || d.OldRevision != "" {
			kept = append(kept, d)
		}
	}
	r.Changed = kept
}

// changeKey identifies a change up to the model it happened in.
func changeKey(c Change) string {
	b, _ := json.Marshal(c)
	return string(b)
}

func keys(s Set) []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func diffModel(b, h *Doc, inputs []string) (ModelDiff, []staleDate) {
	d := ModelDiff{Model: h.Model, Revision: h.Revision, Facts: []Change{}, Claims: []ClaimChange{}}
	if b.Revision != h.Revision {
		d.OldRevision = b.Revision
		if d.OldRevision == "" {
			d.OldRevision = unrecorded
		}
	}
	var notes []staleDate
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
		c := Change{Key: k, Old: value(of), New: value(nf), Moved: moved(b, h, of, nf, inputs), Flip: isVerdict(k, of, nf)}
		d.Facts = append(d.Facts, c)
		if n, ok := priceDateKept(k, of, nf); ok {
			notes = append(notes, n)
		}
	}
	d.Facts, d.Layout = switchLayouts(d.Facts)
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
	return d, notes
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

// value is a fact as a report carries it; nil for an absent fact.
func value(f *facts.Fact) *Value {
	if f == nil {
		return nil
	}
	return &Value{Value: f.Value, Unit: f.Unit, Display: f.Display, Reason: f.Reason}
}

// display is how a report's Markdown shows one side of a change.
// Shown is a value as a report prints it: its display, "unknown" for a
// fact with no value, "absent" for no fact. The diff, the corrections
// log and the feed all print values so.
func (v *Value) Shown() string {
	switch {
	case v == nil:
		return "absent"
	case v.Value == nil:
		return "unknown"
	}
	return v.Display
}

// isVerdict marks facts that are verdicts: fit booleans, the cheapest
// configuration that serves, and the deployments the answer names.
func isVerdict(key string, a, b *facts.Fact) bool {
	if strings.HasPrefix(key, "fit.") && (strings.HasSuffix(key, ".at_rest") || strings.HasSuffix(key, ".serving") || key == "fit.cheapest_serving") {
		return true
	}
	switch key {
	case "deploy.cheapest.layout", "deploy.fastest.layout", "deploy.smallest.layout", "deploy.single_host.layout", "deploy.local.layout":
		return true
	}
	_, ab := a.Bool()
	_, bb := b.Bool()
	return ab || bb
}

// moved names the input behind a change: a new revision, a source whose
// version changed (a price list with a new date), or the fact's sources.
//
// With inputs known (the files changed between base and head), an
// unchanged list of sources is narrowed to the changed files they read:
// a fact that cites the configuration and a price list was moved by the
// price list alone when only that changed.
func moved(b, h *Doc, of, nf *facts.Fact, inputs []string) string {
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
		switch files := citedInputs(h, ns, inputs); {
		case inputs == nil:
			why = append(why, "an input behind "+strings.Join(ns, ", "))
		case len(files) > 0:
			why = append(why, strings.Join(files, ", "))
		default:
			why = append(why, "no input it cites changed (the generator computes it differently)")
		}
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

// short abbreviates a commit sha as git does; an empty revision is one the
// snapshot did not record.
func short(s string) string {
	switch {
	case s == "":
		return unrecorded
	case len(s) == 40:
		return s[:7]
	}
	return s
}

// unrecorded stands for a revision a snapshot left empty (revision_note
// says why), so a report never shows an empty revision.
const unrecorded = "unrecorded"
