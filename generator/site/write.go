package site

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"dossier/generator/config"
)

// OutputMarker is written into every build's output. A directory that
// exists, is not empty and lacks it was not written by dossier, and is
// never replaced: a mistyped --destination must not delete someone's files.
const OutputMarker = ".dossier/OUTPUT"

const markerText = "Written by dossier. This directory is replaced as a whole on every build.\n"

// checkReplaceable refuses to replace an existing directory that a build
// did not write.
func checkReplaceable(dest string) error {
	st, err := os.Stat(dest)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("destination %s: %w", dest, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("destination %s exists and is not a directory", dest)
	}
	for _, mark := range []string{OutputMarker, ManifestPath} {
		if _, err := os.Stat(filepath.Join(dest, filepath.FromSlash(mark))); err == nil {
			return nil
		}
	}
	entries, err := os.ReadDir(dest)
	if err != nil {
		return fmt.Errorf("destination %s: %w", dest, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("destination %s is not empty and was not written by dossier (no %s): refusing to replace it; remove it or choose another directory", dest, OutputMarker)
	}
	return nil
}

// Publish writes files into dest atomically: everything goes into a fresh
// sibling directory first, which then replaces dest with two renames. An
// error before the swap leaves dest as it was.
func Publish(dest string, files map[string][]byte) ([]string, error) {
	return PublishWith(dest, files, nil)
}

// PublishWith is Publish with a step that runs on the staged output before
// it replaces dest (the search index); its failure keeps dest as it was.
func PublishWith(dest string, files map[string][]byte, finish func(staged string) error) ([]string, error) {
	dest = filepath.Clean(dest)
	if _, err := repairSwap(dest); err != nil {
		return nil, err
	}
	if err := checkReplaceable(dest); err != nil {
		return nil, err
	}
	files[OutputMarker] = []byte(markerText)
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", parent, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dest)+".new-")
	if err != nil {
		return nil, fmt.Errorf("create staging directory: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op after a successful swap
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !filepath.IsLocal(name) {
			return nil, fmt.Errorf("output path %q escapes the publish directory", name)
		}
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", filepath.Dir(p), err)
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", p, err)
		}
	}
	if finish != nil {
		if err := finish(tmp); err != nil {
			return nil, err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("chmod %s: %w", tmp, err)
	}
	old := ""
	if _, err := os.Stat(dest); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dest, old); err != nil {
			return nil, fmt.Errorf("move previous output aside: %w", err)
		}
	}
	if err := os.Rename(tmp, dest); err != nil {
		if old != "" {
			os.Rename(old, dest) // put the previous output back
		}
		return nil, fmt.Errorf("swap in new output: %w", err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return nil, fmt.Errorf("remove previous output: %w", err)
		}
	}
	return names, nil
}

// Build loads, computes, renders and publishes the site.
func Build(s *Site, opts Options) (*Report, error) {
	files, err := s.Render()
	if err != nil {
		return nil, err
	}
	dest := opts.Destination
	if dest == "" {
		dest = s.Config.Dir(s.Config.PublishDir)
	}
	if err := guardDestination(s.Config, dest); err != nil {
		return nil, err
	}
	var finish func(string) error
	if s.Config.Search {
		finish = func(dir string) error { return indexSearch(s.Config.SearchCommand, dir) }
	}
	names, err := PublishWith(dest, files, finish)
	if err != nil {
		return nil, err
	}
	r := &Report{Destination: dest, Files: names}
	for _, e := range s.entries {
		r.Models = append(r.Models, e.summary.Model)
		if e.model != nil {
			r.Rebuilt = append(r.Rebuilt, e.slug)
		} else {
			r.Reused = append(r.Reused, e.slug)
		}
	}
	return r, nil
}

// guardDestination refuses a destination whose replacement would touch
// one of the site's inputs (see config.Site.CheckDestination).
func guardDestination(cfg *config.Site, dest string) error {
	if err := cfg.CheckDestination(dest); err != nil {
		return fmt.Errorf("destination %w", err)
	}
	return nil
}
