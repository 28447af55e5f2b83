package page

import (
	"fmt"
	"strconv"
	"strings"

	"dossier/generator/facts"
)

// The deployments the answer names (package deploy, through the sizing
// facts deploy.*), written the same way on the page and by dossier plan.

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

// Chosen is the layout label of the answer's choice key.
func Chosen(s *facts.Set, key string) (string, bool) {
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
func ChoiceLine(s *facts.Set, label string) string {
	key := func(k string) string { return "deploy." + label + "." + k }
	n, id, _ := strings.Cut(label, "x")
	parts := []string{fmt.Sprintf("%s × %s, %s %s, %s KV", n, id, display(s, key("engine")), display(s, key("layout")), strings.ToUpper(display(s, key("kv_dtype"))))}
	if mc := s.Get(key("max_context")); mc.Known() {
		parts = append(parts, "≤"+mc.Display+" tokens")
	}
	if ctx, c := concurrencyAt(s, label, answerContext(s)); c != nil {
		unit := "seqs"
		if n, _ := c.Int(); n == 1 {
			unit = "seq"
		}
		parts = append(parts, fmt.Sprintf("%s %s of %s", c.Display, unit, facts.Int(ctx)))
	}
	if v := s.Get("speed." + label + ".decode_tokens_per_second"); v.Known() {
		parts = append(parts, withSuffix(v.Display, " per stream"))
	}
	if v := s.Get("cost." + label + ".usd_per_hour"); v.Known() {
		parts = append(parts, v.Display)
	}
	if v := s.Get("cost." + label + ".usd_per_million_output_tokens"); v.Known() {
		load := "one stream"
		if s.Get("speed." + label + ".decode_tokens_per_second_at_max_concurrency").Known() {
			load = "full load"
		}
		parts = append(parts, withSuffix(v.Display, "/M tokens at "+load))
	}
	return strings.Join(parts, "; ")
}

// withSuffix puts suffix after a figure's display but before its error
// bar: "≈ 239 tokens/s per stream (typically within ±8 %, n = 24)", not
// "… (…) per stream".
func withSuffix(display, suffix string) string {
	figure, bar, ok := strings.Cut(display, " (")
	if !ok {
		return display + suffix
	}
	return figure + suffix + " (" + bar
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

// Top is the deployment whose command the report prints: the first of
// the choices the model has.
func Top(s *facts.Set) (label, choice string, ok bool) {
	for _, c := range Choices {
		if l, ok := Chosen(s, c.Key); ok {
			return l, c.Label, true
		}
	}
	return "", "", false
}

// answerContext is the context the answer states concurrency at
// (deploy.answer_context); without it, the model's own.
func answerContext(s *facts.Set) int64 {
	if c, ok := s.Get("deploy.answer_context").Int(); ok {
		return c
	}
	c, _ := s.Get("arch.context").Int()
	return c
}

// display is the display of key, "" when the set has no such fact.
func display(s *facts.Set, key string) string {
	if f := s.Get(key); f != nil {
		return f.Display
	}
	return ""
}

// Repeats reports whether the i-th choice names the layout of an earlier
// one, and which: the answer names it rather than print it twice.
func Repeats(s *facts.Set, i int) (string, bool) {
	label, ok := Chosen(s, Choices[i].Key)
	if !ok {
		return "", false
	}
	for _, p := range Choices[:i] {
		if l, ok := Chosen(s, p.Key); ok && l == label {
			return p.Label, true
		}
	}
	return "", false
}
