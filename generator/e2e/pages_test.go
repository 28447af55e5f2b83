package e2e

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"dossier/generator/internal/sitetest"
)

var update = flag.Bool("update", false, "rewrite golden files and the committed screenshots under testdata")

// screens are the first screens a reader sees: a laptop and a phone.
var screens = []struct {
	name string
	w, h int64
}{{"desktop", 1280, 800}, {"phone", 390, 844}}

// answerRows are the answer-box lines that must be in the first screen:
// the size and the first deployment choices, each stating its context,
// concurrency and KV cache width.
var answerRows = []string{"size on disk", "cheapest per token", "fastest stream"}

// statesConditions reports whether a deployment line states the cache
// width, the longest context and a concurrency ("BF16 KV; ≤131,072
// tokens; 79 seqs of 131,072"), or names an earlier choice or none.
func statesConditions(answer string) bool {
	if strings.HasPrefix(answer, "none deployable") || strings.HasPrefix(answer, "the ") {
		return true
	}
	return strings.Contains(answer, " KV; ≤") && strings.Contains(answer, " tokens; ") && strings.Contains(answer, " of ")
}

type rowBox struct {
	Question string  `json:"question"`
	Answer   string  `json:"answer"`
	Top      float64 `json:"top"`
	Bottom   float64 `json:"bottom"`
	Left     float64 `json:"left"`
	Right    float64 `json:"right"`
}

const readAnswer = `(() => {
	const h = document.getElementById("answer");
	const t = h && h.nextElementSibling;
	if (!t || t.tagName !== "TABLE") return [];
	return [...t.querySelectorAll("tbody tr")].map(r => {
		const b = r.getBoundingClientRect();
		return {question: r.cells[0].textContent.trim(), answer: (r.cells[1] || r.cells[0]).textContent.trim(),
			top: b.top, bottom: b.bottom, left: b.left, right: b.right};
	});
})()`

// TestBrowserAnswerInFirstScreen: on every dossier of the fixture site the
// answer box's size, fit verdict and price are inside the first screen at
// 1280 × 800 and 390 × 844, with a value each, not a placeholder.
func TestBrowserAnswerInFirstScreen(t *testing.T) {
	base, pages := staticSite(t)
	for _, sc := range screens {
		t.Run(sc.name, func(t *testing.T) {
			tb := newTabSize(t, sc.w, sc.h)
			for _, p := range pages {
				tb.open(base + p)
				rows := eval[[]rowBox](tb, readAnswer)
				if len(rows) == 0 {
					t.Errorf("%s: no answer box (h2#answer followed by a table)", p)
					continue
				}
				for _, q := range answerRows {
					i := slices.IndexFunc(rows, func(r rowBox) bool { return r.Question == q })
					if i < 0 {
						t.Errorf("%s: the answer box has no %q line", p, q)
						continue
					}
					r := rows[i]
					if r.Top < 0 || r.Bottom > float64(sc.h) || r.Left < 0 || r.Right > float64(sc.w) {
						t.Errorf("%s at %d × %d: %q spans (%.0f,%.0f)–(%.0f,%.0f), outside the first screen", p, sc.w, sc.h, q, r.Left, r.Top, r.Right, r.Bottom)
					}
					if r.Answer == "" || strings.Contains(r.Answer, "TODO") {
						t.Errorf("%s: %q has no answer: %q", p, q, r.Answer)
					}
					if q != "size on disk" && !statesConditions(r.Answer) {
						t.Errorf("%s: %q does not state its context, concurrency and KV cache: %q", p, q, r.Answer)
					}
				}
				last := rows[len(rows)-1]
				t.Logf("%s at %d × %d: answer box ends at %.0f px (%d lines)", p, sc.w, sc.h, last.Bottom, len(rows))
			}
		})
	}
}

// TestBrowserAnswerValues reads the K3 answer box as a reader does: the
// figures are the fixture's, computed by the build (the fixture has no fitted
// speed model, so speeds and prices print as uncalibrated).
func TestBrowserAnswerValues(t *testing.T) {
	base, _ := staticSite(t)
	tb := newTabSize(t, 1280, 800)
	tb.open(base + k3Page)
	rows := eval[[]rowBox](tb, readAnswer)
	want := map[string]string{
		"size on disk":       "1,560.9 GB (1,453.7 GiB)",
		"cheapest per token": "16 × B200, vllm TP 8 × PP 2 on 2 hosts, BF16 KV; ≤1,048,576 tokens; 40 seqs of 131,072; ≈ 239 tokens/s per stream (uncalibrated: n = 0 < 5); $95.68/h; $17.47/M tokens at full load (uncalibrated: n = 0 < 5)",
		"fastest stream":     "8 × B300, vllm TP 8, BF16 KV; ≤1,048,576 tokens; 16 seqs of 131,072; ≈ 239 tokens/s per stream (uncalibrated: n = 0 < 5)",
		"smallest":           "8 × MI325X, vllm TP 8, BF16 KV; ≤1,048,576 tokens; 8 seqs of 131,072; ≈ 178 tokens/s per stream (uncalibrated: n = 0 < 5)",
		"best single host":   "the fastest stream layout",
		// The CPU host holds K3's weights; llama.cpp cannot load them.
		"best local":        "none deployable: no consumer GPU rig, Apple machine or CPU host of the catalog is deployable; those that hold the weights are stopped by engine architecture support: llama.cpp @0024aa7 has no KimiK3ForConditionalGeneration (ggml-org/llama.cpp convert_hf_to_gguf.py) (1 × CPUHost, 64 × RTX3090, 64 × RTX4090, 48 × RTX5090); engine architecture support: mlx @d78bf58 has no kimi_k3 (ml-explore/mlx-lm mlx_lm/models/*.py, mlx_lm/utils.py) (4 × M3Ultra512, 14 × M4Max128)",
		"reference layouts": "at 131,072 tokens × 1 sequence(s), BF16 KV: yes on 8 × MI355X (58.0 GB spare per GPU), 8 × B300 (58.3 GB spare per GPU); no on 7 of 9; closest 8 × MI300X (16.0 GB short per GPU)",
		"claims":            k3Tally(t),
	}
	for _, r := range rows {
		if w, ok := want[r.Question]; ok {
			if r.Answer != w {
				t.Errorf("K3 %q = %q, want %q", r.Question, r.Answer, w)
			}
			delete(want, r.Question)
		}
	}
	for q := range want {
		t.Errorf("K3 answer box lacks %q", q)
	}
	// The value links to its fact in the appendix, the key on hover.
	link := eval[string](tb, `(() => { const a = document.querySelector("#answer + table a[title='bytes.checkpoint']"); return a ? a.getAttribute("href") : ""; })()`)
	if link != "facts.html#bytes.checkpoint" {
		t.Errorf("size on disk links to %q, want facts.html#bytes.checkpoint", link)
	}
	keys := eval[int](tb, `[...document.querySelectorAll("main table code")].filter(c => /^(params|bytes|fit|kv|arch|cost)\./.test(c.textContent)).length`)
	if keys != 0 {
		t.Errorf("%d fact keys printed in the page's tables; they belong in the facts appendix", keys)
	}
	toc := eval[[]string](tb, `[...document.querySelectorAll("nav.toc a")].map(a => a.textContent)`)
	wantOrder := []string{"Claims vs artifacts", "Fit and cost", "Speed and cost per token", "Memory: KV cache and state", "Architecture", "Bytes: what the checkpoint really weighs", "Parameters by stored dtype", "Sources"}
	at := 0
	for _, w := range wantOrder {
		i := slices.Index(toc[at:], w)
		if i < 0 {
			t.Errorf("contents %q: %q missing or out of reader order", toc, w)
			break
		}
		at += i + 1
	}
}

// k3Tally counts the verdicts of K3's claims in its facts.json: "N
// checked: a supported, b refuted, c misleading" and the other verdicts
// that occur, in the order the content package lists them.
func k3Tally(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureSite(t), "models", "kimi-k3", "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Claims []struct {
			Verdict string `json:"verdict"`
		} `json:"claims"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, c := range doc.Claims {
		n[c.Verdict]++
	}
	var parts []string
	for _, v := range []string{"supported", "refuted", "misleading", "outdated", "unverifiable"} {
		if n[v] > 0 || v == "supported" || v == "refuted" || v == "misleading" {
			parts = append(parts, fmt.Sprintf("%d %s", n[v], v))
		}
	}
	return fmt.Sprintf("%d checked: %s", len(doc.Claims), strings.Join(parts, ", "))
}

// TestBrowserPhonesDoNotScrollSideways: at 390 px no page of the fixture
// site scrolls sideways and every chart lies within the viewport.
func TestBrowserPhonesDoNotScrollSideways(t *testing.T) {
	base, pages := staticSite(t)
	tb := newTabSize(t, phoneW, 844)
	all := append([]string{"/", "/compare/index.html?models=kimi-k3,tiny-llama"}, pages...)
	all = append(all, k3Page+"facts.html")
	for _, p := range all {
		tb.open(base + p)
		o := eval[overflow](tb, readOverflow)
		if o.ScrollWidth > o.InnerWidth+1 {
			t.Errorf("%s scrolls sideways at %d px: scrollWidth %.0f; widest: %s", p, phoneW, o.ScrollWidth, strings.Join(o.Culprits, "; "))
		}
		charts := eval[[]rowBox](tb, `[...document.querySelectorAll("svg")].map(e => { const b = e.getBoundingClientRect();
			return {question: e.id, answer: "", top: b.top, bottom: b.bottom, left: b.left, right: b.right}; })`)
		for _, c := range charts {
			if c.Left < 0 || c.Right > float64(phoneW) || c.Right-c.Left <= 0 {
				t.Errorf("%s: svg %s spans %.0f–%.0f px, outside the %d px viewport", p, c.ID(), c.Left, c.Right, phoneW)
			}
		}
		t.Logf("%s: %d svg within %d px", p, len(charts), phoneW)
	}
}

// ID names a box in a message.
func (r rowBox) ID() string {
	if r.Question == "" {
		return "(no id)"
	}
	return "#" + r.Question
}

// TestBrowserIndexFitsAt1280: the index's columns, the price and the
// claims tally included, end within 1280 px without a sideways scroll.
func TestBrowserIndexFitsAt1280(t *testing.T) {
	base, _ := staticSite(t)
	tb := newTabSize(t, 1280, 800)
	tb.open(base + "/")
	cols := eval[[]rowBox](tb, `[...document.querySelectorAll("table#models thead th")].map(e => { const b = e.getBoundingClientRect();
		return {question: e.textContent.trim(), answer: "", top: b.top, bottom: b.bottom, left: b.left, right: b.right}; })`)
	price := false
	for _, c := range cols {
		if c.Right > 1280 {
			t.Errorf("index column %q ends at %.0f px, beyond 1280", c.Question, c.Right)
		}
		price = price || strings.HasPrefix(c.Question, "cheapest per token")
	}
	if !price {
		t.Errorf("index has no cheapest per token column: %v", cols)
	}
	if w := eval[float64](tb, `(() => { const t = document.querySelector("table#models"); return t.scrollWidth - t.clientWidth; })()`); w > 1 {
		t.Errorf("the index table scrolls sideways by %.0f px at 1280", w)
	}
}

type modelsDoc struct {
	Models []struct {
		Slug    string                      `json:"slug"`
		MinGPUs map[string]map[string]int64 `json:"min_gpus"`
	} `json:"models"`
}

// TestBrowserFitsFilter: "1 × RTX 4090, 8,192 tokens" leaves the models
// whose computed verdict fits: by hand, Llama 3.1 8B (16.1 GB of BF16
// weights + 1.1 GB of cache ≤ 90% of 25.8 GB) and the tiny model; not
// Qwen3-30B-A3B (61 GB) or K3.
func TestBrowserFitsFilter(t *testing.T) {
	base, _ := staticSite(t)
	b, err := os.ReadFile(filepath.Join(fixtureSite(t), "models.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc modelsDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("models.json: %v", err)
	}
	var computed []string
	for _, m := range doc.Models {
		if n, ok := m.MinGPUs["8192"]["RTX4090"]; ok && n <= 1 {
			computed = append(computed, m.Slug)
		}
	}
	sort.Strings(computed)
	byHand := []string{"llama-3-1-8b", "tiny-llama"}
	if !slices.Equal(computed, byHand) {
		t.Errorf("models.json: models that fit 1 × RTX4090 at 8,192 tokens %q, want %q", computed, byHand)
	}
	tb := newTabSize(t, 1280, 800)
	tb.open(base + "/")
	tb.waitFor(`!document.getElementById("fits").hidden && document.querySelector("#fits select[name=accelerator]").options.length > 1`, 5e9, "the filter to load models.json")
	all := eval[int](tb, `document.querySelectorAll("table#models tbody tr").length`)
	eval[bool](tb, `(() => { const f = document.getElementById("fits");
		f.elements.accelerator.value = "RTX4090"; f.elements.count.value = "1"; f.elements.context.value = "8192";
		f.dispatchEvent(new Event("change")); return true; })()`)
	tb.settle()
	shown := eval[[]string](tb, `[...document.querySelectorAll("table#models tbody tr")].filter(r => !r.hidden && r.offsetParent !== null).map(r => r.dataset.slug).sort()`)
	if !slices.Equal(shown, byHand) {
		t.Errorf("1 × RTX4090 at 8,192 tokens shows %q of %d rows, want %q", shown, all, byHand)
	}
	status := eval[string](tb, `document.querySelector("#fits output").value`)
	if !strings.HasPrefix(status, fmt.Sprintf("%d of %d fit", len(byHand), all)) {
		t.Errorf("filter status %q", status)
	}
	// Eight of them hold K3 at 8,192 tokens? No: 1,555 GB needs more.
	eval[bool](tb, `(() => { const f = document.getElementById("fits"); f.elements.count.value = "8"; f.dispatchEvent(new Event("change")); return true; })()`)
	tb.settle()
	if n := eval[int](tb, `[...document.querySelectorAll("table#models tbody tr")].filter(r => !r.hidden).length`); n != 3 {
		t.Errorf("8 × RTX4090 at 8,192 tokens shows %d rows, want 3 (Llama, Qwen3-30B-A3B, tiny)", n)
	}
	for _, e := range tb.takeErrors() {
		t.Errorf("index: %s", e)
	}
}

// TestBrowserCompare: the compare page sets two models side by side.
func TestBrowserCompare(t *testing.T) {
	base, _ := staticSite(t)
	for _, sc := range screens {
		t.Run(sc.name, func(t *testing.T) {
			tb := newTabSize(t, sc.w, sc.h)
			tb.open(base + "/compare/index.html?models=kimi-k3,tiny-llama")
			tb.waitFor(`!!document.querySelector("table#comparison")`, 5e9, "the comparison table")
			heads := eval[[]rowBox](tb, `[...document.querySelectorAll("table#comparison thead th[data-slug]")].map(e => { const b = e.getBoundingClientRect();
				return {question: e.dataset.slug, answer: e.textContent, top: b.top, bottom: b.bottom, left: b.left, right: b.right}; })`)
			if len(heads) != 2 || heads[0].Question != "kimi-k3" || heads[1].Question != "tiny-llama" {
				t.Fatalf("compare columns %+v, want kimi-k3 and tiny-llama", heads)
			}
			if heads[0].Top != heads[1].Top || heads[1].Left < heads[0].Right-1 {
				t.Errorf("the two models are not side by side: %+v", heads)
			}
			row := eval[[]string](tb, `[...document.querySelectorAll("table#comparison tbody tr")].filter(r => r.cells[0].textContent === "checkpoint").map(r => [...r.cells].slice(1).map(c => c.textContent)).flat()`)
			if !slices.Equal(row, []string{"1,560.9 GB (1,453.7 GiB)", "4.2 MB (4.1 MiB)"}) {
				t.Errorf("checkpoint row %q", row)
			}
			for _, e := range tb.takeErrors() {
				t.Errorf("compare: %s", e)
			}
		})
	}
}

// TestBrowserScreenshots writes the first screen of the K3 dossier and of
// the index at both widths to testdata/screenshots (committed, refreshed
// with -update) and to the artifacts directory.
func TestBrowserScreenshots(t *testing.T) {
	base, _ := staticSite(t)
	dirs := []string{artifactsDir(t)}
	if *update {
		dirs = append(dirs, "testdata/screenshots")
	}
	for _, sc := range screens {
		tb := newTabSize(t, sc.w, sc.h)
		for name, p := range map[string]string{"kimi-k3": k3Page, "index": "/", "compare": "/compare/index.html?models=kimi-k3,llama-3-1-8b"} {
			tb.open(base + p)
			png, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatalf("screenshot %s: %v", p, err)
			}
			for _, d := range dirs {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				file := filepath.Join(d, fmt.Sprintf("%s-%d.png", name, sc.w))
				if err := os.WriteFile(file, png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// zeroUnits are the displays a small model must never print.
var zeroUnits = regexp.MustCompile(`(^|[^0-9.,])0\.0 (TB|GB|MB|KB|s)\b`)

// TestTinyModelUnits: a model of a few megabytes reads in units that fit
// it on its page, in its charts and on the index, and carries no note that
// applies only to packed quantized payloads. Its Markdown is a golden file.
func TestTinyModelUnits(t *testing.T) {
	dir := fixtureSite(t)
	md, err := os.ReadFile(filepath.Join(dir, "models", "tiny-llama", "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "tiny-llama.index.md")
	if *update {
		if err := os.WriteFile(golden, md, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(md, want) {
		t.Errorf("tiny-llama/index.md differs from %s; run with -update if the change is intended\n%s", golden, sitetest.FirstDiff(string(want), string(md)))
	}
	files, _ := filepath.Glob(filepath.Join(dir, "models", "tiny-llama", "charts", "*.svg"))
	files = append(files, filepath.Join(dir, "models", "tiny-llama", "index.html"), filepath.Join(dir, "models", "tiny-llama", "index.md"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := zeroUnits.Find(b); m != nil {
			t.Errorf("%s prints %q for a non-zero figure", f, m)
		}
		if bytes.Contains(b, []byte("packed 4-bit")) {
			t.Errorf("%s carries the packed 4-bit note on an all-BF16 model", f)
		}
	}
	for _, want := range []string{"4.2 MB (4.1 MiB)", "34 ms", "256 B"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("tiny-llama/index.md lacks %q", want)
		}
	}
	// The index prints the checkpoint as the page does.
	idx, err := os.ReadFile(filepath.Join(dir, "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(idx, []byte("| Tiny Llama (fixture) | 2.12 M | 2.12 M | 4.2 MB (4.1 MiB) |")) {
		t.Errorf("index.md lists the tiny model differently from its page:\n%s", idx)
	}
	html, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(html, []byte("Markdown</a> · </footer>")) || bytes.Contains(html, []byte("· </footer>")) {
		t.Error("the index footer ends with a dangling separator")
	}
}

// TestBrowserFactsTableKeepsColumnsInView: at 1280 px the facts page's
// table of single facts shows its four columns without a sideways scroll:
// K3's 93-letter layer-kind string once widened it to 2,581 px, and its
// derivations and sources were off screen.
func TestBrowserFactsTableKeepsColumnsInView(t *testing.T) {
	base, _ := staticSite(t)
	tb := newTabSize(t, 1280, 800)
	tb.open(base + k3Page + "facts.html")
	type width struct {
		Scroll, Client float64
		Right          []float64
	}
	w := eval[width](tb, `(() => { const t = document.querySelector(".facts table");
		return {scroll: t.scrollWidth, client: t.clientWidth, right: [...t.querySelectorAll("thead th")].map(h => h.getBoundingClientRect().right)}; })()`)
	if w.Scroll > w.Client+1 {
		t.Errorf("the facts table scrolls sideways: %.0f px of content in %.0f", w.Scroll, w.Client)
	}
	if len(w.Right) != 4 {
		t.Fatalf("the facts table has %d columns, want fact, value, how, sources", len(w.Right))
	}
	for i, r := range w.Right {
		if r > 1280 {
			t.Errorf("column %d ends at %.0f px, beyond 1280", i+1, r)
		}
	}
}

// TestBrowserLongAddressWraps: an address in a cell wraps rather than
// widening its table past the page: K3's sources table, whose last column
// holds GitHub blob addresses of 100-odd characters, scrolled sideways at
// 1280 px. The test gives the fixture's sources table such an address.
func TestBrowserLongAddressWraps(t *testing.T) {
	base, _ := staticSite(t)
	tb := newTabSize(t, 1280, 800)
	tb.open(base + k3Page)
	w := eval[[]float64](tb, `(() => { const t = [...document.querySelectorAll("main table")].find(t => t.querySelector("thead").textContent.includes("where to read it"));
		const a = document.createElement("a"); a.href = "#"; a.textContent = "https://github.com/vllm-project/recipes/blob/02c27aa9b80630ec61a61060f246bff6a46f0c4e/models/moonshotai/Kimi-K3.yaml";
		const cell = t.querySelector("tbody tr td:last-child"); cell.textContent = ""; cell.appendChild(a);
		return [t.scrollWidth, t.clientWidth]; })()`)
	if w[0] > w[1]+1 {
		t.Errorf("a long address widens the sources table to %.0f px in %.0f", w[0], w[1])
	}
}

// TestBrowserDossierTablesFitAt1280: no table of K3's dossier, the widest
// page, scrolls sideways at 1280 px. The fit table once had 1,195 px of
// content in 1,120 with $/h off screen (separate margin columns), and the
// published forms 1,908 px (a column per hardware entry).
func TestBrowserDossierTablesFitAt1280(t *testing.T) {
	base, _ := staticSite(t)
	tb := newTabSize(t, 1280, 800)
	tb.open(base + k3Page)
	type width struct {
		Head           string
		Scroll, Client float64
	}
	ws := eval[[]width](tb, `[...document.querySelectorAll("main table")].map(t => ({head: [...t.querySelectorAll("thead th")].map(h => h.textContent).join(" | ").slice(0, 80), scroll: t.scrollWidth, client: t.clientWidth}))`)
	if len(ws) < 10 {
		t.Fatalf("K3's dossier has %d tables", len(ws))
	}
	for _, w := range ws {
		if w.Scroll > w.Client+1 {
			t.Errorf("table %q is %.0f px of content in %.0f", w.Head, w.Scroll, w.Client)
		}
	}
}
