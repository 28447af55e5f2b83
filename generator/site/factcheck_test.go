package site

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"dossier/generator/claimlist"
	"dossier/generator/internal/sitetest"
)

// goldenFile compares got with testdata/name (rewritten with -update).
func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	sitetest.Golden(t, filepath.Join("testdata", name), got, *update)
}

func builtFixture(t *testing.T) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, copySite(t), dest); err != nil {
		t.Fatal(err)
	}
	return dest
}

func readOut(t *testing.T, dest, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dest, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var hrefRe = regexp.MustCompile(`href="([^"]+)"`)

// TestMethodologyPage: the page is golden; every HTML page's footer links
// it and the inputs page; each worked example links a claim row that exists, with the rating
// it illustrates; each ClaimReview's rating links a definition the page
// has.
func TestMethodologyPage(t *testing.T) {
	dest := builtFixture(t)
	md := readOut(t, dest, "methodology/index.md")
	goldenFile(t, "methodology.index.md", md)
	html := string(readOut(t, dest, "methodology/index.html"))

	err := filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") || strings.Contains(p, string(filepath.Separator)+".dossier") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dest, p)
		root := strings.Repeat("../", strings.Count(filepath.ToSlash(rel), "/"))
		if !bytes.Contains(b, []byte(`<footer class="site">`)) {
			return nil // a fragment, not a page
		}
		if !bytes.Contains(b, []byte(`<a href="`+root+`methodology/index.html">Methodology and corrections policy</a>`)) {
			t.Errorf("%s: the footer does not link the methodology page", rel)
		}
		if !bytes.Contains(b, []byte(`<a href="`+root+`inputs/index.html">data/ catalogs</a>`)) {
			t.Errorf("%s: the footer does not link the inputs page", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	examples := 0
	for _, m := range hrefRe.FindAllStringSubmatch(html, -1) {
		file, frag, ok := strings.Cut(m[1], "#claim-")
		if !ok {
			continue
		}
		examples++
		page := string(readOut(t, dest, filepath.Join("methodology", file)))
		if !strings.Contains(page, `<tr id="claim-`+frag+`">`) {
			t.Errorf("example %s: no such claim row", m[1])
		}
	}
	if examples == 0 {
		t.Error("no worked example links a claim")
	}

	k3 := string(readOut(t, dest, "models/kimi-k3/index.html"))
	for _, v := range []string{"supported", "refuted", "misleading", "outdated"} {
		if !strings.Contains(k3, `"url":"https://dossier.example.org/methodology/#rating-`+v+`"`) {
			t.Errorf("no ClaimReview of K3 links the definition of %s", v)
		}
		if !strings.Contains(html, `id="rating-`+v+`"`) {
			t.Errorf("the methodology page has no anchor rating-%s", v)
		}
	}
	if !strings.Contains(k3, `href="../../methodology/index.html#ratings"`) || !strings.Contains(k3, `href="../../methodology/index.html#tells"`) {
		t.Error("the claims section does not link the ratings and the tells")
	}
	if !strings.Contains(html, `id="tells"`) {
		t.Error("the methodology page has no anchor tells")
	}
}

// TestClaimsIndex: claims.json is golden and lists every claim of every
// page with its verdict; claims.csv has the same rows.
func TestClaimsIndex(t *testing.T) {
	dest := builtFixture(t)
	js := readOut(t, dest, claimlist.JSONPath)
	goldenFile(t, "claims.json", js)
	var doc struct {
		Claims []claimlist.Record `json:"claims"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	var want int
	for _, m := range fixtureModels(t) {
		want += len(m.Reviews)
	}
	if len(doc.Claims) != want || want == 0 {
		t.Fatalf("claims.json lists %d claims, the pages review %d", len(doc.Claims), want)
	}
	for _, c := range doc.Claims {
		if c.Verdict == "" || c.Rating == "" || c.Reason == "" || !strings.HasPrefix(c.URL, "https://dossier.example.org/models/") || !strings.Contains(c.URL, "#claim-"+c.ID) || c.Reviewed == "" {
			t.Errorf("incomplete record %+v", c)
		}
		if c.Verdict == "supported" && c.Value != 5 || c.Verdict == "refuted" && c.Value != 1 {
			t.Errorf("%s: %s rated %d", c.ID, c.Verdict, c.Value)
		}
	}
	rows, err := csv.NewReader(bytes.NewReader(readOut(t, dest, claimlist.CSVPath))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(doc.Claims)+1 || strings.Join(rows[0], ",") != "model,page,url,id,text,by,where,date,accessed,verdict,rating,rating_value,scope,computed,reason,evidence,reviewed,tells,contact,corrections,withdrawn" {
		t.Fatalf("claims.csv: %d rows for %d claims; header %v", len(rows), len(doc.Claims), rows[0])
	}
	for i, c := range doc.Claims {
		if r := rows[i+1]; r[3] != c.ID || r[9] != c.Verdict || r[4] != c.Text {
			t.Errorf("csv row %d %v differs from %+v", i+1, r, c)
		}
	}
}
