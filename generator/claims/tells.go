package claims

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/content"
	"dossier/generator/facts"
)

// The tells of a claim that did not come from its artifact: six from seed
// 001, and a seventh from issue #11.
const (
	TellProduct   = 1 // a round number that is the product of two headline numbers
	TellPrecision = 2 // a precision label on a whole model that is not all one precision
	TellNovelty   = 3 // "new", "first" on a mechanism without dated prior art
	TellNoConfig  = 4 // a performance number without its configuration
	TellPointOnly = 5 // a point estimate where the source publishes an interval
	TellShelfLife = 6 // relative time without an absolute date
	TellSpecSheet = 7 // a capacity from a spec sheet rather than the device
)

// TellNames name each tell for reports.
var TellNames = map[int]string{
	TellProduct:   "round number from a multiplication",
	TellPrecision: "precision label on a mixed-precision model",
	TellNovelty:   "novelty without dated prior art",
	TellNoConfig:  "performance number without configuration",
	TellPointOnly: "point estimate without its interval",
	TellShelfLife: "relative time without an absolute date",
	TellSpecSheet: "capacity from a spec sheet rather than the device",
}

// Finding is one tell raised by a text.
type Finding struct {
	Tell int    `json:"tell"`
	Msg  string `json:"message"`
	File string `json:"-"`
	Line int    `json:"-"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: tell %d (%s): %s", f.File, f.Line, f.Tell, TellNames[f.Tell], f.Msg)
}

// Context is what the tells know about the model a text speaks of.
type Context struct {
	Reviewed     string    // review date, YYYY-MM-DD
	Headlines    []float64 // parameter counts as headlines print them
	ByteWidths   []float64 // bytes per parameter a precision label implies
	RealBytes    float64   // the checkpoint as listed (0 if unknown)
	Mixed        bool      // quantization ignores modules or the census has several dtypes
	MixedBecause string
	// Capacities are the catalog's accelerators: the spec sheet's figure
	// beside the device's, for tell 7.
	Capacities []Capacity
}

// Capacity is one accelerator's memory as printed and as reported.
type Capacity struct {
	ID          string
	Spec        float64 // per GPU, the spec sheet's figure as a byte count
	Device      float64 // per GPU, what the driver reports
	GPUsPerNode int
	name        *regexp.Regexp // the ID as a word; compiled on first use
}

// UseCatalog lets tell 7 compare capacities quoted in a text with the
// device's: a figure that matches the spec sheet but not the driver.
func (c *Context) UseCatalog(cat *catalog.Catalog) {
	if cat == nil {
		return
	}
	ids := make([]string, 0, len(cat.Accelerators))
	for id := range cat.Accelerators {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		a := cat.Accelerators[id]
		m := patterns().sizeRe.FindStringSubmatch(a.MemoryMarketing)
		if m == nil {
			continue
		}
		n, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		if err != nil {
			continue
		}
		c.Capacities = append(c.Capacities, Capacity{ID: id, Spec: n * unitBytes[strings.ToUpper(m[2])], Device: float64(a.MemoryBytes), GPUsPerNode: a.GPUsPerNode})
	}
}

// NewContext derives the tells' context from a model's facts.
func NewContext(set *facts.Set, a *arch.Architecture, reviewed string) *Context {
	c := &Context{Reviewed: reviewed}
	for _, k := range []string{"params.total", "params.active_no_embedding", "published.params.total", "published.params.active_no_embedding"} {
		if v, ok := set.Get(k).Float(); ok && v > 0 {
			c.Headlines = append(c.Headlines, v, facts.RoundSig(v, 2))
		}
	}
	widths := map[float64]bool{}
	if a != nil && a.Quant.Bits > 0 {
		widths[float64(a.Quant.Bits)/8] = true
	}
	widths[2] = true // BF16/FP16, the default a label is read against
	widths[1] = true // FP8/INT8
	widths[0.5] = true
	for w := range widths {
		c.ByteWidths = append(c.ByteWidths, w)
	}
	if v, ok := set.Get("bytes.checkpoint").Float(); ok {
		c.RealBytes = v
	} else if v, ok := set.Get("bytes.tensors").Float(); ok {
		c.RealBytes = v
	}
	// A census is mixed when no dtype holds 99.9% of the parameters: a
	// few F32 gates beside BF16 weights do not make "BF16" wrong.
	var total, largest float64
	for k := range set.Prefixed("params.census.") {
		v, _ := set.Get(k).Float()
		total += v
		largest = math.Max(largest, v)
	}
	switch {
	case a != nil && a.Quant.Ignores():
		c.Mixed, c.MixedBecause = true, "its quantization ignores "+fmt.Sprint(len(a.Quant.Ignore))+" module patterns"
	case total > 0 && largest/total < 0.999:
		c.Mixed, c.MixedBecause = true, fmt.Sprintf("its largest dtype holds only %s of the parameters", facts.Percent(largest/total))
	}
	return c
}

// tellRegexps are the tells' regular expressions.
type tellRegexps struct {
	sizeRe         *regexp.Regexp
	labelRe        *regexp.Regexp
	partRe         *regexp.Regexp
	noveltyRe      *regexp.Regexp
	datedRe        *regexp.Regexp
	perfRe         *regexp.Regexp
	runsOnRe       *regexp.Regexp
	hardwareRe     *regexp.Regexp
	batchRe        *regexp.Regexp
	modelRe        *regexp.Regexp
	yearRe         *regexp.Regexp
	intervalWordRe *regexp.Regexp
	relativeRe     *regexp.Regexp
	absDateRe      *regexp.Regexp
	sentenceEnd    *regexp.Regexp
}

// patterns compiles them on first use: a command that lints no prose
// (plan) does not pay for them when it starts.
var patterns = sync.OnceValue(func() *tellRegexps {
	return &tellRegexps{
		sizeRe: regexp.MustCompile(`(?i)(\d[\d,]*(?:\.\d+)?)\s*(TB|GB|TiB|GiB|MB)\b`),
		// A precision label: "4-bit", "four bits", "half a byte", a format name.
		labelRe: regexp.MustCompile(`(?i)(?:^|[^\d.])(?:\d{1,2}|two|three|four|six|eight|sixteen)[ -]bits?\b|\bhalf a byte\b|\b(?:FP8|FP4|INT4|INT8|MXFP4|NVFP4|NF4|BF16|FP16)\b`),
		// Words that limit a label to part of the model; a layer count or the
		// word "attention" alone does not.
		partRe: regexp.MustCompile(`(?i)\b(?:only|except|excluding|apart from|while|whereas|ignor\w*|unquantized|not quantized|stays?|remains?|kept|keeps|experts?|scales?|payload|targets?|some|partly|averages?|mixed|everything else|quantized values)\b`),
		// Novelty: the adjectives, "new" before a mechanism noun, and "first"
		// only as "first ... to", "first-ever" or "world's first" — an ordinal
		// ("the first full-attention layer") is not a claim of novelty.
		noveltyRe: regexp.MustCompile(`(?i)\b(?:novel|breakthrough|invent\w*|introduc\w*|pioneer\w*|debut\w*)\b|\bnew\s+(?:\w+\s+){0,2}?(?:architectur\w*|mechanisms?|attention|methods?|approach\w*|techniques?|improvements?|way|kind|design|residual\w*|modules?|routing|algorithms?|idea)\b|\b(?:world'?s|industry'?s|very)\s+first\b|\bfirst[- ]ever\b|\bfirst\s+(?:[\w'-]+\s+){0,4}?to\s+\w`),
		datedRe:   regexp.MustCompile(`(?i)\b\d{4}\.\d{4,5}\b|\b\d{4}-\d{2}-\d{2}\b|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+(?:\d{1,2},\s*)?\d{4}\b|\b\d{1,2}\s+(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{4}\b|\bprior art\b`),
		perfRe:    regexp.MustCompile(`(?i)\d[\d,]*(?:\.\d+)?\s*(?:×|x\b)\s*(?:faster|slower|speed|throughput|decod\w*|higher|more|less|lower|smaller|cheaper|improvement|$|[.,;:)])|\d[\d,.]*\s*(?:tok(?:en)?s?/s|tokens?\s+per\s+second|ms\b|s/token|s\s+per\s+token|tokens?/sec)|\d[\d,.]*\s*%\s*(?:faster|less|lower|reduction|fewer|smaller|speed)|(?:time to first token|TTFT|latency)\D{0,20}\d`),
		// A capability claim: "runs on a single card", "run K3 on a laptop".
		runsOnRe: regexp.MustCompile(`(?i)\b(?:runs?|running)\b(?:\s+[\w()'.-]+){0,3}?\s+(?:on|in)\b`),
		// Hardware counts only when named: "a GPU" or "a single card" says nothing.
		hardwareRe: regexp.MustCompile(`(?i)\b(?:[ABHL]\d{2,3}S?|H200|B[23]00|GB[23]00|NVL\d+|RTX\s*\w+|MI3\d\dX|TPU\s*v?\d\w*|M\d\s+(?:Ultra|Max|Pro)|\d+\s*nm|MHz|simulation|simulated|hosted API)\b`),
		batchRe:    regexp.MustCompile(`(?i)\bbatch\b|\bconcurren|\bcontext\b|\bsingle[- ]user\b|\bone sequence\b|\bper user\b|\d[\d,]*\s+tokens\b`),
		modelRe:    regexp.MustCompile(`(?i)\b\d+(?:\.\d+)?[BT]\b|\bA\d+B\b|\bmodel\b|\bcheckpoint\b|\bmeasured on\b|\b\d+ layers\b|\bK\d(?:\.\d)?\b|\b(?:Kimi|Llama|DeepSeek|Qwen|Mixtral|Mistral|Gemma|gpt-oss|GLM)\b`),
		yearRe:     regexp.MustCompile(`\b(?:19|20)\d{2}\b`),
		// An interval stated in words; the bounds themselves are checked per measurement.
		intervalWordRe: regexp.MustCompile(`(?i)±|\binterval\b|\bCI\b|\bconfidence\b|\bspread\b|\buncertaint\w*|\bmargin of error\b`),
		relativeRe:     regexp.MustCompile(`(?i)\b(?:(?:later|earlier) this (?:month|week|year|quarter)|this (?:month|week|quarter)|next (?:week|month|quarter|year)|next week'?s|soon|shortly|tomorrow|tonight|in the coming (?:days|weeks|months)|coming weeks|upcoming|imminent(?:ly)?|by the end of (?:the|this|next) (?:day|week|month|quarter|year)|within (?:days|weeks|months|the (?:week|month|year))|in (?:a|one|two|three|four|five|six|a few|several|\d+) (?:days?|weeks?|months?|years?))\b`),
		absDateRe:      regexp.MustCompile(`(?i)\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\s+(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{4}\b|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},?\s+\d{4}\b`),
		sentenceEnd:    regexp.MustCompile(`[.!?](?:\s+|$)`),
	}
})

var unitBytes = map[string]float64{"TB": 1e12, "GB": 1e9, "MB": 1e6, "TIB": 1 << 40, "GIB": 1 << 30}

// Lint runs the six tells over one claim text. meas and evidence let tell 5
// know which published figures come with an interval.
func (c *Context) Lint(text string, meas map[string]*content.Measurement, evidence []string) []Finding {
	var withInterval []*content.Measurement
	for _, e := range evidence {
		if id, ok := strings.CutPrefix(e, "measurement:"); ok {
			if m := meas[id]; m != nil && hasInterval(m) {
				withInterval = append(withInterval, m)
			}
		}
	}
	var out []Finding
	for _, s := range sentences(text) {
		out = append(out, c.lintSentence(s.text, withInterval)...)
	}
	return out
}

// LintProse runs the tells over a page body, sentence by sentence, with
// the line each sentence starts on. Fact references are sourced figures and
// are not linted.
func (c *Context) LintProse(p *content.Page) []Finding {
	var withInterval []*content.Measurement
	for i := range p.Front.Measurements {
		if hasInterval(&p.Front.Measurements[i]) {
			withInterval = append(withInterval, &p.Front.Measurements[i])
		}
	}
	var out []Finding
	for _, para := range paragraphs(string(p.Body), p.BodyLine) {
		// A fact reference becomes a placeholder of the same length, so
		// offsets in text still point at the same bytes of raw.
		text := factRefRe.ReplaceAllStringFunc(para.text, func(m string) string {
			return "(fact)" + strings.Repeat(" ", len(m)-len("(fact)"))
		})
		for _, s := range sentences(text) {
			line := para.line + strings.Count(para.raw[:min(s.start, len(para.raw))], "\n")
			for _, f := range c.lintSentence(s.text, withInterval) {
				f.File, f.Line = p.Path, line
				out = append(out, f)
			}
		}
	}
	return out
}

var factRefRe = regexp.MustCompile(`\{\{<\s*fact\s+[^>]*>\}\}`)

func hasInterval(m *content.Measurement) bool {
	return m.Interval != nil || (m.Rank != nil && m.Rank.Spread != "")
}

func (c *Context) lintSentence(s string, withInterval []*content.Measurement) []Finding {
	var out []Finding
	add := func(tell int, format string, a ...any) {
		out = append(out, Finding{Tell: tell, Msg: fmt.Sprintf(format, a...)})
	}
	low := lowered(s)
	var sizes [][]string
	if strings.ContainsAny(s, "0123456789") {
		sizes = patterns().sizeRe.FindAllStringSubmatch(s, -1)
	}
	for _, m := range sizes {
		if f := c.product(m[1], m[2]); f != "" {
			add(TellProduct, "%q %s", m[0], f)
		}
	}
	if c.Mixed && low.has(labelWords) {
		if l := patterns().labelRe.FindString(s); l != "" && !patterns().partRe.MatchString(s) {
			add(TellPrecision, "%q applied to the whole model, but %s", strings.TrimSpace(l), c.MixedBecause)
		}
	}
	if low.has(noveltyWords) {
		if w := patterns().noveltyRe.FindString(s); w != "" && !patterns().datedRe.MatchString(s) {
			add(TellNovelty, "%q with no dated prior-art artifact (arXiv id or date) in the sentence", w)
		}
	}
	var perf string
	if low.has(perfWords) {
		perf = patterns().perfRe.FindString(s)
	}
	if perf == "" && low.has(runsOnWords) {
		perf = patterns().runsOnRe.FindString(s)
	}
	if perf != "" && !configured(s) {
		add(TellNoConfig, "%q without its measured configuration (model, hardware, batch, date)", strings.TrimSpace(perf))
	}
	for _, m := range withInterval {
		if quotes(s, m) && !statesInterval(s, m) {
			add(TellPointOnly, "%s quoted without the %s the source publishes", Value(m), intervalName(m))
		}
	}
	if low.has(relativeWords) {
		if r := patterns().relativeRe.FindString(s); r != "" && !patterns().absDateRe.MatchString(s) {
			add(TellShelfLife, "%q has a shelf life but no absolute date", r)
		}
	}
	for _, m := range sizes {
		if f := c.specCapacity(s, m[1], m[2]); f != "" {
			add(TellSpecSheet, "%q %s", m[0], f)
		}
	}
	return out
}

// Words one of which every match of a pattern holds, in lower case: a
// sentence without any cannot match, and most sentences have none, so
// lintSentence skips those patterns (a fifth of a build's linting).
// TestTellWordsCoverPatterns holds each list to its pattern.
var (
	labelWords    = []string{"bit", "byte", "fp8", "fp4", "fp16", "int4", "int8", "nf4", "bf16"}
	noveltyWords  = []string{"novel", "breakthrough", "invent", "introduc", "pioneer", "debut", "new", "first"}
	perfWords     = []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"} // \d is ASCII
	runsOnWords   = []string{"run"}
	relativeWords = []string{"this", "next", "soon", "shortly", "tomorrow", "tonight", "coming", "imminent", "end", "within", "day", "week", "month", "year"}
)

// loweredText is a sentence in lower case, or "" with all set when case
// folding could reach an ASCII letter from elsewhere (the Kelvin sign,
// the long s), where every pattern runs.
type loweredText struct {
	s   string
	all bool
}

func lowered(s string) loweredText {
	if strings.ContainsAny(s, "\u212a\u017f") {
		return loweredText{all: true}
	}
	return loweredText{s: strings.ToLower(s)}
}

// has reports whether the text holds one of words.
func (l loweredText) has(words []string) bool {
	if l.all {
		return true
	}
	for _, w := range words {
		if strings.Contains(l.s, w) {
			return true
		}
	}
	return false
}

// specCapacity explains why a size quoted beside an accelerator's name is
// the spec sheet's capacity (per GPU or per node), or a margin computed
// from it, rather than the device's; "" when it is not.
func (c *Context) specCapacity(s, num, unit string) string {
	n, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", ""), 64)
	if err != nil || n == 0 {
		return ""
	}
	v := n * unitBytes[strings.ToUpper(unit)]
	near := func(a, b float64) bool { return b != 0 && math.Abs(a-b)/math.Abs(b) <= 0.005 }
	for i := range c.Capacities {
		cp := &c.Capacities[i]
		if cp.name == nil {
			cp.name = regexp.MustCompile(`\b` + regexp.QuoteMeta(cp.ID) + `\b`)
		}
		if !cp.name.MatchString(s) || near(cp.Spec, cp.Device) {
			continue
		}
		node := float64(cp.GPUsPerNode)
		switch {
		case near(v, cp.Spec):
			return fmt.Sprintf("is %s's spec-sheet capacity; the device reports %s", cp.ID, facts.GB(cp.Device))
		case near(v, cp.Spec*node):
			return fmt.Sprintf("is the spec sheet's %d × %s; the devices report %s", cp.GPUsPerNode, cp.ID, facts.GB(cp.Device*node))
		case c.RealBytes > 0 && near(v, math.Abs(c.RealBytes-cp.Spec*node)):
			return fmt.Sprintf("is the size against the spec sheet's %s for %d × %s; against the %s the devices report the difference is %s",
				facts.GB(cp.Spec*node), cp.GPUsPerNode, cp.ID, facts.GB(cp.Device*node), facts.GB(math.Abs(c.RealBytes-cp.Device*node)))
		}
	}
	return ""
}

// product explains why a size is a multiplication of headline figures, or
// returns "". Rounding does not matter: 1,390 GB is the exact parameter
// count times half a byte just as 1,400 GB is the rounded one.
func (c *Context) product(num, unit string) string {
	n, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", ""), 64)
	if err != nil || n == 0 {
		return ""
	}
	v := n * unitBytes[strings.ToUpper(unit)]
	if c.RealBytes > 0 && math.Abs(v-c.RealBytes)/c.RealBytes <= 0.01 {
		return ""
	}
	for _, h := range c.Headlines {
		for _, w := range c.ByteWidths {
			if p := h * w; math.Abs(v-p)/p <= 0.01 {
				return fmt.Sprintf("is %s parameters × %s bytes, not a measured size%s", facts.Params(h), strconv.FormatFloat(w, 'g', -1, 64), c.realNote())
			}
		}
	}
	return ""
}

func (c *Context) realNote() string {
	if c.RealBytes == 0 {
		return ""
	}
	return "; the file listing gives " + facts.GB(c.RealBytes)
}

// configured reports whether a sentence gives a performance figure's
// configuration: at least two of model, named hardware, batch or context,
// and date — one of them the hardware or the date, since a model name and a
// context alone say nothing about where or when it was measured.
func configured(s string) bool {
	hw, dated := patterns().hardwareRe.MatchString(s), patterns().yearRe.MatchString(s)
	n := 0
	for _, ok := range []bool{hw, patterns().batchRe.MatchString(s), patterns().modelRe.MatchString(s), dated} {
		if ok {
			n++
		}
	}
	return n >= 2 && (hw || dated)
}

// quotes reports whether s quotes measurement m: its value beside its unit,
// its source or its metric.
func quotes(s string, m *content.Measurement) bool {
	if !containsValue(s, m) {
		return false
	}
	low := strings.ToLower(s)
	var words []string
	words = append(words, strings.Fields(m.Unit)...)
	words = append(words, strings.Fields(m.Metric)...)
	words = append(words, strings.Fields(m.By)...)
	for _, w := range words {
		w = strings.ToLower(strings.Trim(w, "()\"',."))
		if len(w) > 3 && strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// statesInterval reports whether s gives m's interval: in words (±, CI,
// spread) or by both of its bounds.
func statesInterval(s string, m *content.Measurement) bool {
	if patterns().intervalWordRe.MatchString(s) {
		return true
	}
	if m.Interval != nil {
		lo := &content.Measurement{Value: m.Interval.Low}
		hi := &content.Measurement{Value: m.Interval.High}
		return containsValue(s, lo) && containsValue(s, hi)
	}
	return false
}

// containsValue reports whether s holds m's value, with or without its
// thousands commas, as a number of its own: not after a digit, point or
// comma, not before a digit.
func containsValue(s string, m *content.Measurement) bool {
	v := trim(m.Value)
	return v != "" && (holdsNumber(s, v) || holdsNumber(s, strings.ReplaceAll(v, ",", "")))
}

// holdsNumber reports whether s holds n, which is not empty, between
// bytes that do not continue a number (a byte of a multi-byte rune does
// not). It is what compiling (?:^|[^\d.,])n(?:[^\d]|$) for every sentence
// and value matched, which was most of the interval tell's time.
func holdsNumber(s, n string) bool {
	for at := 0; ; at++ {
		i := strings.Index(s[at:], n)
		if i < 0 {
			return false
		}
		i += at
		before, after := i == 0 || !strings.ContainsRune("0123456789.,", rune(s[i-1])), i+len(n) == len(s) || !isDigit(s[i+len(n)])
		if before && after {
			return true
		}
		at = i
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func intervalName(m *content.Measurement) string {
	if m.Interval != nil {
		return fmt.Sprintf("%s %s–%s", m.Interval.Level, trim(m.Interval.Low), trim(m.Interval.High))
	}
	return "rank spread " + m.Rank.Spread
}

type span struct {
	text  string
	start int
}

func sentences(text string) []span {
	var out []span
	start := 0
	for _, loc := range patterns().sentenceEnd.FindAllStringIndex(text, -1) {
		out = append(out, span{strings.TrimSpace(text[start:loc[1]]), start})
		start = loc[1]
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" {
		out = append(out, span{rest, start})
	}
	return out
}

type paragraph struct {
	text string // lines joined with spaces
	raw  string // lines joined with newlines, same length as text
	line int    // file line of the first line
}

// paragraphs splits a Markdown body at blank lines, skipping code fences,
// headings and table rows, which are not prose.
func paragraphs(body string, firstLine int) []paragraph {
	var out []paragraph
	var cur []string
	start := 0
	inFence := false
	flush := func() {
		if len(cur) > 0 {
			raw := strings.Join(cur, "\n")
			out = append(out, paragraph{text: strings.ReplaceAll(raw, "\n", " "), raw: raw, line: start})
		}
		cur = nil
	}
	for i, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			flush()
			continue
		}
		if inFence || t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "|") {
			flush()
			continue
		}
		if len(cur) == 0 {
			start = firstLine + i
		}
		cur = append(cur, l)
	}
	flush()
	return out
}
