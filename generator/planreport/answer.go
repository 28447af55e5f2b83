package planreport

import (
	"fmt"
	"strconv"
	"strings"

	"dossier/generator/facts"
)

// Choices are the deployments the answer names (deploy.<NAME>.layout),
// in the order a reader asks: what it costs per token, how fast one
// stream runs, the least hardware, one server, a machine of one's own.
var Choices = []struct{ Key, Label string }{
	{"cheapest", "cheapest per token"},
	{"fastest", "fastest stream"},
	{"smallest", "smallest"},
	{"single_host", "best single host"},
	{"local", "best local"},
}

// answer is the box a reader reads first: label and a value per model.
func (r *Report) answer() []*row {
	n := len(r.Models)
	var out []*row
	add := func(label string, fn func(s *facts.Set) string) {
		rw := &row{key: label, values: make([]string, n)}
		some := false
		for i, m := range r.Models {
			rw.values[i] = fn(m.Facts)
			some = some || rw.values[i] != ""
		}
		if some {
			out = append(out, rw)
		}
	}
	add("checkpoint", checkpoint)
	add("parameters", parameters)
	for i, c := range Choices {
		add(c.Label, func(s *facts.Set) string {
			label, ok := chosen(s, c.Key)
			if !ok {
				return "none deployable"
			}
			// A layout that is also an earlier choice is named, not repeated.
			for _, prev := range Choices[:i] {
				if l, ok := chosen(s, prev.Key); ok && l == label {
					return "the " + prev.Label + " layout"
				}
			}
			return ChoiceLine(s, label, r.ServingContext)
		})
	}
	for _, hw := range r.Asked {
		add(hw, func(s *facts.Set) string { return askedLine(s, hw, r.ServingContext) })
	}
	add("download", download)
	add("assumes", func(s *facts.Set) string { return display(s, "fit.assumptions") })
	return out
}

// chosen is the layout label of the answer's choice key.
func chosen(s *facts.Set, key string) (string, bool) {
	f := s.Get("deploy." + key + ".layout")
	if !f.Known() {
		return "", false
	}
	label, ok := f.Value.(string)
	return label, ok
}

// ChoiceLine is one deployment in one line: accelerators, engine and
// parallelism, cache width, the longest context, the concurrency at the
// serving context, single-stream decode speed, $/h and $ per million
// output tokens at that concurrency. The page's answer box prints the
// same line.
func ChoiceLine(s *facts.Set, label string, servingCtx int64) string {
	key := func(k string) string { return "deploy." + label + "." + k }
	n, id, _ := strings.Cut(label, "x")
	parts := []string{fmt.Sprintf("%s × %s, %s %s, %s KV", n, id, display(s, key("engine")), display(s, key("layout")), strings.ToUpper(display(s, key("kv_dtype"))))}
	if mc := s.Get(key("max_context")); mc.Known() {
		parts = append(parts, "≤"+mc.Display+" tokens")
	}
	if ctx, c := concurrencyAt(s, label, contextOf(s, servingCtx)); c != nil {
		unit := "seqs"
		if n, _ := c.Int(); n == 1 {
			unit = "seq"
		}
		parts = append(parts, fmt.Sprintf("%s %s of %s", c.Display, unit, facts.Int(ctx)))
	}
	if v := s.Get("speed." + label + ".decode_tokens_per_second"); v.Known() {
		parts = append(parts, v.Display+" per stream")
	}
	if v := s.Get("cost." + label + ".usd_per_hour"); v.Known() {
		parts = append(parts, v.Display)
	}
	if v := s.Get("cost." + label + ".usd_per_million_output_tokens"); v.Known() {
		load := "one stream"
		if s.Get("speed." + label + ".decode_tokens_per_second_at_max_concurrency").Known() {
			load = "full load"
		}
		parts = append(parts, v.Display+"/M tokens at "+load)
	}
	return strings.Join(parts, "; ")
}

// concurrencyAt is the concurrency of a deployment at the longest of its
// stated contexts up to ctx at which at least one sequence fits.
func concurrencyAt(s *facts.Set, label string, ctx int64) (int64, *facts.Fact) {
	best, at := (*facts.Fact)(nil), int64(0)
	for k, rest := range s.Prefixed("deploy." + label + ".max_concurrency.") {
		n, err := strconv.ParseInt(rest, 10, 64)
		f := s.Get(k)
		if c, ok := f.Int(); err == nil && ok && c > 0 && n <= ctx && n > at {
			best, at = f, n
		}
	}
	return at, best
}

// contextOf is the context the answer's concurrency is stated at: the
// serving context, capped at the model's own.
func contextOf(s *facts.Set, servingCtx int64) int64 {
	if c, ok := s.Get("arch.context").Int(); ok && c > 0 && (servingCtx <= 0 || c < servingCtx) {
		return c
	}
	return servingCtx
}

// askedLine is the verdict on a layout the reader named.
func askedLine(s *facts.Set, hw string, servingCtx int64) string {
	d := s.Get("deploy." + hw + ".deployable")
	if d == nil {
		return ""
	}
	if ok, _ := d.Bool(); !ok {
		return d.Display
	}
	return ChoiceLine(s, hw, servingCtx)
}

// Top is the deployment whose command the report prints: the first of
// the choices the model has.
func Top(s *facts.Set) (label, choice string, ok bool) {
	for _, c := range Choices {
		if l, ok := chosen(s, c.Key); ok {
			return l, c.Label, true
		}
	}
	return "", "", false
}

// launch is the command of each model's top choice, with what it needs
// beside the command.
func (r *Report) launch() []launchLine {
	var out []launchLine
	for i, m := range r.Models {
		label, choice, ok := Top(m.Facts)
		if !ok {
			continue
		}
		title := fmt.Sprintf("Launch (%s: %s)", choice, label)
		if len(r.Models) > 1 {
			title = fmt.Sprintf("Launch %s (%s: %s)", modelTag(i), choice, label)
		}
		out = append(out, launchLine{title: title, command: display(m.Facts, "deploy."+label+".command"), notes: display(m.Facts, "deploy."+label+".notes")})
	}
	return out
}

type launchLine struct{ title, command, notes string }

// moreLine says what --all adds.
func moreLine(r *Report) string {
	n := 0
	for _, m := range r.Models {
		n += m.Facts.Len()
	}
	return fmt.Sprintf("--all prints the full matrix: every layout and accelerator, and each of the %s facts with its derivation.", facts.Int(int64(n)))
}

// shellLines breaks a command into lines of at most width columns before
// its flags, each but the last ending in " \\", so that the lines paste
// into a shell as one command.
func shellLines(cmd string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(cmd) {
		switch {
		case cur == "":
			cur = w
		case strings.HasPrefix(w, "-") && len(cur)+1+len(w)+2 > width:
			lines = append(lines, cur+" \\")
			cur = "  " + w
		default:
			cur += " " + w
		}
	}
	return append(lines, cur)
}
