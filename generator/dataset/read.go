package dataset

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"dossier/generator/facts"
	"dossier/generator/internal/safefile"
)

// Limits on what Read takes from a built site: a facts.json of a
// K3-scale model is about a megabyte.
var (
	listLimit  = safefile.Limit{Bytes: 256 << 20, What: "a models.json"}
	factsLimit = safefile.Limit{Bytes: 64 << 20, What: "a facts.json"}
)

// Read loads every model a built site lists in models.json, with the
// facts of its facts.json, from the site directory dir.
func Read(dir string) ([]Model, error) {
	listPath := filepath.Join(dir, "models.json")
	b, err := safefile.Read(listPath, dir, listLimit)
	if err != nil {
		return nil, err
	}
	var list struct {
		Models []struct {
			Slug, Title, Model, Revision, URL string
		} `json:"models"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", listPath, err)
	}
	models := make([]Model, 0, len(list.Models))
	for i, m := range list.Models {
		if m.Slug == "" || strings.ContainsAny(m.Slug, `/\`) || m.Slug == "." || m.Slug == ".." {
			return nil, fmt.Errorf("%s: models[%d].slug %q is not a page directory name", listPath, i, m.Slug)
		}
		fp := filepath.Join(dir, "models", m.Slug, "facts.json")
		b, err := safefile.Read(fp, dir, factsLimit)
		if err != nil {
			return nil, err
		}
		var doc struct {
			Model    string     `json:"model"`
			Revision string     `json:"revision"`
			Facts    *facts.Set `json:"facts"`
		}
		doc.Facts = facts.NewSet()
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", fp, err)
		}
		if doc.Model != m.Model {
			return nil, fmt.Errorf("%s: model %q, but models.json lists %q for page %s", fp, doc.Model, m.Model, m.Slug)
		}
		models = append(models, Model{Model: m.Model, Revision: doc.Revision, Slug: m.Slug, Title: m.Title,
			URL: path.Dir(m.URL) + "/", Facts: doc.Facts})
	}
	return models, nil
}

// Paths of the dataset's files, relative to the site root.
const (
	FactsPath  = "data/facts.parquet"
	ModelsPath = "data/models.parquet"
)

// Write reads the built site in dir and writes its two Parquet files
// under outDir (FactsPath and ModelsPath relative to it), each atomically.
func Write(dir, outDir string) (facts, models int, err error) {
	ms, err := Read(dir)
	if err != nil {
		return 0, 0, err
	}
	fr := FactRows(ms)
	fb, err := Encode(fr)
	if err != nil {
		return 0, 0, err
	}
	mb, err := Encode(ModelRows(ms))
	if err != nil {
		return 0, 0, err
	}
	for _, f := range []struct {
		rel string
		b   []byte
	}{{FactsPath, fb}, {ModelsPath, mb}} {
		if err := writeAtomic(filepath.Join(outDir, filepath.FromSlash(f.rel)), f.b); err != nil {
			return 0, 0, err
		}
	}
	return len(fr), len(ms), nil
}

func writeAtomic(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}
