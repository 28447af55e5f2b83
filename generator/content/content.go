// Package content reads content/: one Markdown file per model with YAML
// front matter, and _index.md pages. Front matter is split by hand and
// decoded strictly, so a misspelt field is an error, not a silent default.
package content

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"dossier/generator/snapshot"
	"dossier/generator/yamlx"
)

// Page is one content file.
type Page struct {
	Path     string // file path, for errors
	Slug     string // file name without .md
	Front    Front
	Body     []byte
	BodyLine int // 1-based line of the body's first line in the file
}

// Front is a page's front matter.
type Front struct {
	Title        string        `yaml:"title"`
	Model        string        `yaml:"model"` // org/name on the Hub; empty for section pages
	Org          string        `yaml:"org"`
	Date         string        `yaml:"date"`   // release date of the model
	Review       string        `yaml:"review"` // date this dossier was reviewed
	Summary      string        `yaml:"summary"`
	Draft        bool          `yaml:"draft"`
	Tags         []string      `yaml:"tags"`
	Published    []Published   `yaml:"published"`
	Claims       []Claim       `yaml:"claims"`
	Variants     []Variant     `yaml:"variants"`
	Measurements []Measurement `yaml:"measurements"`
	Sources      []Source      `yaml:"sources"`
	Conflicts    []Conflict    `yaml:"conflicts"`
}

// Variant is another published form of the model (a GGUF quant, an NVFP4
// conversion) with its size from that repository's file listing.
type Variant struct {
	Name   string  `yaml:"name"`
	Repo   string  `yaml:"repo"`
	Format string  `yaml:"format"`
	Bytes  float64 `yaml:"bytes"`
	Source string  `yaml:"source"`
}

// Published is a figure the model's authors published, kept beside the
// derived figure with its source so the page can compare the two.
type Published struct {
	Key    string  `yaml:"key"` // the fact it corresponds to, e.g. params.active
	Value  float64 `yaml:"value"`
	Unit   string  `yaml:"unit"`
	Text   string  `yaml:"text"` // as printed, e.g. "104 B"
	Source string  `yaml:"source"`
}

var (
	dateRe    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	slugRe    = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	variantRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// Split separates YAML front matter delimited by "---" lines from the body.
func Split(b []byte) (front, body []byte, bodyLine int, err error) {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(b, []byte("---\n")) {
		return nil, b, 1, nil
	}
	rest := b[4:]
	// "---" right after the opening line closes an empty front matter.
	if bytes.HasPrefix(rest, []byte("---\n")) || bytes.Equal(rest, []byte("---")) {
		return []byte{}, bytes.TrimPrefix(rest[3:], []byte("\n")), 3, nil
	}
	end := bytes.Index(rest, []byte("\n---\n"))
	var after []byte
	switch {
	case end >= 0:
		after = rest[end+5:]
	case bytes.HasSuffix(rest, []byte("\n---")):
		end = len(rest) - 4
	default:
		return nil, nil, 0, fmt.Errorf("line 1: front matter opened with --- is never closed")
	}
	front = rest[:end+1]
	bodyLine = 2 + bytes.Count(front, []byte("\n")) + 1
	return front, after, bodyLine, nil
}

// Parse reads one content file's bytes.
func Parse(path string, b []byte) (*Page, error) {
	front, body, line, err := Split(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p := &Page{Path: path, Body: body, BodyLine: line}
	p.Slug = strings.TrimSuffix(filepath.Base(path), ".md")
	if front != nil && !emptyYAML(front) {
		// Line numbers from yaml.v3 count from the first front matter line,
		// which is line 2 of the file.
		if err := yamlx.Decode(path, front, &p.Front); err != nil {
			return nil, shiftLines(err, 1)
		}
		// The lines are filled before validate, whose errors cite them.
		lines := func(key string, set func(i, line int)) {
			for i, l := range itemLines(front, key, 2) {
				set(i, l)
			}
		}
		f := &p.Front
		lines("claims", func(i, l int) { f.Claims[i].Line = l })
		lines("measurements", func(i, l int) { f.Measurements[i].Line = l })
		lines("sources", func(i, l int) { f.Sources[i].Line = l })
		lines("conflicts", func(i, l int) { f.Conflicts[i].Line = l })
	}
	// Empty front matter decodes to nothing: validate names what is missing.
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// emptyYAML reports whether front holds no YAML document: nothing but
// blank lines and comments.
func emptyYAML(front []byte) bool {
	var doc yaml.Node
	return yaml.Unmarshal(front, &doc) == nil && len(doc.Content) == 0
}

var yamlLineRe = regexp.MustCompile(`line (\d+):`)

func shiftLines(err error, by int) error {
	msg := yamlLineRe.ReplaceAllStringFunc(err.Error(), func(m string) string {
		var n int
		fmt.Sscanf(m, "line %d:", &n)
		return fmt.Sprintf("line %d:", n+by)
	})
	return fmt.Errorf("%s", msg)
}

func (p *Page) validate() error {
	f := &p.Front
	if strings.HasPrefix(p.Slug, "_") {
		return nil
	}
	if !slugRe.MatchString(p.Slug) {
		return fmt.Errorf("file name %q: expected lower-case letters, digits and dashes", p.Slug)
	}
	if f.Title == "" {
		return fmt.Errorf("field title: missing")
	}
	if f.Model == "" {
		return fmt.Errorf("field model: missing (the Hub id, org/name)")
	}
	// The id becomes a path below data/hub: the snapshot's own rule keeps
	// it there.
	if !snapshot.ValidModel(f.Model) {
		return fmt.Errorf("field model: expected an org/name Hub id, found %q", f.Model)
	}
	if f.Date != "" && !dateRe.MatchString(f.Date) {
		return fmt.Errorf("field date: expected YYYY-MM-DD, found %q", f.Date)
	}
	if f.Review != "" && !dateRe.MatchString(f.Review) {
		return fmt.Errorf("field review: expected YYYY-MM-DD, found %q", f.Review)
	}
	for i, pub := range f.Published {
		if pub.Key == "" || pub.Source == "" {
			return fmt.Errorf("field published[%d]: needs key and source", i)
		}
	}
	variants := map[string]int{}
	for i, v := range f.Variants {
		first, dup := variants[v.Name]
		switch {
		case !variantRe.MatchString(v.Name):
			return fmt.Errorf("field variants[%d].name: expected letters, digits, '.', '_' or '-', found %q", i, v.Name)
		case dup:
			return fmt.Errorf("field variants[%d].name: expected a name no other variant has, found %q again (variants[%d])", i, v.Name, first)
		case v.Repo == "" || v.Source == "":
			return fmt.Errorf("field variants[%d]: needs repo and source", i)
		case v.Bytes <= 0 || v.Bytes != float64(int64(v.Bytes)):
			return fmt.Errorf("field variants[%d].bytes: expected a positive whole number of bytes, found %v", i, v.Bytes)
		}
		variants[v.Name] = i
	}
	return validateClaims(f)
}

// Site is every content page.
type Site struct {
	Index  *Page   // content/_index.md
	Models []*Page // content/models/*.md, by slug
}

// Load reads content/_index.md and content/models/*.md.
func Load(dir string) (*Site, error) {
	s := &Site{}
	idx := filepath.Join(dir, "_index.md")
	if b, err := os.ReadFile(idx); err == nil {
		p, err := Parse(idx, b)
		if err != nil {
			return nil, err
		}
		s.Index = p
	} else if !os.IsNotExist(err) {
		return nil, fmt.Errorf("read %s: %w", idx, err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "models", "*.md"))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	sort.Strings(files)
	models := map[string]string{}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "_") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f, err)
		}
		p, err := Parse(f, b)
		if err != nil {
			return nil, err
		}
		if prev, dup := models[p.Front.Model]; dup {
			return nil, fmt.Errorf("%s: field model: %s already has a page in %s", f, p.Front.Model, prev)
		}
		models[p.Front.Model] = f
		s.Models = append(s.Models, p)
	}
	return s, nil
}
