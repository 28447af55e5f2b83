package page

import (
	"fmt"
	"sort"
	"strings"

	"dossier/generator/catalog"
	"dossier/generator/claims"
	"dossier/generator/config"
	"dossier/generator/facts"
	"dossier/generator/render"
)

// Answer is what a reader decides on, at the top of every dossier: each
// line a plain-words answer and the fact that carries it (empty when the
// line is a count over several facts).
type Answer struct {
	Lines []AnswerLine
}

// AnswerLine is one question of the answer box.
type AnswerLine struct {
	Question string
	Text     string
	Key      string
}

// HWLabel writes a COUNTxACCELERATOR layout as a reader says it: "8 × B200".
func HWLabel(hw string) string {
	if n, id, ok := config.ParseHardware(hw); ok {
		return fmt.Sprintf("%d × %s", n, id)
	}
	return hw
}

func (m *Model) answer(cat *catalog.Catalog, rs []claims.Review) *Answer {
	a := &Answer{}
	add := func(q, text, key string) {
		if m.Facts.Get(key) == nil {
			key = "" // nothing to link to
		}
		a.Lines = append(a.Lines, AnswerLine{Question: q, Text: text, Key: key})
		if key != "" && m.labels[key] == "" {
			if m.labels == nil {
				m.labels = map[string]string{}
			}
			m.labels[key] = q
		}
	}
	params := m.d("params.total")
	if f := m.Facts.Get("params.active_no_embedding"); f.Known() {
		params += " total, " + f.Display + " activated per token"
	}
	add("parameters", params, "params.total")
	add("size on disk", m.d("bytes.checkpoint"), "bytes.checkpoint")
	text, key := m.referenceFit()
	add("fits the reference layouts", text, key)
	add("smallest layout per class", m.smallestPerClass(cat), "")
	cfg := ""
	if f := m.Facts.Get("fit.cheapest_serving"); f.Known() {
		cfg = f.Display
	}
	if cfg == "" {
		add("cheapest serving", "unknown: "+reasonOf(m.Facts.Get("fit.cheapest_serving"), "no priced configuration in the catalog serves it"), "fit.cheapest_serving")
	} else {
		add("cheapest serving", HWLabel(cfg)+" at "+m.d("cost.cheapest_serving.usd_per_hour"), "cost.cheapest_serving.usd_per_hour")
	}
	mtok, speed := "cost."+cfg+".usd_per_million_output_tokens", "speed."+cfg+".decode_tokens_per_second"
	add("$ per million output tokens", m.perConfig(mtok, cfg, "price per token"), mtok)
	add("decode speed (batch 1)", m.perConfig(speed, cfg, "decode speed prediction"), speed)
	dl := m.d("download.seconds")
	if f := m.Facts.Get("download.bytes_per_second"); f.Known() {
		dl += " at " + f.Display
	}
	add("download", dl, "download.seconds")
	add("claims", ClaimsTally(rs), "")
	return a
}

// perConfig is the display of a per-configuration fact of the cheapest
// serving configuration, or unknown with the reason.
func (m *Model) perConfig(key, cfg, what string) string {
	if cfg == "" {
		return "unknown: no priced configuration serves it"
	}
	f := m.Facts.Get(key)
	if f.Known() {
		return f.Display
	}
	return "unknown: " + reasonOf(f, "this build has no "+what+" for "+HWLabel(cfg))
}

func reasonOf(f *facts.Fact, fallback string) string {
	if f != nil && f.Reason != "" {
		return f.Reason
	}
	return fallback
}

// referenceFit says which of the site's reference layouts serve the model
// at the stated context, with their margins, and how the rest fall short.
// It names every layout that fits when there are two or fewer, else the
// one with the least to spare.
func (m *Model) referenceFit() (string, string) {
	type verdict struct {
		hw, key, margin string
		spare           float64
	}
	var fits, short []verdict
	for _, hw := range m.Hardware {
		verdictKey, marginKey := "fit."+hw+".serving", "fit."+hw+".serving_margin_bytes"
		if m.Facts.Get(verdictKey) == nil {
			verdictKey, marginKey = "fit."+hw+".at_rest", "fit."+hw+".margin_bytes"
		}
		ok, known := m.Facts.Get(verdictKey).Bool()
		if !known {
			continue
		}
		spare, _ := m.num(marginKey)
		v := verdict{hw: hw, key: verdictKey, margin: m.d(marginKey), spare: spare}
		if ok {
			fits = append(fits, v)
		} else {
			short = append(short, v)
		}
	}
	total := len(fits) + len(short)
	if total == 0 {
		return "unknown: " + reasonOf(m.Facts.Get("fit.min_gpus"), "no fit verdicts"), "fit.min_gpus"
	}
	// Least spare first among those that fit, least short first among the rest.
	sort.SliceStable(fits, func(i, j int) bool { return fits[i].spare < fits[j].spare })
	sort.SliceStable(short, func(i, j int) bool { return short[i].spare > short[j].spare })
	var parts []string
	key := ""
	switch {
	case len(fits) == total:
		parts = append(parts, fmt.Sprintf("yes on all %d; least spare on %s (%s)", total, HWLabel(fits[0].hw), fits[0].margin))
	case len(fits) > 2:
		parts = append(parts, fmt.Sprintf("yes on %d of %d; least spare on %s (%s)", len(fits), total, HWLabel(fits[0].hw), fits[0].margin))
	case len(fits) > 0:
		var named []string
		for _, v := range fits {
			named = append(named, HWLabel(v.hw)+" ("+v.margin+")")
		}
		parts = append(parts, "yes on "+strings.Join(named, ", "))
	}
	if len(fits) > 0 {
		key = fits[0].key
	}
	if len(short) > 0 {
		s := fmt.Sprintf("no on %d of %d", len(short), total)
		if len(fits) == 0 {
			s = fmt.Sprintf("no on any of %d", total)
			key = short[0].key
		}
		parts = append(parts, s+"; closest "+HWLabel(short[0].hw)+" ("+short[0].margin+")")
	}
	return strings.Join(parts, "; "), key
}

// Layout is a number of one accelerator.
type Layout struct {
	GPUs int64
	ID   string
	Key  string // the fact that gives the count
}

// String is the layout as a reader says it: "2 × H100".
func (l Layout) String() string { return fmt.Sprintf("%d × %s", l.GPUs, l.ID) }

// SmallestLayout is the deployable layout with the fewest GPUs that serves
// the model at the stated context, among accelerators of class (any GPU
// class when empty: a CPU host is a class of its own, not a smaller GPU
// layout); less total memory breaks a tie, the id a second tie.
func (m *Model) SmallestLayout(cat *catalog.Catalog, class string) (Layout, bool) {
	var best Layout
	var bestBytes int64
	found := false
	if cat == nil {
		return best, false
	}
	ids := make([]string, 0, len(cat.Accelerators))
	for id := range cat.Accelerators {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		acc := cat.Accelerators[id]
		if class != "" && acc.Class != class || class == "" && acc.Class == "cpu" {
			continue
		}
		key := "fit.deployable_gpus_serving." + id
		n, ok := m.Facts.Get(key).Int()
		if !ok {
			continue
		}
		if !found || n < best.GPUs || n == best.GPUs && n*acc.Capacity() < bestBytes {
			best, bestBytes, found = Layout{GPUs: n, ID: id, Key: key}, n*acc.Capacity(), true
		}
	}
	return best, found
}

// smallestPerClass names, for each class of hardware, the smallest layout
// that serves the model.
func (m *Model) smallestPerClass(cat *catalog.Catalog) string {
	if cat == nil {
		return "unknown: no hardware catalog"
	}
	has := map[string]bool{}
	for _, acc := range cat.Accelerators {
		has[acc.Class] = true
	}
	var parts []string
	for _, c := range catalog.Classes {
		if !has[c] {
			continue
		}
		if l, ok := m.SmallestLayout(cat, c); ok {
			parts = append(parts, c+": "+l.String())
		} else {
			parts = append(parts, c+": none serves it")
		}
	}
	if len(parts) == 0 {
		return "unknown: the hardware catalog gives no accelerator classes"
	}
	return strings.Join(parts, "; ")
}

// ClaimsTally counts verdicts: "13 checked: 5 supported, 6 refuted, 2
// misleading", and "1 withdrawn" for reviews retracted or voided. The
// index prints the same tally.
func ClaimsTally(rs []claims.Review) string {
	if len(rs) == 0 {
		return "none checked"
	}
	n := claims.Tally(rs)
	var parts []string
	for _, v := range claims.TallyOrder() {
		if n[v] > 0 || v == "supported" || v == "refuted" || v == "misleading" {
			parts = append(parts, fmt.Sprintf("%d %s", n[v], v))
		}
	}
	return fmt.Sprintf("%d checked: %s", len(rs), strings.Join(parts, ", "))
}

// Table is the answer box as a table: the question, the answer and the
// fact behind it.
func (a *Answer) Table() *render.Table {
	t := &render.Table{Header: []string{"question", "answer", "fact"}}
	for _, l := range a.Lines {
		key := ""
		if l.Key != "" {
			key = render.Code(l.Key)
		}
		t.Rows = append(t.Rows, []string{l.Question, l.Text, key})
	}
	return t
}

// HubLinks are the model's Hub page, its file listing and its config.json
// at the pinned revision (the default branch when none was recorded).
type HubLinks struct{ Page, Files, Config string }

// Hub returns the model's Hub links.
func (m *Model) Hub() HubLinks {
	rev := m.Revision
	if rev == "" {
		rev = "main"
	}
	base := "https://huggingface.co/" + m.ModelID
	return HubLinks{Page: base, Files: base + "/tree/" + rev, Config: base + "/blob/" + rev + "/config.json"}
}
