package site

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"dossier/generator/content"
)

type claimOut struct {
	ID       string `json:"id"`
	Verdict  string `json:"verdict"`
	Computed bool   `json:"computed"`
	Tells    []int  `json:"tells"`
	Evidence []struct {
		Ref   string `json:"ref"`
		Gives string `json:"gives"`
	} `json:"evidence"`
}

// TestK3ClaimsChecklist asserts the claims table of k3-figures.md: every
// claim with the verdict its artifacts give, the size claims computed.
func TestK3ClaimsChecklist(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, copySite(t), dest); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dest, "models/kimi-k3/facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Claims       []claimOut        `json:"claims"`
		Measurements []json.RawMessage `json:"measurements"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"size-1400": "refuted", "fits-8xb200": "refuted", "four-bit": "misleading", "faster-inference": "refuted",
		"new-mechanisms": "refuted", "weights-later": "outdated", "ranks-strongest": "misleading",
		"kimi-linear-speed": "misleading", "sandwiched": "refuted", "attnres-kernel": "supported",
		"chip-demo": "misleading", "open-source": "misleading", "finetune-snippet": "refuted", "single-card": "supported",
	}
	if len(doc.Claims) < 13 {
		t.Errorf("%d claims, want at least 13", len(doc.Claims))
	}
	got := map[string]claimOut{}
	for _, c := range doc.Claims {
		got[c.ID] = c
	}
	for id, v := range want {
		if got[id].Verdict != v {
			t.Errorf("claim %s: verdict %q, want %q", id, got[id].Verdict, v)
		}
	}
	for _, id := range []string{"size-1400", "fits-8xb200", "weights-later"} {
		if !got[id].Computed {
			t.Errorf("claim %s: verdict typed by hand, want computed", id)
		}
	}
	if ev := got["size-1400"].Evidence; len(ev) == 0 || !strings.Contains(ev[0].Gives, "1,560.9 GB") {
		t.Errorf("size claim evidence %+v does not give the file listing's figure", ev)
	}
	tells := map[string]int{"size-1400": 1, "four-bit": 2, "new-mechanisms": 3, "kimi-linear-speed": 4, "chip-demo": 4, "weights-later": 6}
	for id, tell := range tells {
		found := false
		for _, n := range got[id].Tells {
			found = found || n == tell
		}
		if !found {
			t.Errorf("claim %s: tells %v, want %d", id, got[id].Tells, tell)
		}
	}
	if len(doc.Measurements) < 10 {
		t.Errorf("%d measurements", len(doc.Measurements))
	}
}

var ldRe = regexp.MustCompile(`(?s)<script type="application/ld\+json">(.*?)</script>`)

func TestClaimReviewJSONLD(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, copySite(t), dest); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dest, "models/kimi-k3/index.html"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := ldRe.FindAllSubmatch(html, -1)
	if len(blocks) < 13 {
		t.Fatalf("%d JSON-LD blocks, want one per claim", len(blocks))
	}
	reviewed := map[string]struct{ rating, date string }{}
	for _, b := range blocks {
		var cr struct {
			Context       string `json:"@context"`
			Type          string `json:"@type"`
			ClaimReviewed string `json:"claimReviewed"`
			URL           string `json:"url"`
			DatePublished string `json:"datePublished"`
			Author        struct {
				Name string `json:"name"`
			} `json:"author"`
			ReviewRating struct {
				AlternateName string `json:"alternateName"`
			} `json:"reviewRating"`
			ItemReviewed struct {
				Type          string                `json:"@type"`
				Author        struct{ Name string } `json:"author"`
				DatePublished string                `json:"datePublished"`
				Appearance    []map[string]any      `json:"appearance"`
			} `json:"itemReviewed"`
		}
		if err := json.Unmarshal(b[1], &cr); err != nil {
			t.Fatalf("JSON-LD does not parse: %v\n%s", err, b[1])
		}
		if cr.Context != "https://schema.org" || cr.Type != "ClaimReview" || cr.ClaimReviewed == "" || cr.ReviewRating.AlternateName == "" ||
			!strings.HasPrefix(cr.URL, "https://") || cr.Author.Name == "" || cr.DatePublished == "" ||
			cr.ItemReviewed.Type != "Claim" || cr.ItemReviewed.Author.Name == "" || len(cr.ItemReviewed.Appearance) == 0 {
			t.Errorf("ClaimReview lacks a required property: %s", b[1])
		}
		if d := cr.ItemReviewed.DatePublished; d != "" && !content.ValidDate(d) {
			t.Errorf("claim datePublished %q is not a date: %s", d, b[1])
		}
		if w := cr.ItemReviewed.Appearance[0]; w["name"] == nil && w["url"] == nil {
			t.Errorf("claim appearance names no work: %s", b[1])
		}
		id := cr.URL[strings.Index(cr.URL, "#")+1:]
		reviewed[strings.TrimPrefix(id, "claim-")] = struct{ rating, date string }{cr.ReviewRating.AlternateName, cr.ItemReviewed.DatePublished}
		if !strings.Contains(string(html), `id="`+id+`"`) {
			t.Errorf("ClaimReview url points at #%s, which is not on the page", id)
		}
	}
	// A scoped verdict carries its scope; an unknown date is left out.
	if r := reviewed["single-card"]; !strings.HasPrefix(r.rating, "Supported, within scope: streaming") {
		t.Errorf("single-card rating %q, want the scope in alternateName", r.rating)
	}
	if r := reviewed["single-card"]; r.date != "" {
		t.Errorf("single-card has datePublished %q; its date is unknown", r.date)
	}
	if r := reviewed["faster-inference"]; r.date != "2026-07-17" || r.rating != "False" {
		t.Errorf("faster-inference = %+v, want False dated 2026-07-17", r)
	}
}

// TestClaimInjectionIsInert puts HTML and Markdown injection into a claim
// and a measurement: the page must show it as text.
func TestClaimInjectionIsInert(t *testing.T) {
	root := copySite(t)
	path := filepath.Join(root, "content/models/kimi-k3.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	evil := `<script>alert(1)</script> [x](javascript:alert(2)) <img src=x onerror=alert(3)> | cell`
	b = []byte(strings.Replace(string(b), `text: "K3 brings faster inference."`, `text: "`+evil+`"`, 1))
	b = []byte(strings.Replace(string(b), `metric: output speed`, `metric: "`+evil+`"`, 1))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(root, "public")
	if _, err := build(t, root, dest); err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(filepath.Join(dest, "models/kimi-k3/index.html"))
	body := string(html)
	if i := strings.Index(body, "</head>"); i >= 0 {
		// The JSON-LD in the head is checked separately: html/template
		// escapes < there as \u003c.
		if strings.Contains(body[:i], "<script>alert") {
			t.Error("raw <script> in the head")
		}
		body = body[i:]
	}
	for _, bad := range []string{"<script>alert", `href="javascript:`, "<img src=x", "onerror=alert(3)>"} {
		if strings.Contains(body, bad) {
			t.Errorf("page body contains %q", bad)
		}
	}
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the claim text is not shown escaped")
	}
	md, _ := os.ReadFile(filepath.Join(dest, "models/kimi-k3/index.md"))
	if !strings.Contains(string(md), `\[x\](javascript:alert(2))`) || !strings.Contains(string(md), `\| cell`) {
		t.Errorf("the Markdown page does not escape the injected claim")
	}
}
