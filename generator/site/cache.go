package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"dossier/generator/buildcache"
	"dossier/generator/config"
	"dossier/generator/content"
	"dossier/generator/corrections"
	"dossier/generator/internal/safefile"
)

// CacheDir is the build cache, under the site root (see the package doc).
const CacheDir = ".dossier-cache"

// The stages' record names in the cache (buildcache records/STAGE/KEY).
const (
	stageFront    = "front"
	stageAnalytic = "analytic"
	stagePage     = "page"
	stageShared   = "shared"
	stageCheck    = "check"
)

// frontRecord is what a build reads of a page's front matter before it
// computes the page: enough to find its snapshot and check its dates.
type frontRecord struct {
	Model string          `json:"model"`
	Draft bool            `json:"draft,omitempty"`
	Dated []content.Dated `json:"dated,omitempty"`
}

// pageRecord is one model's published files and what the shared files
// read of it.
type pageRecord struct {
	Files   map[string]string `json:"files"`   // publish path → object sum
	Summary json.RawMessage   `json:"summary"` // the encoded Summary
	Entry   json.RawMessage   `json:"entry"`   // its models.json entry
}

// listed is the sum of what the shared files read of r, for their key.
func (r *pageRecord) listed() string { return buildcache.Key(string(r.Summary), string(r.Entry)) }

// listedOf reads e's summary and models.json entry back from its record,
// which this build found or wrote: the shared files take one model at a
// time, so a build does not hold every model's claims.
func (s *Site) listedOf(e *entry) (*Summary, json.RawMessage, error) {
	var r pageRecord
	if !s.cache.Get(stagePage, e.key, &r) || r.listed() != e.listed {
		return nil, nil, fmt.Errorf("build cache %s: the page record of %s is gone or not the one this build read or wrote; build again", s.cache.Dir(), e.slug)
	}
	var sum *Summary
	if err := json.Unmarshal(r.Summary, &sum); err != nil || sum == nil {
		return nil, nil, fmt.Errorf("summary of %s: %v", e.slug, err)
	}
	return sum, r.Entry, nil
}

// sharedRecord is the files that list the models, and the assets.
type sharedRecord struct {
	Files map[string]string `json:"files"` // publish path → object sum
}

// complete says whether every object r names is in the cache.
func complete(c *buildcache.Cache, files map[string]string) bool {
	if len(files) == 0 {
		return false
	}
	for _, sum := range files {
		if !c.Has(sum) {
			return false
		}
	}
	return true
}

// generatorKey identifies the generator itself: a rebuilt binary (any code
// change) misses every cache entry.
var generatorKey = sync.OnceValue(func() string {
	h := sha256.New()
	exe, err := os.Executable()
	if err == nil {
		var f *os.File
		if f, err = os.Open(exe); err == nil {
			_, err = io.Copy(h, f)
			f.Close()
		}
	}
	if err != nil {
		return "unknown" // never matches a key written by a known binary
	}
	return hex.EncodeToString(h.Sum(nil))
})

// sharedInputs hashes what every page depends on: the generator, the
// effective configuration, the templates, the catalogs, the price lists
// and the ids of the models with a snapshot (a fine-tune's snippet audit
// names a model it has none of; it is a list, not a file of data/).
func sharedInputs(cfg *config.Site, known []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "generator %s\nsnapshots %q\n", generatorKey(), known)
	c := *cfg
	// Where the site lives and where it is published do not change its
	// pages (the corrections log read from the publish directory's history
	// is keyed apart).
	c.Root, c.File, c.PublishDir = "", "", ""
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	h.Write(b)
	if err := hashDir(h, cfg.Dir(cfg.TemplatesDir)); err != nil {
		return "", err
	}
	// Every file at the top of data/ is a catalog some page reads
	// (hardware, software, references, local machines, API changes, the
	// speed model), and the price lists, the GGUF stores and the snippets
	// pages audit are inputs too.
	for _, dir := range []string{cfg.Dir(cfg.DataDir), filepath.Join(cfg.Dir(cfg.DataDir), "pricing"), filepath.Join(cfg.Dir(cfg.ContentDir), "snippets")} {
		if err := hashDir(h, dir); err != nil {
			return "", err
		}
	}
	if err := hashGGUFStores(h, cfg.Dir(cfg.DataDir)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashDir(h io.Writer, dir string) error {
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, n := range names {
		if st, err := os.Stat(n); err == nil && !st.IsDir() {
			if err := hashFile(h, n); err != nil {
				return err
			}
		}
	}
	return nil
}

func hashFile(h io.Writer, path string) error {
	b, err := safefile.Read(path, filepath.Dir(path), safefile.Largest)
	if err != nil {
		return fmt.Errorf("hash inputs: %w", err)
	}
	fmt.Fprintf(h, "%s %d\n", filepath.Base(path), len(b))
	h.Write(b)
	return nil
}

// pageKey hashes what a model's files are computed from: the shared
// inputs, its corrections log and claim dates, its page (by the sum of the bytes it was
// read with) and its snapshot. "" when the snapshot cannot be read: the
// computation reports that.
func (s *Site) pageKey(p *content.Page) string {
	h := sha256.New()
	fmt.Fprintf(h, "inputs %s\ncorrections %s\nclaim dates %s\npage %s %s\n", s.inputs, corrections.Key(s.corrections[p.Slug]), corrections.DatesKey(s.claimDates[p.Slug]), filepath.Base(p.Path), p.Sum)
	if err := hashFile(h, snapshotPath(s.Config, p.Front.Model)); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// frontKey names the front record of a page's bytes.
func frontKey(sum string) string { return buildcache.Key(stageFront, generatorKey(), sum) }

// knownFront is content.Known from the cache: a page whose bytes were
// parsed before need not be parsed to find its snapshot or its dates.
func (s *Site) knownFront(_, sum string) (*content.Front, []content.Dated) {
	var r frontRecord
	if s.cache == nil || s.full || s.verify || !s.cache.Get(stageFront, frontKey(sum), &r) {
		return nil, nil
	}
	return &content.Front{Model: r.Model, Draft: r.Draft}, r.Dated
}

// rememberFront records the front matter of the pages parsed by this build.
func (s *Site) rememberFront() error {
	if s.cache == nil {
		return nil
	}
	for _, p := range s.Content.Models {
		if p.Known {
			continue
		}
		if err := s.cache.Set(stageFront, frontKey(p.Sum), frontRecord{Model: p.Front.Model, Draft: p.Front.Draft, Dated: p.Dated}); err != nil {
			return err
		}
	}
	return nil
}

// firstDifference describes where two versions of a file first differ:
// the line number and both lines.
func firstDifference(name string, cached, fresh []byte) string {
	line := 1
	for {
		a, restA, okA := bytes.Cut(cached, []byte{'\n'})
		b, restB, okB := bytes.Cut(fresh, []byte{'\n'})
		if !bytes.Equal(a, b) || okA != okB {
			return fmt.Sprintf("%s:%d: cached %q, fresh %q", name, line, clip(a), clip(b))
		}
		if !okA {
			return fmt.Sprintf("%s: same lines, different bytes", name)
		}
		cached, fresh, line = restA, restB, line+1
	}
}

func clip(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}
