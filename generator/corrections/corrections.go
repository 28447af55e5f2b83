// Package corrections builds each dossier's corrections log: a dated list
// of what changed in its verdicts and figures and why (a new snapshot
// revision, a price, a catalog, the site's assumptions, or the method),
// read from the committed history of its facts.json.
//
// The log comes from commits only, so a build of the same inputs in the
// same checkout always gives the same log; it is shown in the HTML page
// and the feed, not in the committed Markdown, which would otherwise
// change with every commit of itself.
package corrections

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"dossier/generator/content"
	"dossier/generator/render"
	"dossier/generator/review"
)

// Why a dossier changed, in the order a log lists them.
const (
	WhyRevision = "revision"      // the snapshot's Hub revision changed
	WhyPrice    = "price"         // a price list changed
	WhyCatalog  = "catalog"       // hardware or software catalog changed
	WhyConfig   = "configuration" // the site's sizing assumptions changed
	WhyMethod   = "method"        // same inputs, the generator computes differently
)

// Entry is one committed version of a dossier that differs from the one
// before it.
type Entry struct {
	Date     string          `json:"date"`   // commit date, YYYY-MM-DD
	Commit   string          `json:"commit"` // full sha
	Revision string          `json:"revision,omitempty"`
	First    bool            `json:"first,omitempty"` // the first published version
	Why      []string        `json:"why"`
	Verdicts []review.Flip   `json:"verdicts"` // verdict facts and claim verdicts that flipped
	Figures  []review.Change `json:"figures"`  // headline figures that moved
	Other    int             `json:"other"`    // other facts that changed
	// Layout is the speed and $/M facts that moved with the cheapest
	// layout: one line, not counted in Other.
	Layout *review.LayoutSwitch `json:"layout_switch,omitempty"`
	Claims int                  `json:"claims"` // claims added or removed
	// NewClaims are the ids of the claims this version added: each a new
	// review, news of its own in the feed.
	NewClaims []string `json:"new_claims,omitempty"`
}

// Flipped reports whether a verdict changed in e.
func (e Entry) Flipped() bool { return len(e.Verdicts) > 0 }

// Version is one commit's facts.json of a dossier.
type Version struct {
	Commit, Date string
	Doc          *review.Doc
}

// Log turns a dossier's versions, oldest first, into its log, newest
// first. Versions identical in facts and claims to the one before are
// left out.
func Log(versions []Version) []Entry {
	var out []Entry
	var prev *review.Doc
	for _, v := range versions {
		if prev == nil {
			out = append(out, Entry{Date: v.Date, Commit: v.Commit, Revision: v.Doc.Revision, First: true, Why: []string{}, Verdicts: []review.Flip{}, Figures: []review.Change{}})
			prev = v.Doc
			continue
		}
		e, changed := entry(prev, v)
		prev = v.Doc
		if changed {
			out = append(out, e)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// entry compares two consecutive versions.
func entry(prev *review.Doc, v Version) (Entry, bool) {
	old, cur := *prev, *v.Doc
	cur.Model = old.Model // a renamed id is the same dossier
	r := review.Compare(review.Set{old.Model: &old}, review.Set{old.Model: &cur}, nil)
	e := Entry{Date: v.Date, Commit: v.Commit, Revision: cur.Revision, Why: []string{}, Verdicts: r.Summary.VerdictsFlip, Figures: []review.Change{}}
	if len(r.Changed) == 0 {
		return e, false
	}
	d := r.Changed[0]
	e.Layout = d.Layout
	why := map[string]bool{}
	if d.OldRevision != "" {
		why[WhyRevision] = true
	}
	headline := map[string]bool{}
	for _, k := range review.Headline {
		headline[k] = true
	}
	for _, c := range d.Facts {
		for _, w := range reasons(c) {
			why[w] = true
		}
		switch {
		case c.Flip && c.Old != nil && c.New != nil: // in e.Verdicts
		case headline[c.Key]:
			e.Figures = append(e.Figures, c)
		default:
			e.Other++
		}
	}
	for _, c := range d.Claims {
		if c.Old == "none" || c.New == "removed" {
			e.Claims++
		}
		if c.Old == "none" {
			e.NewClaims = append(e.NewClaims, c.ID)
		}
	}
	if len(why) == 0 {
		// No input behind any change moved: the generator computes
		// differently. (A fact derived from other facts names them, not
		// an input, so it counts only when nothing else explains it.)
		why[WhyMethod] = true
	}
	for _, w := range []string{WhyRevision, WhyPrice, WhyCatalog, WhyConfig, WhyMethod} {
		if why[w] {
			e.Why = append(e.Why, w)
		}
	}
	return e, true
}

// reasons classifies what moved one fact from the inputs its change names;
// none when it names only other facts or the same inputs.
func reasons(c review.Change) []string {
	if strings.HasPrefix(c.Moved, "snapshot revision ") {
		return []string{WhyRevision}
	}
	old, new, both := strings.Cut(c.Moved, " → ")
	var out []string
	for _, p := range []struct{ prefix, why string }{{"pricing:", WhyPrice}, {"catalog:", WhyCatalog}, {"site:", WhyConfig}} {
		// With both sides named, an input counts only when its citations
		// differ: a $/M-token figure cites the catalog and the settings
		// too, but only the price moved it.
		if both && slices.Equal(cited(old, p.prefix), cited(new, p.prefix)) {
			continue
		}
		if strings.Contains(c.Moved, p.prefix) {
			out = append(out, p.why)
		}
	}
	return out
}

// cited returns the citations of one kind in a list of sources: each from
// its prefix to the next known prefix, sorted.
func cited(sources, prefix string) []string {
	var out []string
	for rest := sources; ; {
		i := strings.Index(rest, prefix)
		if i < 0 {
			break
		}
		rest = rest[i+len(prefix):]
		end := len(rest)
		for _, q := range []string{"pricing:", "catalog:", "site:", "hub:", "analytic:", "config:", "fact:"} {
			if j := strings.Index(rest, q); j >= 0 && j < end {
				end = j
			}
		}
		out = append(out, strings.Trim(rest[:end], " ,;()"))
		rest = rest[end:]
	}
	sort.Strings(out)
	return out
}

// Markdown renders a log, merged with the page's editorial entries, as a
// section of a dossier: one dated list, newest first (an editorial entry
// before the generated ones of its day). A generated row is the verdicts
// that flipped, the headline figures that moved and the count of other
// facts, and why; an editorial row is its kind, what it is about, what was
// wrong and why, and who made it. Nothing to list renders nothing.
func Markdown(log []Entry, editorial []content.Correction) string {
	type row struct {
		date  string
		cells []string
	}
	var rows []row
	for _, c := range editorial {
		rows = append(rows, row{c.Date, []string{c.Date, c.Headline(), c.Why + " (" + c.By + ")", "editorial"}})
	}
	for _, e := range log {
		why := strings.Join(e.Why, ", ")
		if why == "" {
			why = "—"
		}
		rows = append(rows, row{e.Date, []string{e.Date, Describe(e), why, shortSHA(e.Commit)}})
	}
	if len(rows) == 0 {
		return ""
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].date > rows[j].date })
	t := &render.Table{Header: []string{"date", "what changed", "why", "commit"}}
	for _, r := range rows {
		t.Rows = append(t.Rows, r.cells)
	}
	intro := "What changed in this dossier's verdicts and figures, and why, from the committed history of its facts.json (newest first)."
	if len(editorial) > 0 {
		intro = "What changed in this dossier's verdicts and figures, and why: the reviewers' own corrections, updates, retractions and voided checks (editorial), and the changes the committed history of its facts.json records, newest first."
	}
	return "## Corrections\n\n" + intro + "\n\n" + t.Markdown()
}

// Describe says in one line what changed in e.
func Describe(e Entry) string {
	if e.First {
		rev := "an unrecorded revision"
		if e.Revision != "" {
			rev = "revision " + shortSHA(e.Revision)
		}
		return "first published, at " + rev
	}
	var parts []string
	for _, f := range e.Verdicts {
		parts = append(parts, fmt.Sprintf("verdict %s: %s → %s%s", f.What, show(f.Old), show(f.New), review.EffectText(f.Effects)))
	}
	for _, c := range e.Figures {
		parts = append(parts, fmt.Sprintf("%s: %s → %s", c.Key, show(c.Old), show(c.New)))
	}
	if e.Layout != nil {
		parts = append(parts, e.Layout.Sentence())
	}
	if n := e.Claims; n > 0 {
		parts = append(parts, strconv.Itoa(n)+" claim"+map[bool]string{true: "", false: "s"}[n == 1]+" added or removed")
	}
	if e.Other > 0 {
		parts = append(parts, strconv.Itoa(e.Other)+" other figure"+map[bool]string{true: "", false: "s"}[e.Other == 1])
	}
	if len(parts) == 0 {
		return "no figure changed (revision only)"
	}
	return strings.Join(parts, "; ")
}

func show(v *review.Value) string {
	switch {
	case v == nil:
		return "absent"
	case v.Value == nil:
		return "unknown"
	}
	return v.Display
}

func shortSHA(s string) string {
	if len(s) == 40 {
		return s[:7]
	}
	return s
}

// FromGit reads every committed version of the facts.json files under
// dir (a directory relative to the repository root repo, e.g.
// "public/models") along the first-parent history of HEAD, and returns
// them by path, oldest first. A repository without commits, or a dir
// never committed, gives an empty map.
func FromGit(repo, dir string) (map[string][]Version, error) {
	cmd := exec.Command("git", "log", "--first-parent", "--format=commit %H %cs", "--name-only", "HEAD", "--", dir)
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "does not have any commits") || strings.Contains(stderr.String(), "unknown revision") {
			return map[string][]Version{}, nil
		}
		return nil, fmt.Errorf("git log %s: %v: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	type ref struct{ commit, date, path string }
	var refs []ref
	var commit, date string
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "commit "); ok {
			commit, date, _ = strings.Cut(rest, " ")
		} else if path.Base(line) == "facts.json" {
			refs = append(refs, ref{commit, date, line})
		}
	}
	// git log lists newest first; read every blob through one cat-file.
	blobs, err := catFiles(repo, len(refs), func(i int) string { return refs[i].commit + ":" + refs[i].path })
	if err != nil {
		return nil, err
	}
	byPath := map[string][]Version{}
	for i := len(refs) - 1; i >= 0; i-- {
		if blobs[i] == nil {
			continue // deleted in that commit
		}
		set, err := review.Parse(map[string][]byte{refs[i].commit + ":" + refs[i].path: blobs[i]})
		if err != nil {
			return nil, err
		}
		for _, d := range set {
			byPath[refs[i].path] = append(byPath[refs[i].path], Version{Commit: refs[i].commit, Date: refs[i].date, Doc: d})
		}
	}
	return byPath, nil
}

// catFiles reads n objects named by name(i) with one git cat-file --batch;
// a missing object is nil.
func catFiles(repo string, n int, name func(int) string) ([][]byte, error) {
	out := make([][]byte, n)
	if n == 0 {
		return out, nil
	}
	var in bytes.Buffer
	for i := range n {
		in.WriteString(name(i) + "\n")
	}
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = repo
	cmd.Stdin = &in
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git cat-file: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	r := bufio.NewReader(&stdout)
	for i := range n {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file %s: %w", name(i), err)
		}
		f := strings.Fields(header)
		if len(f) == 2 && f[1] == "missing" {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("git cat-file %s: unexpected header %q", name(i), header)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("git cat-file %s: %w", name(i), err)
		}
		b := make([]byte, size+1) // the object and its newline
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, fmt.Errorf("git cat-file %s: %w", name(i), err)
		}
		out[i] = b[:size]
	}
	return out, nil
}

// ForSite returns the log of every dossier published under publishDir
// (absolute), by slug, when the site is in a git repository whose HEAD has
// committed those dossiers; outside a repository it returns no logs.
func ForSite(root, publishDir string) (map[string][]Entry, error) {
	h, err := HistoryOf(root, publishDir)
	if err != nil {
		return nil, err
	}
	return h.Logs, nil
}

// History is what the committed history of a site's dossiers says, by
// slug: each dossier's log, and when each of its claims first appeared
// and last changed.
type History struct {
	Logs   map[string][]Entry
	Claims map[string]map[string]ClaimDates
}

// HistoryOf reads the History of the dossiers under publishDir, as
// ForSite reads their logs.
func HistoryOf(root, publishDir string) (*History, error) {
	h := &History{Logs: map[string][]Entry{}, Claims: map[string]map[string]ClaimDates{}}
	cmd := exec.Command("git", "rev-parse", "--show-toplevel")
	cmd.Dir = root
	top, err := cmd.Output()
	if err != nil {
		return h, nil // not in a repository (or no git): no history to read
	}
	rel, err := filepath.Rel(strings.TrimSpace(string(top)), publishDir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return h, nil // published outside the repository
	}
	versions, err := FromGit(strings.TrimSpace(string(top)), path.Join(filepath.ToSlash(rel), "models"))
	if err != nil {
		return nil, err
	}
	for p, vs := range versions {
		slug := path.Base(path.Dir(p))
		h.Logs[slug], h.Claims[slug] = Log(vs), Claims(vs)
	}
	return h, nil
}

// ClaimDates is when a claim first appeared in a dossier's committed
// history and when its verdict or scope last changed (the first
// appearance when it never did), as commit dates YYYY-MM-DD.
type ClaimDates struct {
	First    string `json:"first"`
	Modified string `json:"modified"`
}

// Claims dates every claim of a dossier's versions, oldest first. A
// claim removed and added again keeps its first appearance.
func Claims(versions []Version) map[string]ClaimDates {
	out := map[string]ClaimDates{}
	last := map[string]string{}
	for _, v := range versions {
		for _, c := range v.Doc.Claims {
			state := c.Verdict + "\x00" + c.Scope
			d, seen := out[c.ID]
			switch {
			case !seen:
				d = ClaimDates{First: v.Date, Modified: v.Date}
			case last[c.ID] != state:
				d.Modified = v.Date
			}
			out[c.ID], last[c.ID] = d, state
		}
	}
	return out
}

// Key identifies a log for build caching: the commits it was read from.
func Key(log []Entry) string {
	var b strings.Builder
	for _, e := range log {
		b.WriteString(e.Commit + " ")
	}
	return b.String()
}
