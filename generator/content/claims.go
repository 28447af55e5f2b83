package content

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"dossier/generator/internal/checked"

	"go.yaml.in/yaml/v3"
)

// Verdicts a claim can receive.
var Verdicts = []string{"supported", "refuted", "misleading", "outdated", "unverifiable"}

// Claim is a published statement about the model and how it is reviewed:
// either by evidence and a hand-written verdict, or by machine checks
// against facts whose verdict the generator computes.
type Claim struct {
	ID   string `yaml:"id"`
	Text string `yaml:"text"` // the claim, verbatim unless Paraphrase
	// Paraphrase marks a text that is not the source's own words; Quote
	// then holds the nearest verbatim words, when there are any.
	Paraphrase bool     `yaml:"paraphrase"`
	Quote      string   `yaml:"quote"`
	By         string   `yaml:"by"`       // a named person, organisation or outlet
	Date       string   `yaml:"date"`     // when the claim was published, YYYY-MM-DD, only if known
	Accessed   string   `yaml:"accessed"` // when it was read, when its date is unknown
	Where      string   `yaml:"where"`    // a source id of the page, a URL or a named document
	Kind       string   `yaml:"kind"`     // size, precision, performance, novelty, availability, ranking, licence, code, ...
	Evidence   []string `yaml:"evidence"`
	Verdict    string   `yaml:"verdict"`
	Reason     string   `yaml:"reason"` // one line
	Scope      string   `yaml:"scope"`  // the qualifier a supported claim needs
	Checks     []Check  `yaml:"checks"`
	// ShelfLife is the absolute date a relative phrase ("later this month")
	// resolves to; a review after it makes the claim outdated.
	ShelfLife string `yaml:"shelf_life"`
	// Contacted records right of reply: whether the claimant was asked
	// before publication, when, and what they answered.
	Contacted *Contacted `yaml:"contacted"`
	Line      int        `yaml:"-"` // line of the claim in its file
}

// Contacted is who was asked about a claim before publication, when, and
// their response ("no answer" when none came).
type Contacted struct {
	Who      string `yaml:"who"`
	Date     string `yaml:"date"`
	Response string `yaml:"response"`
}

// String is the record in one line, as the page shows it.
func (c *Contacted) String() string {
	return "asked " + c.Who + " on " + c.Date + "; response: " + c.Response
}

// Kinds of editorial correction, in the order a reader weighs them.
const (
	CorrectionKind = "correction" // a wrong figure, quote or attribution, fixed
	UpdateKind     = "update"     // new information; the earlier text was right when written
	RetractionKind = "retraction" // the review is withdrawn
	VoidKind       = "void"       // the check was invalidated by the checker's own error
)

// CorrectionKinds are the kinds a corrections: entry may have.
var CorrectionKinds = []string{CorrectionKind, UpdateKind, RetractionKind, VoidKind}

// Correction is an editorial entry of a page's corrections log: a human
// error (or new information) about one claim or one fact, recorded with
// what was wrong, why, who made the entry and when.
type Correction struct {
	Kind  string `yaml:"kind" json:"kind"`
	Date  string `yaml:"date" json:"date"`
	Claim string `yaml:"claim" json:"claim,omitempty"` // a claim id of the page, or
	Fact  string `yaml:"fact" json:"fact,omitempty"`   // a fact key the page shows
	What  string `yaml:"what" json:"what"`             // what was wrong, or what changed
	Why   string `yaml:"why" json:"why"`               // why it was wrong, or what the new information is
	By    string `yaml:"by" json:"by"`                 // the named person or desk that made the entry
	Line  int    `yaml:"-" json:"-"`
}

// Headline says in one line what the entry changed: "Correction to claim
// size-1400: what".
func (c Correction) Headline() string {
	kind := map[string]string{CorrectionKind: "Correction to", UpdateKind: "Update to", RetractionKind: "Retraction of", VoidKind: "Void check of"}[c.Kind]
	return kind + " " + c.Subject() + ": " + c.What
}

// Record is the entry in one line as a claim's row and the claims lists
// show it: "Headline (date; why; by)".
func (c Correction) Record() string {
	return c.Headline() + " (" + c.Date + "; " + c.Why + "; " + c.By + ")"
}

// Subject is what an entry is about: "claim ID" or "fact KEY".
func (c Correction) Subject() string {
	if c.Claim != "" {
		return "claim " + c.Claim
	}
	return "fact " + c.Fact
}

// Source is a document a page cites claims and measurements from, named
// the way a reader would look it up.
type Source struct {
	ID       string `yaml:"id"`
	Title    string `yaml:"title"`
	By       string `yaml:"by"`       // author, organisation or outlet
	Date     string `yaml:"date"`     // publication date, only if known
	Accessed string `yaml:"accessed"` // when it was read
	URL      string `yaml:"url"`      // where it can be read, when public
	Note     string `yaml:"note"`     // what is known of it when there is no URL or date
	// Archived is a copy of the document as read (an archive's URL), and
	// SHA256 the hash of its bytes as read: a page edited after the review
	// can still be shown as it stood.
	Archived string `yaml:"archived"`
	SHA256   string `yaml:"sha256"`
	// Unarchived says why a web source has neither: absent with a reason,
	// never a guessed copy.
	Unarchived string `yaml:"unarchived"`
	Line       int    `yaml:"-"`
}

// Web reports whether the source is read at an http(s) address.
func (s *Source) Web() bool { return WebAddress(s.URL) }

// WebAddress reports whether s is an http(s) address with no space in
// it: a link a page and the JSON-LD can give, not a description.
func WebAddress(s string) bool {
	return (strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")) && !strings.ContainsAny(s, " \t\n")
}

// Conflict is a question two sources answer differently. The page shows
// both sides with their evidence and which one the dossier rests on.
type Conflict struct {
	ID     string         `yaml:"id"`
	Topic  string         `yaml:"topic"`
	Sides  []ConflictSide `yaml:"sides"`
	Rests  string         `yaml:"rests_on"` // the source id of the side the dossier follows
	Reason string         `yaml:"reason"`
	Line   int            `yaml:"-"`
}

// ConflictSide is what one source says, and how it found out.
type ConflictSide struct {
	Source   string `yaml:"source"` // a source id of the page
	Says     string `yaml:"says"`
	Evidence string `yaml:"evidence"` // the method: an import test, an end-to-end run, ...
}

// Check compares a fact with what the claim implies.
type Check struct {
	Fact      string  `yaml:"fact"`
	Expect    any     `yaml:"expect"`    // a number or true/false
	Tolerance float64 `yaml:"tolerance"` // relative, for numbers
	// Min and Max bound a number instead of Expect: a claim such as
	// "barely fits" implies a small margin, not a value.
	Min *float64 `yaml:"min"`
	Max *float64 `yaml:"max"`
	// OneOf lists the values of a text fact the claim allows: "fits a
	// 24 GB GPU with the experts in RAM" allows a plan that fits in VRAM
	// or with offload.
	OneOf []string `yaml:"one_of"`
}

// Measurement is a figure someone measured, with the configuration it was
// measured in. Figures of different kinds (hosted API, self-hosted,
// leaderboard) are never put in one column.
type Measurement struct {
	ID            string        `yaml:"id"`
	Metric        string        `yaml:"metric"`
	Value         float64       `yaml:"value"`
	Unit          string        `yaml:"unit"`
	Text          string        `yaml:"text"` // the value as the source prints it, when not a plain number
	By            string        `yaml:"by"`
	Date          string        `yaml:"date"`     // when measured or published
	Accessed      string        `yaml:"accessed"` // when read, if the source gives no date
	Kind          string        `yaml:"kind"`     // hosted-api, self-hosted, leaderboard, paper, vendor, estimate
	Configuration Configuration `yaml:"configuration"`
	Interval      *Interval     `yaml:"interval"`
	Rank          *Rank         `yaml:"rank"`
	Source        string        `yaml:"source"`
	Line          int           `yaml:"-"`
}

// Configuration is what a measurement was measured on.
type Configuration struct {
	Model    string `yaml:"model"`
	Hardware string `yaml:"hardware"`
	Batch    string `yaml:"batch"`
	Setting  string `yaml:"setting"` // e.g. reasoning effort
	// Layout is the COUNTxACCELERATOR the measurement ran on when it maps
	// to the hardware catalog; the page then sets the prediction for that
	// layout beside the measurement.
	Layout string `yaml:"layout,omitempty"`
}

// Empty reports whether no part of the configuration is stated.
func (c Configuration) Empty() bool {
	return c.Model == "" && c.Hardware == "" && c.Batch == "" && c.Setting == ""
}

// String is the configuration in one line.
func (c Configuration) String() string {
	var parts []string
	for _, p := range []string{c.Model, c.Hardware, c.Batch, c.Setting} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "; ")
}

// Interval is the uncertainty a source publishes with a figure.
type Interval struct {
	Low   float64 `yaml:"low"`
	High  float64 `yaml:"high"`
	Level string  `yaml:"level"` // "90% CI", "± (Elo)", "rank spread"
}

// Rank is a position on a board.
type Rank struct {
	Position int    `yaml:"position"`
	Of       int    `yaml:"of"`
	Spread   string `yaml:"spread"` // e.g. "4–31"
}

// Kinds of measurement; the measurements table keeps each in its own column group.
var MeasurementKinds = []string{"hosted-api", "self-hosted", "leaderboard", "paper", "vendor", "estimate", "community"}

var idRe = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// EvidenceRe is the form of an evidence reference: kind:detail.
var EvidenceRe = regexp.MustCompile(`^(fact|measurement|arxiv|licence|pricing|config|url|repo|doc):\S.*$`)

// validateClaims checks the claims and measurements of a page by
// themselves; checks against facts happen when the facts exist. An error
// starts with the file line of the item (Parse fills Line first).
func validateClaims(f *Front) error {
	seen := map[string]bool{}
	sources := map[string]*Source{}
	for i := range f.Sources {
		src := &f.Sources[i]
		if err := checkSource(i, src, sources); err != nil {
			return atLine(src.Line, err)
		}
		sources[src.ID] = src
	}
	for i, m := range f.Measurements {
		if err := checkMeasurement(i, m, seen, sources); err != nil {
			return atLine(m.Line, err)
		}
		seen["m:"+m.ID] = true
	}
	for i, c := range f.Claims {
		if err := checkClaim(i, c, seen, sources); err != nil {
			return atLine(c.Line, err)
		}
		seen["c:"+c.ID] = true
	}
	for i, c := range f.Conflicts {
		if err := checkConflict(i, c, sources); err != nil {
			return atLine(c.Line, err)
		}
	}
	for i, c := range f.Corrections {
		if err := checkCorrection(i, c, seen, f); err != nil {
			return atLine(c.Line, err)
		}
	}
	return nil
}

var (
	sha256Re  = regexp.MustCompile(`^[0-9a-f]{64}$`)
	factKeyRe = regexp.MustCompile(`^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_.:-]+)*$`)
)

// checkCorrection checks an editorial entry by itself and that its claim
// exists; a fact key is checked against the facts when they exist. An
// entry may be dated before the page's current review date: a re-review
// moves that date, and the log it keeps must still validate. It cannot
// be dated before the claim it corrects was made or read.
func checkCorrection(i int, c Correction, seen map[string]bool, f *Front) error {
	field := func(n string) string { return fmt.Sprintf("corrections[%d].%s", i, n) }
	switch {
	case !oneOf(c.Kind, CorrectionKinds):
		return fmt.Errorf("field %s: expected one of %s, found %q", field("kind"), strings.Join(CorrectionKinds, ", "), c.Kind)
	case !ValidDate(c.Date):
		return fmt.Errorf("field %s: expected a real YYYY-MM-DD date, found %q", field("date"), c.Date)
	case (c.Claim == "") == (c.Fact == ""):
		return fmt.Errorf("field %s: give exactly one of claim (a claim id of the page) or fact (a fact key)", field("claim"))
	case c.Claim != "" && !seen["c:"+c.Claim]:
		return fmt.Errorf("field %s: %q is not a claim of the page", field("claim"), c.Claim)
	case c.Fact != "" && !factKeyRe.MatchString(c.Fact):
		return fmt.Errorf("field %s: expected a fact key such as bytes.checkpoint, found %q", field("fact"), c.Fact)
	case strings.TrimSpace(c.What) == "":
		return fmt.Errorf("field %s: missing (what was wrong, or what changed)", field("what"))
	case strings.TrimSpace(c.Why) == "":
		return fmt.Errorf("field %s: missing (why it was wrong, or the new information)", field("why"))
	case strings.TrimSpace(c.By) == "" || vagueBy.MatchString(c.By):
		return fmt.Errorf("field %s: expected the named person or desk that made the entry, found %q", field("by"), c.By)
	}
	if c.Claim == "" {
		return nil
	}
	for _, cl := range f.Claims {
		if cl.ID != c.Claim {
			continue
		}
		first := cl.Date // when the claim was made, else when it was read
		if first == "" {
			first = cl.Accessed
		}
		if first != "" && c.Date < first {
			return fmt.Errorf("field %s: %s is before claim %s was made or read (%s); an entry follows the review it corrects", field("date"), c.Date, c.Claim, cl.When())
		}
	}
	return nil
}

// vagueBy are attributions that name nobody: a claim is made by someone a
// reader can look up. Vague judges the rest by their form.
var vagueBy = regexp.MustCompile(`(?i)^(?:the\s+)?(?:launch\s+)?(?:coverage|media|press|reports?|sources?|tutorials?|tutorial sites|websites?|sites|blogs?|people|users|many|various|someone|unknown|the internet|social media|online)(?:\s+.*)?$`)

// Vague reports whether by names nobody a reader could look up: nothing,
// a crowd (a plural head noun: "experts", "anonymous", "Reddit users",
// "users of Hacker News"), an indefinite pronoun ("someone", "anybody"),
// or one of vagueBy's mass nouns ("the press"). A named person,
// organisation or outlet has a proper name, a handle or a possessive that
// says whose ("the course’s authors"); what follows a comma or a
// parenthesis qualifies it and is not judged.
func Vague(by string) bool {
	if vagueBy.MatchString(strings.TrimSpace(by)) {
		return true
	}
	head := by
	if i := strings.IndexAny(head, ",(;:"); i >= 0 {
		head = head[:i]
	}
	words := strings.Fields(head)
	for i, w := range words {
		if i > 0 && oneOf(w, []string{"of", "at", "from", "on", "in", "via"}) {
			words = words[:i] // "users of Hacker News": the head noun is users
			break
		}
	}
	if len(words) == 0 {
		return true
	}
	for _, w := range words {
		if strings.ContainsAny(w, "’'") {
			return false // a possessive or a name with an apostrophe
		}
	}
	last := words[len(words)-1]
	switch {
	case len(words) == 1 && indefinitePronoun(strings.ToLower(last)):
		return true // "Someone", "everybody"
	case last != strings.ToLower(last), strings.ContainsAny(last, "./@_0123456789"):
		return false // a proper name, an acronym, a handle or a site
	}
	return plural(last)
}

// plural reports whether a lower-case word reads as a plural noun (or a
// crowd adjective such as anonymous): it ends in s but not ss.
func plural(w string) bool {
	return len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss")
}

// indefinitePronoun is some-, any-, every- or no- with -one or -body.
func indefinitePronoun(w string) bool {
	for _, p := range []string{"some", "any", "every", "no"} {
		if rest, ok := strings.CutPrefix(w, p); ok && (rest == "one" || rest == "body") {
			return true
		}
	}
	return false
}

// looksLikeID is a reference written as a source id (lower case, digits,
// hyphens, no space): one that is not a source of the page is a typo, not
// a named document.
func looksLikeID(ref string) bool { return idRe.MatchString(ref) }

// unknownSource is the error for a reference that looks like a source id
// but names none of the page's sources (a page that lists none cites
// only URLs and named documents).
func unknownSource(field, ref string, sources map[string]*Source) error {
	ids := make([]string, 0, len(sources))
	for id := range sources {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return fmt.Errorf("field %s: %q reads as a source id but is not one of the page's sources (%s)", field, ref, strings.Join(ids, ", "))
}

// afterSource checks that a date an item was published or read is not
// before its source was published.
func afterSource(field, date string, src *Source) error {
	if src == nil || src.Date == "" || date == "" || date >= src.Date {
		return nil
	}
	return fmt.Errorf("field %s: %s is before its source %q was published (%s)", field, date, src.ID, src.Date)
}

func checkSource(i int, s *Source, seen map[string]*Source) error {
	field := func(n string) string { return fmt.Sprintf("sources[%d].%s", i, n) }
	switch {
	case !idRe.MatchString(s.ID):
		return fmt.Errorf("field %s: expected a lower-case id, found %q", field("id"), s.ID)
	case seen[s.ID] != nil:
		return fmt.Errorf("field %s: duplicate id %q", field("id"), s.ID)
	case strings.TrimSpace(s.Title) == "":
		return fmt.Errorf("field %s: missing (what the document is called)", field("title"))
	case Vague(s.By):
		return fmt.Errorf("field %s: expected a named author, organisation or outlet, found %q", field("by"), s.By)
	case s.Date != "" && !ValidDate(s.Date):
		return fmt.Errorf("field %s: expected a real YYYY-MM-DD date, found %q", field("date"), s.Date)
	case s.Accessed != "" && !ValidDate(s.Accessed):
		return fmt.Errorf("field %s: expected a real YYYY-MM-DD date, found %q", field("accessed"), s.Accessed)
	case s.Date == "" && s.Accessed == "":
		return fmt.Errorf("field %s: missing (give the publication date, or accessed: when it was read)", field("date"))
	case s.Date != "" && s.Accessed != "" && s.Date > s.Accessed:
		return fmt.Errorf("field %s: %s is after accessed %s: a document is read after it is published", field("date"), s.Date, s.Accessed)
	case s.URL == "" && s.Note == "":
		return fmt.Errorf("field %s: missing (a public URL, or a note saying where the document can be found)", field("url"))
	case s.Archived != "" && !WebAddress(s.Archived):
		return fmt.Errorf("field %s: expected the http(s) address of an archived copy, found %q", field("archived"), s.Archived)
	case s.SHA256 != "" && !sha256Re.MatchString(s.SHA256):
		return fmt.Errorf("field %s: expected 64 lower-case hex digits (the SHA-256 of the document as read), found %q", field("sha256"), s.SHA256)
	}
	return nil
}

func checkConflict(i int, c Conflict, sources map[string]*Source) error {
	field := func(n string) string { return fmt.Sprintf("conflicts[%d].%s", i, n) }
	switch {
	case !idRe.MatchString(c.ID):
		return fmt.Errorf("field %s: expected a lower-case id, found %q", field("id"), c.ID)
	case c.Topic == "":
		return fmt.Errorf("field %s: missing", field("topic"))
	case len(c.Sides) < 2:
		return fmt.Errorf("field %s: a conflict has at least two sides, found %d", field("sides"), len(c.Sides))
	case c.Reason == "":
		return fmt.Errorf("field %s: missing (why the dossier rests on %q)", field("reason"), c.Rests)
	}
	rests := false
	for j, side := range c.Sides {
		if sources[side.Source] == nil {
			return fmt.Errorf("field %s[%d].source: %q is not one of the page's sources", field("sides"), j, side.Source)
		}
		if side.Says == "" || side.Evidence == "" {
			return fmt.Errorf("field %s[%d]: says and evidence are both needed", field("sides"), j)
		}
		rests = rests || side.Source == c.Rests
	}
	if !rests {
		return fmt.Errorf("field %s: %q is not one of the conflict's sides", field("rests_on"), c.Rests)
	}
	return nil
}

// ValidDate reports whether s is a real calendar date written YYYY-MM-DD.
func ValidDate(s string) bool {
	if !dateRe.MatchString(s) {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// atLine prefixes err with "line N: " when the line is known.
func atLine(line int, err error) error {
	if line <= 0 {
		return err
	}
	return fmt.Errorf("line %d: %w", line, err)
}

// layoutRe is a measurement layout, COUNTxACCELERATOR (config.ParseHardware's
// form; whether the accelerator exists is for the catalog).
var layoutRe = regexp.MustCompile(`^([1-9][0-9]{0,5})x[A-Za-z0-9][A-Za-z0-9_.-]*$`)

func checkMeasurement(i int, m Measurement, seen map[string]bool, sources map[string]*Source) error {
	field := func(n string) string { return fmt.Sprintf("measurements[%d].%s", i, n) }
	switch {
	case !idRe.MatchString(m.ID):
		return fmt.Errorf("field %s: expected a lower-case id, found %q", field("id"), m.ID)
	case seen["m:"+m.ID]:
		return fmt.Errorf("field %s: duplicate id %q", field("id"), m.ID)
	case m.Metric == "":
		return fmt.Errorf("field %s: missing", field("metric"))
	case m.By == "":
		return fmt.Errorf("field %s: missing", field("by"))
	case m.Source == "":
		return fmt.Errorf("field %s: missing", field("source"))
	case m.Date != "" && !ValidDate(m.Date):
		return fmt.Errorf("field %s: expected a real YYYY-MM-DD date, found %q", field("date"), m.Date)
	case m.Accessed != "" && !ValidDate(m.Accessed):
		return fmt.Errorf("field %s: expected a real YYYY-MM-DD date, found %q", field("accessed"), m.Accessed)
	case !oneOf(m.Kind, MeasurementKinds):
		return fmt.Errorf("field %s: expected one of %s, found %q", field("kind"), strings.Join(MeasurementKinds, ", "), m.Kind)
	case math.IsNaN(m.Value) || math.IsInf(m.Value, 0):
		return fmt.Errorf("field %s: expected a finite number, found %v", field("value"), m.Value)
	case m.Interval != nil && !finite(m.Interval.Low):
		return fmt.Errorf("field %s: expected a finite number, found %v", field("interval.low"), m.Interval.Low)
	case m.Interval != nil && !finite(m.Interval.High):
		return fmt.Errorf("field %s: expected a finite number, found %v", field("interval.high"), m.Interval.High)
	case m.Interval != nil && m.Interval.Low > m.Interval.High:
		return fmt.Errorf("field %s: low %v above high %v", field("interval"), m.Interval.Low, m.Interval.High)
	case m.Rank != nil && m.Rank.Of < 0:
		return fmt.Errorf("field %s: expected the board's size (0 when unknown), found %d", field("rank.of"), m.Rank.Of)
	case m.Rank != nil && (m.Rank.Position < 1 || (m.Rank.Of > 0 && m.Rank.Position > m.Rank.Of)):
		return fmt.Errorf("field %s: expected a position from 1 to the board's size %d, found %d", field("rank.position"), m.Rank.Of, m.Rank.Position)
	case m.Configuration.Layout != "" && !validLayout(m.Configuration.Layout):
		return fmt.Errorf("field %s: expected COUNTxACCELERATOR such as 8xH100 with COUNT from 1 to %d, found %q", field("configuration.layout"), checked.MaxGPUs, m.Configuration.Layout)
	case len(sources) > 0 && sources[m.Source] == nil && looksLikeID(m.Source):
		return unknownSource(field("source"), m.Source, sources)
	}
	if err := afterSource(field("date"), m.Date, sources[m.Source]); err != nil {
		return err
	}
	return afterSource(field("accessed"), m.Accessed, sources[m.Source])
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func validLayout(s string) bool {
	m := layoutRe.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	n, err := strconv.Atoi(m[1])
	return err == nil && n <= checked.MaxGPUs
}

func checkClaim(i int, c Claim, seen map[string]bool, sources map[string]*Source) error {
	field := func(n string) string { return fmt.Sprintf("claims[%d].%s", i, n) }
	switch {
	case !idRe.MatchString(c.ID):
		return fmt.Errorf("field %s: expected a lower-case id, found %q", field("id"), c.ID)
	case seen["c:"+c.ID]:
		return fmt.Errorf("field %s: duplicate id %q", field("id"), c.ID)
	case strings.TrimSpace(c.Text) == "":
		return fmt.Errorf("field %s: missing", field("text"))
	case strings.TrimSpace(c.By) == "":
		return fmt.Errorf("field %s: missing (who made the claim)", field("by"))
	case Vague(c.By):
		return fmt.Errorf("field %s: %q names nobody (a crowd or nobody in particular); name the person, organisation or outlet", field("by"), c.By)
	case strings.TrimSpace(c.Where) == "":
		return fmt.Errorf("field %s: missing (a source id of the page, a URL or a named document)", field("where"))
	case c.Date != "" && !ValidDate(c.Date):
		return fmt.Errorf("field %s: expected a real YYYY-MM-DD date, found %q", field("date"), c.Date)
	case c.Accessed != "" && !ValidDate(c.Accessed):
		return fmt.Errorf("field %s: expected a real YYYY-MM-DD date, found %q", field("accessed"), c.Accessed)
	case c.Date == "" && c.Accessed == "":
		return fmt.Errorf("field %s: missing (when the claim was published, or accessed: when it was read if that is unknown)", field("date"))
	case c.Quote != "" && !c.Paraphrase:
		return fmt.Errorf("field %s: a quote beside the text means the text is a paraphrase: set paraphrase: true", field("quote"))
	case c.ShelfLife != "" && !ValidDate(c.ShelfLife):
		return fmt.Errorf("field %s: expected a real YYYY-MM-DD date, found %q", field("shelf_life"), c.ShelfLife)
	case c.Verdict != "" && !oneOf(c.Verdict, Verdicts):
		return fmt.Errorf("field %s: expected one of %s, found %q", field("verdict"), strings.Join(Verdicts, ", "), c.Verdict)
	case c.Contacted != nil && (strings.TrimSpace(c.Contacted.Who) == "" || vagueBy.MatchString(c.Contacted.Who)):
		return fmt.Errorf("field %s: expected the named person or organisation asked, found %q", field("contacted.who"), c.Contacted.Who)
	case c.Contacted != nil && !ValidDate(c.Contacted.Date):
		return fmt.Errorf("field %s: expected a real YYYY-MM-DD date, found %q", field("contacted.date"), c.Contacted.Date)
	case c.Contacted != nil && strings.TrimSpace(c.Contacted.Response) == "":
		return fmt.Errorf("field %s: missing (what they answered, or \"no answer\")", field("contacted.response"))
	}
	if len(sources) > 0 && sources[c.Where] == nil && looksLikeID(c.Where) {
		return unknownSource(field("where"), c.Where, sources)
	}
	if err := afterSource(field("date"), c.Date, sources[c.Where]); err != nil {
		return err
	}
	if err := afterSource(field("accessed"), c.Accessed, sources[c.Where]); err != nil {
		return err
	}
	for j, e := range c.Evidence {
		if !EvidenceRe.MatchString(e) {
			return fmt.Errorf("field %s[%d]: expected kind:reference (fact:, measurement:, arxiv:, licence:, pricing:, config:, url:, repo:, doc:), found %q", field("evidence"), j, e)
		}
	}
	for j, ch := range c.Checks {
		if ch.Fact == "" {
			return fmt.Errorf("field %s[%d].fact: missing", field("checks"), j)
		}
		if e, ok := ch.Expect.(float64); ok && (math.IsNaN(e) || math.IsInf(e, 0)) {
			return fmt.Errorf("field %s[%d].expect: expected a finite number, found %v", field("checks"), j, e)
		}
		bounded := ch.Min != nil || ch.Max != nil
		if len(ch.OneOf) > 0 {
			if bounded || ch.Expect != nil {
				return fmt.Errorf("field %s[%d]: one_of beside expect or min/max; a check is one of them", field("checks"), j)
			}
			for k, v := range ch.OneOf {
				if strings.TrimSpace(v) == "" {
					return fmt.Errorf("field %s[%d].one_of[%d]: empty value", field("checks"), j, k)
				}
			}
			continue
		}
		switch ch.Expect.(type) {
		case int, int64, float64, bool:
			if bounded {
				return fmt.Errorf("field %s[%d]: expect and min/max both given; a check is one or the other", field("checks"), j)
			}
		case nil:
			if !bounded {
				return fmt.Errorf("field %s[%d].expect: missing (a number, true/false, min/max bounds, or one_of)", field("checks"), j)
			}
			if ch.Min != nil && ch.Max != nil && *ch.Min > *ch.Max {
				return fmt.Errorf("field %s[%d]: min %v above max %v", field("checks"), j, *ch.Min, *ch.Max)
			}
		default:
			return fmt.Errorf("field %s[%d].expect: expected a number or true/false, found %v", field("checks"), j, ch.Expect)
		}
		if !(ch.Tolerance >= 0 && ch.Tolerance < 1) { // NaN too
			return fmt.Errorf("field %s[%d].tolerance: expected a fraction in [0, 1), found %v", field("checks"), j, ch.Tolerance)
		}
	}
	return nil
}

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// items returns the items of the top-level sequence key in the parsed
// front matter doc.
func items(doc *yaml.Node, key string) []*yaml.Node {
	if len(doc.Content) == 0 {
		return nil
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1].Content
		}
	}
	return nil
}

// When is the claim's publication date, or when it was read if that is
// unknown.
func (c Claim) When() string {
	switch {
	case c.Date != "":
		return c.Date
	case c.Accessed != "":
		return "date unknown, read " + c.Accessed
	}
	return ""
}

// CorrectionsOf are the editorial entries that name claim id, in file
// order.
func (f *Front) CorrectionsOf(id string) []Correction {
	var out []Correction
	for _, c := range f.Corrections {
		if c.Claim == id {
			out = append(out, c)
		}
	}
	return out
}

// Withdrawal is the kind of the last retraction or void entry that names
// claim id ("" when none does): its review no longer stands, so it rates
// nothing and counts under no verdict.
func (f *Front) Withdrawal(id string) string {
	kind := ""
	for _, c := range f.CorrectionsOf(id) {
		if c.Kind == RetractionKind || c.Kind == VoidKind {
			kind = c.Kind
		}
	}
	return kind
}

// Source returns the page's source with this id, or nil.
func (f *Front) Source(id string) *Source {
	for i := range f.Sources {
		if f.Sources[i].ID == id {
			return &f.Sources[i]
		}
	}
	return nil
}

// Cite names a reference the way a reader looks it up: a source id of the
// page becomes "title — by, date, URL"; anything else is printed as written.
func (f *Front) Cite(ref string) string {
	s := f.Source(ref)
	if s == nil {
		return ref
	}
	return s.Cite()
}

// Name is a reference's short name: a source id of the page becomes its
// quoted title; anything else is printed as written.
func (f *Front) Name(ref string) string {
	if s := f.Source(ref); s != nil {
		return "“" + s.Title + "”"
	}
	return ref
}

// Cite is "title — by, date, URL (note)" with whatever of those is known.
func (s *Source) Cite() string {
	out := "“" + s.Title + "” — " + s.By
	switch {
	case s.Date != "":
		out += ", " + s.Date
	case s.Accessed != "":
		out += ", read " + s.Accessed
	}
	if s.URL != "" {
		out += ", " + s.URL
	}
	if s.Note != "" {
		out += " (" + s.Note + ")"
	}
	return out
}
