package site

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"strings"

	"dossier/generator/claims"
	"dossier/generator/internal/jsonlist"
)

// Site-wide lists of every reviewed claim, for readers and for the
// datasets that collect fact checks.
const (
	ClaimsJSONPath = "claims.json"
	ClaimsCSVPath  = "claims.csv"
)

// ClaimRecord is one reviewed claim as the site-wide lists carry it. It
// holds only what the inputs decide, so the lists are reproducible and
// committed; the dates read from git (first appearance, last change) are
// in the pages' ClaimReview markup.
type ClaimRecord struct {
	Model    string   `json:"model"`
	Page     string   `json:"page"` // the dossier's title
	URL      string   `json:"url"`  // the claim's row on its dossier
	ID       string   `json:"id"`
	Text     string   `json:"text"`
	By       string   `json:"by"`
	Where    string   `json:"where"`              // the document it appeared in
	Date     string   `json:"date,omitempty"`     // when the claim was made, if known
	Accessed string   `json:"accessed,omitempty"` // when it was read, if undated
	Verdict  string   `json:"verdict"`
	Rating   string   `json:"rating"`            // ClaimReview's alternateName
	Value    int      `json:"rating_value"`      // 1–5; 0 for unverifiable
	Scope    string   `json:"scope,omitempty"`   // what a scoped verdict is limited to
	Computed bool     `json:"computed"`          // decided by machine checks
	Reason   string   `json:"reason"`            // why the verdict holds
	Evidence []string `json:"evidence"`          // what each piece of evidence gives
	Reviewed string   `json:"reviewed"`          // the dossier's review date
	Tells    []int    `json:"tells"`             // tells the claim text shows
	Contact  string   `json:"contact,omitempty"` // whether the claimant was asked, and what they answered
	// Corrections are the editorial entries that name this claim.
	Corrections []string `json:"corrections,omitempty"`
	// Withdrawn is "retraction" or "void" when such an entry names the
	// claim: its review no longer stands.
	Withdrawn string `json:"withdrawn,omitempty"`
}

// claimRecords lists m's reviews for its summary.
func (s *Site) claimRecords(m *Model) []ClaimRecord {
	var out []ClaimRecord
	for _, r := range m.Reviews {
		rt, _ := claims.RatingOf(r.Verdict)
		c := ClaimRecord{Model: m.Snapshot.Model, Page: m.Page.Title, URL: s.Config.BaseURL + "models/" + m.Page.Slug + "/#claim-" + r.ID,
			ID: r.ID, Text: r.Text, By: r.By, Where: m.Content.Front.Name(r.Where), Date: r.Date, Accessed: r.Accessed,
			Verdict: r.Verdict, Rating: rt.Name, Value: rt.Value, Scope: r.Scope, Computed: r.Computed, Reason: r.Reason,
			Evidence: []string{}, Reviewed: m.Content.Front.Review, Tells: []int{}}
		for _, e := range r.Evidence {
			c.Evidence = append(c.Evidence, e.Gives)
		}
		for _, f := range r.Tells {
			c.Tells = append(c.Tells, f.Tell)
		}
		if r.Contacted != nil {
			c.Contact = r.Contacted.String()
		}
		for _, e := range m.Content.Front.CorrectionsOf(r.ID) {
			c.Corrections = append(c.Corrections, e.Record())
		}
		c.Withdrawn = r.Withdrawn
		out = append(out, c)
	}
	return out
}

// claimLists writes claims.json and claims.csv: every claim of every
// published dossier, in the order of the index, one dossier at a time.
type claimLists struct {
	js, csv bytes.Buffer
	list    *jsonlist.List
	cw      *csv.Writer
}

func newClaimLists() (*claimLists, error) {
	l := &claimLists{}
	var err error
	if l.list, err = jsonlist.New(&l.js, map[string]any{"claims": jsonlist.Placeholder}, "  "); err != nil {
		return nil, fmt.Errorf("%s: %w", ClaimsJSONPath, err)
	}
	l.cw = csv.NewWriter(&l.csv)
	return l, l.cw.Write(claimsCSVHeader)
}

func (l *claimLists) add(cs []ClaimRecord) error {
	for _, c := range cs {
		if err := l.list.Add(c); err != nil {
			return fmt.Errorf("%s: %w", ClaimsJSONPath, err)
		}
		if err := writeClaimCSV(l.cw, c); err != nil {
			return err
		}
	}
	return nil
}

func (l *claimLists) put(out *memory) error {
	l.cw.Flush()
	if err := errors.Join(l.list.Close(), l.cw.Error()); err != nil {
		return err
	}
	if err := out.put(ClaimsJSONPath, l.js.Bytes()); err != nil {
		return err
	}
	return out.put(ClaimsCSVPath, l.csv.Bytes())
}

// claimsCSVHeader are the CSV's columns; lists within a cell are joined
// with "; ".
var claimsCSVHeader = []string{"model", "page", "url", "id", "text", "by", "where", "date", "accessed", "verdict", "rating", "rating_value", "scope", "computed", "reason", "evidence", "reviewed", "tells", "contact", "corrections", "withdrawn"}

func writeClaimCSV(cw *csv.Writer, c ClaimRecord) error {
	tells := make([]string, len(c.Tells))
	for i, t := range c.Tells {
		tells[i] = fmt.Sprint(t)
	}
	return cw.Write([]string{c.Model, c.Page, c.URL, c.ID, c.Text, c.By, c.Where, c.Date, c.Accessed, c.Verdict, c.Rating, fmt.Sprint(c.Value), c.Scope,
		fmt.Sprint(c.Computed), c.Reason, strings.Join(c.Evidence, "; "), c.Reviewed, strings.Join(tells, "; "), c.Contact, strings.Join(c.Corrections, "; "), c.Withdrawn})
}
