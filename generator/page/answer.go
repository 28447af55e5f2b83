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
	add("parameters", ParametersLine(m.Facts), "params.total")
	add("size on disk", m.d("bytes.checkpoint"), "bytes.checkpoint")
	// The deployments an engine would launch, each with the context,
	// concurrency and cache width it assumes; a choice that repeats an
	// earlier one is named, not repeated.
	for i, c := range Choices {
		key := "deploy." + c.Key + ".layout"
		label, ok := Chosen(m.Facts, c.Key)
		if !ok {
			add(c.Label, "none deployable: "+reasonOf(m.Facts.Get(key), "no deployment in this build"), key)
			continue
		}
		if prev, ok := Repeats(m.Facts, i); ok {
			add(c.Label, "the "+prev+" layout", key)
			continue
		}
		add(c.Label, ChoiceLine(m.Facts, label), key)
	}
	if label, choice, ok := Top(m.Facts); ok {
		add("launch ("+choice+")", render.Code(m.d("deploy."+label+".command")), "deploy."+label+".command")
	}
	text, key := m.referenceFit()
	if c := m.Facts.Get("fit.context"); c.Known() {
		text = fmt.Sprintf("at %s tokens × %s sequence(s), %s KV: %s", c.Display, m.d("fit.concurrency"), strings.ToUpper(m.d("fit.kv_dtype")), text)
	}
	add("reference layouts", text, key)
	dl := m.d("download.seconds")
	if f := m.Facts.Get("download.bytes_per_second"); f.Known() {
		dl += " at " + f.Display
	}
	add("download", dl, "download.seconds")
	add("claims", ClaimsTally(rs), "")
	return a
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

// Smallest is the dossier's "smallest" answer, deploy.smallest.layout,
// for the lists that show it beside other models: the layout as a reader
// says it ("24 × H100"), the answer's full text (engine and placement),
// and the memory in all that ranks it, as the answer ranks layouts. ok is
// false when no layout of the catalog is deployable.
func (m *Model) Smallest(cat *catalog.Catalog) (short, full string, memory int64, ok bool) {
	f := m.Facts.Get("deploy.smallest.layout")
	label, known := f.Value.(string)
	if !f.Known() || !known {
		return "", "", 0, false
	}
	n, id, parsed := config.ParseHardware(label)
	acc := cat.Accelerators[id]
	if !parsed || acc == nil {
		return "", "", 0, false
	}
	return HWLabel(label), f.Display, int64(n) * acc.Capacity(), true
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
// at the pinned revision (the default branch when none was recorded), and
// At, the words the links carry: a link to main is not "at this revision".
type HubLinks struct{ Page, Files, Config, At string }

// Hub returns the model's Hub links.
func (m *Model) Hub() HubLinks {
	rev, at := m.Revision, "at this revision"
	if rev == "" {
		rev, at = "main", "on main (the snapshot recorded no revision)"
	}
	base := "https://huggingface.co/" + m.ModelID
	return HubLinks{Page: base, Files: base + "/tree/" + rev, Config: base + "/blob/" + rev + "/config.json", At: at}
}

// ParametersLine is the parameter count as the answer gives it: total and
// activated per token (without the input embedding). plan prints the same.
func ParametersLine(s *facts.Set) string {
	out := display(s, "params.total")
	if f := s.Get("params.active_no_embedding"); f.Known() {
		out += " total, " + f.Display + " activated per token"
	}
	return out
}
