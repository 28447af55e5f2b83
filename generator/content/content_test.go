package content

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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

func TestParseRejectsWithFileAndLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"---\ntitle: x\nmodel: a/b\ncolour: red\n---\n", "line 4: unknown field colour"},
		{"---\ntitle: x\nmodel: a/b\ndraft: maybe\n---\n", "line 4"},
		{"---\ntitle: x\n---\n", "field model: missing"},
		{"---\ntitle: x\nmodel: a/b\ndate: July\n---\n", "field date"},
		{"---\ntitle: x\nmodel: a/b\nclaims:\n  - {id: c, text: t, by: b, date: \"2026-01-01\", verdict: wrong}\n---\n", "claims[0].verdict"},
		{"---\ntitle: x\nmodel: a/b\nmeasurements:\n  - {id: m, metric: x, by: b, source: s, kind: rumour}\n---\n", "measurements[0].kind"},
		{"---\ntitle: x\nmodel: a/b\nclaims:\n  - {id: c, text: t, by: b, date: \"2026-01-01\", evidence: [\"see the paper\"]}\n---\n", "claims[0].evidence[0]"},
	} {
		_, err := Parse("content/models/x.md", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), "content/models/x.md") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want file and %q", tc.in, err, tc.want)
		}
	}
}

func TestClaimLinesPointIntoTheFile(t *testing.T) {
	src := "---\ntitle: x\nmodel: a/b\nclaims:\n  - id: one\n    text: t\n    by: b\n    date: \"2026-01-01\"\n  - id: two\n    text: t\n    by: b\n    date: \"2026-01-01\"\n---\n"
	p, err := Parse("x.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if p.Front.Claims[0].Line != 5 || p.Front.Claims[1].Line != 9 {
		t.Errorf("claim lines %d, %d; want 5, 9", p.Front.Claims[0].Line, p.Front.Claims[1].Line)
	}
}

func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "content", "models", "kimi-k3.md")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("---\ntitle: x\nmodel: a/b\n---\nbody"))
	f.Add([]byte("---\n---\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse("fuzz.md", b)
		if err == nil && p == nil {
			t.Fatal("nil page without an error")
		}
	})
}
