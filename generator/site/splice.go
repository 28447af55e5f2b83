package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"dossier/generator/facts"
	"dossier/generator/render"
	"dossier/generator/sizing"
)

// A price change changes a few dozen of a page's thousand facts, and
// facts.json and facts.html write every one. A build records where the
// facts prices decide (sizing.Priced) are in both files; the next build of
// a page whose other inputs are unchanged writes its new priced facts into
// the previous files' bytes instead of encoding and converting every fact
// again. TestCachedBuildsMatchFullBuild and TestPriceChangesMatchFullBuild
// hold the result to a full build.

// pricedRuns locates the priced facts of a page's facts.json and
// facts.html, as runs of facts adjacent in key order.
type pricedRuns struct {
	// Others is the sha256 of the other facts' keys in order: the
	// cheapest layout adds speed facts of its own, so a price change can
	// change which other facts there are.
	Others  string
	JSONEnd int // where facts.json's last fact ends
	Runs    []factRun
}

// factRun is a run of priced facts: how many other facts precede it, and
// its bytes in facts.json and in facts.html (empty when a later build
// found none there).
type factRun struct {
	After int
	JSON  [2]int
	HTML  [2]int
}

// MarshalText writes the runs as one line of the manifest: the other
// facts' keys' hash, JSONEnd, then five numbers a run.
func (pr pricedRuns) MarshalText() ([]byte, error) {
	b := append([]byte(nil), pr.Others...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(pr.JSONEnd), 10)
	for _, r := range pr.Runs {
		for _, n := range []int{r.After, r.JSON[0], r.JSON[1], r.HTML[0], r.HTML[1]} {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(n), 10)
		}
	}
	return b, nil
}

// UnmarshalText reads what MarshalText writes. Anything else reads as
// runs that match no page (an empty Others): the manifest is a cache, and
// one bad line should not cost the rest of it.
func (pr *pricedRuns) UnmarshalText(b []byte) error {
	*pr = pricedRuns{}
	f := strings.Fields(string(b))
	if len(f) < 2 || (len(f)-2)%5 != 0 {
		return nil
	}
	n := make([]int, len(f)-1)
	for i, s := range f[1:] {
		var err error
		if n[i], err = strconv.Atoi(s); err != nil {
			return nil
		}
	}
	pr.Others, pr.JSONEnd, pr.Runs = f[0], n[0], make([]factRun, (len(n)-1)/5)
	for i := range pr.Runs {
		r := n[1+5*i:]
		pr.Runs[i] = factRun{After: r[0], JSON: [2]int{r[1], r[2]}, HTML: [2]int{r[3], r[4]}}
	}
	return nil
}

// factsIntro is the Markdown above the facts page's table.
func factsIntro(m *Model) []byte {
	return []byte("# " + m.Page.Title + ": every fact\n\nEach figure of [the dossier](index.html) with its derivation and sources; the same facts are in [facts.json](facts.json).\n")
}

func (s *Site) factsPage(m *Model) render.HTMLPage {
	return render.HTMLPage{
		PageTitle: m.Page.Title + " facts · " + s.Config.Title, SiteTitle: s.Config.Title, Root: "../../",
		FactsURL: "facts.json", Search: s.Config.Search, Table: m.Page.FactsAppendix(),
	}
}

// renderFacts writes a page's facts.json and facts.html: from prev, the
// previous build's, when only priced facts can differ, else in full. runs
// locates the priced facts in what it wrote (nil when they cannot be).
func (s *Site) renderFacts(m *Model, prev *previousPage) (fj, fh []byte, runs *pricedRuns, spliced bool, err error) {
	priced := sizing.Priced(m.Facts)
	if prev != nil && prev.runs != nil {
		if fj, fh, runs, err = spliceFacts(m, priced, prev); err != nil || runs != nil {
			return fj, fh, runs, runs != nil, err
		}
	}
	fj, at, err := factsJSON(m, make([]int, 0, m.Facts.Len()+1))
	if err != nil {
		return nil, nil, nil, false, err
	}
	fh, rows, err := s.Templates.TablePage(factsIntro(m), s.factsPage(m))
	if err != nil {
		return nil, nil, nil, false, fmt.Errorf("render the facts of %s: %w", m.Content.Path, err)
	}
	return fj, fh, runsOf(m, priced, at, rows), false, nil
}

// runsOf locates the priced facts from where each fact begins in
// facts.json (at) and facts.html (rows); nil when either is unknown or
// the first fact is priced (it has no comma before it to keep).
func runsOf(m *Model, priced []bool, at, rows []int) *pricedRuns {
	n := len(priced)
	if n == 0 || len(at) != n+1 || len(rows) != n+1 || priced[0] {
		return nil
	}
	r := &pricedRuns{Others: othersKey(m.Facts, priced), JSONEnd: at[n]}
	others := 0
	for i := range n {
		switch {
		case !priced[i]:
			others++
		case !priced[i-1]:
			r.Runs = append(r.Runs, factRun{After: others, JSON: [2]int{at[i], at[i]}, HTML: [2]int{rows[i], rows[i]}})
			fallthrough
		default:
			last := &r.Runs[len(r.Runs)-1]
			last.JSON[1], last.HTML[1] = at[i+1], rows[i+1]
		}
	}
	return r
}

// othersKey hashes the keys of the facts prices do not decide, in order.
func othersKey(set *facts.Set, priced []bool) string {
	// One buffer, one hash: a write per key was most of the cost.
	b := make([]byte, 0, 40*set.Len())
	i := 0
	for f := range set.All() {
		if !priced[i] {
			b = append(b, f.Key...)
			b = append(b, '\n')
		}
		i++
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// previousPage is what the previous build wrote of a page: each file nil
// unless it is as that build wrote it.
type previousPage struct {
	json, html, page, md []byte // facts.json, facts.html, index.html, index.md
	runs                 *pricedRuns
	parts, mdParts       *render.DossierParts
}

// previousPage reads the previous output's facts files and HTML page of e
// when they were written by this generator from the same model-side
// inputs (e.modelSide), the price lists aside; nil otherwise.
func (s *Site) previousPage(e *entry) *previousPage {
	if s.prev == nil || e.modelSide == "" {
		return nil
	}
	me, ok := s.prev.Models[e.slug]
	if !ok || me.ModelSide != e.modelSide {
		return nil
	}
	dir := "models/" + e.slug + "/"
	read := func(name string) []byte {
		sum, ok := me.Files[dir+name]
		if !ok || !s.intact(dir+name, sum) {
			return nil
		}
		b, err := os.ReadFile(filepath.Join(s.prevDir, "models", e.slug, name))
		if err != nil {
			return nil
		}
		return b
	}
	p := &previousPage{runs: me.Priced, parts: me.Dossier, mdParts: me.Markdown}
	if p.runs != nil {
		if p.json, p.html = read("facts.json"), read("facts.html"); p.json == nil || p.html == nil {
			p.runs = nil
		}
	}
	if p.parts != nil {
		if p.page = read("index.html"); p.page == nil {
			p.parts = nil
		}
	}
	if p.mdParts != nil {
		if p.md = read("index.md"); p.md == nil {
			p.mdParts = nil
		}
	}
	return p
}

// spliceFacts writes facts.json and facts.html as prev with each run of
// priced facts replaced by m's; runs is nil when m's other facts are not
// prev's, a priced fact falls where prev had none, or prev's runs do not
// fit its files.
func spliceFacts(m *Model, priced []bool, prev *previousPage) (fj, fh []byte, runs *pricedRuns, err error) {
	pr := prev.runs
	if len(priced) == 0 || priced[0] || othersKey(m.Facts, priced) != pr.Others || !pr.fits(prev.json, prev.html) {
		return nil, nil, nil, nil
	}
	// The priced facts, by how many other facts precede them.
	groups := map[int][]*facts.Fact{}
	i, others := 0, 0
	for f := range m.Facts.All() {
		if priced[i] {
			groups[others] = append(groups[others], f)
		} else {
			others++
		}
		i++
	}
	matched := 0
	for _, r := range pr.Runs {
		if _, ok := groups[r.After]; ok {
			matched++
		}
	}
	if matched != len(groups) {
		return nil, nil, nil, nil // a priced fact where there was none: no place to put it
	}
	runs = &pricedRuns{Others: pr.Others, Runs: make([]factRun, len(pr.Runs))}
	fj = make([]byte, 0, len(prev.json)+len(prev.json)/8)
	fh = make([]byte, 0, len(prev.html)+len(prev.html)/8)
	j, h := 0, 0
	for k, r := range pr.Runs {
		g := groups[r.After]
		fj = append(fj, prev.json[j:r.JSON[0]]...)
		fh = append(fh, prev.html[h:r.HTML[0]]...)
		run := factRun{After: r.After, JSON: [2]int{len(fj), 0}, HTML: [2]int{len(fh), 0}}
		if fj, err = facts.AppendFactsJSON(fj, g, factsIndent, factsIndent); err != nil {
			return nil, nil, nil, fmt.Errorf("facts.json for %s: field facts: %w", m.Snapshot.Model, err)
		}
		if len(g) > 0 {
			fh = append(fh, m.Page.FactsRows(g).RowsHTML()...)
		}
		run.JSON[1], run.HTML[1] = len(fj), len(fh)
		runs.Runs[k] = run
		j, h = r.JSON[1], r.HTML[1]
	}
	fj = append(fj, prev.json[j:pr.JSONEnd]...)
	runs.JSONEnd = len(fj)
	if fj, err = appendFactsDocTail(fj, m); err != nil {
		return nil, nil, nil, err
	}
	return fj, append(fh, prev.html[h:]...), runs, nil
}

// fits says whether the runs lie in order in these files, each beginning
// and ending where a fact or a row does.
func (pr *pricedRuns) fits(json, html []byte) bool {
	const fact, end = ",\n" + factsIndent + factsIndent + `"`, "\n" + factsIndent + "}"
	atJSON := func(i int) bool {
		return i <= pr.JSONEnd && bytes.HasPrefix(json[i:], []byte(fact)) || i == pr.JSONEnd && bytes.HasPrefix(json[i:], []byte(end))
	}
	atHTML := func(i int) bool {
		return bytes.HasPrefix(html[i:], []byte("<tr")) || bytes.HasPrefix(html[i:], []byte("</tbody>"))
	}
	if pr.JSONEnd > len(json) {
		return false
	}
	j, h, after := 0, 0, 0
	for _, r := range pr.Runs {
		if r.After < after || r.JSON[0] < j || r.JSON[1] < r.JSON[0] || r.HTML[0] < h || r.HTML[1] < r.HTML[0] || r.HTML[1] > len(html) {
			return false
		}
		if !atJSON(r.JSON[0]) || !atJSON(r.JSON[1]) || !atHTML(r.HTML[0]) || !atHTML(r.HTML[1]) {
			return false
		}
		j, h, after = r.JSON[1], r.HTML[1], r.After+1
	}
	return true
}
