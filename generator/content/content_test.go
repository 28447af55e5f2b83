package content

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"dossier/generator/snapshot"
	"dossier/generator/yamlx"
)

func TestSplitFrontMatter(t *testing.T) {
	front, body, line, err := Split([]byte("---\ntitle: x\nmodel: a/b\n---\nBody line.\n"))
	if err != nil || string(front) != "title: x\nmodel: a/b\n" || string(body) != "Body line.\n" || line != 5 {
		t.Fatalf("front %q body %q line %d err %v", front, body, line, err)
	}
	if _, _, _, err := Split([]byte("---\ntitle: x\n")); err == nil || !strings.Contains(err.Error(), "never closed") {
		t.Errorf("unclosed front matter: %v", err)
	}
	if f, b, _, err := Split([]byte("no front matter\n")); err != nil || f != nil || string(b) != "no front matter\n" {
		t.Errorf("plain body: %q %q %v", f, b, err)
	}
}

func TestSplitEmptyFrontMatter(t *testing.T) {
	for _, tc := range []struct {
		in, body string
		line     int
	}{
		{"---\n---\n", "", 3},
		{"---\n---", "", 3},
		{"---\r\n---\r\nBody.\r\n", "Body.\n", 3},
		{"---\n---\nBody.\n", "Body.\n", 3},
	} {
		front, body, line, err := Split([]byte(tc.in))
		if err != nil || front == nil || len(front) != 0 || string(body) != tc.body || line != tc.line {
			t.Errorf("%q: front %q body %q line %d err %v", tc.in, front, body, line, err)
		}
	}
	// Empty front matter is a page without fields: validation names them.
	for _, in := range []string{"---\n---\nBody.\n", "---\n# nothing yet\n---\n"} {
		_, err := Parse("content/models/x.md", []byte(in))
		if err == nil || err.Error() != "content/models/x.md: field title: missing" {
			t.Errorf("%q: error %v, want the missing title", in, err)
		}
	}
	if p, err := Parse("content/_index.md", []byte("---\n---\nWelcome.\n")); err != nil || string(p.Body) != "Welcome.\n" || p.BodyLine != 3 {
		t.Errorf("section page with empty front matter: %+v %v", p, err)
	}
}

func TestModelMustBeAHubID(t *testing.T) {
	for _, model := range []string{"../../../../tmp/x", "a/../b", "/etc/passwd", "org", "org/name/extra", "org/.hidden", `org\\name`, "org/..", "org/name "} {
		src := "---\ntitle: x\nmodel: \"" + model + "\"\n---\n"
		_, err := Parse("content/models/x.md", []byte(src))
		want := fmt.Sprintf("content/models/x.md: field model: expected an org/name Hub id, found %q", strings.ReplaceAll(model, `\\`, `\`))
		if err == nil || err.Error() != want {
			t.Errorf("model %q: error %v\nwant %s", model, err, want)
		}
	}
	for _, model := range []string{"moonshotai/Kimi-K3", "meta-llama/Llama-3.1-8B", "Qwen/Qwen3-30B-A3B"} {
		if _, err := Parse("content/models/x.md", []byte("---\ntitle: x\nmodel: "+model+"\n---\n")); err != nil {
			t.Errorf("model %q: %v", model, err)
		}
	}
}

func TestDuplicateVariantNames(t *testing.T) {
	src := "---\ntitle: x\nmodel: a/b\nvariants:\n" +
		"  - {name: Q4, repo: a/b-GGUF, format: GGUF, bytes: 10, source: s}\n" +
		"  - {name: Q8, repo: a/b-GGUF, format: GGUF, bytes: 20, source: s}\n" +
		"  - {name: Q4, repo: c/b-GGUF, format: GGUF, bytes: 30, source: s}\n---\n"
	_, err := Parse("content/models/x.md", []byte(src))
	want := `content/models/x.md: field variants[2].name: expected a name no other variant has, found "Q4" again (variants[0])`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

func TestClaimErrorsCiteTheItemLine(t *testing.T) {
	head := "---\ntitle: x\nmodel: a/b\n"
	claim := func(id, extra string) string {
		return "  - id: " + id + "\n    text: t\n    by: b\n    where: w\n    date: \"2026-01-01\"\n" + extra
	}
	for _, tc := range []struct{ in, want string }{
		// claims[1] starts on line 10.
		{head + "claims:\n" + claim("one", "") + claim("two", "    verdict: wrong\n") + "---\n",
			`line 10: field claims[1].verdict: expected one of supported, refuted, misleading, outdated, unverifiable, found "wrong"`},
		{head + "claims:\n" + claim("one", "") + claim("one", "") + "---\n",
			`line 10: field claims[1].id: duplicate id "one"`},
		{head + "claims:\n" + claim("one", "    evidence: [\"see the paper\"]\n") + "---\n",
			`line 5: field claims[0].evidence[0]: expected kind:reference`},
		{head + "claims:\n" + claim("one", "    checks:\n      - {fact: bytes.checkpoint, expect: 1, tolerance: 2}\n") + "---\n",
			`line 5: field claims[0].checks[0].tolerance: expected a fraction in [0, 1), found 2`},
		{head + "claims:\n" + claim("one", "    checks:\n      - {fact: local.Q4_K_M.Desktop64.fits, expect: 1, one_of: [vram]}\n") + "---\n",
			`line 5: field claims[0].checks[0]: one_of beside expect or min/max`},
		{head + "claims:\n" + claim("one", "    checks:\n      - {fact: local.Q4_K_M.Desktop64.fits, one_of: [vram, \" \"]}\n") + "---\n",
			`line 5: field claims[0].checks[0].one_of[1]: empty value`},
		{head + "measurements:\n  - {id: m, metric: x, by: b, source: s, kind: hosted-api}\n  - {id: n, metric: x, by: b, source: s, kind: rumour}\n---\n",
			`line 6: field measurements[1].kind: expected one of`},
	} {
		_, err := Parse("content/models/x.md", []byte(tc.in))
		if err == nil || !strings.HasPrefix(err.Error(), "content/models/x.md: "+tc.want) {
			t.Errorf("%q: error %v\nwant content/models/x.md: %s", tc.in, err, tc.want)
		}
	}
}

func TestParseRejectsWithFileAndLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"---\ntitle: x\nmodel: a/b\ncolour: red\n---\n", "line 4: unknown field colour"},
		{"---\ntitle: x\nmodel: a/b\ndraft: maybe\n---\n", "line 4"},
		{"---\ntitle: x\n---\n", "field model: missing"},
		{"---\ntitle: x\nmodel: a/b\ndate: July\n---\n", "field date"},
		{"---\ntitle: x\nmodel: a/b\nclaims:\n  - {id: c, text: t, by: b, where: w, date: \"2026-01-01\", verdict: wrong}\n---\n", "claims[0].verdict"},
		{"---\ntitle: x\nmodel: a/b\nmeasurements:\n  - {id: m, metric: x, by: b, source: s, kind: rumour}\n---\n", "measurements[0].kind"},
		{"---\ntitle: x\nmodel: a/b\nclaims:\n  - {id: c, text: t, by: b, where: w, date: \"2026-01-01\", evidence: [\"see the paper\"]}\n---\n", "claims[0].evidence[0]"},
	} {
		_, err := Parse("content/models/x.md", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), "content/models/x.md") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want file and %q", tc.in, err, tc.want)
		}
	}
}

func TestClaimLinesPointIntoTheFile(t *testing.T) {
	src := "---\ntitle: x\nmodel: a/b\nclaims:\n  - id: one\n    text: t\n    by: b\n    where: w\n    date: \"2026-01-01\"\n  - id: two\n    text: t\n    by: b\n    where: w\n    date: \"2026-01-01\"\n---\n"
	p, err := Parse("x.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if p.Front.Claims[0].Line != 5 || p.Front.Claims[1].Line != 10 {
		t.Errorf("claim lines %d, %d; want 5, 10", p.Front.Claims[0].Line, p.Front.Claims[1].Line)
	}
}

func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "site", "content", "models", "kimi-k3.md")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("---\ntitle: x\nmodel: a/b\n---\nbody"))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("---\n---"))
	f.Add([]byte("---\n---\nbody after empty front matter\n"))
	f.Add([]byte("---\ntitle: x\nmodel: ../../../../tmp/x\n---\n"))
	f.Add([]byte("---\ntitle: x\nmodel: a/b\nvariants:\n  - {name: Q4, repo: r, bytes: 1, source: s}\n  - {name: Q4, repo: r, bytes: 2, source: s}\n---\n"))
	f.Add([]byte("---\ntitle: x\nmodel: a/b\nclaims:\n  - {id: c, text: t, by: b, where: w, date: \"2026-01-01\", verdict: wrong}\n---\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse("fuzz.md", b)
		if err == nil && p == nil {
			t.Fatal("nil page without an error")
		}
		// A page that parses names a model that stays below data/hub.
		if err == nil && p.Front.Model != "" && !snapshot.ValidModel(p.Front.Model) {
			t.Fatalf("model %q accepted", p.Front.Model)
		}
	})
}

// Parse decodes the front matter from the node it already parsed for the
// line numbers; it reads the bytes a second time only for an error. Every
// shipped kind of page must take that path, and decode as the strict
// decoder would.
func TestPagesDecodeFromTheNode(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("..", "..", "testdata", "site", "content", "models", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no fixture pages: %v", err)
	}
	for _, path := range pages {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		front, _, _, err := Split(b)
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(front, &doc); err != nil {
			t.Fatal(err)
		}
		if !yamlx.Fits(&doc, &Front{}) {
			t.Errorf("%s: the front matter is parsed twice", path)
		}
		var strict Front
		if err := yamlx.Decode(path, front, &strict); err != nil {
			t.Fatal(err)
		}
		p, err := Parse(path, b)
		if err != nil {
			t.Fatal(err)
		}
		// Parse fills the items' lines from the node; the rest is the
		// decoded front matter.
		got := p.Front
		for i := range got.Claims {
			got.Claims[i].Line = 0
		}
		for i := range got.Measurements {
			got.Measurements[i].Line = 0
		}
		for i := range got.Sources {
			got.Sources[i].Line = 0
		}
		for i := range got.Conflicts {
			got.Conflicts[i].Line = 0
		}
		if !reflect.DeepEqual(got, strict) {
			t.Errorf("%s: Parse's front matter differs from the strict decoder's", path)
		}
	}
}
