package scaffold_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/content"
	"dossier/generator/scaffold"
	"dossier/generator/sizing"
	"dossier/generator/snapshot"
)

// root is the frozen fixture site (testdata/site at the repository root).
const root = "../../testdata/site"

// The shipped pages are named as Slug names them.
func TestSlugMatchesShippedPages(t *testing.T) {
	s, err := content.Load(filepath.Join(root, "content"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Models) < 5 {
		t.Fatalf("only %d shipped pages", len(s.Models))
	}
	for _, p := range s.Models {
		if got := scaffold.Slug(p.Front.Model); got != p.Slug {
			t.Errorf("Slug(%s) = %q, the page is %s.md", p.Front.Model, got, p.Slug)
		}
	}
	for in, want := range map[string]string{
		"moonshotai/Kimi-Linear-48B-A3B-Instruct": "kimi-linear-48b-a3b-instruct",
		"mistralai/Mixtral-8x7B-v0.1":             "mixtral-8x7b-v0-1",
		"acme/Foo__Bar..v2-":                      "foo-bar-v2",
		"acme/_x.y":                               "x-y",
		"acme/---":                                "",
	} {
		if got := scaffold.Slug(in); got != want {
			t.Errorf("Slug(%s) = %q, want %q", in, got, want)
		}
	}
}

func testSnapshot(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.Load(filepath.Join(root, "data/hub/meta-llama/Llama-3.1-8B/snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	s.Model = "acme-ai/Tiny-Llama-2L.v1"
	s.Revision, s.RevisionNote = strings.Repeat("ab", 20), ""
	return s
}

func TestDraft(t *testing.T) {
	b, err := scaffold.Draft(testSnapshot(t), scaffold.Options{Created: "2026-11-20T08:00:00.000Z"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := content.Parse("tiny-llama-2l-v1.md", b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	f := p.Front
	if f.Title != "Tiny-Llama-2L.v1" || f.Model != "acme-ai/Tiny-Llama-2L.v1" || f.Org != "acme-ai" || !f.Draft ||
		f.Summary != "" || f.Date != "" || f.Review != "" || len(f.Claims)+len(f.Published)+len(f.Measurements) != 0 {
		t.Errorf("front matter %+v", f)
	}
	for _, k := range scaffold.FactKeys {
		if !bytes.Contains(p.Body, []byte("{{< fact "+k+" >}}")) {
			t.Errorf("the body does not refer to %s:\n%s", k, p.Body)
		}
	}
	for _, want := range []string{"revision " + strings.Repeat("ab", 20), "created the repository on 2026-11-20;"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the draft does not say %q:\n%s", want, b)
		}
	}
}

// Every fact the body names is computed for every shipped snapshot, and
// for one whose config says almost nothing: the build reports such facts
// as unknown, it does not drop them.
func TestFactKeysAlwaysComputed(t *testing.T) {
	cfg, err := config.Load(root, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load(cfg.Dir(cfg.DataDir))
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(root, "data/hub/*/*/snapshot.json"))
	var snaps []*snapshot.Snapshot
	for _, p := range paths {
		s, err := snapshot.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, s)
	}
	thin := testSnapshot(t)
	thin.Config = json.RawMessage(`{"model_type":"llama"}`)
	thin.Files, thin.Shards = []snapshot.File{{Path: "config.json"}}, snapshot.Shards{}
	snaps = append(snaps, thin)
	for _, s := range snaps {
		a, err := arch.Parse(s.Config, s.HFQuantConfig)
		if err != nil {
			if s == thin {
				continue // the build stops on this itself, with the file
			}
			t.Fatalf("%s: %v", s.Model, err)
		}
		an, anErr := sizing.AnalyticOf(s.Config, s.HFQuantConfig)
		set := sizing.Compute(sizing.Input{Model: s.Model, Snapshot: s, Arch: a, Analytic: an, AnalyticErr: anErr,
			Sizing: cfg.Sizing, Hardware: cfg.Hardware, Catalog: cat})
		for _, k := range scaffold.FactKeys {
			if set.Get(k) == nil {
				t.Errorf("%s: no fact %s", s.Model, k)
			}
		}
	}
}

func TestWriteNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	snap := testSnapshot(t)
	path, err := scaffold.Write(dir, snap, scaffold.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "models", "tiny-llama-2l-v1.md"); path != want {
		t.Fatalf("wrote %s, want %s", path, want)
	}
	first, _ := os.ReadFile(path)
	if _, err := content.Load(dir); err != nil {
		t.Fatalf("the content directory does not load with the draft: %v", err)
	}

	// Again, and for another model whose name gives the same page.
	other := testSnapshot(t)
	other.Model = "other-org/tiny_llama_2l_v1"
	for _, s := range []*snapshot.Snapshot{snap, other} {
		_, err := scaffold.Write(dir, s, scaffold.Options{})
		var ee *scaffold.ExistsError
		if !errors.As(err, &ee) || !errors.Is(err, fs.ErrExist) || ee.Path != path || ee.Model != snap.Model ||
			!strings.Contains(err.Error(), path) {
			t.Fatalf("%s: err = %v", s.Model, err)
		}
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, first) {
		t.Error("the page changed")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("files left beside the page: %v", entries)
	}
}
