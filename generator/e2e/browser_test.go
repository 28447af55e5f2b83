package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

const (
	k3Page      = "/models/kimi-k3/"
	startLimit  = 30 * time.Second // browser start
	tabLimit    = 40 * time.Second // one test's tab, all its steps
	desktopW    = 1280
	phoneW      = 390
	viewportH   = 900
	chartMinK3  = 3
	settleDelay = 50 * time.Millisecond
)

// chromiumPath finds the browser: $DOSSIER_CHROMIUM, then chromium on PATH
// (Debian's /usr/bin/chromium).
func chromiumPath() string {
	if p := os.Getenv("DOSSIER_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// shared is the one browser of the test binary, started by the first
// browser test and stopped by TestMain.
var shared struct {
	once    sync.Once
	ctx     context.Context // the browser's first tab; its children are new tabs
	cancel  func()
	dataDir string
	err     error
}

func startBrowser(t *testing.T) context.Context {
	t.Helper()
	exe := chromiumPath()
	if exe == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set and no chromium is installed: apt-get install -y --no-install-recommends chromium (or set DOSSIER_CHROMIUM)")
		}
		t.Skip("browser test skipped: no chromium on PATH (apt-get install -y --no-install-recommends chromium); with CI set this fails")
	}
	shared.once.Do(func() {
		start := time.Now()
		shared.dataDir, shared.err = os.MkdirTemp("", "dossier-e2e-chromium-")
		if shared.err != nil {
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:], // headless, no-first-run, disable-sync, disable-background-networking, …
			chromedp.ExecPath(exe),
			chromedp.Headless,
			chromedp.NoSandbox, // root, as here and in CI
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.UserDataDir(shared.dataDir),
			chromedp.WindowSize(desktopW, viewportH),
		)
		actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, bcancel := chromedp.NewContext(actx)
		shared.ctx = bctx
		shared.cancel = func() { bcancel(); acancel() }
		done := make(chan error, 1)
		go func() { done <- chromedp.Do(bctx) }()
		select {
		case shared.err = <-done:
		case <-time.After(startLimit):
			shared.err = fmt.Errorf("chromium did not start within %s", startLimit)
		}
		if shared.err != nil {
			shared.err = fmt.Errorf("start %s: %w", exe, shared.err)
			return
		}
		fmt.Fprintf(os.Stderr, "e2e: %s started in %s\n", exe, time.Since(start).Round(time.Millisecond))
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.ctx
}

func stopBrowser() {
	if shared.cancel != nil {
		shared.cancel()
	}
	if shared.dataDir != "" {
		os.RemoveAll(shared.dataDir)
	}
}

// tab is one browser tab with its console errors.
type tab struct {
	t   *testing.T
	ctx context.Context
	mu  sync.Mutex
	bad []string // console.error calls and uncaught exceptions
}

// newTab opens a tab at width × viewportH that closes at the end of the
// test or after tabLimit.
func newTab(t *testing.T, width int64) *tab {
	t.Helper()
	return newTabSize(t, width, viewportH)
}

// newTabSize opens a tab with a width × height viewport.
func newTabSize(t *testing.T, width, height int64) *tab {
	t.Helper()
	b := startBrowser(t)
	tctx, cancelTimeout := context.WithTimeout(b, tabLimit)
	ctx, cancelTab := chromedp.NewContext(tctx)
	t.Cleanup(func() { cancelTab(); cancelTimeout() })
	tb := &tab{t: t, ctx: ctx}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	if err := chromedp.Listen(ctx, tb.onEvent); err != nil {
		t.Fatalf("listen: %v", err)
	}
	return tb
}

// onEvent runs on chromedp's reading goroutine: record and return.
func (tb *tab) onEvent(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError {
			return
		}
		var parts []string
		for _, a := range ev.Args {
			switch {
			case len(a.Value) > 0:
				parts = append(parts, string(a.Value))
			case a.Description != "":
				parts = append(parts, a.Description)
			default:
				parts = append(parts, string(a.Type))
			}
		}
		msg = "console.error: " + strings.Join(parts, " ")
		if st := ev.StackTrace; st != nil && len(st.CallFrames) > 0 {
			f := st.CallFrames[0]
			msg += fmt.Sprintf(" (%s:%d)", f.URL, f.LineNumber+1)
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg = "exception: " + d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg += " " + strings.SplitN(d.Exception.Description, "\n", 2)[0]
		}
		msg += fmt.Sprintf(" (%s:%d)", d.URL, d.LineNumber+1)
	default:
		return
	}
	tb.mu.Lock()
	tb.bad = append(tb.bad, msg)
	tb.mu.Unlock()
}

// takeErrors returns and clears the recorded console errors.
func (tb *tab) takeErrors() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	bad := tb.bad
	tb.bad = nil
	return bad
}

// open navigates to url and waits for the load event and one more frame.
func (tb *tab) open(url string) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(url)); err != nil {
		tb.t.Fatalf("navigate to %s: %v", url, err)
	}
	tb.settle()
}

// settle waits for two animation frames and a short timer: layout done,
// load-time scripts run.
func (tb *tab) settle() {
	tb.t.Helper()
	js := fmt.Sprintf(`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => r(true), %d))))`, settleDelay.Milliseconds())
	if _, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise)); err != nil {
		tb.t.Fatalf("wait for the page to settle: %v", err)
	}
}

// eval evaluates js in the page and returns its value.
func eval[T any](tb *tab, js string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		tb.t.Fatalf("evaluate %s: %v", firstLine(js), err)
	}
	return v
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// staticSite serves the fixture site's build on 127.0.0.1.
func staticSite(t *testing.T) (string, []string) {
	t.Helper()
	dir := fixtureSite(t)
	ts := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(ts.Close)
	return ts.URL, dossierPages(t, dir)
}

func TestBrowserNoConsoleErrors(t *testing.T) {
	base, pages := staticSite(t)
	tb := newTab(t, desktopW)
	for _, p := range append([]string{"/"}, pages...) {
		tb.open(base + p)
		for _, e := range tb.takeErrors() {
			t.Errorf("%s: %s", p, e)
		}
	}
	t.Logf("%d pages opened", len(pages)+1)
}

type box struct {
	ID     string  `json:"id"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

func TestBrowserChartsHaveSize(t *testing.T) {
	base, pages := staticSite(t)
	tb := newTab(t, desktopW)
	for _, p := range pages {
		tb.open(base + p)
		charts := eval[[]box](tb, `[...document.querySelectorAll("svg.chart")].map((e, i) => {
			const r = e.getBoundingClientRect();
			return {id: e.id || "#" + i, width: r.width, height: r.height};
		})`)
		for _, c := range charts {
			if c.Width <= 0 || c.Height <= 0 {
				t.Errorf("%s: svg.chart %s is %.0f × %.0f px", p, c.ID, c.Width, c.Height)
			}
		}
		if p == k3Page && len(charts) < chartMinK3 {
			t.Errorf("%s: %d svg.chart elements, want at least %d", p, len(charts), chartMinK3)
		}
		t.Logf("%s: %d charts", p, len(charts))
	}
	found := false
	for _, p := range pages {
		found = found || p == k3Page
	}
	if !found {
		t.Errorf("no %s in the build", k3Page)
	}
}

// sortState is what the sort test reads from the index table.
type sortState struct {
	Table   bool     `json:"table"`
	Rows    int      `json:"rows"`
	First   []string `json:"first"`
	Headers []struct {
		Index int    `json:"index"`
		Kind  string `json:"kind"`
		Text  string `json:"text"`
	} `json:"headers"`
}

const readSortState = `(() => {
	const t = document.querySelector("table#models");
	if (!t) return {table: false, rows: 0, first: [], headers: []};
	const rows = [...t.querySelectorAll("tbody tr")];
	const headers = [...t.querySelectorAll("th[data-sort]")].map(th =>
		({index: th.cellIndex, kind: th.getAttribute("data-sort"), text: th.textContent.trim()}));
	return {table: true, rows: rows.length,
		first: rows.map(r => (r.cells[0] ? r.cells[0].textContent.trim() : "")), headers: headers};
})()`

// synthesizeRows makes sure table#models has at least three rows whose
// order is sorted by no column: it clones the first row twice, with the
// first cell renamed and every number in the other cells (and their
// data-value attributes) scaled ×2 and ×0.5. It returns how many rows it
// added.
const synthesizeRows = `(() => {
	const body = document.querySelector("table#models tbody");
	const rows = body.querySelectorAll("tr");
	if (rows.length >= 3 || rows.length === 0) return 0;
	const base = rows[0];
	const make = (name, f) => {
		const r = base.cloneNode(true);
		r.removeAttribute("id");
		[...r.cells].forEach((c, i) => {
			c.removeAttribute("id");
			if (i === 0) {
				c.textContent = name;
				for (const a of ["data-value", "data-sort-value"]) if (c.hasAttribute(a)) c.setAttribute(a, name);
				return;
			}
			for (const a of ["data-value", "data-sort-value"]) {
				const v = parseFloat(c.getAttribute(a));
				if (!isNaN(v)) c.setAttribute(a, String(v * f));
			}
			c.textContent = c.textContent.replace(/\d[\d,]*(\.\d+)?/, m => String(parseFloat(m.replace(/,/g, "")) * f));
		});
		return r;
	};
	body.appendChild(make("Zulu (synthetic)", 2));
	body.appendChild(make("Alpha (synthetic)", 0.5));
	return 2;
})()`

func TestBrowserIndexTableSorts(t *testing.T) {
	base, _ := staticSite(t)
	tb := newTab(t, desktopW)
	tb.open(base + "/")
	st := eval[sortState](tb, readSortState)
	if !st.Table {
		t.Fatal("index: no table#models")
	}
	if len(st.Headers) == 0 {
		t.Fatal("index: table#models has no th[data-sort] (the sort script's contract)")
	}
	if st.Rows < 3 {
		n := eval[int](tb, synthesizeRows)
		t.Logf("index has %d row(s); added %d synthetic rows so that a sort can show", st.Rows, n)
	}
	// The first text column and the first numeric column.
	var picks []int // positions among the th[data-sort]
	for _, want := range []bool{false, true} {
		for i, h := range st.Headers {
			if (h.Kind == "num") == want {
				picks = append(picks, i)
				break
			}
		}
	}
	for _, i := range picks {
		h := st.Headers[i]
		click := fmt.Sprintf(`(() => { document.querySelectorAll("table#models th[data-sort]")[%d].click(); return true; })()`, i)
		before := eval[sortState](tb, readSortState).First
		eval[bool](tb, click)
		tb.settle()
		once := eval[sortState](tb, readSortState).First
		eval[bool](tb, click)
		tb.settle()
		twice := eval[sortState](tb, readSortState).First
		label := fmt.Sprintf("th %q (data-sort=%q)", h.Text, h.Kind)
		switch {
		case equal(once, before) && equal(twice, before):
			t.Errorf("%s: two clicks left the rows as they were: %q", label, before)
		case equal(once, twice):
			t.Errorf("%s: the second click did not toggle the order: %q", label, once)
		case !equal(reversed(once), twice) && !hasTies(once):
			t.Errorf("%s: the second click is not the reverse of the first: %q then %q", label, once, twice)
		default:
			t.Logf("%s: %q → %q → %q", label, before, once, twice)
		}
		if h.Kind == "num" {
			// The order is numeric: the column's values (data-value, else
			// the first number of the text) are monotonic.
			vals := eval[[]*float64](tb, fmt.Sprintf(`[...document.querySelectorAll("table#models tbody tr")].map(r => {
				const c = r.cells[%d]; if (!c) return null;
				const raw = c.hasAttribute("data-value") ? c.getAttribute("data-value") : (c.textContent.match(/-?\d[\d,]*(\.\d+)?(e[+-]?\d+)?/i) || [""])[0].replace(/,/g, "");
				const v = parseFloat(raw); return isNaN(v) ? null : v; })`, h.Index))
			if !monotonic(vals) {
				t.Errorf("%s: after two clicks the column is not in numeric order: %v", label, deref(vals))
			}
		}
	}
	for _, e := range tb.takeErrors() {
		t.Errorf("index: %s", e)
	}
}

// monotonic reports whether the known values are all ascending or all
// descending.
func monotonic(vals []*float64) bool {
	var xs []float64
	for _, v := range vals {
		if v != nil {
			xs = append(xs, *v)
		}
	}
	up, down := true, true
	for i := 1; i < len(xs); i++ {
		up = up && xs[i-1] <= xs[i]
		down = down && xs[i-1] >= xs[i]
	}
	return up || down
}

func deref(vals []*float64) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		if v == nil {
			out[i] = nil
		} else {
			out[i] = *v
		}
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func reversed(a []string) []string {
	r := make([]string, len(a))
	for i, s := range a {
		r[len(a)-1-i] = s
	}
	return r
}

func hasTies(a []string) bool {
	seen := map[string]bool{}
	for _, s := range a {
		if seen[s] {
			return true
		}
		seen[s] = true
	}
	return false
}

type anchorState struct {
	Found  bool    `json:"found"`
	Top    float64 `json:"top"`
	Bottom float64 `json:"bottom"`
	Inner  float64 `json:"inner"`
	Scroll float64 `json:"scroll"`
}

func TestBrowserAnchorScrollsIntoView(t *testing.T) {
	base, _ := staticSite(t)
	tb := newTab(t, desktopW)
	for _, id := range []string{"fit-8xB200", "claim-size-1400"} {
		// From a blank page, so that each is a full load with a fragment.
		tb.open("about:blank")
		tb.open(base + k3Page + "#" + id)
		st := eval[anchorState](tb, fmt.Sprintf(`(() => {
			const e = document.getElementById(%q);
			if (!e) return {found: false, top: 0, bottom: 0, inner: innerHeight, scroll: scrollY};
			const r = e.getBoundingClientRect();
			return {found: true, top: r.top, bottom: r.bottom, inner: innerHeight, scroll: scrollY};
		})()`, id))
		switch {
		case !st.Found:
			t.Errorf("%s#%s: no element with that id", k3Page, id)
		case st.Top < -1 || st.Top >= st.Inner:
			t.Errorf("%s#%s: element top at %.0f px, outside the viewport (0–%.0f); scrollY %.0f", k3Page, id, st.Top, st.Inner, st.Scroll)
		default:
			t.Logf("%s#%s: top %.0f px of %.0f, scrollY %.0f", k3Page, id, st.Top, st.Inner, st.Scroll)
		}
	}
	// A dossier's link to a matrix fact lands on its row of the facts
	// page, in view and marked.
	facts := k3Page + "facts.html"
	const row = "serving.8xB200"
	tb.open("about:blank")
	tb.open(base + facts + "#" + row)
	type landed struct {
		Found            bool    `json:"found"`
		Top              float64 `json:"top"`
		Inner            float64 `json:"inner"`
		Background       string  `json:"background"`
		UnmarkedSameCell string  `json:"unmarked"`
	}
	got := eval[landed](tb, fmt.Sprintf(`(() => {
		const e = document.getElementById(%q);
		if (!e) return {found: false};
		const other = e.nextElementSibling || e.previousElementSibling;
		return {found: true, top: e.getBoundingClientRect().top, inner: innerHeight,
			background: getComputedStyle(e.cells[1]).backgroundColor,
			unmarked: getComputedStyle(other.cells[1]).backgroundColor};
	})()`, row))
	switch {
	case !got.Found:
		t.Errorf("%s#%s: no row with that id", facts, row)
	case got.Top < -1 || got.Top >= got.Inner:
		t.Errorf("%s#%s: row top at %.0f px, outside the viewport", facts, row, got.Top)
	case got.Background == got.UnmarkedSameCell:
		t.Errorf("%s#%s: the row is not marked (background %s, as the next row's)", facts, row, got.Background)
	}
}

type overflow struct {
	ScrollWidth float64  `json:"scrollWidth"`
	InnerWidth  float64  `json:"innerWidth"`
	Height      float64  `json:"height"`
	Culprits    []string `json:"culprits"`
}

// readOverflow measures the page width and names the widest elements that
// stick out of the viewport without a scrolling box of their own.
const readOverflow = `(() => {
	const w = innerWidth;
	const scrolls = e => { for (let p = e.parentElement; p; p = p.parentElement) {
		const o = getComputedStyle(p).overflowX; if (o === "auto" || o === "scroll" || o === "hidden") return true; } return false; };
	const out = [];
	for (const e of document.body.querySelectorAll("*")) {
		const r = e.getBoundingClientRect();
		if (r.right > w + 1 && !scrolls(e)) out.push({d: e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : ""), r: r.right});
	}
	out.sort((a, b) => b.r - a.r);
	return {scrollWidth: document.documentElement.scrollWidth, innerWidth: w,
		height: document.documentElement.scrollHeight,
		culprits: out.slice(0, 5).map(o => o.d + " (right edge " + Math.round(o.r) + " px)")};
})()`

// fullPagePNG captures the whole page as PNG. It is chromedp.FullScreenshot
// with Chrome's fast PNG encoding: a 1280 × 15000 px page takes a third of
// the time.
func fullPagePNG(ctx context.Context, t *chromedp.Target) ([]byte, error) {
	yes := true
	r, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format:                page.CaptureScreenshotFormatPng,
		CaptureBeyondViewport: &yes,
		FromSurface:           &yes,
		OptimizeForSpeed:      &yes,
	})
	if err != nil {
		return nil, err
	}
	return r.Data, nil
}

// artifactsDir is where screenshots go: $DOSSIER_ARTIFACTS, default
// testdata/artifacts (git-ignored).
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("DOSSIER_ARTIFACTS")
	if dir == "" {
		dir = "testdata/artifacts"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestBrowserNoHorizontalScroll(t *testing.T) {
	base, _ := staticSite(t)
	dir := artifactsDir(t)
	for _, w := range []int64{desktopW, phoneW} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			tb := newTab(t, w)
			tb.open(base + k3Page)
			png, err := chromedp.Run(tb.ctx, fullPagePNG)
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			name := fmt.Sprintf("%s/kimi-k3-%d.png", dir, w)
			if err := os.WriteFile(name, png, 0o644); err != nil {
				t.Fatal(err)
			}
			o := eval[overflow](tb, readOverflow)
			t.Logf("width %d: scrollWidth %.0f, innerWidth %.0f, page height %.0f px; screenshot %s (%d bytes)", w, o.ScrollWidth, o.InnerWidth, o.Height, name, len(png))
			if o.InnerWidth != float64(w) {
				t.Errorf("innerWidth %.0f, want %d", o.InnerWidth, w)
			}
			if o.ScrollWidth > o.InnerWidth+1 {
				t.Errorf("page scrolls sideways at %d px: scrollWidth %.0f > innerWidth %.0f; widest: %s",
					w, o.ScrollWidth, o.InnerWidth, strings.Join(o.Culprits, "; "))
			}
		})
	}
}

func TestBrowserLiveReload(t *testing.T) {
	startBrowser(t) // skip before the copy when there is no browser
	root := copySite(t)
	base := startServe(t, root)
	tb := newTab(t, desktopW)
	tb.open(base + k3Page)
	if h1 := eval[string](tb, `document.querySelector("h1").textContent`); !strings.Contains(h1, "Kimi K3") {
		t.Fatalf("h1 %q, want the K3 title", h1)
	}
	tb.waitFor(`window.__dossierLive === "open"`, 5*time.Second, "the reload script's event stream to open")

	// Mark the document: a reload replaces it, a navigation by the test
	// would too, so the mark also shows that nothing but the script acted.
	eval[bool](tb, `(window.__dossierMark = 1, true)`)
	start := time.Now()
	editFile(t, root, k3Source, titleLine, `title: "Kimi K3 (edited live)"`)
	tb.waitFor(`(document.querySelector("h1") || {}).textContent === "Kimi K3 (edited live)"`, 10*time.Second, "the h1 to show the edited title")
	t.Logf("edit → new h1 in %s", time.Since(start).Round(time.Millisecond))
	if eval[bool](tb, `window.__dossierMark === 1`) {
		t.Error("the page changed without a reload")
	}
	if loc := eval[string](tb, `location.pathname`); loc != k3Page {
		t.Errorf("location %s after the reload, want %s", loc, k3Page)
	}

	// A broken edit: the page stays, an overlay shows the error as text.
	tb.waitFor(`window.__dossierLive === "open"`, 5*time.Second, "the event stream to reopen after the reload")
	eval[bool](tb, `(window.__dossierMark = 2, true)`)
	broken := titleLine + "\nnotAField<b>bold</b>: 1"
	editFile(t, root, k3Source, `title: "Kimi K3 (edited live)"`, broken)
	tb.waitFor(`!!document.getElementById("__dossier-error")`, 10*time.Second, "the error overlay")
	ov := eval[struct {
		Text     string `json:"text"`
		Elements int    `json:"elements"`
		Fixed    bool   `json:"fixed"`
		Visible  bool   `json:"visible"`
		H1       string `json:"h1"`
		Mark     int    `json:"mark"`
	}](tb, `(() => { const b = document.getElementById("__dossier-error"); const r = b.getBoundingClientRect();
		return {text: b.textContent, elements: b.querySelectorAll("*").length, fixed: getComputedStyle(b).position === "fixed",
			visible: r.width > 0 && r.height > 0 && r.top < innerHeight, h1: document.querySelector("h1").textContent, mark: window.__dossierMark || 0}; })()`)
	if !strings.Contains(ov.Text, "kimi-k3.md") {
		t.Errorf("overlay text does not name the file: %q", ov.Text)
	}
	if ov.Elements != 2 { // the title <strong> and the text <div>
		t.Errorf("overlay holds %d elements, want 2: the message must be text only", ov.Elements)
	}
	if strings.Contains(ov.Text, "notAField") && !strings.Contains(ov.Text, "<b>bold</b>") {
		t.Errorf("overlay lost the markup in the message as text: %q", ov.Text)
	}
	if !ov.Fixed || !ov.Visible {
		t.Errorf("overlay fixed %v, visible %v", ov.Fixed, ov.Visible)
	}
	if ov.H1 != "Kimi K3 (edited live)" || ov.Mark != 2 {
		t.Errorf("after a broken edit the page changed: h1 %q, mark %d (want the last good page, not reloaded)", ov.H1, ov.Mark)
	}

	// The fix reloads the page and clears the overlay.
	editFile(t, root, k3Source, broken, `title: "Kimi K3 fixed"`)
	tb.waitFor(`(document.querySelector("h1") || {}).textContent === "Kimi K3 fixed" && !document.getElementById("__dossier-error")`, 10*time.Second, "the fixed page without the overlay")
	for _, e := range tb.takeErrors() {
		t.Errorf("live page: %s", e)
	}
}

// waitFor polls js (true when done) across reloads until limit.
func (tb *tab) waitFor(js string, limit time.Duration, what string) {
	tb.t.Helper()
	deadline := time.Now().Add(limit)
	var lastErr error
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](js))
		if err == nil && ok {
			return
		}
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
				break
			}
			lastErr = err // a reload in progress
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.t.Fatalf("waited %s for %s (last error: %v)", limit, what, lastErr)
}
