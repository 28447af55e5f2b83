// Package claimlist writes the site-wide lists of every reviewed claim,
// claims.json and claims.csv, for readers and for the datasets that
// collect fact checks: one dossier's claims at a time, in the order of
// the index, so a writer never holds every claim of the site.
package claimlist

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"dossier/generator/claims"
	"dossier/generator/content"
	"dossier/generator/internal/jsonlist"
)

// The lists' paths in the published site.
const (
	JSONPath = "claims.json"
	CSVPath  = "claims.csv"
)

// Record is one reviewed claim as the site-wide lists carry it. It
// holds only what the inputs decide, so the lists are reproducible and
// committed; the dates read from git (first appearance, last change) are
// in the pages' ClaimReview markup.
type Record struct {
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

// Of lists a dossier's reviews as the lists carry them: model is its Hub
// id, page its title, url its address (ending in "/"), front its page's
// front matter.
func Of(model, page, url string, front *content.Front, reviews []claims.Review) []Record {
	var out []Record
	for _, r := range reviews {
		rt, _ := claims.RatingOf(r.Verdict)
		c := Record{Model: model, Page: page, URL: url + "#claim-" + r.ID,
			ID: r.ID, Text: r.Text, By: r.By, Where: front.Name(r.Where), Date: r.Date, Accessed: r.Accessed,
			Verdict: r.Verdict, Rating: rt.Name, Value: rt.Value, Scope: r.Scope, Computed: r.Computed, Reason: r.Reason,
			Evidence: []string{}, Reviewed: front.Review, Tells: []int{}}
		for _, e := range r.Evidence {
			c.Evidence = append(c.Evidence, e.Gives)
		}
		for _, f := range r.Tells {
			c.Tells = append(c.Tells, f.Tell)
		}
		if r.Contacted != nil {
			c.Contact = r.Contacted.String()
		}
		for _, e := range front.CorrectionsOf(r.ID) {
			c.Corrections = append(c.Corrections, e.Record())
		}
		c.Withdrawn = r.Withdrawn
		out = append(out, c)
	}
	return out
}

// Writer writes both lists.
type Writer struct {
	list *jsonlist.List
	cw   *csv.Writer
}

// New starts claims.json on js and claims.csv on table.
func New(js, table io.Writer) (*Writer, error) {
	list, err := jsonlist.New(js, map[string]any{"claims": jsonlist.Placeholder}, "  ")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", JSONPath, err)
	}
	w := &Writer{list: list, cw: csv.NewWriter(table)}
	return w, w.cw.Write(csvHeader)
}

// Add writes the next dossier's claims.
func (w *Writer) Add(cs []Record) error {
	for _, c := range cs {
		if err := w.list.Add(c); err != nil {
			return fmt.Errorf("%s: %w", JSONPath, err)
		}
		if err := writeCSV(w.cw, c); err != nil {
			return fmt.Errorf("%s: %w", CSVPath, err)
		}
	}
	return nil
}

// Close ends both lists.
func (w *Writer) Close() error {
	w.cw.Flush()
	return errors.Join(w.list.Close(), w.cw.Error())
}

// csvHeader are claims.csv's columns; lists within a cell are joined
// with "; ".
var csvHeader = []string{"model", "page", "url", "id", "text", "by", "where", "date", "accessed", "verdict", "rating", "rating_value", "scope", "computed", "reason", "evidence", "reviewed", "tells", "contact", "corrections", "withdrawn"}

func writeCSV(cw *csv.Writer, c Record) error {
	tells := make([]string, len(c.Tells))
	for i, t := range c.Tells {
		tells[i] = fmt.Sprint(t)
	}
	return cw.Write([]string{c.Model, c.Page, c.URL, c.ID, c.Text, c.By, c.Where, c.Date, c.Accessed, c.Verdict, c.Rating, fmt.Sprint(c.Value), c.Scope,
		fmt.Sprint(c.Computed), c.Reason, strings.Join(c.Evidence, "; "), c.Reviewed, strings.Join(tells, "; "), c.Contact, strings.Join(c.Corrections, "; "), c.Withdrawn})
}
