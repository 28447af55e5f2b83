package audit

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"dossier/generator/catalog"
	"dossier/generator/pysnippet"
)

// Severities.
const (
	Error   = "error"
	Warning = "warning"
)

// Finding kinds.
const (
	KindModelID    = "model_id"
	KindKeyword    = "keyword"
	KindSymbol     = "symbol"
	KindType       = "type"
	KindRemoteCode = "remote_code"
)

// Finding is one problem found in a snippet.
type Finding struct {
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Kind     string `json:"kind"`
	Symbol   string `json:"symbol"`
	Message  string `json:"message"`
	Source   string `json:"source"`
}

// Options are what a snippet is checked against.
type Options struct {
	// Versions maps a package to the version stated for it; a package
	// without one is checked as a release after every bound the table
	// gives (what installing it today gives).
	Versions map[string]Version
	// Model is the model the snippet is for when the caller says so; it
	// takes precedence over ids found in the snippet for the remote-code
	// window.
	Model string
	// Known are the model ids the site has snapshots of (checked offline).
	Known []string
	// KnownSource says where Known came from, for the findings' source.
	KnownSource string
	// Resolve asks the Hub whether an id exists (nil: offline). It
	// returns nil when the id resolves.
	Resolve func(id string) error
	// HubSource names the Hub endpoint for the findings' source.
	HubSource string
	// Windows are the software windows recorded for models.
	Windows []*catalog.Window
}

// Check audits sn; findings are in line order.
func Check(sn *pysnippet.Snippet, t *Table, o Options) []Finding {
	a := &auditor{sn: sn, t: t, o: o, names: map[string]binding{}}
	a.bind()
	a.imports()
	a.calls()
	model, line := a.modelIDs()
	if o.Model != "" {
		model = o.Model
	}
	a.remoteCode(model, line)
	sort.SliceStable(a.out, func(i, j int) bool { return a.out[i].Line < a.out[j].Line })
	return a.out
}

// binding is what a name of the snippet stands for: a package and a path
// inside it ("" for the package itself).
type binding struct{ pkg, path string }

type auditor struct {
	sn    *pysnippet.Snippet
	t     *Table
	o     Options
	names map[string]binding
	out   []Finding
}

func (a *auditor) add(f Finding) { a.out = append(a.out, f) }

// bind maps the snippet's imported names, and variables assigned from a
// call of one, to package paths.
func (a *auditor) bind() {
	for _, im := range a.sn.Imports {
		root, sub, _ := strings.Cut(im.Module, ".")
		if !slices.Contains(Packages, root) {
			continue
		}
		path := sub
		if im.Name != "" {
			path = join(sub, im.Name)
		}
		if im.Name == "" && im.As == "" {
			path = "" // "import trl.trainer" binds trl
		}
		a.names[im.Local()] = binding{root, path}
	}
	for _, as := range a.sn.Assigns {
		if as.Call == "" {
			continue
		}
		if b, ok := a.resolve(as.Call); ok {
			// An instance: its methods are the class's ("Trainer.train").
			a.names[as.Name] = b
		}
	}
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}

// resolve maps a dotted name of the snippet to its package path.
func (a *auditor) resolve(dotted string) (binding, bool) {
	root, rest, _ := strings.Cut(dotted, ".")
	b, ok := a.names[root]
	if !ok {
		return binding{}, false
	}
	return binding{b.pkg, join(b.path, rest)}, true
}

// matches reports whether path (a resolved call or import) is c's symbol.
func matches(c *Change, path string) bool {
	if m, ok := strings.CutPrefix(c.Symbol, "*."); ok {
		return strings.HasSuffix(path, "."+m) && strings.Count(path, ".") >= 1
	}
	return path == c.Symbol || strings.HasSuffix(path, "."+c.Symbol)
}

// verdict says whether c's symbol exists in the stated version of its
// package: "" when it does, else why not, and the severity.
func (a *auditor) verdict(c *Change) (string, string) {
	v, stated := a.o.Versions[c.Package]
	have := "no --" + c.Package + " given, so a current release is assumed"
	if stated {
		have = "checked against " + c.Package + " " + format(v)
	}
	at := func(s string) Version { x, _ := ParseVersion(s); return x }
	switch {
	case c.RemovedIn != "" && (!stated || Compare(v, at(c.RemovedIn)) >= 0):
		return fmt.Sprintf("removed in %s %s (%s)", c.Package, c.RemovedIn, have), Error
	case c.AddedIn != "" && stated && Compare(v, at(c.AddedIn)) < 0:
		return fmt.Sprintf("added in %s %s (%s)", c.Package, c.AddedIn, have), Error
	case c.DeprecatedIn != "" && (!stated || Compare(v, at(c.DeprecatedIn)) >= 0):
		return fmt.Sprintf("deprecated since %s %s (%s)", c.Package, c.DeprecatedIn, have), Warning
	}
	return "", ""
}

func format(v Version) string {
	s := make([]string, len(v.Parts))
	for i, p := range v.Parts {
		s[i] = fmt.Sprint(p)
	}
	out := strings.Join(s, ".")
	if v.Pre {
		out += " (pre-release)"
	}
	return out
}

func replaced(c *Change) string {
	if c.ReplacedBy == "" {
		return ""
	}
	return "; use " + c.ReplacedBy
}

// imports checks imported symbols that do not exist in the stated versions.
func (a *auditor) imports() {
	for _, im := range a.sn.Imports {
		b, ok := a.names[im.Local()]
		if !ok || b.path == "" {
			continue
		}
		for _, c := range a.t.Changes {
			if c.Package != b.pkg || c.Keyword != "" || c.Expects != "" || !matches(c, b.path) {
				continue
			}
			if why, sev := a.verdict(c); why != "" {
				a.add(Finding{Line: im.Line, Severity: sev, Kind: KindSymbol, Symbol: c.Package + "." + c.Symbol,
					Message: fmt.Sprintf("import of %s.%s: %s%s", c.Package, c.Symbol, why, replaced(c)), Source: c.Source})
			}
		}
	}
}

// calls checks keyword arguments and argument types of resolved calls.
func (a *auditor) calls() {
	for i := range a.sn.Calls {
		call := &a.sn.Calls[i]
		b, ok := a.resolve(call.Func)
		if !ok {
			continue
		}
		for _, c := range a.t.Changes {
			if c.Package != b.pkg || c.Keyword == "" || !matches(c, b.path) {
				continue
			}
			arg, ok := call.Keyword(c.Keyword)
			if !ok {
				continue
			}
			sym := fmt.Sprintf("%s(%s=)", call.Func, c.Keyword)
			if c.Expects == "dataset" {
				if arg.IsString {
					a.add(Finding{Line: arg.Line, Severity: Error, Kind: KindType, Symbol: sym,
						Message: fmt.Sprintf("%s is the str %q, not a Dataset: a file name is not loaded%s", sym, arg.Str, replaced(c)), Source: c.Source})
				}
				continue
			}
			if why, sev := a.verdict(c); why != "" {
				a.add(Finding{Line: arg.Line, Severity: sev, Kind: KindKeyword, Symbol: sym,
					Message: fmt.Sprintf("%s: keyword %s of %s.%s %s%s", sym, c.Keyword, c.Package, c.Symbol, why, replaced(c)), Source: c.Source})
			}
		}
	}
}

// hubID is the shape of a Hub model id.
var hubID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)

// modelIDs checks the model ids the snippet names: string literals
// assigned to a name that says model, passed first to from_pretrained, or
// as model=. It returns the id the remote-code window applies to (the
// resolved one, or the nearest known id) and its line.
func (a *auditor) modelIDs() (string, int) {
	type cand struct {
		id   string
		line int
	}
	var cs []cand
	seen := map[string]bool{}
	addID := func(id string, line int) {
		if hubID.MatchString(id) && !seen[id] {
			seen[id] = true
			cs = append(cs, cand{id, line})
		}
	}
	vars := map[string]string{}
	for _, as := range a.sn.Assigns {
		if as.Value == "" {
			continue
		}
		vars[as.Name] = as.Value
		n := strings.ToLower(as.Name)
		if strings.Contains(n, "model") || strings.Contains(n, "repo") || strings.Contains(n, "checkpoint") {
			addID(as.Value, as.Line)
		}
	}
	for _, c := range a.sn.Calls {
		if strings.HasSuffix(c.Func, "from_pretrained") && len(c.Args) > 0 && c.Args[0].Keyword == "" && c.Args[0].IsString {
			addID(c.Args[0].Str, c.Args[0].Line)
		}
		if arg, ok := c.Keyword("model"); ok && arg.IsString {
			addID(arg.Str, arg.Line)
		}
	}
	model, line := "", 0
	for _, c := range cs {
		id, _ := a.checkID(c.id, c.line)
		if model == "" && id != "" {
			model, line = id, c.line
		}
	}
	return model, line
}

// checkID reports an id that resolves neither among the site's snapshots
// nor on the Hub, and returns the id to use for the model (the known
// spelling, or the nearest known id).
func (a *auditor) checkID(id string, line int) (string, bool) {
	for _, k := range a.o.Known {
		if strings.EqualFold(k, id) {
			return k, true
		}
	}
	near := nearestID(id, a.o.Known)
	hint := ""
	if near != "" {
		hint = "; the nearest id the site knows is " + near
	}
	if a.o.Resolve != nil {
		err := a.o.Resolve(id)
		if err == nil {
			return id, true
		}
		a.add(Finding{Line: line, Severity: Error, Kind: KindModelID, Symbol: id,
			Message: fmt.Sprintf("model id %q does not resolve on the Hub: %v%s", id, err, hint), Source: a.o.HubSource})
		return near, false
	}
	if near != "" {
		a.add(Finding{Line: line, Severity: Error, Kind: KindModelID, Symbol: id,
			Message: fmt.Sprintf("model id %q is not a model the site has a snapshot of%s (checked offline: the Hub was not asked)", id, hint), Source: a.o.KnownSource})
		return near, false
	}
	a.add(Finding{Line: line, Severity: Warning, Kind: KindModelID, Symbol: id,
		Message: fmt.Sprintf("model id %q is not among the site's snapshots and was not checked on the Hub (offline)", id), Source: a.o.KnownSource})
	return "", false
}

// nearestID is the known id whose name is nearest to id's, when near
// enough to be the one meant: the same name in any case under another
// org, or within a few edits.
func nearestID(id string, known []string) string {
	_, name, _ := strings.Cut(strings.ToLower(id), "/")
	best, bestD := "", 1<<30
	for _, k := range known {
		_, kn, _ := strings.Cut(strings.ToLower(k), "/")
		d := editDistance(name, kn)
		if full := editDistance(strings.ToLower(id), strings.ToLower(k)); full < d {
			d = full
		}
		if d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	if best == "" || bestD > max(2, len(name)/4) {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// remoteCode reports the versions of each package the model's own code
// was found to run on: an error when a stated version is among those that
// failed (or past them), a warning when no version is stated.
func (a *auditor) remoteCode(model string, line int) {
	if model == "" {
		return
	}
	line = max(line, 1)
	for _, w := range a.o.Windows {
		if !strings.EqualFold(w.Model, model) || len(w.Fails) == 0 {
			continue
		}
		msg := fmt.Sprintf("%s: %s; works on %s %s, fails on %s", model, w.What, w.Package, listOr(w.Works), strings.Join(w.Fails, ", "))
		src := fmt.Sprintf("%s (as of %s)", w.Source, w.AsOf)
		v, stated := a.o.Versions[w.Package]
		if !stated {
			a.add(Finding{Line: line, Severity: Warning, Kind: KindRemoteCode, Symbol: w.Package,
				Message: msg + " (no --" + w.Package + " given: pin one of the working versions)", Source: src})
			continue
		}
		if failsAt(w, v) {
			a.add(Finding{Line: line, Severity: Error, Kind: KindRemoteCode, Symbol: w.Package,
				Message: fmt.Sprintf("%s (%s %s is outside the working versions)", msg, w.Package, format(v)), Source: src})
		}
	}
}

func listOr(vs []string) string {
	if len(vs) == 0 {
		return "no version tried"
	}
	return strings.Join(vs, ", ")
}

// failsAt reports whether v was tried and failed, or is at or past the
// first failing version with no working version at or after it.
func failsAt(w *catalog.Window, v Version) bool {
	var firstFail *Version
	for _, s := range w.Fails {
		f, err := ParseVersion(s)
		if err != nil {
			continue
		}
		if Compare(f, v) == 0 {
			return true
		}
		if firstFail == nil || Compare(f, *firstFail) < 0 {
			firstFail = &f
		}
	}
	if firstFail == nil || Compare(v, *firstFail) < 0 {
		return false
	}
	for _, s := range w.Works {
		if ok, err := ParseVersion(s); err == nil && Compare(ok, v) >= 0 {
			return false
		}
	}
	return true
}
