package site

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"dossier/generator/buildcache"
	"dossier/generator/claimlist"
	"dossier/generator/content"
	"dossier/generator/corrections"
	"dossier/generator/internal/jsonlist"
	"dossier/generator/methodology"
	"dossier/generator/publish"
	"dossier/generator/render"
)

// entry is one model of a build: its cache key and, once found or
// computed, its page record.
type entry struct {
	slug     string
	page     *content.Page
	key      string      // its page stage key, "" when it cannot be cached
	rec      *pageRecord // its files, set when found in the cache or computed
	listed   string      // the sum of its summary and models.json entry, which stay in the cache (listedOf)
	model    *Model      // kept with Options.Collect
	check    *pageCheck  // with Check: its findings, cached or computed
	computed bool        // by this build
}

// lookup finds e's page record in the cache (not with --full).
func (s *Site) lookup(e *entry) {
	if e.key = s.pageKey(e.page); e.key == "" || s.full {
		return
	}
	var r pageRecord
	if s.cache.Get(stagePage, e.key, &r) && complete(s.cache, r.Files) && len(r.Summary) > 0 && len(r.Entry) > 0 {
		e.rec, e.listed = &pageRecord{Files: r.Files}, r.listed()
	}
}

// produce computes what the cache did not hold, on every core, and
// returns every file to publish (publish path → object sum). Computed
// models are stored in the cache as soon as they are rendered and
// dropped, so memory does not grow with the site.
func (s *Site) produce() (map[string]string, int, error) {
	errs := make([]error, len(s.entries))
	verified := make([]int, len(s.entries))
	parallel(len(s.entries), func(i int) { verified[i], errs[i] = s.produceModel(s.entries[i]) })
	if err := firstError(errs); err != nil {
		return nil, 0, err
	}
	files := map[string]string{}
	n := 0
	for i, e := range s.entries {
		maps.Copy(files, e.rec.Files)
		n += verified[i]
	}
	shared, v, err := s.shared()
	if err != nil {
		return nil, 0, err
	}
	for name, sum := range shared {
		if _, dup := files[name]; dup {
			return nil, 0, fmt.Errorf("output path %q is written twice", name)
		}
		files[name] = sum
	}
	b, err := json.MarshalIndent(Manifest{Files: files}, "", " ")
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", FilesManifestPath, err)
	}
	if files[FilesManifestPath], err = s.cache.Put(append(b, '\n')); err != nil {
		return nil, 0, err
	}
	if s.verify {
		n++ // the manifest: every build computes it from the files above
	}
	return files, n + v, nil
}

// FilesManifestPath lists every other published file with the sha256 of
// its bytes, so that a deploy uploads only the files whose sum changed
// (dossier changed, scripts/deploy-changed).
const FilesManifestPath = ".dossier/files.json"

// Manifest is the document at FilesManifestPath.
type Manifest struct {
	Files map[string]string `json:"files"` // publish path → sha256 of its bytes
}

// produceModel computes e unless the cache held it; with --verify it
// computes a cached one too and compares. It returns how many files it
// verified.
func (s *Site) produceModel(e *entry) (int, error) {
	if e.rec != nil && !s.verify {
		return 0, nil
	}
	m := e.model
	if m == nil {
		computed, probs, err := s.computeModel(e.page)
		if err != nil {
			return 0, err
		}
		if len(probs) > 0 {
			return 0, problemsError(probs)
		}
		m = computed
	}
	files, err := s.renderModel(m)
	if err != nil {
		return 0, err
	}
	if e.rec != nil {
		return len(files), s.compare(e.rec.Files, files)
	}
	rec := &pageRecord{}
	if rec.Files, err = s.store(files); err != nil {
		return 0, err
	}
	sum, modelsEntry, err := s.summarize(m)
	if err != nil {
		return 0, err
	}
	rec.Entry = modelsEntry
	if rec.Summary, err = json.Marshal(sum); err != nil {
		return 0, fmt.Errorf("summary of %s: %w", e.slug, err)
	}
	if e.key == "" { // not looked up (Options.Collect)
		e.key = s.pageKey(e.page)
	}
	if err := s.cache.Set(stagePage, e.key, rec); err != nil {
		return 0, err
	}
	e.rec, e.listed, e.computed = &pageRecord{Files: rec.Files}, rec.listed(), true
	if s.Models == nil {
		e.model = nil // rendered: let it go (check keeps its models)
	}
	return 0, nil
}

// compare fails on the first file whose fresh bytes are not the cached
// object's, naming it and the first line that differs.
func (s *Site) compare(cached map[string]string, fresh map[string][]byte) error {
	names := slices.Sorted(maps.Keys(fresh))
	for name := range cached {
		if _, ok := fresh[name]; !ok {
			return fmt.Errorf("verify: %s is in the cache but not in a fresh build", name)
		}
	}
	for _, name := range names {
		sum, ok := cached[name]
		if !ok {
			return fmt.Errorf("verify: %s is in a fresh build but not in the cache", name)
		}
		b, err := os.ReadFile(s.cache.Path(sum))
		if err != nil {
			return fmt.Errorf("verify: %s: %w", name, err)
		}
		if bytes.Equal(b, fresh[name]) {
			continue
		}
		return fmt.Errorf("verify: the cached copy differs from a fresh build: %s (cache object %s; dossier build --full replaces it)", firstDifference(name, b, fresh[name]), s.cache.Path(sum))
	}
	return nil
}

// shared returns the files that list the models and the assets: from the
// cache when nothing they are made from changed, else rendered and stored.
func (s *Site) shared() (map[string]string, int, error) {
	key, err := s.sharedKey()
	if err != nil {
		return nil, 0, err
	}
	var rec sharedRecord
	hit := !s.full && s.cache.Get(stageShared, key, &rec) && complete(s.cache, rec.Files)
	if hit && !s.verify {
		return rec.Files, 0, nil
	}
	var fresh memory
	if !hit {
		fresh.cache = s.cache // stored as rendered, not all held at once
	}
	if err := s.sharedFiles(&fresh); err != nil {
		return nil, 0, err
	}
	if hit {
		return rec.Files, len(fresh.files), s.compare(rec.Files, fresh.files)
	}
	return fresh.sums, 0, s.cache.Set(stageShared, key, sharedRecord{Files: fresh.sums})
}

// store puts files into the cache and returns their sums by path.
func (s *Site) store(files map[string][]byte) (map[string]string, error) {
	sums := make(map[string]string, len(files))
	for name, b := range files {
		sum, err := s.cache.Put(b)
		if err != nil {
			return nil, err
		}
		sums[name] = sum
	}
	return sums, nil
}

// sharedFiles renders what lists the models (index, list pages, feeds,
// claims lists, models.json) and the assets, from the models' summaries,
// into out.
func (s *Site) sharedFiles(out *memory) error {
	for name, b := range map[string][]byte{"style.css": s.Templates.CSS, "sort.js": s.Templates.JS, publish.Marker: []byte(publish.MarkerText), "models.js": s.Templates.ModelsJS} {
		if err := out.put(name, b); err != nil {
			return err
		}
	}
	sums, items, err := s.listed(out)
	if err != nil {
		return err
	}
	if err := s.renderCalibration(out, sums); err != nil {
		return err
	}
	if err := s.renderInputs(out); err != nil {
		return err
	}
	if err := s.searchPages(out); err != nil {
		return err
	}
	if err := s.renderLists(out, sums); err != nil {
		return err
	}
	// The sitemap lists every HTML page.
	names := slices.Collect(maps.Keys(out.files))
	names = slices.AppendSeq(names, maps.Keys(out.sums))
	for _, e := range s.entries {
		names = slices.AppendSeq(names, maps.Keys(e.rec.Files))
	}
	var pages []string
	for _, name := range names {
		if dir, ok := strings.CutSuffix(name, "index.html"); ok {
			pages = append(pages, dir)
		}
	}
	return s.feeds(out, pages, sums, items)
}

// listed reads the models' summaries and models.json entries back from
// the cache one model at a time, in content order, writes claims.json,
// claims.csv, models.json and the methodology page as it goes, and keeps
// of each summary only what the lists, the calibration page and the
// sitemap read, and its feed items: not its claims.
func (s *Site) listed(out *memory) ([]*Summary, []item, error) {
	modelsFile, keepModels := out.create(ModelsPath)
	models, err := jsonlist.New(modelsFile, s.modelsDocOf(), " ")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ModelsPath, err)
	}
	js, keepJS := out.create(claimlist.JSONPath)
	table, keepCSV := out.create(claimlist.CSVPath)
	claimLists, err := claimlist.New(js, table)
	if err != nil {
		return nil, nil, err
	}
	examples := methodology.Input{Publisher: s.Config.Publisher, Organisation: s.Config.Organisation()}
	sums := make([]*Summary, len(s.entries))
	var items []item
	for i, e := range s.entries {
		sum, entry, err := s.listedOf(e)
		if err != nil {
			return nil, nil, err
		}
		if err := models.Add(entry); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", ModelsPath, err)
		}
		if err := claimLists.Add(sum.Claims); err != nil {
			return nil, nil, err
		}
		addExamples(&examples, sum)
		items = append(items, s.feedItems(sum)...)
		sum.Text, sum.Verdicts, sum.Claims, sum.Editorial = "", "", nil, nil
		sums[i] = sum
	}
	if err := errors.Join(models.Close(), keepModels(), claimLists.Close(), keepJS(), keepCSV()); err != nil {
		return nil, nil, err
	}
	return sums, items, s.renderMethodology(out, examples)
}

// searchPages renders the compare page and, with search on, the search
// page.
func (s *Site) searchPages(out *memory) error {
	cmp, err := s.Templates.ComparePage(render.HTMLPage{PageTitle: "Compare models · " + s.Config.Title, SiteTitle: s.Config.Title, Root: "../", Search: s.Config.Search})
	if err != nil {
		return err
	}
	if err := out.put("compare/index.html", cmp); err != nil {
		return err
	}
	if s.Config.Search {
		b, err := s.Templates.SearchPage(render.HTMLPage{PageTitle: "Search · " + s.Config.Title, SiteTitle: s.Config.Title, Root: "../", Search: true})
		if err != nil {
			return err
		}
		if err := out.put("search/index.html", b); err != nil {
			return err
		}
	}
	return nil
}

// sharedKey hashes everything the shared files are rendered from: the
// inputs every page depends on (templates, configuration, generator), the
// index page and every model's corrections log, summary and models.json
// entry, in order.
func (s *Site) sharedKey() (string, error) {
	parts := []string{stageShared, s.inputs}
	if s.Content.Index != nil {
		b, err := os.ReadFile(s.Content.Index.Path)
		if err != nil {
			return "", fmt.Errorf("hash inputs: %w", err)
		}
		parts = append(parts, string(b))
	}
	for _, e := range s.entries {
		// The feeds list each page's corrections.
		parts = append(parts, e.slug, corrections.Key(s.corrections[e.slug]), corrections.DatesKey(s.claimDates[e.slug]), e.listed)
	}
	return buildcache.Key(parts...), nil
}
