package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"dossier/generator/yamlx"
)

// Reference is a document the site's inputs cite by a short id ("seed
// 001"): a page names it by title, author or outlet, date and URL instead.
type Reference struct {
	ID    string `yaml:"id"`    // how inputs cite it: "seed 001"
	Title string `yaml:"title"` // the article's own title
	By    string `yaml:"by"`    // author or outlet
	Date  string `yaml:"date"`  // YYYY-MM-DD, or "" when the document is undated
	URL   string `yaml:"url"`   // "" when no public address is recorded
	Note  string `yaml:"note,omitempty"`
}

// Name is how a page cites the reference in running text.
func (r *Reference) Name() string {
	when := r.Date
	if when == "" {
		when = "undated"
	}
	return "“" + r.Title + "” (" + r.By + ", " + when + ")"
}

// loadReferences reads data/references.yaml if the site has one.
func loadReferences(fsys fs.FS, label, name string, c *Catalog) error {
	path := filepath.Join(label, name)
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read references %s: %w", path, err)
	}
	var f struct {
		References []*Reference `yaml:"references"`
	}
	if err := yamlx.Decode(path, b, &f); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, r := range f.References {
		field := func(n string) string { return fmt.Sprintf("references[%d].%s", i, n) }
		switch {
		case r.ID == "" || seen[r.ID]:
			return fmt.Errorf("%s: field %s: missing or duplicate id %q", path, field("id"), r.ID)
		case r.Title == "":
			return fmt.Errorf("%s: field %s: missing", path, field("title"))
		case r.By == "":
			return fmt.Errorf("%s: field %s: missing", path, field("by"))
		case r.Date != "" && !dateRe.MatchString(r.Date):
			return fmt.Errorf("%s: field %s: expected YYYY-MM-DD, found %q", path, field("date"), r.Date)
		}
		seen[r.ID] = true
	}
	c.References = f.References
	c.citations = newCitations(f.References)
	return nil
}

// citations finds citations of references by id in text.
type citations struct {
	prefix string         // what every id starts with ("seed 00"): text without it cites none, and most text is so
	re     *regexp.Regexp // any id, longest first, with an optional possessive
}

func newCitations(refs []*Reference) *citations {
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = regexp.QuoteMeta(r.ID)
	}
	// Longest ids first, so "seed 0010" is not read as "seed 001".
	sort.SliceStable(ids, func(i, j int) bool { return len(ids[i]) > len(ids[j]) })
	c := &citations{re: regexp.MustCompile(`(` + strings.Join(ids, "|") + `)\b('s)?`)}
	if len(refs) > 0 {
		c.prefix = refs[0].ID
	}
	for _, r := range refs {
		n := 0
		for n < len(c.prefix) && n < len(r.ID) && c.prefix[n] == r.ID[n] {
			n++
		}
		c.prefix = c.prefix[:n]
	}
	return c
}

// reference returns the reference cited as id.
func (c *Catalog) reference(id string) *Reference {
	for _, r := range c.References {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// NameReferences rewrites each citation of a reference by id in s ("seed
// 001", "seed 000 §8") as its name, keeping a section mark, and returns
// the references it named, in id order.
func (c *Catalog) NameReferences(s string) (string, []*Reference) {
	if len(c.References) == 0 {
		return s, nil
	}
	// Compiling the pattern costs more than a page's every use of it, so
	// Load compiles it once; a catalog built in code compiles it here.
	cites := c.citations
	if cites == nil {
		cites = newCitations(c.References)
	}
	if !strings.Contains(s, cites.prefix) {
		return s, nil
	}
	re := cites.re
	var used map[string]bool
	out := re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		r := c.reference(sub[1])
		if used == nil {
			used = map[string]bool{}
		}
		used[r.ID] = true
		return r.Name() + sub[2]
	})
	if used == nil {
		return out, nil
	}
	var named []*Reference
	for _, r := range c.References {
		if used[r.ID] {
			named = append(named, r)
		}
	}
	sort.Slice(named, func(i, j int) bool { return named[i].ID < named[j].ID })
	return out, named
}
