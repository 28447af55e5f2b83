package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"dossier/generator/claimlist"
	"dossier/generator/config"
	"dossier/generator/corrections"
	"dossier/generator/internal/sitetest"
	"dossier/generator/review"
)

// editorialSite is the fixture with the reviewers' own entries on K3: a
// correction of one claim's attribution, a voided check, an update of a
// fact, a right-of-reply record, an archived and hashed source, and a
// named publisher and reviewer.
func editorialSite(t *testing.T) string {
	t.Helper()
	root := copySite(t)
	k3 := filepath.Join(root, "content/models/kimi-k3.md")
	sitetest.Edit(t, k3, "    reason: \"Measured end to end on one RTX 6000 Ada; the VRAM floor holds because weights stream from disk.\"\n---\n",
		"    reason: \"Measured end to end on one RTX 6000 Ada; the VRAM floor holds because weights stream from disk.\"\n"+
			"    contacted: {who: \"AirLLM\", date: \"2026-08-05\", response: \"no answer by the review date\"}\n"+
			"corrections:\n"+
			"  - {kind: correction, date: \"2026-09-01\", claim: size-1400, what: \"the claim was attributed to the fact check's second version\", why: \"the quoted words are from its first version\", by: \"A. Reviewer\"}\n"+
			"  - {kind: void, date: \"2026-09-02\", claim: fits-8xb200, what: \"the check compared against the wrong node\", why: \"the check named 8xB200 where the claim meant a B300 node\", by: \"A. Reviewer\"}\n"+
			"  - {kind: update, date: \"2026-09-03\", fact: bytes.checkpoint, what: \"the listing was read again\", why: \"the Hub now lists the same 96 shards\", by: \"B. Editor\"}\n---\n")
	sitetest.Edit(t, k3, "    url: \"https://huggingface.co/moonshotai/Kimi-K3\"\n",
		"    url: \"https://huggingface.co/moonshotai/Kimi-K3\"\n    archived: \"https://archive.example.org/20260806/huggingface.co/moonshotai/Kimi-K3\"\n    sha256: \"0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0\"\n")
	b, err := os.ReadFile(filepath.Join(root, "hugo-like.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, []byte("publisher:\n  name: \"Example Checks\"\n  url: \"https://checks.example.org/\"\n  reviewer: \"A. Reviewer\"\n  funding: \"reader donations.\"\n  corrections: \"corrections@checks.example.org\"\n")...)
	if err := os.WriteFile(filepath.Join(root, "hugo-like.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

var jsonLDRe = regexp.MustCompile(`<script type="application/ld\+json">(.*?)</script>`)

// claimReviewOf returns the ClaimReview of one claim from a page's HTML.
func claimReviewOf(t *testing.T, html []byte, id string) map[string]any {
	t.Helper()
	for _, m := range jsonLDRe.FindAllSubmatch(html, -1) {
		var doc map[string]any
		if err := json.Unmarshal(m[1], &doc); err != nil {
			t.Fatalf("JSON-LD does not parse: %v\n%s", err, m[1])
		}
		if u, _ := doc["url"].(string); strings.HasSuffix(u, "#claim-"+id) {
			return doc
		}
	}
	t.Fatalf("no ClaimReview of %s", id)
	return nil
}

// TestEditorialCorrections builds the editorial site in git twice, the
// second time with one claim's verdict changed, and checks: the banner at
// the top and on each claim (golden), one claim's ClaimReview with every
// field (golden), per-claim dates from git and from the entries, the
// merged log, the feed items and the claims.json record.
func TestEditorialCorrections(t *testing.T) {
	root := editorialSite(t)
	public := filepath.Join(root, "public")
	if _, err := build(t, root, public); err != nil {
		t.Fatal(err)
	}
	commitAll(t, root, "2026-08-06", "first build")
	k3 := filepath.Join(root, "content/models/kimi-k3.md")
	sitetest.Edit(t, k3, "    verdict: supported\n    scope: \"streaming every layer", "    verdict: misleading\n    scope: \"streaming every layer")
	if _, err := build(t, root, public); err != nil {
		t.Fatal(err)
	}
	second := commitAll(t, root, "2026-08-20", "single-card is misleading")

	cfg, err := config.Load(root, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := Build(s, Options{Destination: dest}); err != nil {
		t.Fatal(err)
	}

	md := readOut(t, dest, "models/kimi-k3/index.md")
	var banner []string
	top := true
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "## Answer") {
			top = false
		}
		if top || strings.Contains(line, "`claim-size-1400`") || strings.Contains(line, "`claim-fits-8xb200`") || strings.Contains(line, "`claim-single-card`") || strings.Contains(line, "huggingface.co/moonshotai/Kimi-K3 model repository") {
			banner = append(banner, line)
		}
	}
	goldenFile(t, "kimi-k3.corrections-banner.md", []byte(strings.Join(banner, "\n")+"\n"))

	html := readOut(t, dest, "models/kimi-k3/index.html")
	cr := claimReviewOf(t, html, "size-1400")
	pretty, err := json.MarshalIndent(cr, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenFile(t, "kimi-k3.claimreview.json", append(pretty, '\n'))
	author, _ := cr["author"].(map[string]any)
	if author["@type"] != "Person" || author["name"] != "A. Reviewer" || author["affiliation"].(map[string]any)["name"] != "Example Checks" {
		t.Errorf("author %v: want the named reviewer with the organisation", author)
	}
	if cr["datePublished"] != "2026-08-06" || cr["dateModified"] != "2026-09-01" {
		t.Errorf("size-1400 dated %v / %v: want first committed 2026-08-06, modified by its correction 2026-09-01", cr["datePublished"], cr["dateModified"])
	}
	item, _ := cr["itemReviewed"].(map[string]any)
	if _, ok := item["firstAppearance"].(map[string]any); !ok {
		t.Errorf("itemReviewed %v has no firstAppearance", item)
	}
	card := claimReviewOf(t, html, "single-card")
	if card["datePublished"] != "2026-08-06" || card["dateModified"] != "2026-08-20" {
		t.Errorf("single-card dated %v / %v: want 2026-08-06 / 2026-08-20, when its verdict changed", card["datePublished"], card["dateModified"])
	}
	void := claimReviewOf(t, html, "fits-8xb200")
	if r := void["reviewRating"].(map[string]any); r["ratingValue"] != nil || !strings.HasPrefix(r["alternateName"].(string), "Void: the check was invalidated (was False") {
		t.Errorf("voided check still rated: %v", r)
	}
	for _, want := range []string{"<td>editorial</td>", "Update to fact bytes.checkpoint: the listing was read again", second[:7], "archive.example.org/20260806"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("the K3 page lacks %q", want)
		}
	}
	if i, j := bytes.Index(html, []byte("Update to fact bytes.checkpoint: the listing")), bytes.LastIndex(html, []byte(second[:7])); i > j {
		t.Error("the merged log is not newest first")
	}

	feed := string(readOut(t, dest, "index.xml"))
	for _, want := range []string{
		"<title>Kimi K3: Correction to claim size-1400: the claim was attributed to the fact check&#39;s second version</title>",
		"<guid isPermaLink=\"false\">dossier:moonshotai/Kimi-K3:void:claim fits-8xb200@2026-09-02</guid>",
		"<title>Kimi K3: review of claim single-card changed: supported → misleading</title>",
	} {
		if !strings.Contains(feed, want) {
			t.Errorf("the feed lacks %q", want)
		}
	}

	var doc struct {
		Claims []claimlist.Record `json:"claims"`
	}
	if err := json.Unmarshal(readOut(t, dest, claimlist.JSONPath), &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Claims {
		switch c.ID {
		case "size-1400":
			if len(c.Corrections) != 1 || !strings.HasPrefix(c.Corrections[0], "Correction to claim size-1400") {
				t.Errorf("claims.json size-1400 corrections %q", c.Corrections)
			}
		case "fits-8xb200":
			if c.Withdrawn != "void" {
				t.Errorf("claims.json fits-8xb200 withdrawn %q, want void", c.Withdrawn)
			}
		case "single-card":
			if c.Contact != "asked AirLLM on 2026-08-05; response: no answer by the review date" {
				t.Errorf("claims.json single-card contact %q", c.Contact)
			}
		}
	}
	// The voided check still stands in the record but no longer counts
	// under its verdict: the answer box, the index row and models.json
	// tally it as withdrawn.
	var tally string
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "| claims | ") {
			tally = line
		}
	}
	if !strings.HasSuffix(tally, ", 1 withdrawn |  |") {
		t.Errorf("answer box tally %q: want the voided check counted as withdrawn", tally)
	}
	var models struct {
		Models []struct {
			Slug   string `json:"slug"`
			Claims struct {
				Checked  int            `json:"checked"`
				Verdicts map[string]int `json:"verdicts"`
				Tally    string         `json:"tally"`
			} `json:"claims"`
		} `json:"models"`
	}
	if err := json.Unmarshal(readOut(t, dest, "models.json"), &models); err != nil {
		t.Fatal(err)
	}
	for _, m := range models.Models {
		if m.Slug != "kimi-k3" {
			continue
		}
		sum := 0
		for _, n := range m.Claims.Verdicts {
			sum += n
		}
		if m.Claims.Verdicts["withdrawn"] != 1 || sum != m.Claims.Checked || !strings.HasSuffix(m.Claims.Tally, ", 1 withdrawn") {
			t.Errorf("models.json K3 claims %+v: want one withdrawn, the counts summing to %d", m.Claims, m.Claims.Checked)
		}
	}
	if index := string(readOut(t, dest, "index.html")); !strings.Contains(index, ", 1 withdrawn\"") {
		t.Error("the index row's tally does not count the voided check as withdrawn")
	}
	methodologyPage := string(readOut(t, dest, "methodology/index.md"))
	for _, want := range []string{"Write to corrections@checks.example.org", "Published by [Example Checks](https://checks.example.org/). Claims are reviewed by A. Reviewer"} {
		if !strings.Contains(methodologyPage, want) {
			t.Errorf("the methodology page lacks %q", want)
		}
	}
}

// A claim added after a dossier was first published is a feed item of
// its own, and so is a claim whose verdict flipped.
func TestReviewItems(t *testing.T) {
	sum := &Summary{modelID: modelID{Slug: "m", Title: "M", Model: "acme/m"}, Claims: []claimlist.Record{{ID: "new-one", Text: "It runs."}}}
	log := []corrections.Entry{{Date: "2026-09-01", Commit: "c2", NewClaims: []string{"new-one"},
		Verdicts: []review.Flip{{What: "claim gone", Old: &review.Value{Value: "supported", Display: "supported"}, New: &review.Value{Value: "refuted", Display: "refuted"}}}}}
	items := reviewItems(sum, log, "https://x.example/")
	if len(items) != 2 {
		t.Fatalf("items %+v", items)
	}
	if items[0].Title != "M: review of claim gone changed: supported → refuted" || items[0].Description != "(the claim is no longer on the page)" {
		t.Errorf("flip item %+v", items[0])
	}
	if items[1].Title != "M: new review of claim new-one" || items[1].Link != "https://x.example/models/m/#claim-new-one" || items[1].Description != "“It runs.”" || items[1].GUID.Value != "dossier:acme/m:review:new-one@c2" {
		t.Errorf("new item %+v", items[1])
	}
}

var isoDateRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// TestClaimReviewMarkupValid holds every ClaimReview of the editorial
// site to schema.org's types and the properties Google's fact-check
// markup requires or recommends
// (developers.google.com/search/docs/appearance/structured-data/factcheck,
// read 2026-12-04): claimReviewed, url on the page, reviewRating with
// alternateName and, when numeric, a value within bestRating and
// worstRating; ISO dates; the author a Person with an Organization
// affiliation or an Organization; itemReviewed a Claim whose appearance
// and firstAppearance are CreativeWorks with a url or a name.
func TestClaimReviewMarkupValid(t *testing.T) {
	root := editorialSite(t)
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, root, dest); err != nil {
		t.Fatal(err)
	}
	html := readOut(t, dest, "models/kimi-k3/index.html")
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	obj := func(m map[string]any, k string) map[string]any { o, _ := m[k].(map[string]any); return o }
	work := func(id, where string, w map[string]any) {
		if str(w, "@type") != "CreativeWork" || str(w, "url") == "" && str(w, "name") == "" {
			t.Errorf("%s: %s %v is not a CreativeWork with a url or a name", id, where, w)
		}
		if d, ok := w["datePublished"]; ok && !isoDateRe.MatchString(fmt.Sprint(d)) {
			t.Errorf("%s: %s datePublished %v", id, where, d)
		}
	}
	n := 0
	for _, m := range jsonLDRe.FindAllSubmatch(html, -1) {
		var cr map[string]any
		if err := json.Unmarshal(m[1], &cr); err != nil {
			t.Fatal(err)
		}
		if str(cr, "@type") != "ClaimReview" {
			continue
		}
		n++
		id := str(cr, "url")
		if str(cr, "@context") != "https://schema.org" || !strings.HasPrefix(id, "https://dossier.example.org/models/kimi-k3/#claim-") || str(cr, "claimReviewed") == "" {
			t.Errorf("%s: context, url or claimReviewed wrong: %v", id, cr)
		}
		for _, k := range []string{"datePublished", "dateModified"} {
			if !isoDateRe.MatchString(str(cr, k)) {
				t.Errorf("%s: %s %q is not an ISO date", id, k, cr[k])
			}
		}
		if str(cr, "dateModified") < str(cr, "datePublished") {
			t.Errorf("%s: modified %v before published %v", id, cr["dateModified"], cr["datePublished"])
		}
		switch a := obj(cr, "author"); str(a, "@type") {
		case "Person":
			if str(a, "name") == "" || str(obj(a, "affiliation"), "@type") != "Organization" || str(obj(a, "affiliation"), "name") == "" {
				t.Errorf("%s: author %v", id, a)
			}
		case "Organization":
			if str(a, "name") == "" {
				t.Errorf("%s: author %v", id, a)
			}
		default:
			t.Errorf("%s: author %v is neither a Person nor an Organization", id, a)
		}
		if p := obj(cr, "publisher"); str(p, "@type") != "Organization" || str(p, "name") == "" {
			t.Errorf("%s: publisher %v", id, p)
		}
		r := obj(cr, "reviewRating")
		if str(r, "@type") != "Rating" || str(r, "alternateName") == "" || !strings.HasPrefix(str(r, "url"), "https://dossier.example.org/methodology/#rating-") {
			t.Errorf("%s: reviewRating %v", id, r)
		}
		if v, ok := r["ratingValue"].(float64); ok {
			best, _ := r["bestRating"].(float64)
			worst, _ := r["worstRating"].(float64)
			if worst >= best || v < worst || v > best || v != float64(int(v)) {
				t.Errorf("%s: ratingValue %v outside %v–%v", id, v, worst, best)
			}
		} else if r["ratingValue"] != nil || r["bestRating"] != nil {
			t.Errorf("%s: reviewRating %v: scale without a numeric value", id, r)
		}
		item := obj(cr, "itemReviewed")
		if str(item, "@type") != "Claim" || str(obj(item, "author"), "name") == "" {
			t.Errorf("%s: itemReviewed %v", id, item)
		}
		if d, ok := item["datePublished"]; ok && !isoDateRe.MatchString(fmt.Sprint(d)) {
			t.Errorf("%s: the claim's datePublished %v", id, d)
		}
		if app, ok := item["appearance"].([]any); ok {
			for _, a := range app {
				w, _ := a.(map[string]any)
				work(id, "appearance", w)
			}
			work(id, "firstAppearance", obj(item, "firstAppearance"))
		}
		for _, c := range func() []any { c, _ := cr["correction"].([]any); return c }() {
			cc, _ := c.(map[string]any)
			if str(cc, "@type") != "CorrectionComment" || !isoDateRe.MatchString(str(cc, "datePublished")) || str(cc, "text") == "" {
				t.Errorf("%s: correction %v", id, cc)
			}
		}
	}
	if n == 0 {
		t.Fatal("no ClaimReview on the K3 page")
	}
}
