package site

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"dossier/generator/config"
	"dossier/generator/publish"
)

// Render computes the site and returns every output file, keyed by path
// relative to the publish directory, without publishing it.
func (s *Site) Render() (map[string][]byte, error) {
	files, _, err := s.produce()
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(files))
	for name, sum := range files {
		if out[name], err = os.ReadFile(s.cache.Path(sum)); err != nil {
			return nil, fmt.Errorf("build cache: %w", err)
		}
	}
	return out, nil
}

// Build computes the models the cache did not hold, on every core, and
// publishes the site: every file is linked from the cache into a staging
// directory that replaces dest at once, under dest's lock. When dest
// already holds exactly these files, nothing is written at all
// (Report.Unchanged); leftovers of interrupted builds are removed either
// way.
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
	files, verified, err := s.produce()
	if err != nil {
		return nil, err
	}
	r.ModuleTrees, r.Verified = int(s.analytic.built.Load()), verified
	for _, e := range s.entries {
		r.Models = append(r.Models, e.page.Front.Model)
		if e.computed {
			r.Rebuilt = append(r.Rebuilt, e.slug)
		} else {
			r.Reused = append(r.Reused, e.slug)
		}
	}
	r.Files = slices.Sorted(maps.Keys(files))
	lock, err := publish.Acquire(dest, opts.Wait)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if _, err := publish.Cleanup(dest); err != nil {
		return nil, err
	}
	paths := make(map[string]string, len(files))
	for name, sum := range files {
		paths[name] = s.cache.Path(sum)
	}
	// The search index is not in the cache: with search on, every build
	// stages and indexes.
	if !s.Config.Search && publish.Unchanged(dest, paths) {
		r.Unchanged = true
		return r, nil
	}
	st, err := lock.Stage()
	if err != nil {
		return nil, err
	}
	defer st.Discard()
	errs := make([]error, len(r.Files))
	parallel(len(r.Files), func(i int) { errs[i] = st.Link(r.Files[i], paths[r.Files[i]]) })
	if err := firstError(errs); err != nil {
		return nil, err
	}
	if s.Config.Search {
		if err := indexSearch(s.Config.SearchCommand, st.Dir); err != nil {
			return nil, err
		}
	}
	if err := st.Commit(); err != nil {
		return nil, err
	}
	// Entries no output links any more go after a few days.
	s.cache.Trim(time.Now())
	return r, nil
}

// guardDestination refuses a destination whose replacement would touch
// one of the site's inputs (see config.Site.CheckDestination), the build
// cache, or files a build did not write; the error names the setting (or
// flag, or variable) the destination came from, not only the path.
func guardDestination(cfg *config.Site, dest string) error {
	if err := destinationProblem(cfg, dest); err != nil {
		return fmt.Errorf("%s: field publishDir: %w", cfg.Origin("publishDir"), err)
	}
	return nil
}

func destinationProblem(cfg *config.Site, dest string) error {
	if err := cfg.CheckDestination(dest); err != nil {
		return fmt.Errorf("destination %w", err)
	}
	cache := filepath.Join(cfg.Root, CacheDir)
	if rel, err := filepath.Rel(dest, cache); err == nil && filepath.IsLocal(rel) || filepath.Clean(dest) == cache {
		return fmt.Errorf("destination %s would replace the build cache %s", dest, cache)
	}
	if rel, err := filepath.Rel(cache, dest); err == nil && filepath.IsLocal(rel) {
		return fmt.Errorf("destination %s is inside the build cache %s", dest, cache)
	}
	return publish.CheckReplaceable(dest)
}
