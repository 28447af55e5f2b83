package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"dossier/generator/render"
)

// produce publishes the whole site into out: the models on every core,
// each written as soon as it is rendered and then dropped, then the
// files that list them.
func (s *Site) produce(out output) error {
	// Recomputed models go first, and the files that list the models are
	// rendered as soon as the last of them is done, beside the links of
	// the reused ones: a one-model rebuild is mostly links, and they kept
	// one core busy while the lists waited for them.
	order := make([]*entry, 0, len(s.entries))
	for _, e := range s.entries {
		if !e.reused {
			order = append(order, e)
		}
	}
	recomputed := len(order)
	for _, e := range s.entries {
		if e.reused {
			order = append(order, e)
		}
	}
	type sharedResult struct {
		key   string
		lists map[string]string
		err   error
	}
	shared := make(chan sharedResult, 1)
	startShared := func() {
		go func() {
			key, lists, err := s.shared(out)
			shared <- sharedResult{key, lists, err}
		}()
	}
	if recomputed == 0 {
		startShared()
	}
	var prefetching sync.WaitGroup
	prefetching.Go(func() { s.prefetch(order[:recomputed], willNeed) })
	defer prefetching.Wait()
	var left atomic.Int64
	left.Store(int64(recomputed))
	errs := make([]error, len(order))
	parallel(len(order), func(i int) {
		errs[i] = s.produceModel(order[i], out)
		if i < recomputed && left.Add(-1) == 0 {
			startShared()
		}
	})
	res := <-shared
	if err := firstError(errs); err != nil {
		return err
	}
	if res.err != nil {
		return res.err
	}
	for _, name := range sortedKeys(s.cacheFiles()) {
		if err := s.putCache(out, name); err != nil {
			return err
		}
	}
	sums := out.sums()
	h := newSum()
	if err := out.write(SummariesPath, func(w io.Writer) error { return s.writeSummaries(io.MultiWriter(w, h)) }); err != nil {
		return err
	}
	summaries := sumString(h)
	if err := out.write(ManifestPath, func(w io.Writer) error { return s.writeManifest(w, sums, res.key, res.lists, summaries) }); err != nil {
		return err
	}
	return putStamps(out)
}

// putStamps publishes the stamps file, last: what out has published.
func putStamps(out output) error {
	b, err := json.Marshal(out.stamps())
	if err != nil {
		return fmt.Errorf("%s: %w", StampsPath, err)
	}
	return out.put(StampsPath, append(b, '\n'))
}

// prefetch passes to need (willNeed, which has the kernel read ahead) the
// previous output's files that models priced anew read
// (previousModelSide, previousPage), in the order the workers take the
// models. With a cold page cache a price build otherwise waited for about
// 0.9 GB at 1,000 pages, one file at a time on each worker.
func (s *Site) prefetch(models []*entry, need func(path string)) {
	if s.prev == nil {
		return
	}
	for _, e := range models {
		pe, ok := s.prev.Models[e.slug]
		if !ok || e.modelSide == "" || pe.ModelSide != e.modelSide {
			continue
		}
		dir := "models/" + e.slug + "/"
		for _, name := range []string{ModelSidePath(e.slug), dir + "facts.json", dir + "facts.html", dir + "index.html", dir + "index.md"} {
			if _, ok := pe.Files[name]; ok {
				need(filepath.Join(s.prevDir, filepath.FromSlash(name)))
			}
		}
	}
}

// shared publishes the files that list the models (see sharedFiles), or
// links them when nothing they are made from changed. It returns their
// key and the list pages' keys. Every recomputed model is done; reused
// ones may still be linking.
func (s *Site) shared(out output) (key string, lists map[string]string, err error) {
	if key, err = s.sharedKey(); err != nil {
		return "", nil, err
	}
	if reused, ok := s.reusableShared(key); ok {
		for _, name := range sortedKeys(reused) {
			if err := s.reuseFile(out, name, reused[name]); err != nil {
				return "", nil, err
			}
		}
		return key, s.prev.Lists, nil
	}
	lists, err = s.sharedFiles(out)
	return key, lists, err
}

func (s *Site) produceModel(e *entry, out output) error {
	if e.reused {
		for _, name := range sortedKeys(e.files) {
			if err := s.reuseFile(out, name, e.files[name]); err != nil {
				return err
			}
		}
		return nil
	}
	m := e.model
	if m == nil {
		computed, probs, err := s.computeModel(e.page, s.previousModelSide(e))
		if err != nil {
			return err
		}
		if len(probs) > 0 {
			return problemsError(probs)
		}
		m = computed
	}
	if e.page.Known {
		// Its stub came from the manifest; the page just parsed has the
		// last word on the model it names and on its dates.
		known := e.page
		e.page = m.Content.Stub()
		if e.page.Front.Model != known.Front.Model {
			if err := s.hashEntry(e); err != nil {
				return err
			}
		}
	}
	files, err := s.renderModel(m, e)
	if err != nil {
		return err
	}
	e.files = map[string]string{}
	var before map[string]string // the previous output's files of this page
	if s.prev != nil {
		before = s.prev.Models[e.slug].Files
	}
	sidePath := ModelSidePath(e.slug)
	if e.sideReused = m.sideReused; m.sideReused {
		// Read, checked and priced: link it without hashing it again.
		if err := s.reuseFile(out, sidePath, before[sidePath]); err != nil {
			return err
		}
		e.files[sidePath] = before[sidePath]
	} else if m.side != nil {
		files[sidePath] = m.side
	}
	for _, name := range sortedKeys(files) {
		sum := sumOf(files[name])
		// A file rendered to the bytes it already had (a chart when only
		// prices moved) is linked, not written: no new file to create.
		if was, ok := before[name]; ok && was == sum && s.intact(name, sum) {
			if err := s.reuseFile(out, name, sum); err != nil {
				return err
			}
		} else if err := out.putSum(name, files[name], sum); err != nil {
			return err
		}
		e.files[name] = sum
	}
	sum, modelsEntry, err := s.summarize(m)
	if err != nil {
		return err
	}
	e.modelsEntry = modelsEntry
	if e.summary, err = json.Marshal(sum); err != nil {
		return fmt.Errorf("summary of %s: %w", e.slug, err)
	}
	e.analytic, e.computed = m.analyticKey, true
	if s.Models == nil {
		e.model = nil // published: let it go (check keeps its models)
	}
	return nil
}

// sharedFiles renders what lists the models (index, list pages, feeds,
// models.json) and the assets, from the models' summaries, into out. It
// returns the list pages' keys.
func (s *Site) sharedFiles(to sink) (map[string]string, error) {
	sums, err := s.summaries()
	if err != nil {
		return nil, err
	}
	out := &pageSink{sink: to}
	for _, e := range s.entries {
		for name := range e.files {
			if dir, ok := strings.CutSuffix(name, "index.html"); ok {
				out.pages = append(out.pages, dir)
			}
		}
	}
	for name, b := range map[string][]byte{"style.css": s.Templates.CSS, "sort.js": s.Templates.JS, OutputMarker: []byte(markerText), "models.js": s.Templates.ModelsJS} {
		if err := out.put(name, b); err != nil {
			return nil, err
		}
	}
	// The calibration page, models.json and the compare and search pages
	// do not depend on the lists: they are rendered beside them, on the
	// core the index (the longest list) leaves free.
	var wg sync.WaitGroup
	var othersErr error
	wg.Go(func() { othersErr = s.unlisted(out, sums) })
	lists, err := s.renderLists(out, sums)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if othersErr != nil {
		return nil, othersErr
	}
	return lists, s.feeds(out, out.pages, sums)
}

// unlisted renders the shared pages that are not lists: the calibration
// page, models.json and the compare and search pages.
func (s *Site) unlisted(out sink, sums []*Summary) error {
	if err := s.renderCalibration(out, sums); err != nil {
		return err
	}
	if err := s.renderMethodology(out, sums); err != nil {
		return err
	}
	if err := s.renderClaimsIndex(out, sums); err != nil {
		return err
	}
	doc := s.modelsDocOf()
	if err := out.write(ModelsPath, func(w io.Writer) error { return writeModelsJSON(w, doc, s.modelEntries()) }); err != nil {
		return err
	}
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

// cacheFiles names the cache entry of every published model's config.
func (s *Site) cacheFiles() map[string]string {
	out := map[string]string{}
	for _, e := range s.entries {
		if e.analytic != "" {
			out[CacheDir+e.analytic+".json"] = e.analytic
		}
	}
	return out
}

// putCache publishes one cache entry: computed or read by this build, or
// carried over from the previous output for a reused page.
func (s *Site) putCache(out output, name string) error {
	key := strings.TrimSuffix(strings.TrimPrefix(name, CacheDir), ".json")
	if b := s.analytic.files([]string{key})[name]; b != nil {
		return out.put(name, b)
	}
	from := filepath.Join(s.prevDir, filepath.FromSlash(name))
	sum, err := fileSum(from)
	if err != nil {
		return nil // a lost cache entry only costs the next build time
	}
	return out.reuse(name, from, sum, nil)
}

// sharedKey hashes everything the shared files are rendered from: the
// inputs every page depends on (templates, configuration, generator), the
// index page and every model's summary, in order.
func (s *Site) sharedKey() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "inputs %s\n", s.inputs)
	if s.Content.Index != nil {
		if err := hashFile(h, s.Content.Index.Path); err != nil {
			return "", err
		}
	}
	for _, e := range s.entries {
		h.Write(e.summary)
		h.Write([]byte{'\n'})
		h.Write(e.modelsEntry) // models.json is a shared file
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// reusableShared returns the previous output's shared files (not the
// cache) when they were rendered from the same key and are intact.
func (s *Site) reusableShared(key string) (map[string]string, bool) {
	if s.prev == nil || s.prev.SharedKey != key || s.prev.Shared == nil {
		return nil, false
	}
	out := map[string]string{}
	for name, sum := range s.prev.Shared {
		if strings.HasPrefix(name, CacheDir) {
			continue
		}
		if !s.intact(name, sum) {
			return nil, false
		}
		out[name] = sum
	}
	return out, true
}

// writeManifest writes the build's manifest as json.Marshal encodes a
// manifest (TestManifestIsMarshal), one model at a time: not indented, it
// is 12 MB at 5,000 models, read by machines only.
func (s *Site) writeManifest(w io.Writer, sums map[string]string, key string, lists map[string]string, summaries string) error {
	shared := maps.Clone(sums)
	for _, e := range s.entries {
		for name := range e.files {
			delete(shared, name)
		}
	}
	ew := &errWriter{w: w}
	ew.WriteString(`{"models":{`)
	var buf []byte
	for i, e := range s.bySlug() {
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, e.slug)
		buf = append(buf, ':')
		me := e.manifestEntry()
		ew.Write(me.appendJSON(buf))
	}
	rest, err := json.Marshal(manifest{Shared: shared, SharedKey: key, Lists: lists, Summaries: summaries})
	if err != nil {
		return err
	}
	// rest is {"models":null,"shared":…}: the fields after models.
	_, tail, _ := bytes.Cut(rest, []byte(`"models":null`))
	ew.WriteString("}")
	ew.Write(tail)
	return ew.err
}

// writeSummaries writes SummariesPath: each model's summary and
// models.json entry, in slug order.
func (s *Site) writeSummaries(w io.Writer) error {
	ew := &errWriter{w: w}
	var buf []byte
	for _, e := range s.bySlug() {
		buf = appendSummaries(buf[:0], e.slug, e.summary, e.modelsEntry)
		ew.Write(buf)
	}
	return ew.err
}

// bySlug is the entries in slug order, the order of the manifest and the
// summaries (json.Marshal sorts a map's keys).
func (s *Site) bySlug() []*entry {
	out := slices.Clone(s.entries)
	slices.SortFunc(out, func(a, b *entry) int { return strings.Compare(a.slug, b.slug) })
	return out
}

// appendJSON appends me as json.Marshal encodes it, with Summary and
// Entry copied as they are: json.Marshal encoded both (this build, or the
// one whose manifest they were read back from), so they are compact and
// escaped already, and having Marshal check them again was most of
// writing the manifest. TestManifestIsMarshal holds it to json.Marshal.
func (me *manifestEntry) appendJSON(b []byte) []byte {
	b = append(b, `{"hash":`...)
	b = appendJSONString(b, me.Hash)
	b = append(b, `,"files":`...)
	if me.Files == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		for i, name := range sortedKeys(me.Files) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, name)
			b = append(b, ':')
			b = appendJSONString(b, me.Files[name])
		}
		b = append(b, '}')
	}
	if me.Analytic != "" {
		b = append(b, `,"analytic":`...)
		b = appendJSONString(b, me.Analytic)
	}
	b = append(b, `,"page":`...)
	b = appendJSONString(b, me.Page)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, me.Model)
	if me.Draft {
		b = append(b, `,"draft":true`...)
	}
	if len(me.Dated) > 0 {
		v, _ := json.Marshal(me.Dated)
		b = append(b, `,"dated":`...)
		b = append(b, v...)
	}
	if me.ModelSide != "" {
		b = append(b, `,"model_side":`...)
		b = appendJSONString(b, me.ModelSide)
	}
	// A few runs and a few dozen tables: encoding/json is quick enough.
	for _, f := range []struct {
		name string
		v    any
		set  bool
	}{{"priced", me.Priced, me.Priced != nil}, {"dossier", me.Dossier, me.Dossier != nil}, {"markdown", me.Markdown, me.Markdown != nil}} {
		if f.set {
			v, _ := json.Marshal(f.v)
			b = append(b, `,"`+f.name+`":`...)
			b = append(b, v...)
		}
	}
	return append(b, '}')
}

// appendJSONString appends s as json.Marshal encodes it: quoted as it is
// when it holds nothing to escape (hashes, paths, slugs), else by Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func (e *entry) manifestEntry() manifestEntry {
	return manifestEntry{Hash: e.hash, Files: e.files, Summary: e.summary, Entry: e.modelsEntry, Analytic: e.analytic,
		Page: e.page.Sum, Model: e.page.Front.Model, Draft: e.page.Front.Draft, Dated: e.page.Dated,
		ModelSide: e.modelSide, Priced: e.priced, Dossier: e.dossier, Markdown: e.markdown}
}

// errWriter keeps the first write error, so a long encoding checks once.
type errWriter struct {
	w   io.Writer
	err error
}

func (ew *errWriter) Write(b []byte) {
	if ew.err == nil {
		_, ew.err = ew.w.Write(b)
	}
}

func (ew *errWriter) WriteString(s string) {
	if ew.err == nil {
		_, ew.err = io.WriteString(ew.w, s)
	}
}

// unchanged says whether publishing would leave dest exactly as it is:
// dest is the previous output, every model is reused, and the lists,
// feeds, assets and cache it would write have the bytes dest holds. Then
// the build writes nothing, not even a staging directory. It returns the
// published paths.
func (s *Site) unchanged(dest string) ([]string, bool, error) {
	if s.prev == nil || s.prev.Shared == nil || s.prevDir == "" || !sameDir(s.prevDir, dest) {
		return nil, false, nil
	}
	want := map[string]string{}
	for _, e := range s.entries {
		if !e.reused {
			return nil, false, nil
		}
		maps.Copy(want, e.files)
	}
	key, err := s.sharedKey()
	if err != nil {
		return nil, false, err
	}
	if reused, ok := s.reusableShared(key); ok {
		maps.Copy(want, reused)
	} else {
		var shared sumSink
		if _, err := s.sharedFiles(&shared); err != nil {
			return nil, false, err
		}
		maps.Copy(want, shared.sums)
	}
	for name := range s.cacheFiles() {
		sum, ok := s.prev.Shared[name]
		if !ok {
			return nil, false, nil
		}
		want[name] = sum
	}
	// The manifest itself differs only if what it records does.
	var total int
	for name, sum := range s.prev.Shared {
		if want[name] != sum {
			return nil, false, nil
		}
		total++
	}
	for _, e := range s.entries {
		total += len(e.files)
	}
	if total != len(want) {
		return nil, false, nil
	}
	// Model files were verified by reuse; check the rest on disk.
	for name, sum := range s.prev.Shared {
		if !s.intact(name, sum) {
			return nil, false, nil
		}
	}
	want[ManifestPath], want[StampsPath], want[SummariesPath] = "", "", ""
	return sortedKeys(want), true, nil
}

func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
