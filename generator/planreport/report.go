// Package planreport lays out the facts dossier plan computed as a report
// a reader can act on: the answer first (checkpoint size, fit with margins
// on the chosen hardware, smallest layouts, cheapest $/h, download time),
// then the facts grouped into sections by key prefix, as text (at most 100
// columns) or Markdown. Facts that repeat per layout or per accelerator
// become one table per section instead of one row per key. New facts land
// in the section their prefix names, with no change here.
package planreport

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"dossier/generator/config"
	"dossier/generator/facts"
	"dossier/generator/page"
)

// Width is the widest line the text report prints.
const Width = 100

// Model is one sized model.
type Model struct {
	Name   string // org/name@commit, or the config.json path
	Origin string // where its inputs came from
	Facts  *facts.Set
}

// Report is one model, or two side by side.
type Report struct {
	Models       []Model
	Hardware     []string // layouts with a fit verdict, COUNTxACCELERATOR
	Accelerators []string // accelerator ids of the catalog
	// MemoryBytes is each accelerator's memory: of two layouts with as
	// many GPUs, the one with less memory is the smaller.
	MemoryBytes map[string]int64
	Inputs      []string // the catalogs used and their dates
	All         bool     // every fact, with its derivation or reason
	// Asked are the layouts the reader named (--hardware): the answer gives
	// each its verdict.
	Asked []string
}

// sectionPrefixes maps a key prefix (whole dot-separated segments) to its
// section; the longest matching prefix wins, so download.idle_usd is a
// cost while download.seconds is about bytes. Keys no prefix matches go
// to "Other".
var sectionPrefixes = map[string]string{
	"params": "Parameters", "elements": "Parameters", "tensors": "Parameters", "sparsity": "Parameters",
	"share": "Parameters", "quant": "Parameters", "analytic": "Parameters", "reconcile": "Parameters",
	"published": "Parameters",
	"arch":      "Architecture", "moe": "Architecture",
	"bytes": "Bytes", "bits_per_param": "Bytes", "shards": "Bytes", "download": "Bytes", "variant": "Bytes",
	"kv": "Memory", "state": "Memory", "memory": "Memory", "stream": "Memory", "train": "Memory",
	"fit": "Fit", "min_gpus": "Fit", "serving": "Fit",
	"speed": "Speed", "decode": "Speed", "prefill": "Speed", "roofline": "Speed", "throughput": "Speed",
	"cost": "Cost", "download.idle_usd": "Cost",
}

// sectionOrder is the order a reader decides in.
var sectionOrder = []string{"Parameters", "Architecture", "Bytes", "Memory", "Fit", "Speed", "Cost", "Other"}

func sectionOf(key string) string {
	for p := key; ; { // the longest prefix first
		if t, ok := sectionPrefixes[p]; ok {
			return t
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return "Other"
		}
		p = p[:i]
	}
}

// leading puts the facts a reader looks for first at the top of their
// section; the others follow in key order.
var leading = []string{
	"params.total", "params.active", "params.active_no_embedding", "params.main", "params.mtp", "params.experts",
	"arch.family", "arch.layers", "arch.attention", "arch.hybrid", "arch.context",
	"bytes.checkpoint", "bytes.tensors", "bits_per_param", "shards.count", "bytes.headers",
	"download.seconds", "download.bytes_per_second",
	"kv.bytes_per_token", "state.bytes_per_sequence",
	"fit.assumptions", "fit.cache_bytes", "fit.cheapest_serving",
	"cost.cheapest_serving.usd_per_hour",
}

// columnNames are the table headings of key segments that have a shorter
// name; other segments drop a "_bytes" suffix and read "_" as a space.
// A column is its segments' names joined: "deployable.usd_per_hour" is
// "deployable $/h", "usd_per_hour.runpod" "$/h runpod".
var columnNames = map[string]string{
	"usd_per_hour": "$/h", "idle_usd": "$ idle while downloading",
	"deployable_gpus": "deployable", "deployable_gpus_serving": "deployable serving",
}

func columnName(c string) string {
	segs := strings.Split(c, ".")
	for i, s := range segs {
		if n, ok := columnNames[s]; ok {
			segs[i] = n
		} else {
			segs[i] = strings.ReplaceAll(strings.TrimSuffix(s, "_bytes"), "_", " ")
		}
	}
	return strings.Join(segs, " ")
}

// leadingColumns orders the columns of the per-layout and per-accelerator
// tables.
var leadingColumns = []string{
	"memory_bytes", "at_rest", "margin_bytes", "usable_bytes", "serving", "serving_margin_bytes",
	"min_gpus", "deployable_gpus", "deployable_gpus_serving",
}

func rank(list []string, s string) int {
	if i := slices.Index(list, s); i >= 0 {
		return i
	}
	return len(list)
}

// row is one fact across the models: a value per model, and with --all
// the derivation or reason per model.
type row struct {
	key    string
	values []string
	notes  []string
}

// taggedNotes are the row's derivations or reasons: one when every model
// has the same, else one per model prefixed with its tag.
func (rw *row) taggedNotes() []string {
	same := true
	for _, n := range rw.notes {
		same = same && n == rw.notes[0]
	}
	if same {
		if len(rw.notes) == 0 || rw.notes[0] == "" {
			return nil
		}
		return rw.notes[:1]
	}
	var out []string
	for i, n := range rw.notes {
		if n != "" {
			out = append(out, modelTag(i)+": "+n)
		}
	}
	return out
}

// table holds the facts that repeat per layout or per accelerator.
type table struct {
	entity  string // "layout" or "accelerator"
	columns []string
	rows    []tableRow
}

type tableRow struct {
	label string
	cells []string
}

type section struct {
	title  string
	rows   []*row
	tables []*table
}

// isAlias reports a fact that only repeats another under an older key.
func isAlias(f *facts.Fact) bool { return strings.HasPrefix(f.Derivation, "same as ") }

// entityOf finds the layout or accelerator a key is about, and the key
// with that segment taken out (the table column). The first segment
// never counts: it names the kind of fact.
func (r *Report) entityOf(key string) (kind, entity, column string) {
	segs := strings.Split(key, ".")
	for i := 1; i < len(segs); i++ {
		s := segs[i]
		switch {
		case slices.Contains(r.Hardware, s):
			kind = "layout"
		case slices.Contains(r.Accelerators, s):
			kind = "accelerator"
		default:
			if _, _, ok := config.ParseHardware(s); ok {
				kind = "layout"
			} else {
				continue
			}
		}
		rest := append(slices.Clone(segs[1:i]), segs[i+1:]...)
		return kind, s, strings.Join(rest, ".")
	}
	return "", "", ""
}

// modelTag names a model in a comparison: A, B.
func modelTag(i int) string { return string(rune('A' + i)) }

// sections groups the facts of every model.
func (r *Report) sections() []*section {
	bySection := map[string]*section{}
	get := func(title string) *section {
		if bySection[title] == nil {
			bySection[title] = &section{title: title}
		}
		return bySection[title]
	}
	rows := map[string]*row{}
	tables := map[string]map[string]*table{} // section → kind → table
	cells := map[string]map[cellKey][]string{}
	n := len(r.Models)
	for mi, m := range r.Models {
		for _, k := range m.Facts.Keys() {
			f := m.Facts.Get(k)
			title := sectionOf(k)
			if isAlias(f) {
				continue
			}
			if kind, entity, column := r.entityOf(k); kind != "" {
				if tables[title] == nil {
					tables[title], cells[title] = map[string]*table{}, map[cellKey][]string{}
				}
				t := tables[title][kind]
				if t == nil {
					t = &table{entity: kind}
					tables[title][kind] = t
				}
				if !slices.Contains(t.columns, column) {
					t.columns = append(t.columns, column)
				}
				ck := cellKey{kind, entity + "\x00" + modelTagIf(n, mi), column}
				cells[title][ck] = []string{short(f)}
				continue
			}
			rw := rows[k]
			if rw == nil {
				rw = &row{key: k, values: make([]string, n), notes: make([]string, n)}
				rows[k] = rw
				get(title).rows = append(get(title).rows, rw)
			}
			rw.values[mi] = value(f, r.All)
			rw.notes[mi] = note(f)
		}
	}
	for title, byKind := range tables {
		for _, kind := range []string{"layout", "accelerator"} {
			t := byKind[kind]
			if t == nil {
				continue
			}
			sort.SliceStable(t.columns, func(i, j int) bool {
				ri, rj := rank(leadingColumns, t.columns[i]), rank(leadingColumns, t.columns[j])
				if ri != rj {
					return ri < rj
				}
				return t.columns[i] < t.columns[j]
			})
			for _, e := range r.entities(kind, cells[title]) {
				for mi := range r.Models {
					tag := modelTagIf(n, mi)
					tr := tableRow{label: e, cells: make([]string, len(t.columns))}
					if tag != "" {
						tr.label = e + " (" + tag + ")"
					}
					filled := false
					for ci, c := range t.columns {
						if v, ok := cells[title][cellKey{kind, e + "\x00" + tag, c}]; ok {
							tr.cells[ci], filled = v[0], true
						} else {
							tr.cells[ci] = "—"
						}
					}
					if filled {
						t.rows = append(t.rows, tr)
					}
				}
			}
			get(title).tables = append(get(title).tables, t)
		}
	}
	var out []*section
	for _, title := range sectionOrder {
		s := bySection[title]
		if s == nil {
			continue
		}
		sort.SliceStable(s.rows, func(i, j int) bool {
			ri, rj := rank(leading, s.rows[i].key), rank(leading, s.rows[j].key)
			if ri != rj {
				return ri < rj
			}
			return s.rows[i].key < s.rows[j].key
		})
		out = append(out, s)
	}
	return out
}

func modelTagIf(n, i int) string {
	if n == 1 {
		return ""
	}
	return modelTag(i)
}

// entities lists a table's rows: the configured layouts or the catalog's
// accelerators in their order, then any other the facts name.
func (r *Report) entities(kind string, cells map[cellKey][]string) []string {
	var order []string
	if kind == "layout" {
		order = slices.Clone(r.Hardware)
	} else {
		order = slices.Clone(r.Accelerators)
	}
	var extra []string
	for ck := range cells {
		if ck.kind != kind {
			continue
		}
		e, _, _ := strings.Cut(ck.entity, "\x00")
		if !slices.Contains(order, e) && !slices.Contains(extra, e) {
			extra = append(extra, e)
		}
	}
	sort.Strings(extra)
	return append(order, extra...)
}

// cellKey finds a table cell: the kind of table, the entity with the
// model's tag, the column.
type cellKey struct{ kind, entity, column string }

// value is a fact's display; an unknown fact says why.
func value(f *facts.Fact, all bool) string {
	if f == nil {
		return ""
	}
	if !f.Known() && !all && f.Reason != "" {
		return "unknown: " + f.Reason
	}
	return f.Display
}

// note is the derivation of a known fact, the reason of an unknown one.
func note(f *facts.Fact) string {
	if !f.Known() {
		return f.Reason
	}
	return f.Derivation
}

// short is a table cell: the decimal figure without its binary twin
// ("1,440.0 GB", not "1,440.0 GB (1,341.1 GiB)").
func short(f *facts.Fact) string {
	if !f.Known() {
		return "unknown"
	}
	d := f.Display
	if f.Unit == facts.UnitBytes || f.Unit == facts.UnitSeconds {
		if i := strings.Index(d, " ("); i > 0 && strings.HasSuffix(d, ")") {
			d = d[:i]
		}
	}
	return d
}

func display(s *facts.Set, key string) string {
	f := s.Get(key)
	if f == nil {
		return ""
	}
	return value(f, false)
}

func checkpoint(s *facts.Set) string {
	f := s.Get("bytes.checkpoint")
	if f == nil {
		return ""
	}
	if !f.Known() {
		out := "unknown (" + f.Reason + ")"
		if t := s.Get("bytes.tensors"); t.Known() {
			out = t.Display + " of tensors; on disk " + out
		}
		return out
	}
	out := f.Display + " on disk"
	if n, ok := s.Get("shards.count").Int(); ok {
		out += fmt.Sprintf(" in %s shard(s)", facts.Int(n))
	}
	if b := s.Get("bits_per_param"); b.Known() {
		out += ", " + b.Display
	}
	return out
}

func parameters(s *facts.Set) string {
	t := s.Get("params.total")
	if t == nil {
		return ""
	}
	if !t.Known() {
		return value(t, false)
	}
	return page.ParametersLine(s)
}

func download(s *facts.Set) string {
	d := s.Get("download.seconds")
	if d == nil {
		return ""
	}
	if !d.Known() {
		return value(d, false)
	}
	return d.Display + " at " + display(s, "download.bytes_per_second")
}
