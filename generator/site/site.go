package site

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"dossier/generator/arch"
	"dossier/generator/audit"
	"dossier/generator/buildcache"
	"dossier/generator/catalog"
	"dossier/generator/claims"
	"dossier/generator/config"
	"dossier/generator/content"
	"dossier/generator/corrections"
	"dossier/generator/facts"
	"dossier/generator/internal/checked"
	"dossier/generator/localrun"
	"dossier/generator/modeltree"
	"dossier/generator/page"
	"dossier/generator/render"
	"dossier/generator/sizing"
	"dossier/generator/snapshot"
)

// Options change what a build publishes.
type Options struct {
	Destination string // publish directory; default the configured one
	Drafts      bool   // publish draft pages too
	// Collect gathers claim problems in Site.Problems instead of failing
	// on the first page that has one (dossier check reports them all).
	Collect bool
	// Full reads nothing from the build cache: every model is computed
	// (the cache is still written).
	Full bool
	// Verify recomputes every page and shared file read from the cache and
	// fails on any byte of difference, naming the file and line.
	Verify bool
	// Wait is told who holds the destination's lock before the build
	// waits for it; nil fails instead (see publish.Acquire).
	Wait func(holder string)
	// check (with Collect, for Check) takes a page's findings from the
	// cache when its inputs are unchanged: only the others are computed
	// and kept in Models.
	check bool
}

// Model is one computed dossier.
type Model struct {
	Page     *page.Model
	Content  *content.Page
	Snapshot *snapshot.Snapshot
	Arch     *arch.Architecture
	Facts    *facts.Set
	Reviews  []claims.Review
}

// problemsError reports the first claim problem and how many follow; the
// whole list is what `dossier check` prints.
func problemsError(ps []claims.Problem) error {
	if len(ps) == 1 {
		return ps[0]
	}
	return fmt.Errorf("%w (and %d more claim problems; run dossier check)", ps[0], len(ps)-1)
}

// Site is everything loaded and computed, before rendering.
type Site struct {
	Config    *config.Site
	Content   *content.Site
	Catalog   *catalog.Catalog
	Templates *render.Templates
	// Models are the computed models, kept only with Options.Collect:
	// a build renders and drops each model as it goes.
	Models   []*Model
	Problems []claims.Problem // with Options.Collect

	entries  []*entry          // every published model, computed or reused, in content order
	cache    *buildcache.Cache // nil when it cannot be opened (check only)
	full     bool              // Options.Full
	verify   bool              // Options.Verify
	analytic *analytics        // module-tree figures by config hash
	inputs   string            // hash of what every page depends on (sharedInputs)
	// corrections are the dossiers' logs from the committed history of
	// their facts.json, by slug (none outside a git repository).
	corrections map[string][]corrections.Entry
	// local: data/local.yaml's host classes, read once (localHosts).
	localOnce sync.Once
	local     *localrun.Hosts
	localErr  error
	// knownModels are the ids data/hub has a snapshot of, which a
	// fine-tune's snippet audit checks model ids against; auditTable
	// reads the API-change table once, when a page first audits.
	knownModels []string
	auditTable  func() (*audit.Table, error)
	// claimDates are when each claim of each dossier first appeared and
	// last changed, from the same history as the corrections logs.
	claimDates map[string]map[string]corrections.ClaimDates
}

// Report says what a build did.
type Report struct {
	Destination string
	Files       []string // relative paths written
	Models      []string // model ids published
	Rebuilt     []string // slugs computed by this build
	Reused      []string // slugs whose files came from the cache
	// Verified is how many files read from the cache were recomputed and
	// compared (Options.Verify).
	Verified int
	// Unchanged says the output already held exactly these files, so
	// nothing was written.
	Unchanged bool
	// ModuleTrees is how many module trees were built; the others came
	// from the cache or from another page with the same config.
	ModuleTrees int
}

// Load reads the site and looks up, per model, its files in the build
// cache; Build (or Render) computes the rest on every core. With
// Options.Collect every model is computed here and kept in Models, and
// claim problems are gathered instead of failing.
func Load(cfg *config.Site, opts Options) (*Site, error) {
	s := &Site{Config: cfg, full: opts.Full, verify: opts.Verify}
	if err := cfg.CheckInputDirs(); err != nil {
		return nil, err
	}
	var err error
	if s.cache, err = buildcache.Open(filepath.Join(cfg.Root, CacheDir)); err != nil && !opts.Collect {
		return nil, err
	} else if s.cache != nil {
		// --full trusts no entry: a damaged object is replaced.
		s.cache.Check = opts.Full
	}
	// --verify computes from the inputs alone, as --full does, to
	// compare with what the cache holds.
	s.analytic = &analytics{cache: s.cache, read: !opts.Full && !opts.Verify}
	cat, catErr := catalog.Load(cfg.Dir(cfg.DataDir))
	templates, templatesErr := render.LoadTemplates(cfg.Dir(cfg.TemplatesDir))
	// A build keeps stubs of the pages and reads each again when it is
	// computed, so memory does not grow with the site; check keeps them.
	if opts.Collect {
		s.Content, err = content.Load(cfg.Dir(cfg.ContentDir))
	} else {
		s.Content, err = content.LoadStubs(cfg.Dir(cfg.ContentDir), s.knownFront)
	}
	if err != nil {
		return nil, err
	}
	if s.Catalog, err = cat, catErr; err != nil {
		return nil, err
	}
	for i, hw := range cfg.Hardware {
		n, id, _ := config.ParseHardware(hw)
		if s.Catalog.Accelerators[id] == nil {
			return nil, fmt.Errorf("%s: field hardware[%d]: accelerator %q is not in %s", cfg.File, i, id, filepath.Join(cfg.DataDir, "hardware.yaml"))
		}
		if n < 1 || n > checked.MaxGPUs {
			return nil, fmt.Errorf("%s: field hardware[%d]: %s", cfg.File, i, checked.Range(1, checked.MaxGPUs, "GPUs", hw))
		}
	}
	if s.Templates, err = templates, templatesErr; err != nil {
		return nil, err
	}
	// A bad local.yaml fails the build whether or not a page uses it.
	if _, err := s.localHosts(); err != nil {
		return nil, err
	}
	dataDir := cfg.Dir(cfg.DataDir)
	if s.knownModels, err = snapshot.Models(dataDir); err != nil {
		return nil, err
	}
	s.auditTable = sync.OnceValues(func() (*audit.Table, error) {
		return audit.LoadTable(os.DirFS(dataDir), filepath.ToSlash(cfg.DataDir))
	})
	if s.inputs, err = sharedInputs(cfg, s.knownModels); err != nil {
		return nil, err
	}
	hist, err := corrections.HistoryOf(cfg.Root, cfg.Dir(cfg.PublishDir))
	if err != nil {
		return nil, fmt.Errorf("corrections log: %w", err)
	}
	s.corrections, s.claimDates = hist.Logs, hist.Claims
	if err := s.rememberFront(); err != nil {
		return nil, err
	}
	for _, p := range s.Content.Models {
		if p.Front.Draft && !opts.Drafts {
			continue
		}
		s.entries = append(s.entries, &entry{slug: p.Slug, page: p})
	}
	if !opts.Collect {
		parallel(len(s.entries), func(i int) { s.lookup(s.entries[i]) })
	}
	if opts.Collect {
		errs := make([]error, len(s.entries))
		probs := make([][]claims.Problem, len(s.entries))
		parallel(len(s.entries), func(i int) { probs[i], errs[i] = s.collect(s.entries[i], opts.check) })
		if err := firstError(errs); err != nil {
			return nil, err
		}
		for i, e := range s.entries {
			if e.model != nil {
				s.Models = append(s.Models, e.model)
			}
			s.Problems = append(s.Problems, probs[i]...)
		}
	}
	if len(s.entries) == 0 {
		return nil, fmt.Errorf("%s: %w", filepath.Join(cfg.Dir(cfg.ContentDir), "models"), ErrNoModels)
	}
	return s, nil
}

// collect computes e's model and, with check, its findings: from the
// cache when e's inputs are unchanged (then no model is computed).
func (s *Site) collect(e *entry, check bool) ([]claims.Problem, error) {
	if check && s.cache != nil {
		if e.key = s.pageKey(e.page); e.key != "" && !s.full {
			var c pageCheck
			if s.cache.Get(stageCheck, e.key, &c) {
				e.check = &c
				return nil, nil
			}
		}
	}
	m, probs, err := s.computeModel(e.page)
	if err != nil {
		return nil, err
	}
	e.model = m
	if check {
		e.check = s.checkOf(m, probs)
		if s.cache != nil && e.key != "" {
			// Not cached is only slower.
			s.cache.Set(stageCheck, e.key, e.check)
		}
	}
	return probs, nil
}

// ErrNoModels is a site without a model page to publish: a build of it
// would replace the published site with an empty one.
var ErrNoModels = errors.New("no model page to build (a page with draft: true is built only with --drafts)")

// firstError is the error of the first model in content order, so a
// parallel build fails the way a sequential one would.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// parallel runs fn(0..n-1) on GOMAXPROCS workers. fn writes only its own
// index's results, so results keep content order.
func parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// computeModel computes one model from its page, reading a stub's page in
// full first.
func (s *Site) computeModel(p *content.Page) (*Model, []claims.Problem, error) {
	p, err := p.ParseFull()
	if err != nil {
		return nil, nil, err
	}
	if err := checkLayouts(p, s.Catalog); err != nil {
		return nil, nil, err
	}
	cfg := s.Config
	path := snapshotPath(cfg, p.Front.Model)
	snap, err := snapshot.Load(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: model %s: %w", p.Path, p.Front.Model, err)
	}
	if snap.Model != p.Front.Model {
		return nil, nil, fmt.Errorf("%s: field model: %q, but the snapshot is of %q", path, p.Front.Model, snap.Model)
	}
	// Shapes a sync kept (an unknown family's) give its layout.
	shapes, err := arch.SnapshotShapes(snap)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	a, err := arch.ParseWithTensors(snap.Config, snap.HFQuantConfig, shapes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s", path, inConfig(err))
	}
	an, anErr := s.analytic.get(snap.Config, snap.HFQuantConfig)
	in := s.sizingInput(p)
	in.Model, in.Snapshot, in.Arch, in.Analytic, in.AnalyticErr = snap.Model, snap, a, an, anErr
	// The naive multiplication uses the headline the authors published.
	for _, pub := range p.Front.Published {
		if pub.Key == "params.total" {
			in.HeadlineParams, in.HeadlineSource = int64(pub.Value), pub.Source
		}
	}
	set, err := sizing.Derive(in)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	addPublished(set, p)
	addSoftware(set, s.Catalog, snap.Model)
	if err := s.addLocal(set, p); err != nil {
		return nil, nil, err
	}
	if err := s.addMLX(set, p); err != nil {
		return nil, nil, err
	}
	if err := s.addFinetune(set, p, snap); err != nil {
		return nil, nil, err
	}
	tctx := claims.NewContext(set, a, p.Front.Review)
	tctx.UseCatalog(s.Catalog)
	reviews, probs := claims.ReviewPage(p, set, tctx)
	pm, err := page.Build(page.Input{
		Page: p, Facts: set, Revision: snap.Revision, Fetched: snap.Fetched,
		Hardware: cfg.Hardware, Catalog: s.Catalog, Provenance: provenance(snap, s.Catalog, cfg),
		Reviews: reviews, ProseTells: tctx.LintProse(p),
	})
	if err != nil {
		if anErr != nil {
			// A missing fact is often one the module tree would have given.
			why := inConfig(anErr)
			if errors.Is(anErr, modeltree.ErrUnsupportedFamily) {
				why = "field config.model_type: " + anErr.Error()
			}
			return nil, nil, fmt.Errorf("%w; facts from the module tree are missing because %s: %s", err, path, why)
		}
		return nil, nil, err
	}
	return &Model{Page: pm, Content: p, Snapshot: snap, Arch: a, Facts: set, Reviews: reviews}, probs, nil
}

// sizingInput is what sizing reads of the site and the page; the snapshot,
// config and module tree are the caller's to add.
func (s *Site) sizingInput(p *content.Page) sizing.Input {
	cfg := s.Config
	return sizing.Input{Sizing: cfg.Sizing, Hardware: cfg.Hardware, Catalog: s.Catalog, Variants: variantsOf(p), Measured: measuredOf(p)}
}

// inConfig names a config.json error as a field of the snapshot: "field
// hidden_size: …" becomes "field config.hidden_size: …".
func inConfig(err error) string {
	if msg, ok := strings.CutPrefix(err.Error(), "field "); ok {
		return "field config." + msg
	}
	return "field config: " + err.Error()
}

// addPublished records the authors' figures as facts of their own, so a
// page can print them beside the derived ones without mixing the two.
func addPublished(set *facts.Set, p *content.Page) {
	for _, pub := range p.Front.Published {
		v := any(pub.Value)
		if pub.Value == float64(int64(pub.Value)) {
			v = int64(pub.Value)
		}
		f := set.Add(facts.Fact{Key: "published." + pub.Key, Value: v, Unit: pub.Unit, Sources: []string{pub.Source}, Derivation: "as published"})
		if pub.Text != "" {
			f.Display = pub.Text
		}
	}
}

// provenance lists every input of a page with its source and the date it
// describes. With freshness.maxAgeDays and freshness.today set, a date older
// than the limit is flagged stale (the build never reads the clock).
func provenance(snap *snapshot.Snapshot, cat *catalog.Catalog, cfg *config.Site) [][3]string {
	at := "@" + snap.Revision
	if snap.Revision == "" {
		at = " (revision not recorded: " + snap.RevisionNote + ")"
	}
	fetched := asOf(cfg, snap.Fetched)
	out := [][3]string{
		{"snapshot", fmt.Sprintf("%s%s: %s", snap.Model, at, snap.Source), fetched},
	}
	if snap.CensusSource != "" {
		out = append(out, [3]string{"hub:census", snap.CensusSource, fetched})
	}
	out = append(out, [3]string{"hub:tree", snap.Shards.Source, fetched})
	if snap.Index != nil {
		out = append(out, [3]string{"hub:index", snap.Index.Source, fetched})
	}
	if snap.Header != nil {
		out = append(out, [3]string{"hub:headers", snap.Header.Source, fetched})
	}
	out = append(out, [3]string{"config.json", snap.ConfigSource, fetched})
	return append(out, sharedRow(cat, cfg))
}

// staleness says how far past the freshness limit date is, or "".
func staleness(cfg *config.Site, date string) string {
	limit, today := cfg.Freshness.MaxAgeDays, cfg.Freshness.Today
	if limit <= 0 || today == "" || len(date) < 10 {
		return ""
	}
	t, err1 := time.Parse(time.DateOnly, date[:10])
	now, err2 := time.Parse(time.DateOnly, today)
	if err1 != nil || err2 != nil {
		return ""
	}
	if age := int(now.Sub(t).Hours() / 24); age > limit {
		return fmt.Sprintf("stale: %d days old, limit %d", age, limit)
	}
	return ""
}

// factsDoc is the published facts.json shape.
type factsDoc struct {
	Schema       int               `json:"schema"`
	Model        string            `json:"model"`
	Revision     string            `json:"revision"`
	Generated    string            `json:"generated"`
	Facts        *facts.Set        `json:"facts"`
	Claims       []claimJSON       `json:"claims"`
	Measurements []measurementJSON `json:"measurements"`
}

type claimJSON struct {
	ID         string            `json:"id"`
	Text       string            `json:"text"`
	Paraphrase bool              `json:"paraphrase,omitempty"`
	Quote      string            `json:"quote,omitempty"`
	By         string            `json:"by"`
	Date       string            `json:"date,omitempty"`
	Accessed   string            `json:"accessed,omitempty"`
	Where      string            `json:"where,omitempty"`
	Kind       string            `json:"kind,omitempty"`
	Verdict    string            `json:"verdict"`
	Computed   bool              `json:"computed"`
	Reason     string            `json:"reason"`
	Scope      string            `json:"scope,omitempty"`
	Evidence   []claims.Evidence `json:"evidence"`
	Tells      []int             `json:"tells"`
}

type measurementJSON struct {
	ID            string  `json:"id"`
	Metric        string  `json:"metric"`
	Value         float64 `json:"value"`
	Unit          string  `json:"unit,omitempty"`
	Display       string  `json:"display"`
	By            string  `json:"by"`
	Date          string  `json:"date,omitempty"`
	Accessed      string  `json:"accessed,omitempty"`
	Kind          string  `json:"kind"`
	Configuration any     `json:"configuration"`
	Interval      any     `json:"interval,omitempty"`
	Rank          any     `json:"rank,omitempty"`
	Source        string  `json:"source"`
}

func claimsJSON(rs []claims.Review) []claimJSON {
	out := []claimJSON{}
	for _, r := range rs {
		c := claimJSON{ID: r.ID, Text: r.Text, Paraphrase: r.Paraphrase, Quote: r.Quote, By: r.By, Date: r.Date, Accessed: r.Accessed,
			Where: r.Where, Kind: r.Kind, Verdict: r.Verdict,
			Computed: r.Computed, Reason: r.Reason, Scope: r.Scope, Evidence: r.Evidence, Tells: []int{}}
		if c.Evidence == nil {
			c.Evidence = []claims.Evidence{}
		}
		for _, f := range r.Tells {
			c.Tells = append(c.Tells, f.Tell)
		}
		out = append(out, c)
	}
	return out
}

func measurementsJSON(p *content.Page) []measurementJSON {
	out := []measurementJSON{}
	for i := range p.Front.Measurements {
		m := &p.Front.Measurements[i]
		mj := measurementJSON{ID: m.ID, Metric: m.Metric, Value: m.Value, Unit: m.Unit, Display: claims.Value(m), By: m.By,
			Date: m.Date, Accessed: m.Accessed, Kind: m.Kind, Source: m.Source,
			Configuration: map[string]string{"model": m.Configuration.Model, "hardware": m.Configuration.Hardware, "batch": m.Configuration.Batch, "setting": m.Configuration.Setting}}
		if m.Interval != nil {
			mj.Interval = map[string]any{"low": m.Interval.Low, "high": m.Interval.High, "level": m.Interval.Level}
		}
		if m.Rank != nil {
			mj.Rank = map[string]any{"position": m.Rank.Position, "of": m.Rank.Of, "spread": m.Rank.Spread}
		}
		out = append(out, mj)
	}
	return out
}

// FactsJSON encodes one model's facts document, schema 2 (see
// facts.Schema): the fields as json.MarshalIndent(factsDoc{…}, "", "  ")
// writes them, the facts, most of the file, as compact tables
// (TestFactsJSONIsTheDocument).
func FactsJSON(m *Model) ([]byte, error) { return factsJSON(m, m.Facts.Tabulate()) }

// factsJSON is FactsJSON with the facts already tabulated.
func factsJSON(m *Model, tab *facts.Tabulated) ([]byte, error) {
	b := append(make([]byte, 0, 400*m.Facts.Len()+64<<10), "{\n"...)
	for i, v := range []any{facts.Schema, m.Snapshot.Model, m.Snapshot.Revision, m.Snapshot.Fetched, m.Facts, claimsJSON(m.Reviews), measurementsJSON(m.Content)} {
		if i > 0 {
			b = append(b, ",\n"...)
		}
		name := factsDocFields[i]
		b = append(b, `"`+name+`":`...)
		var err error
		switch v := v.(type) {
		case *facts.Set:
			b, err = tab.AppendJSON(b, "", "")
		case []claimJSON:
			b, err = appendJSONLines(b, v)
		case []measurementJSON:
			b, err = appendJSONLines(b, v)
		default:
			var vb []byte
			vb, err = json.Marshal(v)
			b = append(b, vb...)
		}
		if err != nil {
			return nil, fmt.Errorf("facts.json for %s: field %s: %w", m.Snapshot.Model, name, err)
		}
	}
	return append(b, "\n}\n"...), nil
}

// appendJSONLines appends items as a JSON array, one item per line, as
// facts.json writes its facts: a review diff shows the claims that changed.
func appendJSONLines[T any](b []byte, items []T) ([]byte, error) {
	b = append(b, '[')
	for i, item := range items {
		if i > 0 {
			b = append(b, ',')
		}
		ib, err := json.Marshal(item)
		if err != nil {
			return nil, err
		}
		b = append(append(b, '\n'), ib...)
	}
	if len(items) > 0 {
		b = append(b, '\n')
	}
	return append(b, ']'), nil
}

// factsDocFields are factsDoc's JSON names, in order.
var factsDocFields = []string{"schema", "model", "revision", "generated", "facts", "claims", "measurements"}

type indexData struct {
	Title string
	Intro string
}

func snapshotPath(cfg *config.Site, model string) string {
	return snapshot.Path(cfg.Dir(cfg.DataDir), model)
}

// renderModel renders one dossier's files, keyed by publish path.
func (s *Site) renderModel(m *Model) (map[string][]byte, error) {
	out := map[string][]byte{}
	dir := "models/" + m.Page.Slug + "/"
	md, tables, err := s.Templates.Markdown("dossier.md", m.Page, render.PageFuncs{Tables: m.Page.Tables, Fact: m.Page.Fact, Charts: m.Page.Charts})
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", m.Content.Path, err)
	}
	// The HTML page adds the corrections log, which the committed Markdown
	// leaves out: it is read from the commits of that very output.
	withLog := md
	if log := corrections.Markdown(s.corrections[m.Page.Slug], m.Content.Front.Corrections); log != "" {
		withLog = append(append(bytes.Clone(md), '\n'), log...)
	}
	// facts.json and the facts page lay the facts out alike, and the
	// page's links land on the facts page's rows.
	tab := m.Facts.Tabulate()
	html, err := s.Templates.HTML(withLog, render.HTMLPage{
		PageTitle: m.Page.Title + " · " + s.Config.Title, SiteTitle: s.Config.Title, Root: "../../",
		MarkdownURL: "index.md", FactsURL: "facts.json", FactsPage: "facts.html", FactRows: tab.RowKeys(), Search: s.Config.Search, Tables: tables,
		JSONLD: claimReviews(m, s.Config.BaseURL+dir, s.Config, s.claimDates[m.Page.Slug]),
	}, m.Page.Charts)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", m.Content.Path, err)
	}
	fj, err := factsJSON(m, tab)
	if err != nil {
		return nil, err
	}
	intro := "# " + m.Page.Title + ": every fact\n\nEach figure of [the dossier](index.html) with its derivation and sources; the same facts are in [facts.json](facts.json). The figures per layout and per accelerator follow as tables: each column's rule is stated once above its table, where `{row}` is the row, `{acc}` its accelerator and `{1}`, `{2}`… the row's own numbers printed under each value.\n"
	singles, matrices := m.Page.FactsAppendix(tab)
	fh, err := s.Templates.HTML([]byte(intro), render.HTMLPage{
		PageTitle: m.Page.Title + " facts · " + s.Config.Title, SiteTitle: s.Config.Title, Root: "../../",
		FactsURL: "facts.json", Search: s.Config.Search, Table: singles, Matrices: matrices,
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("render the facts of %s: %w", m.Content.Path, err)
	}
	out[dir+"index.md"], out[dir+"index.html"], out[dir+"facts.json"], out[dir+"facts.html"] = md, html, fj, fh
	for _, c := range m.Page.Charts {
		out[dir+c.File] = []byte(c.SVG + "\n")
	}
	return out, nil
}

func variantsOf(p *content.Page) []sizing.Variant {
	out := make([]sizing.Variant, len(p.Front.Variants))
	for i, v := range p.Front.Variants {
		out[i] = sizing.Variant{Name: v.Name, Bytes: int64(v.Bytes), Source: v.Source}
	}
	return out
}

// addSoftware records the library versions the model's code was found to
// run on: the last that worked and the first that failed.
func addSoftware(set *facts.Set, cat *catalog.Catalog, model string) {
	for _, w := range cat.WindowsFor(model) {
		src := "catalog:software.yaml " + w.AsOf + ": " + w.Source
		k := "software." + w.Package
		if len(w.Works) > 0 {
			set.Add(facts.Fact{Key: k + ".works", Value: strings.Join(w.Works, ", "), Unit: facts.UnitText, Sources: []string{src}, Derivation: w.What})
		}
		if len(w.Fails) > 0 {
			set.Add(facts.Fact{Key: k + ".fails", Value: strings.Join(w.Fails, ", "), Unit: facts.UnitText, Sources: []string{src}, Derivation: w.What})
			set.Add(facts.Fact{Key: k + ".first_failing", Value: w.Fails[0], Unit: facts.UnitText, Sources: []string{src}, Derivation: "the first version tried that fails: " + w.What})
		}
	}
}

// checkLayouts refuses a measurement layout whose accelerator the hardware
// catalog does not describe (content checked its form): its calibration
// would otherwise read "not comparable" without a word.
func checkLayouts(p *content.Page, cat *catalog.Catalog) error {
	for i, m := range p.Front.Measurements {
		if m.Configuration.Layout == "" {
			continue
		}
		if _, id, _ := config.ParseHardware(m.Configuration.Layout); cat.Accelerators[id] == nil {
			return fmt.Errorf("%s: line %d: field measurements[%d].configuration.layout: accelerator %q of %s is not in the hardware catalog (hardware.yaml)", p.Path, m.Line, i, id, m.Configuration.Layout)
		}
	}
	return nil
}

// measuredOf hands the page's measurements to sizing, which sets each
// speed beside the prediction for its layout.
func measuredOf(p *content.Page) []sizing.Measured {
	var out []sizing.Measured
	for _, m := range p.Front.Measurements {
		out = append(out, sizing.Measured{ID: m.ID, Unit: m.Unit, Kind: m.Kind, Layout: m.Configuration.Layout, Batch: m.Configuration.Batch, Setting: m.Configuration.Setting, Value: m.Value})
	}
	return out
}
