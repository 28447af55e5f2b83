package render

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"text/template"
)

// templatesWith copies the repository's templates into a temporary
// directory, base.html replaced when base is not empty, and loads them.
func templatesWith(t testing.TB, base string) *Templates {
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

// TestDossierHTMLSplicesTables: given the page it wrote before, DossierHTML
// writes the changed tables into it when only tables changed (the marked
// prose shows those bytes were kept), and converts afresh when anything
// else did; either way the page is what a fresh conversion writes.
func TestDossierHTMLSplicesTables(t *testing.T) {
	tm := templatesWith(t, "")
	page := func(cost, prose string, jsonld []any) ([]byte, HTMLPage) {
		t1 := &Table{Header: []string{"fit", "verdict", FactHeader}, Rows: [][]string{{"8xB200", "fits", Code("fit.8xB200")}, {"8xH100", "does not fit", Code("fit.8xH100")}}}
		t2 := &Table{Header: []string{"layout", "$/h", FactHeader}, Align: []Align{Left, Right}, Rows: [][]string{{"8xB200", cost, Code("cost.8xB200")}}}
		md := "# Model\n\n" + prose + "\n\n" + t1.Markdown() + "\nBetween the tables.\n\n" + t2.Markdown() + "\nThe end.\n"
		return []byte(md), HTMLPage{PageTitle: "m", SiteTitle: "s", Root: "../../", FactsPage: "facts.html", JSONLD: jsonld,
			Tables: []PrintedTable{{Table: t1, Markdown: t1.Markdown()}, {Table: t2, Markdown: t2.Markdown()}}}
	}
	md, p := page("$47.84/h", "Some prose.", nil)
	first, parts, err := tm.DossierHTML(md, p, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if parts == nil || len(parts.Tables) != 2 {
		t.Fatalf("parts %+v", parts)
	}
	for _, tp := range parts.Tables {
		if s := string(first[tp.At[0]:tp.At[1]]); !strings.HasPrefix(s, "<table>") || !strings.HasSuffix(s, "</table>\n") {
			t.Fatalf("table part %v is %q", tp.At, s)
		}
	}
	marked := bytes.Replace(first, []byte("Some prose."), []byte("SOME PROSE."), 1)
	for _, c := range []struct {
		name, cost, prose string
		jsonld            []any
		spliced           bool
	}{
		{"a table cell", "$47.92/h", "Some prose.", nil, true},
		{"nothing", "$47.84/h", "Some prose.", nil, true},
		{"the prose", "$47.92/h", "Other prose", nil, false},
		{"the layout", "$47.92/h", "Some prose.", []any{map[string]string{"@type": "ClaimReview"}}, false},
	} {
		md, p := page(c.cost, c.prose, c.jsonld)
		want, wantParts, err := tm.DossierHTML(md, p, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, gotParts, err := tm.DossierHTML(md, p, nil, first, parts)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) || !reflect.DeepEqual(gotParts, wantParts) {
			t.Errorf("%s changed: the page written over the previous one is not a fresh one", c.name)
		}
		got, _, _ = tm.DossierHTML(md, p, nil, marked, parts)
		if spliced := bytes.Contains(got, []byte("SOME PROSE.")); spliced != c.spliced {
			t.Errorf("%s changed: spliced %v, want %v", c.name, spliced, c.spliced)
		}
	}
	// Parts that do not fit the page are not used.
	md, p = page("$47.92/h", "Some prose.", nil)
	bad := *parts
	bad.Tables = []TablePart{parts.Tables[0], {Sum: parts.Tables[1].Sum, At: [2]int{parts.Tables[1].At[0] + 1, parts.Tables[1].At[1]}}}
	if got, _, _ := tm.DossierHTML(md, p, nil, marked, &bad); bytes.Contains(got, []byte("SOME PROSE.")) {
		t.Error("parts off a table's start were used")
	}
}

// FuzzDossierHTMLSplice: whatever a table cell or the prose becomes (text
// that keeps a table from being written directly included), the page
// written over the previous one is the page converted afresh.
func FuzzDossierHTMLSplice(f *testing.F) {
	f.Add("$47.92/h", "Some prose.", "fits")
	f.Add("<b>", "Some prose.", "a@b.co")
	f.Add("http://x.org", "| a |\n| --- |", "`code`")
	f.Add("", "", "\x00")
	tm := templatesWith(f, "")
	page := func(cost, prose, verdict string) ([]byte, HTMLPage) {
		t1 := &Table{Header: []string{"fit", "verdict", FactHeader}, Rows: [][]string{{"8xB200", verdict, Code("fit.8xB200")}}}
		t2 := &Table{Header: []string{"layout", "$/h", FactHeader}, Align: []Align{Left, Right}, Rows: [][]string{{"8xB200", cost, Code("cost.8xB200")}}}
		md := "# Model\n\n" + prose + "\n\n" + t1.Markdown() + "\nBetween.\n\n" + t2.Markdown()
		return []byte(md), HTMLPage{PageTitle: "m", SiteTitle: "s", Root: "../../", FactsPage: "facts.html",
			Tables: []PrintedTable{{Table: t1, Markdown: t1.Markdown()}, {Table: t2, Markdown: t2.Markdown()}}}
	}
	md, p := page("$47.84/h", "Some prose.", "fits")
	first, parts, err := tm.DossierHTML(md, p, nil, nil, nil)
	if err != nil || parts == nil {
		f.Fatal(err, parts)
	}
	f.Fuzz(func(t *testing.T, cost, prose, verdict string) {
		md, p := page(cost, prose, verdict)
		want, wantParts, err := tm.DossierHTML(md, p, nil, nil, nil)
		if err != nil {
			return
		}
		got, gotParts, err := tm.DossierHTML(md, p, nil, first, parts)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) || !reflect.DeepEqual(gotParts, wantParts) {
			t.Errorf("cost %q, prose %q, verdict %q: the page written over the previous one is not a fresh one", cost, prose, verdict)
		}
	})
}

// TestDossierPartsText: parts read back as written; a malformed line as
// parts that match no page.
func TestDossierPartsText(t *testing.T) {
	pp := DossierParts{Skeleton: "sk", Tables: []TablePart{{Sum: "a1", At: [2]int{5, 9}}, {Sum: "b2", At: [2]int{12, 40}}}}
	b, err := pp.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	var back DossierParts
	if err := back.UnmarshalText(b); err != nil || !reflect.DeepEqual(back, pp) {
		t.Errorf("%q read back as %+v (%v)", b, back, err)
	}
	for _, bad := range []string{"", "sk a1 5", "sk a1 x 9"} {
		back = pp
		if err := back.UnmarshalText([]byte(bad)); err != nil || back.Skeleton != "" || back.Tables != nil {
			t.Errorf("%q read as %+v (%v)", bad, back, err)
		}
	}
}

// TestDossierMarkdownCopiesUnchangedTables: given the page it wrote
// before, DossierMarkdown copies each table whose sum is the one printed
// at its place (a marked byte shows which) and writes the others afresh;
// the result is the fresh page whatever it copied, and parts off a
// table's bytes are not used.
func TestDossierMarkdownCopiesUnchangedTables(t *testing.T) {
	tm := &Templates{md: map[string]*template.Template{"t.md": template.Must(template.New("t.md").Funcs(stubFuncs).
		Parse("# {{.}}\n\n{{table \"fit\"}}\nBetween the tables.\n\n{{table \"cost\"}}\nThe end.\n"))}}
	funcs := func(cost string) PageFuncs {
		return PageFuncs{Tables: map[string]*Table{
			"fit":  {Header: []string{"fit", "verdict"}, Rows: [][]string{{"8xB200", "fits"}, {"8xH100", "does not fit"}}},
			"cost": {Header: []string{"layout", "$/h"}, Align: []Align{Left, Right}, Rows: [][]string{{"8xB200", cost}}},
		}}
	}
	first, printed, parts, err := tm.DossierMarkdown("t.md", "Model", funcs("$47.84/h"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if parts == nil || len(parts.Tables) != 2 || len(printed) != 2 {
		t.Fatalf("parts %+v", parts)
	}
	for i, tp := range parts.Tables {
		if got := string(first[tp.At[0]:tp.At[1]]); got != printed[i].Table.Markdown() || tp.Sum != tableSum(printed[i].Table) {
			t.Fatalf("table %d located at %v: %q", i, tp.At, got)
		}
	}
	// "fits" appears in the first table only.
	marked := bytes.Replace(first, []byte("| fits"), []byte("| FITS"), 1)
	want, _, wantParts, _ := tm.DossierMarkdown("t.md", "Model", funcs("$47.92/h"), nil, nil)
	got, _, gotParts, err := tm.DossierMarkdown("t.md", "Model", funcs("$47.92/h"), first, parts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || !reflect.DeepEqual(gotParts, wantParts) {
		t.Errorf("written over the previous page:\n%s\nwant\n%s", got, want)
	}
	got, _, _, _ = tm.DossierMarkdown("t.md", "Model", funcs("$47.92/h"), marked, parts)
	if !bytes.Contains(got, []byte("| FITS")) || !bytes.Contains(got, []byte("$47.92/h")) {
		t.Errorf("the unchanged table was not copied, or the changed one was:\n%s", got)
	}
	off := *parts
	off.Tables = []TablePart{{Sum: parts.Tables[0].Sum, At: [2]int{parts.Tables[0].At[0], len(marked) + 1}}, parts.Tables[1]}
	if got, _, _, _ := tm.DossierMarkdown("t.md", "Model", funcs("$47.92/h"), marked, &off); bytes.Contains(got, []byte("FITS")) {
		t.Error("a part beyond the previous page was used")
	}
}
