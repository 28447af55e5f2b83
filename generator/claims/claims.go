// Package claims reviews a page's claims against its facts and
// measurements: it computes the verdict of every claim that carries a
// machine check, refuses a hand-written verdict that contradicts one,
// resolves each piece of evidence to the figure it gives, and runs the
// tells (TellNames) over claim texts and page prose.
package claims

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"dossier/generator/content"
	"dossier/generator/facts"
)

// Review is one claim with its verdict and what decided it.
type Review struct {
	content.Claim
	Verdict  string     // final verdict
	Computed bool       // decided by checks or shelf life, not by hand
	Checks   []Result   // one per check
	Evidence []Evidence // each reference resolved
	Tells    []Finding  // tells raised by the claim text
	// Withdrawn is "retraction" or "void" when an editorial entry
	// withdrew the review: it keeps its verdict for the record but is
	// tallied apart (Tally).
	Withdrawn string
}

// WithdrawnTally is the key under which Tally counts withdrawn reviews.
const WithdrawnTally = "withdrawn"

// TallyOrder is the order a tally lists its counts in: the verdicts,
// then the withdrawn reviews.
func TallyOrder() []string {
	return append(slices.Clip(content.Verdicts), WithdrawnTally)
}

// Tally counts reviews by verdict, a withdrawn review under
// WithdrawnTally rather than the verdict it no longer stands by.
func Tally(rs []Review) map[string]int {
	n := map[string]int{}
	for _, r := range rs {
		if r.Withdrawn != "" {
			n[WithdrawnTally]++
			continue
		}
		n[r.Verdict]++
	}
	return n
}

// Result is one check against a fact.
type Result struct {
	Check  content.Check
	Actual string // the fact's display
	Holds  bool
	// Undecided says why the check can neither hold nor fail: the fact
	// is unknown (its reason), or it is an upper bound the claimed
	// figure does not exceed. Holds is then false.
	Undecided string
}

// Evidence is one evidence reference with the figure it gives.
type Evidence struct {
	Ref   string `json:"ref"`
	Kind  string `json:"kind"`
	Gives string `json:"gives"`
}

// Problem is an error in a page's claims, with where it is.
type Problem struct {
	File string
	Line int
	Msg  string
}

func (p Problem) Error() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

// Review evaluates every claim of page p. Problems are returned in file
// order; a page with problems must not be published.
func ReviewPage(p *content.Page, set *facts.Set, ctx *Context) ([]Review, []Problem) {
	meas := map[string]*content.Measurement{}
	for i := range p.Front.Measurements {
		meas[p.Front.Measurements[i].ID] = &p.Front.Measurements[i]
	}
	var out []Review
	var probs []Problem
	for _, c := range p.Front.Claims {
		r, ps := review(c, p, set, meas, ctx)
		r.Withdrawn = p.Front.Withdrawal(c.ID)
		out = append(out, r)
		probs = append(probs, ps...)
	}
	probs = append(probs, againstConflicts(out, p)...)
	for i, c := range p.Front.Corrections {
		if c.Fact != "" && set.Get(c.Fact) == nil {
			probs = append(probs, Problem{File: p.Path, Line: c.Line, Msg: fmt.Sprintf("field corrections[%d].fact: %s is not a fact of this page", i, c.Fact)})
		}
	}
	return out, probs
}

// againstConflicts refuses a verdict that contradicts the evidence the page
// rests a conflict on: a claim from the side the dossier does not follow
// cannot be "supported" without a scope that says where it still holds.
func againstConflicts(rs []Review, p *content.Page) []Problem {
	var probs []Problem
	for _, k := range p.Front.Conflicts {
		for _, side := range k.Sides {
			if side.Source == k.Rests {
				continue
			}
			for _, r := range rs {
				if r.Where == side.Source && r.Verdict == "supported" && r.Scope == "" {
					probs = append(probs, Problem{File: p.Path, Line: r.Line, Msg: fmt.Sprintf(
						"claim %s: supported, but it comes from %s, the side of conflict %s the page does not rest on (%s); give its scope or change the verdict",
						r.ID, side.Source, k.ID, k.Rests)})
				}
			}
		}
	}
	return probs
}

func review(c content.Claim, p *content.Page, set *facts.Set, meas map[string]*content.Measurement, ctx *Context) (Review, []Problem) {
	r := Review{Claim: c}
	var probs []Problem
	bad := func(format string, a ...any) {
		probs = append(probs, Problem{File: p.Path, Line: c.Line, Msg: fmt.Sprintf("claim %s: ", c.ID) + fmt.Sprintf(format, a...)})
	}
	if len(c.Evidence) == 0 && len(c.Checks) == 0 && c.ShelfLife == "" {
		bad("no evidence and no check: a claim must name the artifact that decides it")
	}
	computed := ""
	if len(c.Checks) > 0 {
		held, undecided := 0, 0
		said := map[string]bool{} // undecided reasons already given
		for _, ch := range c.Checks {
			res, err := runCheck(ch, set)
			if err != nil {
				bad("%v", err)
				computed = ""
				break
			}
			r.Checks = append(r.Checks, res)
			gives := ch.Fact + " = " + res.Actual + ", the claim implies " + implied(ch, set.Get(ch.Fact))
			// Checks on one missing input share its reason: give it once.
			switch {
			case res.Undecided == "":
			case said[res.Undecided]:
				gives += " (undecided, for the reason above)"
			default:
				gives += " (undecided: " + res.Undecided + ")"
				said[res.Undecided] = true
			}
			r.Evidence = append(r.Evidence, Evidence{Ref: "fact:" + ch.Fact, Kind: "fact", Gives: gives})
			switch {
			case res.Holds:
				held++
			case res.Undecided != "":
				undecided++
			}
		}
		// A claim that bundles several assertions is misleading when only
		// some of them hold ("the node is short, by 121 GB"); one that no
		// check contradicts but some cannot decide is unverifiable.
		failed := len(r.Checks) - held - undecided
		switch {
		case len(r.Checks) < len(c.Checks):
		case failed == 0 && undecided > 0:
			computed = "unverifiable"
		case held == len(c.Checks):
			computed = "supported"
		case held == 0:
			computed = "refuted"
		default:
			computed = "misleading"
		}
	}
	if c.ShelfLife != "" && ctx != nil && ctx.Reviewed != "" && ctx.Reviewed > c.ShelfLife {
		computed = "outdated"
	}
	for _, e := range c.Evidence {
		ev, err := resolve(e, set, meas)
		if err != nil {
			bad("evidence %s: %v", e, err)
			continue
		}
		r.Evidence = append(r.Evidence, ev)
	}
	switch {
	case computed != "" && c.Verdict != "" && c.Verdict != computed:
		bad("hand-written verdict %q contradicts the computed verdict %q", c.Verdict, computed)
		r.Verdict, r.Computed = computed, true
	case computed != "":
		r.Verdict, r.Computed = computed, true
	case c.Verdict == "":
		bad("no verdict: evidence-based claims need a verdict (%s)", strings.Join(content.Verdicts, ", "))
		r.Verdict = "unverifiable"
	default:
		r.Verdict = c.Verdict
	}
	// A measurement holds in its configuration only, so a claim it supports
	// is supported within a scope the page must state.
	if r.Verdict == "supported" && c.Scope == "" && citesMeasurement(c.Evidence) {
		bad("supported on a measurement's evidence but no scope: say the configuration the verdict is limited to")
	}
	if r.Verdict != "" && c.Reason == "" {
		bad("no reason: say in one line why the verdict holds")
	}
	if ctx != nil {
		r.Tells = ctx.Lint(c.Text, meas, c.Evidence)
		for i := range r.Tells {
			r.Tells[i].File, r.Tells[i].Line = p.Path, c.Line
		}
	}
	return r, probs
}

func citesMeasurement(evidence []string) bool {
	for _, e := range evidence {
		if strings.HasPrefix(e, "measurement:") {
			return true
		}
	}
	return false
}

func runCheck(ch content.Check, set *facts.Set) (Result, error) {
	f := set.Get(ch.Fact)
	if f == nil {
		return Result{}, fmt.Errorf("check names fact %q, which does not exist", ch.Fact)
	}
	res := Result{Check: ch, Actual: f.Display}
	if !f.Known() {
		// Absent with a reason: the claim cannot be decided here, and
		// the page says why rather than guessing.
		res.Undecided = f.Reason
		return res, nil
	}
	if len(ch.OneOf) > 0 {
		got, ok := f.Value.(string)
		if !ok {
			return res, fmt.Errorf("check lists text values but fact %q is %s", ch.Fact, f.Unit)
		}
		res.Holds = slices.Contains(ch.OneOf, got)
		return res, nil
	}
	if ch.Min != nil || ch.Max != nil {
		got, ok := f.Float()
		if !ok {
			return res, fmt.Errorf("check bounds a number but fact %q is %s", ch.Fact, f.Unit)
		}
		res.Holds = (ch.Min == nil || got >= *ch.Min) && (ch.Max == nil || got <= *ch.Max)
		return res, nil
	}
	switch want := ch.Expect.(type) {
	case bool:
		got, ok := f.Bool()
		if !ok {
			return res, fmt.Errorf("check expects true/false but fact %q is %s", ch.Fact, f.Unit)
		}
		res.Holds = got == want
	default:
		w, _ := toFloat(want)
		got, ok := f.Float()
		if !ok {
			return res, fmt.Errorf("check expects a number but fact %q is %s", ch.Fact, f.Unit)
		}
		switch {
		case f.Bound == facts.BoundUpper:
			// A ceiling refutes a figure above it; one at or below it
			// is consistent with the ceiling, not confirmed by it.
			if w > got*(1+ch.Tolerance) {
				return res, nil
			}
			res.Undecided = "the fact is an upper bound (peak rates, uncalibrated) that the claimed " + facts.Display(f.Unit, w) + " does not exceed; a ceiling cannot confirm a figure below it"
		case f.ErrorP90 > 0:
			res.Holds, res.Undecided = withinBand(got, f.ErrorP90, w, ch.Tolerance, f.Unit)
		case w == 0:
			res.Holds = got == 0
		default:
			res.Holds = math.Abs(got-w)/math.Abs(w) <= ch.Tolerance
		}
	}
	return res, nil
}

// withinBand rates a claimed w (± tol) against a calibrated prediction
// got whose regime errs by at most e at the 90th percentile, so that the
// true figure lies in [got ÷ (1 + e), got × (1 + e)] nine times in ten:
// the claim holds when that band lies within its range, fails when the
// two do not meet, and is undecided when they overlap only in part.
func withinBand(got, e, w, tol float64, unit string) (bool, string) {
	lo, hi := got/(1+e), got*(1+e)
	clo, chi := w*(1-tol), w*(1+tol)
	switch {
	case lo >= clo && hi <= chi:
		return true, ""
	case hi < clo || lo > chi:
		return false, ""
	}
	return false, fmt.Sprintf("the prediction's 90th-percentile band %s–%s (±%s %% of %s) overlaps the claimed %s–%s without lying within it",
		facts.Display(unit, lo), facts.Display(unit, hi), facts.Fixed(e*100, 0), facts.Display(unit, got), facts.Display(unit, clo), facts.Display(unit, chi))
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// resolve turns an evidence reference into the figure it gives. fact: and
// measurement: references must exist; other kinds are cited as written.
func resolve(ref string, set *facts.Set, meas map[string]*content.Measurement) (Evidence, error) {
	kind, detail, _ := strings.Cut(ref, ":")
	ev := Evidence{Ref: ref, Kind: kind, Gives: detail}
	switch kind {
	case "fact":
		f := set.Get(detail)
		if f == nil {
			return ev, fmt.Errorf("no fact %q", detail)
		}
		ev.Gives = detail + " = " + f.Display
	case "measurement":
		m := meas[detail]
		if m == nil {
			return ev, fmt.Errorf("no measurement %q in this page's measurements", detail)
		}
		ev.Gives = Describe(m)
	case "arxiv":
		id, date, ok := strings.Cut(detail, "@")
		if !ok {
			return ev, fmt.Errorf("arxiv reference needs its submission date: arxiv:ID@YYYY-MM-DD")
		}
		ev.Gives = "arXiv " + id + ", submitted " + date
	}
	return ev, nil
}

// Describe prints a measurement with its configuration, interval and rank.
func Describe(m *content.Measurement) string {
	var b strings.Builder
	b.WriteString(m.By + ": " + m.Metric + " ")
	b.WriteString(Value(m))
	if m.Interval != nil {
		fmt.Fprintf(&b, " (%s %s–%s)", m.Interval.Level, trim(m.Interval.Low), trim(m.Interval.High))
	}
	if m.Rank != nil {
		fmt.Fprintf(&b, ", #%d", m.Rank.Position)
		if m.Rank.Of > 0 {
			fmt.Fprintf(&b, " of %d", m.Rank.Of)
		}
		if m.Rank.Spread != "" {
			b.WriteString(", rank spread " + m.Rank.Spread)
		}
	}
	if cfg := m.Configuration.String(); cfg != "" {
		b.WriteString(" [" + cfg + "]")
	}
	if d := When(m); d != "" {
		b.WriteString(", " + d)
	}
	return b.String()
}

// Value is a measurement's value as printed.
func Value(m *content.Measurement) string {
	if m.Text != "" {
		return m.Text
	}
	s := trim(m.Value)
	if m.Unit != "" {
		s += " " + m.Unit
	}
	return s
}

// When is the measurement's date, or the date it was read.
func When(m *content.Measurement) string {
	switch {
	case m.Date != "":
		return m.Date
	case m.Accessed != "":
		return "read " + m.Accessed + " (measurement undated)"
	}
	return ""
}

func trim(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return facts.Int(int64(f))
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", f), "0"), ".")
}

// implied prints what a check expects, in the fact's own units.
func implied(ch content.Check, f *facts.Fact) string {
	if ch.Min != nil || ch.Max != nil {
		switch {
		case ch.Min != nil && ch.Max != nil:
			return "between " + facts.Display(f.Unit, *ch.Min) + " and " + facts.Display(f.Unit, *ch.Max)
		case ch.Min != nil:
			return "at least " + facts.Display(f.Unit, *ch.Min)
		}
		return "at most " + facts.Display(f.Unit, *ch.Max)
	}
	if len(ch.OneOf) > 0 {
		return "one of " + strings.Join(ch.OneOf, ", ")
	}
	if b, ok := ch.Expect.(bool); ok {
		return facts.Display(facts.UnitBool, b)
	}
	v, _ := toFloat(ch.Expect)
	out := facts.Display(f.Unit, v)
	if ch.Tolerance > 0 {
		out += fmt.Sprintf(" (± %s)", facts.Percent(ch.Tolerance))
	}
	return out
}
