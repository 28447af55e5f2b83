// Package content reads content/: one Markdown file per model with YAML
// front matter, and _index.md pages. Front matter is split by hand and
// decoded strictly, so a misspelt field is an error, not a silent default.
package content

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"dossier/generator/internal/safefile"
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
	// Partial is a page not kept whole (see LoadStubs): Front holds only
	// Model and Draft, Body is nil, Dated is kept. ParseFull reads the rest.
	Partial bool
	// Dated is every date of the front matter, for the future-date check.
	Dated []Dated
	// Known is a stub whose front matter came from a Known function: the
	// page was not parsed.
	Known bool
	// Sum is the sha256 of the file's bytes as read, in hex: a build keys
	// its cache with it rather than reading the page again.
	Sum string
}

// Dated is a date of a page's front matter.
type Dated struct {
	Field string `json:"field"` // review, date, claims[2].date
	Line  int    `json:"line"`  // of the item holding it; 0 when only the field is known
	Date  string `json:"date"`
}

// Stub is p without what a model page's computation alone needs: a site of
// thousands of pages keeps only stubs between reading and computing them.
func (p *Page) Stub() *Page {
	return &Page{Path: p.Path, Slug: p.Slug, Front: Front{Model: p.Front.Model, Draft: p.Front.Draft}, Partial: true, Dated: p.Dated, Sum: p.Sum}
}

func (p *Page) dated() []Dated {
	f := &p.Front
	var out []Dated
	add := func(field string, line int, date string) {
		if date != "" {
			out = append(out, Dated{Field: field, Line: line, Date: date})
		}
	}
	add("review", 0, f.Review)
	add("date", 0, f.Date)
	for i, m := range f.Measurements {
		add(fmt.Sprintf("measurements[%d].date", i), m.Line, m.Date)
	}
	for i, c := range f.Claims {
		add(fmt.Sprintf("claims[%d].date", i), c.Line, c.Date)
	}
	for i, c := range f.Corrections {
		add(fmt.Sprintf("corrections[%d].date", i), c.Line, c.Date)
	}
	return out
}

// ParseFull returns p parsed in full, reading its file again if p is
// Partial.
func (p *Page) ParseFull() (*Page, error) {
	if !p.Partial {
		return p, nil
	}
	b, err := safefile.Read(p.Path, filepath.Dir(p.Path), safefile.Page)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.Path, err)
	}
	return Parse(p.Path, b)
}

// Front is a page's front matter.
type Front struct {
	Title string `yaml:"title"`
	// TitleChecked says a title equal to the page's slug is how the
	// authors style the name (gpt-oss-20b), not a scaffold left as is.
	TitleChecked bool          `yaml:"title_checked"`
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
	Finetune     *Finetune     `yaml:"finetune"`
	// Corrections are the editorial entries of the page's corrections log
	// (the build adds those it reads from git).
	Corrections []Correction `yaml:"corrections"`
	// Reviewer is the named person who reviewed the page's claims, when
	// not the site's publisher.reviewer.
	Reviewer string `yaml:"reviewer"`
}

// Finetune asks the page for a fine-tuning preflight: the LoRA targets
// resolved against the model's module tree (package lora) and, when a
// snippet is named, its audit (package audit), computed at build.
type Finetune struct {
	Targets   []string `yaml:"targets"`   // PEFT target_modules
	Rank      int64    `yaml:"rank"`      // LoRA r; 16 when absent
	Batch     int64    `yaml:"batch"`     // sequences per step for the memory terms; 1 when absent
	SeqLen    int64    `yaml:"seq_len"`   // tokens per sequence; 2048 when absent
	Optimizer string   `yaml:"optimizer"` // adamw, adamw_8bit or sgd; adamw when absent
	// Snippet is a Python file under the content directory (e.g.
	// snippets/kimi-k3-sft.py) that the page audits; SnippetSource says
	// where it was published.
	Snippet       string `yaml:"snippet"`
	SnippetSource string `yaml:"snippet_source"`
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

// MaxOrg bounds an organisation name, which becomes a path (orgs/<org>/).
const MaxOrg = 100

var (
	dateRe    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	orgRe     = regexp.MustCompile(`^[^/\\\x00-\x1f]*[A-Za-z0-9][^/\\\x00-\x1f]*$`)
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
func Parse(path string, b []byte) (*Page, error) { return parse(path, b, sha256Hex(b)) }

// parse is Parse of bytes whose Page.Sum is sum.
func parse(path string, b []byte, sum string) (*Page, error) {
	front, body, line, err := Split(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p := &Page{Path: path, Body: body, BodyLine: line, Sum: sum}
	p.Slug = strings.TrimSuffix(filepath.Base(path), ".md")
	// One parse into a node tells an empty front matter, gives the items'
	// lines and is decoded; the bytes are parsed again, strictly, only
	// when a key has no field or decoding fails, for the error. (Parse
	// was once six YAML parses, most of a build's reading.)
	var doc yaml.Node
	docErr := yaml.Unmarshal(front, &doc)
	if front != nil && (docErr != nil || len(doc.Content) > 0) {
		// Line numbers from yaml.v3 count from the first front matter line,
		// which is line 2 of the file.
		decode := yamlx.Decode
		if docErr == nil {
			decode = func(name string, b []byte, v any) error { return yamlx.DecodeNode(name, b, &doc, v) }
		}
		if err := decode(path, front, &p.Front); err != nil {
			return nil, shiftLines(err, 1)
		}
		// The lines are filled before validate, whose errors cite them. An
		// empty item ("claims:\n  -") decodes to no element at all, so the
		// items and the elements are counted against each other.
		f := &p.Front
		for _, list := range []struct {
			key string
			n   int
			set func(i, line int)
		}{
			{"claims", len(f.Claims), func(i, l int) { f.Claims[i].Line = l }},
			{"measurements", len(f.Measurements), func(i, l int) { f.Measurements[i].Line = l }},
			{"sources", len(f.Sources), func(i, l int) { f.Sources[i].Line = l }},
			{"conflicts", len(f.Conflicts), func(i, l int) { f.Conflicts[i].Line = l }},
			{"corrections", len(f.Corrections), func(i, l int) { f.Corrections[i].Line = l }},
		} {
			// Front matter starts on the file's second line.
			nodes := items(&doc, list.key)
			for i, item := range nodes {
				if item.Kind == yaml.ScalarNode && item.Tag == "!!null" {
					return nil, fmt.Errorf("%s: line %d: field %s[%d]: an empty item", path, item.Line+1, list.key, i)
				}
			}
			if len(nodes) != list.n {
				return nil, fmt.Errorf("%s: field %s: %d items in the file, %d read", path, list.key, len(nodes), list.n)
			}
			for i, item := range nodes {
				list.set(i, item.Line+1)
			}
		}
	}
	// Empty front matter decodes to nothing: validate names what is missing.
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.Dated = p.dated()
	return p, nil
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
	if f.Date != "" && !ValidDate(f.Date) {
		return fmt.Errorf("field date: expected a real YYYY-MM-DD date, found %q", f.Date)
	}
	if f.Review != "" && !ValidDate(f.Review) {
		return fmt.Errorf("field review: expected a real YYYY-MM-DD date, found %q", f.Review)
	}
	// The reviewer is the ClaimReview's author, a Person: a name, not
	// a description.
	if f.Reviewer != "" && (strings.TrimSpace(f.Reviewer) == "" || vagueBy.MatchString(f.Reviewer)) {
		return fmt.Errorf("field reviewer: expected the named person who reviewed the claims, found %q", shortText(f.Reviewer))
	}
	if f.Org != "" && (len(f.Org) > MaxOrg || !orgRe.MatchString(f.Org)) {
		return fmt.Errorf("field org: expected a name of at most %d bytes with a letter or digit and no slash or control character (it becomes a path), found %d bytes %q", MaxOrg, len(f.Org), shortText(f.Org))
	}
	for i, pub := range f.Published {
		if pub.Key == "" || pub.Source == "" {
			return fmt.Errorf("field published[%d]: needs key and source", i)
		}
		if !(pub.Value >= 0 && pub.Value <= 1e18) { // NaN too
			return fmt.Errorf("field published[%d].value: expected a figure from 0 to 1e18, found %v", i, pub.Value)
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
	if err := validateFinetune(f.Finetune); err != nil {
		return err
	}
	return validateClaims(f)
}

// validateFinetune checks the preflight's settings; the targets and the
// snippet's contents are checked where they are resolved (site).
func validateFinetune(ft *Finetune) error {
	if ft == nil {
		return nil
	}
	switch {
	case len(ft.Targets) == 0:
		return fmt.Errorf("field finetune.targets: list the target_modules to resolve")
	case ft.Rank < 0 || ft.Rank > 1<<16:
		return fmt.Errorf("field finetune.rank: expected 1 to 65536, found %d", ft.Rank)
	case ft.Batch < 0 || ft.Batch > 1<<20:
		return fmt.Errorf("field finetune.batch: expected 1 to %d, found %d", 1<<20, ft.Batch)
	case ft.SeqLen < 0 || ft.SeqLen > 1<<24:
		return fmt.Errorf("field finetune.seq_len: expected 1 to %d, found %d", 1<<24, ft.SeqLen)
	}
	for i, t := range ft.Targets {
		if strings.TrimSpace(t) == "" {
			return fmt.Errorf("field finetune.targets[%d]: empty", i)
		}
	}
	if ft.Snippet != "" {
		clean := filepath.ToSlash(filepath.Clean(ft.Snippet))
		if filepath.IsAbs(ft.Snippet) || clean == ".." || strings.HasPrefix(clean, "../") || !strings.HasSuffix(clean, ".py") {
			return fmt.Errorf("field finetune.snippet: expected a .py file under the content directory, found %q", ft.Snippet)
		}
		if ft.SnippetSource == "" {
			return fmt.Errorf("field finetune.snippet_source: say where the snippet was published")
		}
	}
	return nil
}

// shortText keeps an echoed value short enough for a message.
func shortText(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// Site is every content page.
type Site struct {
	Index  *Page   // content/_index.md
	Models []*Page // content/models/*.md, by slug
}

// Load reads content/_index.md and content/models/*.md.
func Load(dir string) (*Site, error) { return load(dir, nil, false) }

// Known returns the front matter and dates an earlier parse of a model
// page whose bytes have the sha256 sum (hex) found, or nil to parse them
// now. A site of thousands of pages spends most of a build with nothing
// changed decoding YAML.
type Known func(path, sum string) (*Front, []Dated)

// LoadStubs is Load keeping each model page as its Stub, so that memory
// does not grow with the site: each page is read and checked in full, but
// kept only as a stub. A page known returns front matter for is not
// parsed at all: its stub has that front matter and those dates.
func LoadStubs(dir string, known Known) (*Site, error) { return load(dir, known, true) }

func load(dir string, known Known, stubs bool) (*Site, error) {
	s := &Site{}
	idx := filepath.Join(dir, "_index.md")
	if b, err := safefile.Read(idx, dir, safefile.Page); err == nil {
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
	pages, err := parseAll(files, known, stubs)
	if err != nil {
		return nil, err
	}
	models := map[string]string{}
	for i, p := range pages {
		if p == nil {
			continue
		}
		if prev, dup := models[p.Front.Model]; dup {
			return nil, fmt.Errorf("%s: field model: %s already has a page in %s", files[i], p.Front.Model, prev)
		}
		models[p.Front.Model] = files[i]
		s.Models = append(s.Models, p)
	}
	return s, nil
}

// parseAll reads and parses the pages on every core (a site of thousands
// of pages spends most of a no-change build here); pages[i] is files[i],
// nil for a skipped "_" file, and the error is the first file's in order.
func parseAll(files []string, known Known, stubs bool) ([]*Page, error) {
	pages := make([]*Page, len(files))
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for i := range next {
				f := files[i]
				if strings.HasPrefix(filepath.Base(f), "_") {
					continue
				}
				b, err := safefile.Read(f, filepath.Dir(f), safefile.Page)
				if err != nil {
					errs[i] = fmt.Errorf("read %s: %w", f, err)
					continue
				}
				sum := sha256Hex(b)
				if known != nil {
					if front, dated := known(f, sum); front != nil {
						pages[i] = &Page{Path: f, Slug: strings.TrimSuffix(filepath.Base(f), ".md"), Front: *front, Dated: dated, Partial: true, Known: true, Sum: sum}
						continue
					}
				}
				pages[i], errs[i] = parse(f, b, sum)
				if stubs && errs[i] == nil {
					pages[i] = pages[i].Stub()
				}
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return pages, nil
}

// sha256Hex is the sha256 of b in hex (Page.Sum).
func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
