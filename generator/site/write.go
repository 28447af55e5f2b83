package site

import (
	"fmt"
	"os"
	"path/filepath"

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
	st, err := stage(dest, true)
	if err != nil {
		return nil, err
	}
	defer st.discard()
	files[OutputMarker] = []byte(markerText)
	for _, name := range sortedKeys(files) {
		if err := st.put(name, files[name]); err != nil {
			return nil, err
		}
	}
	if err := putStamps(st); err != nil {
		return nil, err
	}
	return st.commit(finish)
}

// Build computes the models Load left to compute, on every core, and
// publishes the site: each model's files are written into the staging
// directory as soon as the model is rendered, unchanged pages are
// hardlinked from the previous output, and the staging directory replaces
// dest atomically. When the previous output is dest and the build would
// publish exactly its files, nothing is written at all (Report.Unchanged).
func Build(s *Site, opts Options) (*Report, error) {
	dest := opts.Destination
	if dest == "" {
		dest = s.Config.Dir(s.Config.PublishDir)
	}
	dest = filepath.Clean(dest)
	if err := guardDestination(s.Config, dest); err != nil {
		return nil, err
	}
	r := &Report{Destination: dest}
	defer func() { r.ModuleTrees = int(s.analytic.built.Load()) }()
	names, unchanged, err := s.unchanged(dest)
	if err != nil {
		return nil, err
	}
	if unchanged {
		r.Files, r.Unchanged = names, true
	} else {
		// A --full build (no previous output) writes every byte.
		st, err := stage(dest, s.prev != nil)
		if err != nil {
			return nil, err
		}
		defer st.discard()
		if err := s.produce(st); err != nil {
			return nil, err
		}
		var finish func(string) error
		if s.Config.Search {
			finish = func(dir string) error { return indexSearch(s.Config.SearchCommand, dir) }
		}
		if r.Files, err = st.commit(finish); err != nil {
			return nil, err
		}
	}
	for _, e := range s.entries {
		r.Models = append(r.Models, e.page.Front.Model)
		if e.computed {
			r.Rebuilt = append(r.Rebuilt, e.slug)
			if e.spliced {
				r.Spliced = append(r.Spliced, e.slug)
			}
			if e.sideReused {
				r.Priced = append(r.Priced, e.slug)
			}
		} else {
			r.Reused = append(r.Reused, e.slug)
		}
	}
	return r, nil
}

// guardDestination refuses a destination whose replacement would touch
// one of the site's inputs (see config.Site.CheckDestination) or files a
// build did not write; the error names the setting (or flag, or variable)
// the destination came from, not only the path.
func guardDestination(cfg *config.Site, dest string) error {
	err := cfg.CheckDestination(dest)
	if err != nil {
		err = fmt.Errorf("destination %w", err)
	} else {
		err = checkReplaceable(dest)
	}
	if err != nil {
		return fmt.Errorf("%s: field publishDir: %w", cfg.Origin("publishDir"), err)
	}
	return nil
}
