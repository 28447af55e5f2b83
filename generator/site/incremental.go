package site

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"dossier/generator/config"
	"dossier/generator/content"
)

// ManifestPath is where a build records, inside its output, the inputs
// each model page was computed from, so the next build can reuse pages
// whose inputs did not change.
const ManifestPath = ".dossier/manifest.json"

type manifest struct {
	Models map[string]manifestEntry `json:"models"` // by slug
}

type manifestEntry struct {
	Hash    string            `json:"hash"`
	Files   map[string]string `json:"files"` // path relative to the publish directory → sha256 of its bytes
	Summary *Summary          `json:"summary"`
}

func sum256(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// entry is one model of a build: computed now, or reused whole from the
// previous output.
type entry struct {
	slug    string
	hash    string
	model   *Model            // nil when reused
	summary *Summary          // always set
	reused  map[string][]byte // the previous output's files, when reused
}

func (s *Site) summaries() []*Summary {
	out := make([]*Summary, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.summary
	}
	return out
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
// effective configuration, the catalogs and the templates.
func sharedInputs(cfg *config.Site) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "generator %s\n", generatorKey())
	c := *cfg
	c.Root, c.File = "", "" // where the site lives does not change its pages
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	h.Write(b)
	for _, dir := range []string{cfg.Dir(cfg.TemplatesDir), filepath.Join(cfg.Dir(cfg.DataDir), "pricing")} {
		if err := hashDir(h, dir); err != nil {
			return "", err
		}
	}
	if err := hashFile(h, filepath.Join(cfg.Dir(cfg.DataDir), "hardware.yaml")); err != nil {
		return "", err
	}
	for _, name := range []string{"software.yaml", "references.yaml"} {
		if f := filepath.Join(cfg.Dir(cfg.DataDir), name); fileExists(f) {
			if err := hashFile(h, f); err != nil {
				return "", err
			}
		}
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
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("hash inputs: %w", err)
	}
	fmt.Fprintf(h, "%s %d\n", filepath.Base(path), len(b))
	h.Write(b)
	return nil
}

func modelHash(shared string, p *content.Page, snapshotPath string) (string, error) {
	h := sha256.New()
	h.Write([]byte(shared))
	if err := hashFile(h, p.Path); err != nil {
		return "", err
	}
	if err := hashFile(h, snapshotPath); err != nil {
		// A missing snapshot is an error the full computation reports.
		return "", nil
	}
	return hex.EncodeToString(h.Sum(nil)), nil
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
	return &m
}

// reuse returns the previous output of slug when its inputs are unchanged
// and every file it wrote is still there.
func reuse(prev *manifest, dir, slug, hash string) (manifestEntry, map[string][]byte, bool) {
	if prev == nil || hash == "" {
		return manifestEntry{}, nil, false
	}
	e, ok := prev.Models[slug]
	if !ok || e.Hash != hash || e.Summary == nil {
		return manifestEntry{}, nil, false
	}
	files := map[string][]byte{}
	for f, want := range e.Files {
		if !filepath.IsLocal(f) {
			return manifestEntry{}, nil, false
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		// A file edited by hand since the build is not reused.
		if err != nil || sum256(b) != want {
			return manifestEntry{}, nil, false
		}
		files[f] = b
	}
	return e, files, true
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
