package site

import (
	"os"
	"path/filepath"
)

// ModelSidePath is where a build keeps a page's sizing before prices
// (sizing.ModelSide), so that the next build, when only data/pricing
// changed, prices it instead of deriving it again.
func ModelSidePath(slug string) string { return ".dossier/model-side/" + slug + ".bin" }

// previousModelSide is the model side the previous output kept for e, when
// it was derived from the same inputs but the price lists and is intact;
// else nil.
func (s *Site) previousModelSide(e *entry) []byte {
	if s.prev == nil || e.modelSide == "" {
		return nil
	}
	pe, ok := s.prev.Models[e.slug]
	if !ok || pe.ModelSide != e.modelSide {
		return nil
	}
	name := ModelSidePath(e.slug)
	sum, ok := pe.Files[name]
	if !ok || !s.intact(name, sum) {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(s.prevDir, filepath.FromSlash(name)))
	if err != nil {
		return nil // derived again: a lost cache only costs time
	}
	return b
}
