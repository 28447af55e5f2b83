package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// voidElements have no end tag.
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
}

// closesP are the start tags that end an open <p> implicitly: the browser
// then builds a different tree from the one the markup shows.
var closesP = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "details": true, "div": true,
	"dl": true, "fieldset": true, "figcaption": true, "figure": true, "footer": true, "form": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "header": true, "hr": true,
	"main": true, "nav": true, "ol": true, "p": true, "pre": true, "section": true, "table": true, "ul": true,
}

// linkAttrs are the attributes that hold a URL the site must serve.
var linkAttrs = map[string]bool{"href": true, "src": true, "xlink:href": true, "poster": true, "data": true}

type ref struct {
	line int
	tag  string
	attr string
	url  string
}

// page is what the check learns from one HTML file.
type pageInfo struct {
	ids      map[string]int // id → line
	refs     []ref
	problems []string
}

type open struct {
	tag      string
	line     int
	reported bool // a block inside this <p> was reported
}

// parsePage tokenizes one HTML file and reports what a tokenizer can see:
// unclosed, stray and mismatched elements, self-closed non-void elements,
// block elements that would end an open <p>, duplicate or empty ids.
func parsePage(b []byte) *pageInfo {
	p := &pageInfo{ids: map[string]int{}}
	z := html.NewTokenizer(bytes.NewReader(b))
	line := 1
	var stack []open
	foreign := func() bool {
		for _, o := range stack {
			if o.tag == "svg" || o.tag == "math" {
				return true
			}
		}
		return false
	}
	// openP returns the <p> that a block start tag would close, if any.
	openP := func() *open {
		for i := len(stack) - 1; i >= 0; i-- {
			switch stack[i].tag {
			case "p":
				return &stack[i]
			case "button", "table", "td", "th", "li", "dd", "dt", "caption", "svg", "math":
				return nil // a scope boundary
			}
		}
		return nil
	}
	for {
		tt := z.Next()
		at := line
		line += bytes.Count(z.Raw(), []byte("\n"))
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); !errors.Is(err, io.EOF) {
				p.problems = append(p.problems, fmt.Sprintf("line %d: tokenizer: %v", at, err))
			}
			for i := len(stack) - 1; i >= 0; i-- {
				p.problems = append(p.problems, fmt.Sprintf("line %d: <%s> is never closed", stack[i].line, stack[i].tag))
			}
			return p
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			name := tok.Data
			inForeign := foreign() || name == "svg" || name == "math"
			for _, a := range tok.Attr {
				switch {
				case a.Key == "id":
					switch {
					case a.Val == "":
						p.problems = append(p.problems, fmt.Sprintf("line %d: <%s> has an empty id", at, name))
					case strings.ContainsAny(a.Val, " \t\n\f\r"):
						p.problems = append(p.problems, fmt.Sprintf("line %d: id %q has whitespace", at, a.Val))
					}
					if prev, dup := p.ids[a.Val]; dup {
						p.problems = append(p.problems, fmt.Sprintf("line %d: duplicate id %q (first on line %d)", at, a.Val, prev))
					} else {
						p.ids[a.Val] = at
					}
				case linkAttrs[a.Key]:
					if a.Key == "data" && name != "object" {
						continue
					}
					p.refs = append(p.refs, ref{line: at, tag: name, attr: a.Key, url: a.Val})
				}
			}
			if op := openP(); !inForeign && closesP[name] && op != nil && !op.reported {
				// The browser closes the <p> here; its </p> then makes a
				// second, empty paragraph.
				p.problems = append(p.problems, fmt.Sprintf("line %d: <%s> inside <p> (line %d): the browser ends the paragraph there and turns its </p> into an empty <p></p>", at, name, op.line))
				op.reported = true
			}
			if tt == html.SelfClosingTagToken {
				if !inForeign && !voidElements[name] {
					p.problems = append(p.problems, fmt.Sprintf("line %d: <%s/> is not self-closing in HTML; it stays open", at, name))
					stack = append(stack, open{tag: name, line: at})
				}
				continue
			}
			if voidElements[name] && !inForeign {
				continue
			}
			stack = append(stack, open{tag: name, line: at})
		case html.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if voidElements[tag] && !foreign() {
				p.problems = append(p.problems, fmt.Sprintf("line %d: end tag </%s> for a void element", at, tag))
				continue
			}
			if n := len(stack); n > 0 && stack[n-1].tag == tag {
				stack = stack[:n-1]
				continue
			}
			i := len(stack) - 1
			for i >= 0 && stack[i].tag != tag {
				i--
			}
			if i < 0 {
				p.problems = append(p.problems, fmt.Sprintf("line %d: stray </%s> with no open <%s>", at, tag, tag))
				continue
			}
			for j := len(stack) - 1; j > i; j-- {
				p.problems = append(p.problems, fmt.Sprintf("line %d: </%s> closes <%s> (line %d) while <%s> (line %d) is still open",
					at, tag, tag, stack[i].line, stack[j].tag, stack[j].line))
			}
			stack = stack[:i]
		}
	}
}

func TestParsePageFindsProblems(t *testing.T) {
	for doc, want := range map[string]string{
		`<div><p>x</div>`:                       "closes <div>",
		`<div>`:                                 "never closed",
		`</span>`:                               "stray </span>",
		`<p id="a"></p><p id="a"></p>`:          `duplicate id "a"`,
		`<div/>`:                                "not self-closing",
		`<p>a<table></table></p>`:               "ends the paragraph",
		`<br></br>`:                             "void element",
		`<p id=""></p>`:                         "empty id",
		`<ul><li>one<li>two</ul>`:               "closes <ul>",
		`<svg><g><path/></g></svg><img><br/>ok`: "",
		`<script>if (a < b && "</p>") {}</script>`: "",
	} {
		p := parsePage([]byte(doc))
		got := strings.Join(p.problems, "; ")
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%s: problems %q, want one with %q", doc, got, want)
		}
	}
}

// TestHTMLWellFormedAndLinksResolve builds the fixture site and checks
// every HTML file: well-formed as far as a tokenizer can tell, unique ids,
// and every internal href/src pointing at a file of the build, with its
// #fragment naming an element id of the target page.
func TestHTMLWellFormedAndLinksResolve(t *testing.T) {
	t.Run("fixture", func(t *testing.T) { checkHTML(t, builtSite(t)) })
	t.Run("pages", func(t *testing.T) { checkHTML(t, fixtureSite(t)) })
}

func checkHTML(t *testing.T, dir string) {
	pages := map[string]*pageInfo{} // slash path relative to dir
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		pages[filepath.ToSlash(rel)] = parsePage(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages["index.html"] == nil {
		t.Fatal("the build has no index.html")
	}
	names := make([]string, 0, len(pages))
	for name := range pages {
		names = append(names, name)
	}
	sort.Strings(names)
	checked := 0
	for _, name := range names {
		pg := pages[name]
		for _, prob := range pg.problems {
			t.Errorf("%s: %s", name, prob)
		}
		for _, r := range pg.refs {
			target, frag, internal, err := resolve(name, r.url)
			if err != nil {
				t.Errorf("%s:%d: <%s %s=%q>: %v", name, r.line, r.tag, r.attr, r.url, err)
				continue
			}
			if !internal {
				continue
			}
			checked++
			fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(target)))
			if err == nil && fi.IsDir() {
				target = path.Join(target, "index.html")
				fi, err = os.Stat(filepath.Join(dir, filepath.FromSlash(target)))
			}
			if err != nil || fi.IsDir() {
				t.Errorf("%s:%d: <%s %s=%q>: %s is not in the build", name, r.line, r.tag, r.attr, r.url, target)
				continue
			}
			if frag == "" {
				continue
			}
			tp := pages[target]
			if tp == nil {
				t.Errorf("%s:%d: <%s %s=%q>: fragment #%s in %s, which is not an HTML page", name, r.line, r.tag, r.attr, r.url, frag, target)
				continue
			}
			if _, ok := tp.ids[frag]; !ok {
				t.Errorf("%s:%d: <%s %s=%q>: %s has no element with id %q", name, r.line, r.tag, r.attr, r.url, target, frag)
			}
		}
	}
	t.Logf("%d HTML files, %d internal links checked", len(pages), checked)
}

// resolve turns a reference in page from (a slash path relative to the
// build) into the slash path of its target and its fragment. internal is
// false for references to other sites and schemes.
func resolve(from, ref string) (target, frag string, internal bool, err error) {
	u, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return "", "", false, err
	}
	if u.Scheme != "" || u.Host != "" || strings.HasPrefix(ref, "//") {
		return "", "", false, nil
	}
	if u.Path == "" {
		if u.Fragment == "" {
			return "", "", false, nil // "" or "?query": the page itself, nothing to check
		}
		return from, u.Fragment, true, nil
	}
	var p string
	if strings.HasPrefix(u.Path, "/") {
		p = path.Clean(u.Path)
	} else {
		p = path.Join("/", path.Dir(from), u.Path)
	}
	if strings.HasSuffix(u.Path, "/") {
		p = path.Join(p, "index.html")
	}
	// path.Join/Clean stop at the root; a reference that climbs above it
	// is a broken link on a real server too.
	depth := strings.Count(path.Dir(from), "/") + 1
	if path.Dir(from) == "." {
		depth = 0
	}
	if !strings.HasPrefix(u.Path, "/") && strings.Count(u.Path, "../") > depth {
		return "", "", false, fmt.Errorf("climbs above the site root")
	}
	return strings.TrimPrefix(p, "/"), u.Fragment, true, nil
}

func TestResolve(t *testing.T) {
	for _, c := range []struct{ from, ref, target, frag string }{
		{"index.html", "style.css", "style.css", ""},
		{"models/kimi-k3/index.html", "../../style.css", "style.css", ""},
		{"models/kimi-k3/index.html", "../../index.html", "index.html", ""},
		{"models/kimi-k3/index.html", "#fit-8xB200", "models/kimi-k3/index.html", "fit-8xB200"},
		{"index.html", "models/kimi-k3/", "models/kimi-k3/index.html", ""},
		{"index.html", "/models/kimi-k3/#claim-size-1400", "models/kimi-k3/index.html", "claim-size-1400"},
		{"models/kimi-k3/index.html", "bytes.svg", "models/kimi-k3/bytes.svg", ""},
	} {
		target, frag, internal, err := resolve(c.from, c.ref)
		if err != nil || !internal || target != c.target || frag != c.frag {
			t.Errorf("resolve(%q, %q) = %q %q %v %v, want %q %q", c.from, c.ref, target, frag, internal, err, c.target, c.frag)
		}
	}
	for _, ref := range []string{"https://huggingface.co/x", "mailto:a@b", "//cdn.example/x.js", "data:image/png;base64,AA", ""} {
		if _, _, internal, err := resolve("index.html", ref); internal || err != nil {
			t.Errorf("resolve(%q): internal %v, err %v", ref, internal, err)
		}
	}
	if _, _, _, err := resolve("index.html", "../x.html"); err == nil {
		t.Error("a link above the site root resolves")
	}
}
