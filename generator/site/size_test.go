package site

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// outputSizes are a built site's bytes per model directory: published
// (every file) and committed for review (index.md and facts.json; the
// HTML and the charts, drawn from the facts, are rebuilt, see .gitignore).
func outputSizes(t *testing.T, dest string) (published, committed map[string]int64) {
	t.Helper()
	published, committed = map[string]int64{}, map[string]int64{}
	dirs, err := os.ReadDir(filepath.Join(dest, "models"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		files, err := os.ReadDir(filepath.Join(dest, "models", d.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			fi, err := f.Info()
			if err != nil {
				t.Fatal(err)
			}
			published[d.Name()] += fi.Size()
			if f.Name() == "index.md" || f.Name() == "facts.json" {
				committed[d.Name()] += fi.Size()
			}
		}
	}
	return published, committed
}

func median(m map[string]int64) int64 {
	var v []int64
	for _, x := range m {
		v = append(v, x)
	}
	slices.Sort(v)
	if len(v) == 0 {
		return 0
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// TestOutputSizes prints and bounds the fixture site's bytes per model:
// published (everything a host serves) and committed for review. The
// bounds are what the fixture reaches (503 KiB and 181 KiB for K3,
// medians 350 KiB and 127 KiB) with room for some more facts: schema 2,
// the rule-once facts page, only the two layouts the node search finds
// past one node, the speed method and the regimes' errors stated once,
// matrix rows anchored rather than cells, facts.json without indentation,
// the shared inputs listed once on the inputs page. Schema 1 published
// 1.7–2.1 MB and committed 0.8–1.1 MB per model. The targets (250
// KB and 100 KB) are not met: see README, Outputs.
func TestOutputSizes(t *testing.T) {
	published, committed := outputSizes(t, builtFixture(t))
	if len(published) < 2 {
		t.Fatalf("the fixture built %d models", len(published))
	}
	var lines []string
	for _, slug := range slices.Sorted(func(yield func(string) bool) {
		for k := range published {
			if !yield(k) {
				return
			}
		}
	}) {
		lines = append(lines, fmt.Sprintf("%s: published %d KB, committed %d KB", slug, published[slug]>>10, committed[slug]>>10))
	}
	t.Logf("per model:\n%s\nmedian published %d KB, committed %d KB", strings.Join(lines, "\n"), median(published)>>10, median(committed)>>10)
	// Per model and for the median model, published and committed.
	const maxPublished, maxCommitted = 530 << 10, 195 << 10
	const medianPublished, medianCommitted = 370 << 10, 135 << 10
	for slug, n := range published {
		if n > maxPublished {
			t.Errorf("%s publishes %d KB, over %d KB", slug, n>>10, maxPublished>>10)
		}
		if committed[slug] > maxCommitted {
			t.Errorf("%s commits %d KB for review, over %d KB", slug, committed[slug]>>10, maxCommitted>>10)
		}
	}
	if m := median(published); m > medianPublished {
		t.Errorf("the median model publishes %d KB, over %d KB", m>>10, medianPublished>>10)
	}
	if m := median(committed); m > medianCommitted {
		t.Errorf("the median model commits %d KB, over %d KB", m>>10, medianCommitted>>10)
	}
}

// TestFactsPageStatesEachFactOnce: every fact of a fixture model has one
// anchor on its facts page, where its dossier links: its own id, or the
// id of its row in a matrix; a rule shared by a column's rows is printed
// once, not per row.
func TestFactsPageStatesEachFactOnce(t *testing.T) {
	dest := builtFixture(t)
	for _, m := range fixtureModels(t) {
		page := string(readOut(t, dest, "models/"+m.Page.Slug+"/facts.html"))
		rows := m.Facts.Tabulate().RowKeys()
		for k := range m.Facts.Prefixed("") {
			anchor, ok := rows[k]
			if !ok {
				anchor = k
			}
			if n := strings.Count(page, ` id="`+anchor+`"`); n != 1 {
				t.Fatalf("%s: %s's anchor %s is on the facts page %d times", m.Page.Slug, k, anchor, n)
			}
		}
		// Each rule is printed once per column stating it (columns of
		// several tables may share one), never per row.
		stated := map[string]int{}
		var shared int
		for _, tb := range m.Facts.Tabulate().Tables {
			for j, c := range tb.Columns {
				for r, rule := range c.Rules {
					stated[rule]++
					var rows int
					for i := range tb.Rows {
						if cell := tb.Cells[i][j]; cell != nil && !cell.OwnDerivation && cell.Rule == r {
							rows++
						}
					}
					if rows >= 3 {
						shared++
					}
				}
			}
		}
		for rule, n := range stated {
			// Printed as the page prints text: those it escapes or
			// names differently are left out.
			if strings.ContainsAny(rule, "<>&\"'`*_[]\\") || strings.Contains(rule, "seed") || strings.Contains(rule, "://") {
				continue
			}
			if got := strings.Count(page, rule); got != n {
				t.Errorf("%s: the rule %q is printed %d times, stated by %d column(s)", m.Page.Slug, rule, got, n)
			}
		}
		if shared < 5 {
			t.Errorf("%s: %d column rules checked", m.Page.Slug, shared)
		}
	}
}
