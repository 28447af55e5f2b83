package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// templatesWith copies the repository's templates into a temporary
// directory, base.html replaced when base is not empty, and loads them.
func templatesWith(t *testing.T, base string) *Templates {
	t.Helper()
	src := filepath.Join("..", "..", "templates")
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "base.html" && base != "" {
			b = []byte(base)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tm, err := LoadTemplates(dst)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// TestTablePageLocatesRows checks that TablePage's offsets cut the page
// into the rows RowsHTML writes, and that it gives none when the layout
// prints the body twice.
func TestTablePageLocatesRows(t *testing.T) {
	tb := &Table{Header: []string{AnchorHeader, "fact", "value", "how"}, Align: []Align{Left, Left, Right}}
	for r := 0; len(tb.Rows) < 2*memoRows; r++ {
		for i, s := range cellTexts {
			tb.Rows = append(tb.Rows, []string{Code("k" + itoa(r) + "-" + itoa(i)), Code("k"), s, cellTexts[(i+r)%len(cellTexts)]})
		}
	}
	md := []byte("# Facts\n\nEvery fact, with [a link](x.html).\n")
	p := HTMLPage{PageTitle: "facts", SiteTitle: "site", Root: "../../", Table: tb}
	tm := templatesWith(t, "")
	page, rows, err := tm.TablePage(md, p)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := tm.HTML(md, p, nil); !bytes.Equal(page, want) {
		t.Fatal("TablePage wrote another page than HTML")
	}
	if len(rows) != len(tb.Rows)+1 || !bytes.HasPrefix(page[rows[len(tb.Rows)]:], []byte("</tbody>")) {
		t.Fatalf("%d offsets for %d rows", len(rows), len(tb.Rows))
	}
	for i := range tb.Rows {
		one := &Table{Header: tb.Header, Align: tb.Align, Rows: tb.Rows[i : i+1]}
		if got, want := string(page[rows[i]:rows[i+1]]), one.RowsHTML(); got != want {
			t.Fatalf("row %d is\n%s\nRowsHTML writes\n%s", i, got, want)
		}
	}
	// Rows 3..9 written again in place of themselves: the page again.
	some := &Table{Header: tb.Header, Align: tb.Align, Rows: tb.Rows[3:10]}
	spliced := string(page[:rows[3]]) + some.RowsHTML() + string(page[rows[10]:])
	if spliced != string(page) {
		t.Error("rows spliced into their own place changed the page")
	}

	twice := templatesWith(t, `{{define "base"}}<main>{{block "main" .}}{{.Body}}{{end}}</main><aside>{{.Body}}</aside>{{end}}`)
	page, rows, err = twice.TablePage(md, p)
	if err != nil {
		t.Fatal(err)
	}
	if rows != nil || strings.Count(string(page), "<tbody>") != 2 {
		t.Errorf("a layout printing the body twice: offsets %v", rows[:min(len(rows), 3)])
	}
}
