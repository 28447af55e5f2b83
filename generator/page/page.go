// Package page assembles what one dossier page shows from its facts: the
// tables of each section and the prose with its fact references expanded.
// It decides content, not markup; render and the templates decide markup.
package page

import (
	"fmt"
	"iter"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"dossier/generator/catalog"
	"dossier/generator/claims"
	"dossier/generator/content"
	"dossier/generator/facts"
	"dossier/generator/render"
)

// Model is one dossier page.
type Model struct {
	Slug     string
	Title    string
	ModelID  string
	Org      string
	Released string
	Reviewed string
	Summary  string
	Revision string
	Fetched  string
	Draft    bool
	Family   string

	Facts    *facts.Set
	Hardware []string
	Tables   map[string]*render.Table
	Prose    string // Markdown, fact references expanded

	Answer *Answer
	namer  func(string) string // names cited references (nameReferences)
	labels map[string]string   // fact key → the words a table labels it with

	// Packed is true when the census counts packed sub-byte payloads, the
	// only case where its note on counting applies.
	Packed bool

	Charts       map[string]render.Chart
	Reviews      []claims.Review
	Measurements []MeasurementGroup
	ProseTells   []claims.Finding
	Conflicts    []content.Conflict

	front *content.Front
}

// Fact returns the display string of key, or an error naming it.
func (m *Model) Fact(key string) (string, error) {
	f := m.Facts.Get(key)
	if f == nil {
		return "", fmt.Errorf("no fact %q for %s", key, m.ModelID)
	}
	return f.Display, nil
}

var shortcodeRe = regexp.MustCompile(`\{\{<\s*fact\s+([A-Za-z0-9_.:-]+)\s*>\}\}`)

// ExpandProse replaces {{< fact KEY >}} in a page body with the fact's
// display string, so prose numbers come from the facts layer. A reference
// to a missing fact is an error with the file and line.
func ExpandProse(p *content.Page, set *facts.Set) (string, error) {
	var firstErr error
	lines := strings.Split(string(p.Body), "\n")
	for i, line := range lines {
		if err := checkShortcodes(line); err != nil {
			return "", fmt.Errorf("%s:%d: %w", p.Path, p.BodyLine+i, err)
		}
		lines[i] = shortcodeRe.ReplaceAllStringFunc(line, func(m string) string {
			key := shortcodeRe.FindStringSubmatch(m)[1]
			f := set.Get(key)
			if f == nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("%s:%d: fact %q does not exist for %s", p.Path, p.BodyLine+i, key, p.Front.Model)
				}
				return m
			}
			if !f.Known() {
				// Absent means unknown, and the reader is told why.
				return "unknown (" + f.Reason + ")"
			}
			return f.Display
		})
	}
	return strings.Join(lines, "\n"), firstErr
}

// Input is what a page is assembled from.
type Input struct {
	Page       *content.Page
	Facts      *facts.Set
	Revision   string
	Fetched    string
	Hardware   []string
	Catalog    *catalog.Catalog
	Provenance [][3]string // what, where it came from, as of
	Reviews    []claims.Review
	ProseTells []claims.Finding
}

// Build assembles a model page.
func Build(in Input) (*Model, error) {
	p, set, cat := in.Page, in.Facts, in.Catalog
	revision, fetched, hardware := in.Revision, in.Fetched, in.Hardware
	prose, err := ExpandProse(p, set)
	if err != nil {
		return nil, err
	}
	m := &Model{
		Slug: p.Slug, Title: p.Front.Title, ModelID: p.Front.Model, Org: p.Front.Org,
		Released: p.Front.Date, Reviewed: p.Front.Review, Summary: p.Front.Summary,
		Revision: revision, Fetched: fetched, Draft: p.Front.Draft,
		Facts: set, Hardware: hardware, Prose: prose,
		Reviews: in.Reviews, ProseTells: in.ProseTells,
		Measurements: measurementGroups(&p.Front, p.Front.Measurements),
		Conflicts:    p.Front.Conflicts,
		front:        &p.Front,
	}
	if f := set.Get("arch.family"); f.Known() {
		m.Family = f.Display
	}
	m.Answer = m.answer(cat, in.Reviews)
	// A payload of fewer than eight bits per quantized parameter is packed
	// several to a byte.
	if q, ok := set.Get("params.quantized").Int(); ok && q > 0 {
		if pay, ok := set.Get("bytes.payload").Int(); ok {
			m.Packed = pay < q
		}
	}
	m.Tables = map[string]*render.Table{
		"answer":      m.Answer.Table(),
		"census":      m.census(),
		"bytes":       m.bytes(),
		"arch":        m.arch(),
		"memory":      m.memory(),
		"fit":         m.fit(),
		"gpus":        m.gpus(cat),
		"layouts":     m.layouts(cat),
		"speed":       m.speedTable(),
		"calibration": m.calibrationTable(p.Front.Measurements),
		"cost":        m.cost(),
		"prices":      m.prices(),
		"stream":      m.streamTable(),
		"software":    m.softwareTable(),
		"variants":    m.variantsTable(p.Front.Variants),
		"variant_fit": m.variantFitTable(p.Front.Variants),
		"local":       m.localTable(),
		"quants":      m.quantsTable(),
		"mlx":         m.mlxTable(),
		"reconcile":   m.reconcile(),
		"sources":     m.sources(),
		"provenance":  {Header: []string{"input", "where it came from", "data as of"}, Rows: rowsOf(in.Provenance)},
		"claims":      m.claimsTable(in.Reviews),
		"documents":   sourcesTable(&p.Front),
		"conflicts":   conflictsTable(&p.Front),
		"finetune":    m.finetuneTable(),
		"audit":       m.auditTable(),
	}
	// After the other tables: it labels figures with their words.
	m.Tables["published"] = m.published(p.Front.Published)
	m.Charts = m.buildCharts()
	m.nameReferences(cat)
	return m, nil
}

// nameReferences rewrites every citation of a reference by its short id
// in the page's text and tables as its name, and lists the references the
// page names under Sources.
func (m *Model) nameReferences(cat *catalog.Catalog) {
	if cat == nil {
		return
	}
	used := map[string]*catalog.Reference{}
	name := func(s string) string {
		out, named := cat.NameReferences(s)
		for _, r := range named {
			used[r.ID] = r
		}
		return out
	}
	m.namer = name
	m.Prose, m.Summary = name(m.Prose), name(m.Summary)
	tables := make([]*render.Table, 0, len(m.Tables)+len(m.Measurements))
	for _, t := range m.Tables {
		if t != nil {
			tables = append(tables, t)
		}
	}
	for _, g := range m.Measurements {
		tables = append(tables, g.Table)
	}
	for _, t := range tables {
		for _, row := range t.Rows {
			for i := range row {
				row[i] = name(row[i])
			}
		}
	}
	refs := &render.Table{Header: []string{"reference", "by", "date", "address"}}
	ids := make([]string, 0, len(used))
	for id := range used {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := used[id]
		date, url := r.Date, r.URL
		if date == "" {
			date = "undated"
		}
		if url == "" {
			url = "no public address recorded"
		}
		refs.Rows = append(refs.Rows, []string{"“" + r.Title + "”", r.By, date, url})
	}
	m.Tables["references"] = refs
}

// row returns the display of key and whether the fact exists.
func (m *Model) d(key string) string {
	f := m.Facts.Get(key)
	if f == nil {
		return "—"
	}
	if !f.Known() {
		return "unknown: " + f.Reason
	}
	return f.Display
}

func (m *Model) rows(keys ...[2]string) [][]string {
	var out [][]string
	for _, k := range keys {
		f := m.Facts.Get(k[1])
		if f == nil {
			continue
		}
		out = append(out, []string{k[0], m.d(k[1]), f.Derivation, render.Code(k[1])})
		if m.labels == nil {
			m.labels = map[string]string{}
		}
		if _, ok := m.labels[k[1]]; !ok {
			m.labels[k[1]] = k[0]
		}
	}
	return out
}

func factTable(rows [][]string) *render.Table {
	return &render.Table{Header: []string{"", "value", "how", "fact"}, Align: []render.Align{render.Left, render.Right}, Rows: rows}
}

// CensusNote says where the per-dtype count comes from: a census is what
// the Hub read from the safetensors headers; without one the count is the
// module tree's arithmetic on config.json, and the page must not call it
// a census.
func (m *Model) CensusNote() string {
	how := "logical parameters"
	if m.Packed {
		how += ": a packed 4-bit payload stored as bytes counts two parameters per byte"
	}
	if f := m.Facts.Get("params.total"); f.Known() && len(f.Sources) > 0 && f.Sources[0] == "analytic:module-tree" {
		return "No census (safetensors headers) was read: this count is analytic, from config.json's module tree, and counts " + how + ", as the Hub's census does."
	}
	return "The dtype census (safetensors headers, as the Hub counts them) counts " + how + "."
}

// words turns the tail of a fact key into a row label: "header_bytes_per_tensor"
// reads "header bytes per tensor".
func words(key string) string { return strings.NewReplacer("_", " ", ".", " ").Replace(key) }

func (m *Model) census() *render.Table {
	t := &render.Table{Header: []string{"dtype", "parameters", "share", "fact"}, Align: []render.Align{render.Left, render.Right, render.Right}}
	total, _ := m.Facts.Get("params.total").Int()
	for k, dt := range m.Facts.Prefixed("params.census.") {
		n, _ := m.Facts.Get(k).Int()
		share := "—"
		if total > 0 {
			share = facts.Percent(float64(n) / float64(total))
		}
		t.Rows = append(t.Rows, []string{dt, m.d(k), share, render.Code(k)})
	}
	if len(t.Rows) > 0 {
		t.Rows = append(t.Rows, []string{"total", m.d("params.total"), "100.0%", render.Code("params.total")})
	}
	return t
}

func (m *Model) bytes() *render.Table {
	return factTable(m.rows(
		[2]string{"naive: headline parameters × nominal bits", "bytes.naive_headline"},
		[2]string{"naive: exact parameters × nominal bits", "bytes.naive_exact"},
		[2]string{"quantized payload", "bytes.payload"},
		[2]string{"quantization scales", "bytes.quant_scales"},
		[2]string{"unquantized modules", "bytes.unquantized"},
		[2]string{"of which extra precision over nominal", "bytes.extra_precision"},
		[2]string{"tensor bytes", "bytes.tensors"},
		[2]string{"safetensors headers", "bytes.headers"},
		[2]string{"checkpoint (file listing)", "bytes.checkpoint"},
		[2]string{"real − naive exact", "bytes.overshoot"},
		[2]string{"bits per parameter", "bits_per_param"},
	))
}

func (m *Model) arch() *render.Table {
	return factTable(m.rows(
		[2]string{"family", "arch.family"},
		[2]string{"attention", "arch.attention"},
		[2]string{"layers", "arch.layers"},
		[2]string{"full-attention layers", "arch.layers_full_attention"},
		[2]string{"linear-attention layers", "arch.layers_linear_attention"},
		[2]string{"sliding-window layers", "arch.layers_sliding_attention"},
		[2]string{"state-space (Mamba) layers", "arch.layers_state_space"},
		[2]string{"short-convolution layers", "arch.layers_convolution"},
		[2]string{"full-attention cadence", "arch.full_attention_cadence"},
		[2]string{"linear : full", "arch.linear_to_full_ratio"},
		[2]string{"hybrid", "arch.hybrid"},
		[2]string{"hidden size", "arch.hidden_size"},
		[2]string{"vocabulary", "arch.vocab_size"},
		[2]string{"context", "arch.context"},
		[2]string{"routed experts", "moe.experts_routed"},
		[2]string{"active experts per token", "moe.experts_active"},
		[2]string{"shared experts", "moe.experts_shared"},
		[2]string{"MoE layers", "moe.layers"},
		[2]string{"main-model parameters", "params.main"},
		[2]string{"multi-token-prediction parameters", "params.mtp"},
		[2]string{"routed-expert parameters", "params.experts"},
		[2]string{"share of parameters in experts", "share.experts"},
		[2]string{"expert-count sparsity", "sparsity.expert_count"},
		[2]string{"activated parameters (with embedding)", "params.active"},
		[2]string{"activated parameters (without embedding)", "params.active_no_embedding"},
		[2]string{"parameter-activation fraction", "sparsity.param_activation"},
	))
}

func (m *Model) memory() *render.Table {
	keys := [][2]string{
		{"KV per token per full layer", "kv.bytes_per_token_per_layer"},
		{"KV per token (all full layers)", "kv.bytes_per_token"},
		{"KV per token per sliding layer (its own shape)", "kv.sliding_bytes_per_token_per_layer"},
		{"KV per token (sliding layers, within the window)", "kv.sliding_bytes_per_token"},
		{"linear-attention state per layer", "state.bytes_per_sequence_per_layer"},
		{"state-space (Mamba) state per layer", "state.bytes_per_sequence_per_ssm_layer"},
		{"short-convolution state per layer", "state.bytes_per_sequence_per_conv_layer"},
		{"linear-attention state per sequence", "state.bytes_per_sequence"},
	}
	for _, k := range m.contexts() {
		n, _ := strconv.ParseInt(k, 10, 64)
		keys = append(keys,
			[2]string{"KV at " + facts.Int(n) + " tokens", "kv.bytes_at_context." + k},
			[2]string{"KV + state at " + facts.Int(n) + " tokens", "memory.per_sequence_at." + k})
	}
	return factTable(m.rows(keys...))
}

func (m *Model) contexts() []string {
	var out []int64
	for _, s := range m.Facts.Prefixed("kv.bytes_at_context.") {
		n, _ := strconv.ParseInt(s, 10, 64)
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	s := make([]string, len(out))
	for i, n := range out {
		s[i] = strconv.FormatInt(n, 10)
	}
	return s
}

func (m *Model) fit() *render.Table {
	t := &render.Table{
		Header: []string{render.AnchorHeader, "layout", "memory", "weights at rest", "placement", "weights per GPU", "serving", "max concurrency", "max context", "$/h"},
		Align:  []render.Align{render.Left, render.Left, render.Right, render.Left, render.Left, render.Right, render.Left, render.Right, render.Right, render.Right},
	}
	for _, hw := range m.Hardware {
		if m.Facts.Get("fit."+hw+".memory_bytes") == nil {
			continue
		}
		conc := m.d("serving." + hw + ".max_concurrency")
		ctx := m.d("serving." + hw + ".max_context")
		// The other KV dtype's figures, where they differ: a layout whose
		// weights alone overflow holds no cache of either.
		for _, alt := range []string{"fp8", "bf16"} {
			f := m.Facts.Get("serving." + hw + ".max_concurrency_" + alt)
			if !f.Known() {
				continue
			}
			if altConc := m.d("serving." + hw + ".max_concurrency_" + alt); altConc != conc {
				conc += " (" + f.Display + " at " + strings.ToUpper(alt) + " KV)"
			}
			if altCtx := m.d("serving." + hw + ".max_context_" + alt); altCtx != ctx {
				ctx += " (" + altCtx + ")"
			}
		}
		// The at-rest verdict states its margin; the serving verdict gets
		// its own beside it, so the table fits 1280 px.
		serving := m.d("fit." + hw + ".serving")
		if f := m.Facts.Get("fit." + hw + ".serving_margin_bytes"); f.Known() {
			serving += ": " + f.Display
		}
		t.Rows = append(t.Rows, []string{render.Code("fit-" + hw), HWLabel(hw),
			m.d("fit." + hw + ".memory_bytes"), m.d("fit." + hw + ".at_rest"),
			m.d("serving." + hw + ".placement"), m.d("serving." + hw + ".weights_bytes_per_gpu"),
			serving, conc, ctx,
			m.d("cost." + hw + ".usd_per_hour")})
	}
	return t
}

// gpus is one row per accelerator: the device's capacity (marked when no
// public capture verifies it), the smallest layout that holds the weights
// and the smallest that serves, with its price.
func (m *Model) gpus(cat *catalog.Catalog) *render.Table {
	t := &render.Table{
		Header: []string{"accelerator", "class", "memory per GPU", "smallest layout for the weights", "smallest layout that serves", "its $/h"},
		Align:  []render.Align{render.Left, render.Left, render.Right, render.Left, render.Left, render.Right},
	}
	for _, id := range acceleratorIDs(cat) {
		if m.Facts.Get("fit.min_gpus."+id) == nil {
			continue
		}
		a := cat.Accelerators[id]
		serving := m.d("fit.smallest_serving." + id)
		price := "no price"
		if f := m.Facts.Get("fit.smallest_serving." + id); f.Known() {
			if p := m.Facts.Get("cost." + f.Display + ".usd_per_hour"); p.Known() {
				price = p.Display
			}
		}
		t.Rows = append(t.Rows, []string{a.Name, a.Class, capacityText(a), m.d("fit.smallest_at_rest." + id), serving, price})
	}
	return t
}

// speedTable is the predicted speed and cost per token of each configured
// layout.
func (m *Model) speedTable() *render.Table {
	t := &render.Table{
		Header: []string{"layout", "decode, one sequence", "decode, at max concurrency", "time to first token", "$ per million output tokens", "experts in host RAM, one sequence"},
		Align:  []render.Align{render.Left, render.Right, render.Right, render.Right, render.Right, render.Right},
	}
	// Deployable layouts only; the others are named in one row.
	var cannot []string
	for _, hw := range m.Hardware {
		if m.Facts.Get("speed."+hw+".decode_tokens_per_second") == nil {
			continue
		}
		if ok, known := m.Facts.Get("deploy." + hw + ".deployable").Bool(); known && !ok {
			cannot = append(cannot, HWLabel(hw))
			continue
		}
		label := hw
		if l := m.Facts.Get("deploy." + hw + ".layout"); l.Known() {
			label = HWLabel(hw) + ", " + m.d("deploy."+hw+".engine") + " " + l.Display
		}
		t.Rows = append(t.Rows, []string{label, m.d("speed." + hw + ".decode_tokens_per_second"),
			m.d("speed." + hw + ".decode_tokens_per_second_at_max_concurrency"), m.d("speed." + hw + ".prefill_seconds"),
			m.d("cost." + hw + ".usd_per_million_output_tokens"), m.d("offload." + hw + ".experts_in_host_ram.decode_tokens_per_second")})
	}
	if len(cannot) > 0 {
		t.Rows = append(t.Rows, []string{"not deployable: " + strings.Join(cannot, ", ") + " (their deploy facts say why)", "—", "—", "—", "—", "—"})
	}
	return t
}

// calibrationTable sets each speed measurement beside the prediction for
// the layout it ran on, or says why the two cannot be compared.
func (m *Model) calibrationTable(ms []content.Measurement) *render.Table {
	t := &render.Table{
		Header: []string{"measurement", "measured", "by", "layout", "predicted", "predicted ÷ measured"},
		Align:  []render.Align{render.Left, render.Right, render.Left, render.Left, render.Right, render.Left},
	}
	for i := range ms {
		me := &ms[i]
		f := m.Facts.Get("calibration." + me.ID + ".ratio")
		if f == nil {
			continue
		}
		layout := me.Configuration.Layout
		if layout == "" {
			layout = me.Configuration.Hardware
		}
		t.Rows = append(t.Rows, []string{render.Code(me.ID), claims.Value(me), me.By, layout, m.d("calibration." + me.ID + ".predicted"), m.d("calibration." + me.ID + ".ratio")})
	}
	return t
}

// layouts is the full matrix, folded to one row per accelerator: per GPU
// count, whether the layout serves (with its maximum concurrency), holds
// only the weights, or falls short.
func (m *Model) layouts(cat *catalog.Catalog) *render.Table {
	counts := []int{1, 2, 4, 8}
	t := &render.Table{Header: []string{"accelerator"}, Align: []render.Align{render.Left}}
	for _, n := range counts {
		t.Header = append(t.Header, fmt.Sprintf("%d GPU", n))
		t.Align = append(t.Align, render.Left)
	}
	t.Header = append(t.Header, "more GPUs")
	t.Align = append(t.Align, render.Left)
	for _, id := range acceleratorIDs(cat) {
		if m.Facts.Get("fit.min_gpus."+id) == nil {
			continue
		}
		row := []string{id}
		for _, n := range counts {
			row = append(row, m.layoutCell(fmt.Sprintf("%dx%s", n, id)))
		}
		// Beyond the counts above: the smallest layout that serves, else
		// the smallest that holds the weights (the search records only
		// those past one node), else a whole node larger than them.
		more := "—"
		node := int64(cat.Accelerators[id].GPUsPerNode)
		for _, n := range []int64{m.count("fit.deployable_gpus_serving." + id), m.count("fit.deployable_gpus." + id), node} {
			if label := fmt.Sprintf("%dx%s", n, id); n > int64(counts[len(counts)-1]) && m.Facts.Get("fit."+label+".at_rest") != nil {
				more = label + ": " + m.layoutCell(label)
				break
			}
		}
		t.Rows = append(t.Rows, append(row, more))
	}
	return t
}

// count is an integer fact's value, 0 when it is unknown or absent.
func (m *Model) count(key string) int64 {
	n, _ := m.Facts.Get(key).Int()
	return n
}

// layoutCell says in a few words what one layout does with the model.
func (m *Model) layoutCell(label string) string {
	rest, ok := m.Facts.Get("fit." + label + ".at_rest").Bool()
	if m.Facts.Get("fit."+label+".at_rest") == nil || !ok {
		return "—"
	}
	if fits, ok := m.Facts.Get("serving." + label + ".fits").Bool(); ok && fits {
		return "serves ×" + m.d("serving."+label+".max_concurrency")
	}
	if rest {
		return "weights only"
	}
	return m.d("fit." + label + ".margin_bytes")
}

func acceleratorIDs(cat *catalog.Catalog) []string {
	if cat == nil {
		return nil
	}
	ids := make([]string, 0, len(cat.Accelerators))
	for id := range cat.Accelerators {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// capacityText is a GPU's memory as the page prints it: the device's
// figure, or the GPU's wired share of unified memory, marked unverified
// when no public capture backs it.
func capacityText(a *catalog.Accelerator) string {
	s := facts.GB(float64(a.Capacity()))
	if a.GPUWiredShare > 0 {
		s += fmt.Sprintf(" (%.0f%% of %s)", a.GPUWiredShare*100, facts.GB(float64(a.MemoryBytes)))
	}
	if !a.MemoryVerified {
		s += " (unverified)"
	}
	return s
}

func (m *Model) cost() *render.Table {
	keys := [][2]string{
		{"download throughput", "download.bytes_per_second"},
		{"download time", "download.seconds"},
		{"what the wait window buys", "download.window_bytes"},
		{"download outlives the wait window", "download.exceeds_window"},
		{"cheapest configuration that serves", "fit.cheapest_serving"},
		{"its price", "cost.cheapest_serving.usd_per_hour"},
	}
	if f := m.Facts.Get("fit.cheapest_serving"); f.Known() {
		keys = append(keys, [2]string{"its $ per million output tokens (predicted)", "cost." + f.Display + ".usd_per_million_output_tokens"})
	}
	keys = append(keys, [2]string{"the vendor's API, $ per million output tokens", "cost.api.usd_per_million_output_tokens"})
	for _, hw := range m.Hardware {
		keys = append(keys, [2]string{"GPUs idle during the download on " + hw, "download.idle_usd." + hw})
	}
	return factTable(m.rows(keys...))
}

// prices lists each provider's price for every configured layout, with
// the date it was read: the facts the cheapest cost.<hw>.usd_per_hour is
// chosen from.
func (m *Model) prices() *render.Table {
	t := &render.Table{Header: []string{"configuration", "provider", "$/h", "as of", "how"}, Align: []render.Align{render.Left, render.Left, render.Right, render.Left, render.Left}}
	for _, hw := range m.Hardware {
		prefix := "cost." + hw + ".usd_per_hour."
		for k := range m.Facts.Prefixed(prefix) {
			f := m.Facts.Get(k)
			provider, asOf := priceSource(f.Sources)
			t.Rows = append(t.Rows, []string{hw, provider, m.d(k), asOf, f.Derivation})
		}
	}
	return t
}

// priceSource splits a "pricing:<provider> <date>" source.
func priceSource(sources []string) (provider, asOf string) {
	for _, s := range sources {
		if rest, ok := strings.CutPrefix(s, "pricing:"); ok {
			if i := strings.LastIndex(rest, " "); i > 0 {
				return rest[:i], rest[i+1:]
			}
			return rest, ""
		}
	}
	return "—", "—"
}

func (m *Model) published(pubs []content.Published) *render.Table {
	t := &render.Table{Header: []string{"figure", "published", "source", "derived here", "fact"}, Align: []render.Align{render.Left, render.Right, render.Left, render.Right}}
	for _, p := range pubs {
		text := p.Text
		if text == "" {
			text = facts.Display(p.Unit, p.Value)
		}
		label := m.labels[p.Key]
		if label == "" {
			label = p.Key // no table names it; the key is the only name it has
		}
		t.Rows = append(t.Rows, []string{label, text, p.Source, m.d(p.Key), render.Code(p.Key)})
	}
	return t
}

func (m *Model) reconcile() *render.Table {
	var rows [][2]string
	for k, rest := range m.Facts.Prefixed("reconcile.") {
		rows = append(rows, [2]string{words(rest), k})
	}
	return factTable(m.rows(rows...))
}

func (m *Model) sources() *render.Table {
	t := &render.Table{Header: []string{"source", "facts"}, Align: []render.Align{render.Left, render.Right}}
	// Counted in key order, which walks a slice rather than the set's
	// map; the table is sorted below.
	// The parts of the hardware catalog and the price lists are counted
	// as two inputs, as the inputs page lists them: a row per part
	// repeated the catalog on every page. A fact counts once per input.
	count := map[string]int{}
	parts, lists := map[string]bool{}, map[string]bool{}
	var cited []string
	for f := range m.Facts.All() {
		cited = cited[:0]
		for _, s := range f.Sources {
			// A fact citing another of the page's facts rests on that
			// fact's inputs, which are counted where it cites them.
			if m.Facts.Get(s) != nil {
				continue
			}
			switch {
			case strings.HasPrefix(s, catalog.HardwareSourcePrefix):
				parts[s] = true
				s = catalog.HardwareSourcePrefix
			case strings.HasPrefix(s, catalog.PriceSourcePrefix):
				lists[s] = true
				s = catalog.PriceSourcePrefix
			}
			if !slices.Contains(cited, s) {
				cited = append(cited, s)
				count[s]++
			}
		}
	}
	type source struct{ id, name string }
	srcs := make([]source, 0, len(count))
	for s := range count {
		name := SourceName(s)
		switch s {
		case catalog.HardwareSourcePrefix:
			name = fmt.Sprintf("the hardware catalog (%s)", facts.Count(len(parts), "part"))
		case catalog.PriceSourcePrefix:
			name = fmt.Sprintf("the price lists (%s)", facts.Count(len(lists), "source"))
		}
		srcs = append(srcs, source{s, name})
	}
	// In the order a reader scans them: by name.
	sort.Slice(srcs, func(i, j int) bool {
		a, b := srcs[i], srcs[j]
		return a.name < b.name || a.name == b.name && a.id < b.id
	})
	for _, s := range srcs {
		t.Rows = append(t.Rows, []string{s.name, strconv.Itoa(count[s.id])})
	}
	return t
}

func rowsOf(rows [][3]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = []string{SourceName(r[0]), r[1], r[2]}
	}
	return out
}

// sourceNames say in words what a fact's source id points at.
var sourceNames = []struct{ prefix, name string }{
	{"hub:census", "the Hub's dtype census"},
	{"hub:tree", "the repository's file listing"},
	{"hub:index", "model.safetensors.index.json"},
	{"hub:headers", "the safetensors headers"},
	{"hub:", "the Hub"},
	{"config.json", "config.json"},
	{"hf_quant_config.json", "hf_quant_config.json"},
	{catalog.HardwareSourcePrefix, "hardware catalog: "},
	{"catalog:software.yaml", "software windows"},
	{"pricing:", "price list: "},
	{"site:hugo-like.yaml", "the site's sizing settings"},
	{"analytic:module-tree", "the module tree built from config.json"},
}

// SourceName is a fact source id in words: "hub:tree" is "the
// repository's file listing", "catalog:hardware.yaml#B200" is "hardware
// catalog: B200". An id it does not know is returned as it is.
func SourceName(id string) string {
	for _, s := range sourceNames {
		if rest, ok := strings.CutPrefix(id, s.prefix); ok {
			if strings.HasSuffix(s.name, ": ") {
				return s.name + rest
			}
			switch {
			case rest == "" || strings.HasPrefix(rest, " "):
				return s.name + rest
			case strings.HasPrefix(rest, "@"):
				return s.name + " at " + rest[1:]
			}
		}
	}
	return id
}

func (m *Model) streamTable() *render.Table {
	return factTable(m.rows(
		[2]string{"one layer's routed experts, expanded to BF16", "stream.experts_bf16_bytes_per_layer"},
		[2]string{"the experts one token needs in a layer, BF16", "stream.active_experts_bf16_bytes_per_layer"},
		[2]string{"stored bytes read per generated token when streaming", "stream.bytes_read_per_token"},
		[2]string{"time per generated token when streaming, disk-bound", "stream.seconds_per_token"},
		[2]string{"quantized parameters per stored byte", "quant.params_per_byte"},
		[2]string{"full fine-tune (weights, gradients, Adam states)", "train.full_bytes"},
		[2]string{"LoRA base weights, frozen as stored", "train.lora_frozen_bytes"},
		[2]string{"QLoRA base weights (NF4, double-quantized)", "train.qlora_frozen_bytes"},
	))
}

// variantsTable sets the released checkpoint beside its other published
// forms: repository, size and download time.
func (m *Model) variantsTable(vs []content.Variant) *render.Table {
	t := &render.Table{Header: []string{"form", "repository", "size", "download"}, Align: []render.Align{render.Left, render.Left, render.Right, render.Right}}
	if len(vs) == 0 {
		return t
	}
	t.Rows = append(t.Rows, []string{"as released", m.ModelID, m.d("bytes.checkpoint"), m.d("download.seconds")})
	for _, v := range vs {
		k := "variant." + v.Name
		t.Rows = append(t.Rows, []string{variantLabel(v), v.Repo, m.d(k + ".bytes"), m.d(k + ".download_seconds")})
	}
	return t
}

// variantFitTable is each form's files against each hardware entry's
// memory: a row per entry and a column per form, so that a page with
// eight forms and fourteen entries is as wide as its forms, not its
// entries.
func (m *Model) variantFitTable(vs []content.Variant) *render.Table {
	t := &render.Table{Header: []string{"layout", "as released"}, Align: []render.Align{render.Left, render.Right}}
	if len(vs) == 0 {
		return t
	}
	for _, v := range vs {
		t.Header = append(t.Header, variantLabel(v))
		t.Align = append(t.Align, render.Right)
	}
	for _, hw := range m.Hardware {
		// Files against memory, as for every form.
		row := []string{HWLabel(hw), m.d("fit." + hw + ".file_margin_bytes")}
		for _, v := range vs {
			row = append(row, m.d("variant."+v.Name+".fit."+hw+".margin_bytes"))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func variantLabel(v content.Variant) string { return v.Name + " (" + v.Format + ")" }

func (m *Model) softwareTable() *render.Table {
	var keys [][2]string
	for k, rest := range m.Facts.Prefixed("software.") {
		pkg, kind, _ := strings.Cut(rest, ".")
		label := map[string]string{"works": "works with", "fails": "fails with", "first_failing": "first version that fails"}[kind]
		keys = append(keys, [2]string{pkg + ": " + label, k})
	}
	return factTable(m.rows(keys...))
}

// sourceList is a fact's sources as a map key: most cite one to three.
type sourceList struct {
	n       int
	a, b, c string
}

func listOf(sources []string) (l sourceList, ok bool) {
	l.n = len(sources)
	switch l.n {
	case 3:
		l.c = sources[2]
		fallthrough
	case 2:
		l.b = sources[1]
		fallthrough
	case 1:
		l.a = sources[0]
	case 0:
	default:
		return l, false
	}
	return l, true
}

// sourcesCell is the facts table's sources cell: each source by its
// printed name, cited references named.
func (m *Model) sourcesCell(sources []string) string {
	var out string
	switch len(sources) {
	case 0:
	case 1:
		out = SourceName(sources[0])
	default:
		var b strings.Builder
		for i, src := range sources {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(SourceName(src))
		}
		out = b.String()
	}
	if m.namer != nil {
		out = m.namer(out)
	}
	return out
}

func (m *Model) factsTable(fs iter.Seq[*facts.Fact], n int) *render.Table {
	t := &render.Table{Header: []string{render.AnchorHeader, "fact", "value", "how", "sources"}, Align: []render.Align{render.Left, render.Left, render.Right}}
	// Over a thousand rows: their cells share one array.
	const cols = 5
	cells := make([]string, 0, cols*n)
	t.Rows = make([][]string, 0, n)
	// A page's facts cite a few dozen source lists between them: each is
	// named once.
	named := map[sourceList]string{}
	for f := range fs {
		k := f.Key
		how := f.Derivation
		if !f.Known() {
			how = "unknown: " + f.Reason
		}
		list, short := listOf(f.Sources)
		sources, ok := named[list]
		if !ok || !short {
			sources = m.sourcesCell(f.Sources)
			if short {
				named[list] = sources
			}
		}
		if m.namer != nil {
			how = m.namer(how)
		}
		code := render.Code(k)
		cells = append(cells, code, code, f.Display, how, sources)
		t.Rows = append(t.Rows, cells[len(cells)-cols:len(cells):len(cells)])
	}
	return t
}
