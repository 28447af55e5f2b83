// Package audit checks a fine-tuning snippet, read by package pysnippet,
// against what the libraries it calls accept in the stated versions (the
// API-change table in data/api_changes.yaml), the model ids the site knows
// or the Hub resolves, and the model's remote-code window
// (data/software.yaml). Every finding names its line and its source.
package audit

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"dossier/generator/yamlx"
)

// TableFile is the API-change table's file name under data/.
const TableFile = "api_changes.yaml"

// Packages the table may describe: those whose trainer APIs snippets copy.
var Packages = []string{"transformers", "trl", "peft", "accelerate", "bitsandbytes"}

// Change is one row of the table: a symbol (or one keyword argument of
// it) and the versions of its package where it exists.
type Change struct {
	Package string `yaml:"package"`
	// Symbol is relative to the package: "SFTTrainer", "optim.AdamW8bit",
	// "Trainer.train"; "*.from_pretrained" is that method on any class
	// imported from the package.
	Symbol  string `yaml:"symbol"`
	Keyword string `yaml:"keyword"`
	// AddedIn and RemovedIn bound the versions that have it:
	// [AddedIn, RemovedIn); an empty bound is open.
	AddedIn      string `yaml:"added_in"`
	RemovedIn    string `yaml:"removed_in"`
	DeprecatedIn string `yaml:"deprecated_in"` // still accepted, with a warning
	ReplacedBy   string `yaml:"replaced_by"`
	// Expects "dataset": a string literal passed as Keyword is an error.
	Expects string `yaml:"expects"`
	Source  string `yaml:"source"`
	AsOf    string `yaml:"as_of"`
}

// Table is the API-change table.
type Table struct {
	Changes []*Change `yaml:"changes"`
	// Label names where it was read, for messages.
	Label string `yaml:"-"`
}

var (
	dateRe    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	symbolRe  = regexp.MustCompile(`^(\*|[A-Za-z_][A-Za-z0-9_]*)(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
	keywordRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// LoadTable reads TableFile from fsys (a site's data/ directory or the
// built-in data), strictly: unknown fields, unknown packages, versions
// that do not parse, rows without a source or date are errors naming the
// row and field.
func LoadTable(fsys fs.FS, label string) (*Table, error) {
	path := filepath.ToSlash(filepath.Join(label, TableFile))
	b, err := fs.ReadFile(fsys, TableFile)
	if err != nil {
		return nil, fmt.Errorf("read API-change table %s: %w", path, err)
	}
	return ParseTable(path, b)
}

// ParseTable decodes and validates a table; name is used in errors.
func ParseTable(name string, b []byte) (*Table, error) {
	var t Table
	if err := yamlx.Decode(name, b, &t); err != nil {
		return nil, err
	}
	if len(t.Changes) == 0 {
		return nil, fmt.Errorf("%s: field changes: no rows", name)
	}
	seen := map[string]int{}
	for i, c := range t.Changes {
		if c == nil {
			return nil, fmt.Errorf("%s: field changes[%d]: empty row", name, i)
		}
		field := func(f string) string { return fmt.Sprintf("changes[%d].%s", i, f) }
		bad := func(f, format string, args ...any) error {
			return fmt.Errorf("%s: line %d: field %s: %s", name, yamlx.Line(b, field(f)), field(f), fmt.Sprintf(format, args...))
		}
		switch {
		case !slices.Contains(Packages, c.Package):
			return nil, bad("package", "expected one of %s, found %q", strings.Join(Packages, ", "), c.Package)
		case !symbolRe.MatchString(c.Symbol) || strings.Contains(c.Symbol[1:], "*"):
			return nil, bad("symbol", "expected a dotted name (or *.method), found %q", c.Symbol)
		case c.Keyword != "" && !keywordRe.MatchString(c.Keyword):
			return nil, bad("keyword", "expected an identifier, found %q", c.Keyword)
		case c.Expects != "" && c.Expects != "dataset":
			return nil, bad("expects", "expected dataset, found %q", c.Expects)
		case c.Expects != "" && c.Keyword == "":
			return nil, bad("expects", "needs the keyword that takes it")
		case c.AddedIn == "" && c.RemovedIn == "" && c.DeprecatedIn == "" && c.Expects == "":
			return nil, bad("removed_in", "a row needs added_in, removed_in, deprecated_in or expects")
		case strings.TrimSpace(c.Source) == "":
			return nil, bad("source", "missing: cite the release note, commit or source that says so")
		case !dateRe.MatchString(c.AsOf):
			return nil, bad("as_of", "expected YYYY-MM-DD, found %q", c.AsOf)
		}
		for _, v := range []struct{ f, s string }{{"added_in", c.AddedIn}, {"removed_in", c.RemovedIn}, {"deprecated_in", c.DeprecatedIn}} {
			if v.s == "" {
				continue
			}
			if _, err := ParseVersion(v.s); err != nil {
				return nil, bad(v.f, "%v", err)
			}
		}
		if c.AddedIn != "" && c.RemovedIn != "" {
			a, _ := ParseVersion(c.AddedIn)
			r, _ := ParseVersion(c.RemovedIn)
			if Compare(a, r) >= 0 {
				return nil, bad("removed_in", "%s is not after added_in %s", c.RemovedIn, c.AddedIn)
			}
		}
		key := c.Package + " " + c.Symbol + " " + c.Keyword + " " + c.Expects
		if j, dup := seen[key]; dup {
			return nil, bad("symbol", "repeats changes[%d] (%s %s %s)", j, c.Package, c.Symbol, c.Keyword)
		}
		seen[key] = i
	}
	t.Label = name
	return &t, nil
}

// Version is a release number: numeric parts, and whether a pre-release
// suffix (rc, dev, a, b) follows them.
type Version struct {
	Parts []int
	Pre   bool
}

var versionRe = regexp.MustCompile(`^v?(\d+(?:\.\d+){0,3})((?:\.?(?:rc|dev|a|b|post)\d*)?)$`)

// ParseVersion reads "5.0.0", "0.12", "v1.9.0" or "5.0.0rc1".
func ParseVersion(s string) (Version, error) {
	m := versionRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Version{}, fmt.Errorf("version %q: expected numbers such as 4.57.1", s)
	}
	var v Version
	for _, p := range strings.Split(m[1], ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n > 1<<20 {
			return Version{}, fmt.Errorf("version %q: part %q out of range", s, p)
		}
		v.Parts = append(v.Parts, n)
	}
	v.Pre = m[2] != "" && !strings.Contains(m[2], "post")
	return v, nil
}

// Compare orders versions; a pre-release precedes its release.
func Compare(a, b Version) int {
	for i := range max(len(a.Parts), len(b.Parts)) {
		var x, y int
		if i < len(a.Parts) {
			x = a.Parts[i]
		}
		if i < len(b.Parts) {
			y = b.Parts[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case a.Pre == b.Pre:
		return 0
	case a.Pre:
		return -1
	}
	return 1
}
