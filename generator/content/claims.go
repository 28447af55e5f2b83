package content

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Verdicts a claim can receive.
var Verdicts = []string{"supported", "refuted", "misleading", "outdated", "unverifiable"}

// Claim is a published statement about the model and how it is reviewed:
// either by evidence and a hand-written verdict, or by machine checks
// against facts whose verdict the generator computes.
type Claim struct {
	ID       string   `yaml:"id"`
	Text     string   `yaml:"text"`  // the short quoted claim
	By       string   `yaml:"by"`    // who made it
	Date     string   `yaml:"date"`  // when, YYYY-MM-DD
	Where    string   `yaml:"where"` // URL or document where it appeared
	Kind     string   `yaml:"kind"`  // size, precision, performance, novelty, availability, ranking, licence, code, ...
	Evidence []string `yaml:"evidence"`
	Verdict  string   `yaml:"verdict"`
	Reason   string   `yaml:"reason"` // one line
	Scope    string   `yaml:"scope"`  // the qualifier a supported claim needs
	Checks   []Check  `yaml:"checks"`
	// ShelfLife is the absolute date a relative phrase ("later this month")
	// resolves to; a review after it makes the claim outdated.
	ShelfLife string `yaml:"shelf_life"`
	Line      int    `yaml:"-"` // line of the claim in its file
}

// Check compares a fact with what the claim implies.
type Check struct {
	Fact      string  `yaml:"fact"`
	Expect    any     `yaml:"expect"`    // a number or true/false
	Tolerance float64 `yaml:"tolerance"` // relative, for numbers
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
	for i, m := range f.Measurements {
		if err := checkMeasurement(i, m, seen); err != nil {
			return atLine(m.Line, err)
		}
		seen["m:"+m.ID] = true
	}
	for i, c := range f.Claims {
		if err := checkClaim(i, c, seen); err != nil {
			return atLine(c.Line, err)
		}
		seen["c:"+c.ID] = true
	}
	return nil
}

// atLine prefixes err with "line N: " when the line is known.
func atLine(line int, err error) error {
	if line <= 0 {
		return err
	}
	return fmt.Errorf("line %d: %w", line, err)
}

func checkMeasurement(i int, m Measurement, seen map[string]bool) error {
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
	case m.Date != "" && !dateRe.MatchString(m.Date):
		return fmt.Errorf("field %s: expected YYYY-MM-DD, found %q", field("date"), m.Date)
	case m.Accessed != "" && !dateRe.MatchString(m.Accessed):
		return fmt.Errorf("field %s: expected YYYY-MM-DD, found %q", field("accessed"), m.Accessed)
	case !oneOf(m.Kind, MeasurementKinds):
		return fmt.Errorf("field %s: expected one of %s, found %q", field("kind"), strings.Join(MeasurementKinds, ", "), m.Kind)
	case m.Interval != nil && m.Interval.Low > m.Interval.High:
		return fmt.Errorf("field %s: low %v above high %v", field("interval"), m.Interval.Low, m.Interval.High)
	}
	return nil
}

func checkClaim(i int, c Claim, seen map[string]bool) error {
	field := func(n string) string { return fmt.Sprintf("claims[%d].%s", i, n) }
	switch {
	case !idRe.MatchString(c.ID):
		return fmt.Errorf("field %s: expected a lower-case id, found %q", field("id"), c.ID)
	case seen["c:"+c.ID]:
		return fmt.Errorf("field %s: duplicate id %q", field("id"), c.ID)
	case strings.TrimSpace(c.Text) == "":
		return fmt.Errorf("field %s: missing", field("text"))
	case c.By == "":
		return fmt.Errorf("field %s: missing (who made the claim)", field("by"))
	case !dateRe.MatchString(c.Date):
		return fmt.Errorf("field %s: expected YYYY-MM-DD, found %q", field("date"), c.Date)
	case c.ShelfLife != "" && !dateRe.MatchString(c.ShelfLife):
		return fmt.Errorf("field %s: expected YYYY-MM-DD, found %q", field("shelf_life"), c.ShelfLife)
	case c.Verdict != "" && !oneOf(c.Verdict, Verdicts):
		return fmt.Errorf("field %s: expected one of %s, found %q", field("verdict"), strings.Join(Verdicts, ", "), c.Verdict)
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
		switch ch.Expect.(type) {
		case int, int64, float64, bool:
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

// itemLines returns the file line of each item of the top-level sequence
// key in a front matter block that starts at file line firstLine.
func itemLines(front []byte, key string, firstLine int) []int {
	var doc yaml.Node
	if yaml.Unmarshal(front, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			var out []int
			for _, item := range m.Content[i+1].Content {
				out = append(out, item.Line+firstLine-1)
			}
			return out
		}
	}
	return nil
}
