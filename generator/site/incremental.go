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
	"strconv"
	"strings"
	"sync"

	"dossier/generator/config"
	"dossier/generator/content"
	"dossier/generator/corrections"
	"dossier/generator/internal/safefile"
	"dossier/generator/render"
)

// ManifestPath is where a build records, inside its output, the inputs
// each model page was computed from, so the next build can reuse pages
// whose inputs did not change.
const ManifestPath = ".dossier/manifest.json"

type manifest struct {
	Models map[string]manifestEntry `json:"models"` // by slug
	// Shared is every other published file (lists, feeds, assets, the
	// cache) and its sum (sumOf), so a build can tell it would change nothing.
	Shared map[string]string `json:"shared"`
	// SharedKey hashes what the lists, feeds and assets are rendered
	// from; when it is unchanged they are reused like a page.
	SharedKey string `json:"shared_key"`
	// Lists is the key of each list page (the index, "", and the groups'
	// directories): a list whose models did not change is reused when
	// the rest of the shared files are rendered again.
	Lists map[string]string `json:"lists,omitempty"`
	// Summaries is the sum of SummariesPath as this build wrote it.
	Summaries string `json:"summaries,omitempty"`
	// Stamps is the size and modification time of every file, so reuse
	// can trust a file without reading it. They describe the file system,
	// not the site, so they live apart in StampsPath: every other file of
	// an incremental build is byte for byte that of a full build.
	Stamps map[string]stamp `json:"-"`
}

// StampsPath holds manifest.Stamps.
const StampsPath = ".dossier/stamps.json"

// SummariesPath holds each manifest entry's Summary and Entry: per model,
// in slug order, a line "<slug length> <summary length> <entry length>"
// and then the three, as they are.
const SummariesPath = ".dossier/summaries"

type manifestEntry struct {
	Hash  string            `json:"hash"`
	Files map[string]string `json:"files"` // path relative to the publish directory → the sum of its bytes
	// Summary is the model's Summary as published, kept encoded: the
	// lists are rendered from it, and a site of thousands of models holds
	// kilobytes, not a tree of maps, per model. It and Entry, its
	// models.json entry (apart, so that the lists do not decode it), are
	// most of the manifest's bytes: they are kept in SummariesPath, framed
	// by their lengths, not scanned by a JSON decoder twice.
	Summary  json.RawMessage `json:"-"`
	Entry    json.RawMessage `json:"-"`
	Analytic string          `json:"analytic,omitempty"` // its module-tree figures in CacheDir
	// Page is the sha256 of the content file, and Model and Draft what
	// its front matter says: the next build need not parse a page whose
	// bytes are unchanged to find its snapshot (see knownFront).
	Page  string          `json:"page"`
	Model string          `json:"model"`
	Draft bool            `json:"draft,omitempty"`
	Dated []content.Dated `json:"dated,omitempty"`
	// ModelSide hashes its inputs but the price lists: when the next
	// build's is the same, Priced and Dossier let it write what prices
	// changed into these files (see splice.go).
	ModelSide string               `json:"model_side,omitempty"`
	Priced    *pricedRuns          `json:"priced,omitempty"`   // in facts.json and facts.html
	Dossier   *render.DossierParts `json:"dossier,omitempty"`  // in index.html
	Markdown  *render.DossierParts `json:"markdown,omitempty"` // in index.md
}

// entry is one model of a build: computed now, or reused whole from the
// previous output.
type entry struct {
	slug string
	page *content.Page
	hash string
	// modelSide hashes its inputs but the price lists (sharedInputs).
	modelSide string
	model     *Model          // set while computed and not yet published (kept with Options.Collect)
	computed  bool            // by this build
	summary   json.RawMessage // the encoded Summary: set once computed, or when reused
	// modelsEntry is its models.json entry, encoded (see summarize).
	modelsEntry json.RawMessage
	files       map[string]string    // published path → sum; when reused, the previous output's files
	analytic    string               // cache key of its module-tree figures
	priced      *pricedRuns          // where its facts files hold the priced facts
	dossier     *render.DossierParts // where its HTML page holds its tables
	markdown    *render.DossierParts // where its Markdown page holds them
	reused      bool
	spliced     bool // its facts files were written into the previous ones
	sideReused  bool // its sizing's model side was the previous one, priced anew
}

// summaries decodes every model's summary, in content order, for the
// files that list them.
func (s *Site) summaries() ([]*Summary, error) {
	out := make([]*Summary, len(s.entries))
	for i, e := range s.entries {
		if err := json.Unmarshal(e.summary, &out[i]); err != nil || out[i] == nil {
			return nil, fmt.Errorf("summary of %s: %v", e.slug, err)
		}
		out[i].raw = e.summary
	}
	return out, nil
}

// generatorKey identifies the generator itself: a rebuilt binary (any code
// change) invalidates every cached page.
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
		return "unknown" // never matches a stored hash written by a known binary
	}
	return hex.EncodeToString(h.Sum(nil))
})

// sharedInputs hashes what every page depends on: the generator, the
// effective configuration, the catalogs and the templates. modelSide
// hashes the same but for the price lists, which decide only the facts
// sizing.Priced names.
func sharedInputs(cfg *config.Site) (all, modelSide string, err error) {
	h := sha256.New()
	fmt.Fprintf(h, "generator %s\n", generatorKey())
	c := *cfg
	c.Root, c.File = "", "" // where the site lives does not change its pages
	b, err := json.Marshal(c)
	if err != nil {
		return "", "", err
	}
	h.Write(b)
	if err := hashDir(h, cfg.Dir(cfg.TemplatesDir)); err != nil {
		return "", "", err
	}
	if err := hashFile(h, filepath.Join(cfg.Dir(cfg.DataDir), "hardware.yaml")); err != nil {
		return "", "", err
	}
	for _, name := range []string{"software.yaml", "references.yaml", "api_changes.yaml", "local.yaml"} {
		if f := filepath.Join(cfg.Dir(cfg.DataDir), name); fileExists(f) {
			if err := hashFile(h, f); err != nil {
				return "", "", err
			}
		}
	}
	if err := hashGGUFStores(h, cfg.Dir(cfg.DataDir)); err != nil {
		return "", "", err
	}
	// Snippets a page audits (front matter finetune.snippet).
	if err := hashDir(h, filepath.Join(cfg.Dir(cfg.ContentDir), "snippets")); err != nil {
		return "", "", err
	}
	modelSide = hex.EncodeToString(h.Sum(nil))
	h.Reset()
	fmt.Fprintf(h, "model side %s\n", modelSide)
	if err := hashDir(h, filepath.Join(cfg.Dir(cfg.DataDir), "pricing")); err != nil {
		return "", "", err
	}
	return hex.EncodeToString(h.Sum(nil)), modelSide, nil
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

// modelHash hashes what a model's files are computed from: the shared
// inputs, its page (by the sum of the bytes it was read with, Page.Sum)
// and its snapshot; modelSide, the same with the model-side shared inputs
// (see sharedInputs).
func modelHash(shared, sharedModelSide string, p *content.Page, snapshotPath string) (hash, modelSide string, err error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\n", filepath.Base(p.Path), p.Sum)
	if err := hashFile(h, snapshotPath); err != nil {
		// A missing snapshot is an error the full computation reports.
		return "", "", nil
	}
	own := h.Sum(nil)
	sum := func(shared string) string {
		h.Reset()
		h.Write([]byte(shared))
		h.Write(own)
		return hex.EncodeToString(h.Sum(nil))
	}
	return sum(shared), sum(sharedModelSide), nil
}

// knownFront is content.Known for the previous build: a page whose bytes
// it recorded need not be parsed to find its snapshot or its dates. A page
// computed again is parsed then; should it name another model than the
// manifest did, its inputs are hashed again (produceModel).
func (s *Site) knownFront(path, sum string) (*content.Front, []content.Dated) {
	if s.prev == nil {
		return nil, nil
	}
	me, ok := s.prev.Models[strings.TrimSuffix(filepath.Base(path), ".md")]
	if !ok || me.Page == "" || me.Page != sum {
		return nil, nil
	}
	return &content.Front{Model: me.Model, Draft: me.Draft}, me.Dated
}

// loadManifest reads the previous build's manifest; a missing or unreadable
// one means nothing can be reused.
func loadManifest(dir string) *manifest {
	if dir == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ManifestPath)))
	if err != nil {
		return nil
	}
	var m manifest
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(StampsPath))); err == nil {
		json.Unmarshal(b, &m.Stamps) // without stamps, files are hashed
	}
	// Without them, or with other bytes than were written, no page is
	// reused.
	if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(SummariesPath))); err == nil && sumOf(b) == m.Summaries {
		readSummaries(b, m.Models)
	}
	return &m
}

// appendSummaries appends the SummariesPath record of the entry slug.
func appendSummaries(b []byte, slug string, summary, entry []byte) []byte {
	b = strconv.AppendInt(b, int64(len(slug)), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(summary)), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(entry)), 10)
	b = append(b, '\n')
	b = append(b, slug...)
	b = append(b, summary...)
	return append(b, entry...)
}

// readSummaries sets the Summary and Entry of models from a SummariesPath
// file; it stops at the first record that is not one, leaving the rest
// without (pages computed again).
func readSummaries(b []byte, models map[string]manifestEntry) {
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte{'\n'})
		f := strings.Fields(string(line))
		if !ok || len(f) != 3 {
			return
		}
		var n [3]int
		total := 0
		for i, s := range f {
			v, err := strconv.Atoi(s)
			if err != nil || v < 0 || v > len(rest)-total {
				return
			}
			n[i] = v
			total += v
		}
		slug := string(rest[:n[0]])
		me, ok := models[slug]
		if !ok {
			return
		}
		me.Summary = json.RawMessage(rest[n[0] : n[0]+n[1]])
		me.Entry = json.RawMessage(rest[n[0]+n[1] : total])
		models[slug] = me
		b = rest[total:]
	}
}

// reuse marks e as taken from the previous output when its inputs are
// unchanged and every file it wrote is still there with the bytes it had
// (a file edited by hand since the build is not reused). The files are
// hashed, not kept: publishing links them.
func (s *Site) reuse(e *entry) {
	if s.prev == nil || e.hash == "" {
		return
	}
	me, ok := s.prev.Models[e.slug]
	if !ok || me.Hash != e.hash || len(me.Summary) == 0 || string(me.Summary) == "null" || len(me.Entry) == 0 {
		return
	}
	for f, want := range me.Files {
		if !s.intact(f, want) {
			return
		}
	}
	e.reused, e.summary, e.modelsEntry, e.files, e.analytic, e.priced, e.dossier, e.markdown = true, me.Summary, me.Entry, me.Files, me.Analytic, me.Priced, me.Dossier, me.Markdown
}

// intact says whether the previous output's file name still has the bytes
// it was published with: by its stamp, or else by hashing it.
func (s *Site) intact(name, sum string) bool {
	if !filepath.IsLocal(name) {
		return false
	}
	p := filepath.Join(s.prevDir, filepath.FromSlash(name))
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if st, ok := s.prevStamp(name); ok && st == stampOf(fi) {
		return true
	}
	got, err := fileSum(p)
	if err != nil || got != sum {
		return false
	}
	// Verified: what it is on disk now is what its link will show.
	s.stampsMu.Lock()
	defer s.stampsMu.Unlock()
	if s.prev.Stamps == nil {
		s.prev.Stamps = map[string]stamp{}
	}
	s.prev.Stamps[name] = stampOf(fi)
	return true
}

// prevStamp is the stamp of the previous output's file name: as recorded,
// or as found when intact verified it.
func (s *Site) prevStamp(name string) (stamp, bool) {
	s.stampsMu.Lock()
	defer s.stampsMu.Unlock()
	st, ok := s.prev.Stamps[name]
	return st, ok
}

// reuseFile publishes the previous output's file name, which intact
// verified has sum: a hardlink has the stamp it was verified by.
func (s *Site) reuseFile(out sink, name, sum string) error {
	var known *stamp
	if st, ok := s.prevStamp(name); ok {
		known = &st
	}
	return out.reuse(name, filepath.Join(s.prevDir, filepath.FromSlash(name)), sum, known)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// hashEntry hashes e's inputs (modelHash) with the snapshot its page names.
func (s *Site) hashEntry(e *entry) error {
	log := corrections.Key(s.corrections[e.slug]) + corrections.DatesKey(s.claimDates[e.slug])
	var err error
	e.hash, e.modelSide, err = modelHash(s.inputs+log, s.modelSideInputs+log, e.page, snapshotPath(s.Config, e.page.Front.Model))
	return err
}
