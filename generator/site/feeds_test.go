package site

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type rssDoc struct {
	Items []struct {
		Title string `xml:"title"`
		Link  string `xml:"link"`
		GUID  string `xml:"guid"`
		Date  string `xml:"pubDate"`
	} `xml:"channel>item"`
}

func readRSS(t *testing.T, dir string) rssDoc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "index.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var d rssDoc
	if err := xml.Unmarshal(b, &d); err != nil {
		t.Fatalf("index.xml does not parse: %v", err)
	}
	return d
}

// The feed has one item per model revision: a rebuild keeps every GUID,
// and a new snapshot revision gives that model a new GUID.
func TestFeedGUIDsFollowRevisions(t *testing.T) {
	root := copySite(t)
	dest := filepath.Join(root, "public")
	if _, err := build(t, root, dest); err != nil {
		t.Fatal(err)
	}
	first := readRSS(t, dest)
	if len(first.Items) != 9 {
		t.Fatalf("%d feed items, want one per model", len(first.Items))
	}
	guids := map[string]string{}
	for _, it := range first.Items {
		if it.GUID == "" || it.Date == "" || !strings.HasPrefix(it.Link, "https://") {
			t.Errorf("incomplete item %+v", it)
		}
		guids[it.Link] = it.GUID
	}
	if g := guids["https://dossier.example.org/models/kimi-k3/"]; g != "dossier:moonshotai/Kimi-K3@9f62e4e9fffbd0a83ddd60e1c209d828994b3569" {
		t.Errorf("K3 GUID %q", g)
	}

	snap := filepath.Join(root, "data/hub/moonshotai/Kimi-K3/snapshot.json")
	b, _ := os.ReadFile(snap)
	b = bytes.Replace(b, []byte("9f62e4e9fffbd0a83ddd60e1c209d828994b3569"), []byte("1111111111111111111111111111111111111111"), 1)
	if err := os.WriteFile(snap, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := build(t, root, dest); err != nil {
		t.Fatal(err)
	}
	for _, it := range readRSS(t, dest).Items {
		changed := it.GUID != guids[it.Link]
		if k3 := strings.HasSuffix(it.Link, "/kimi-k3/"); k3 != changed {
			t.Errorf("%s: GUID %q (was %q)", it.Link, it.GUID, guids[it.Link])
		}
	}

	sm, err := os.ReadFile(filepath.Join(dest, "sitemap.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var urls struct {
		Locs []string `xml:"url>loc"`
	}
	if err := xml.Unmarshal(sm, &urls); err != nil || len(urls.Locs) < 10 {
		t.Fatalf("sitemap: %v, %d urls", err, len(urls.Locs))
	}
}
