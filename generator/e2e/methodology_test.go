package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBrowserMethodologyFromClaimRating follows a claim's rating to its
// definition: K3's ClaimReview of claim-size-1400 names its rating's
// anchor on the methodology page; the claims section's ratings link opens
// that page; the anchor is there, in view, and defines the rating the
// claim's row shows.
func TestBrowserMethodologyFromClaimRating(t *testing.T) {
	base, _ := staticSite(t)
	tb := newTab(t, desktopW)
	tb.open(base + k3Page)
	frag := eval[string](tb, `(() => {
		for (const s of document.querySelectorAll('script[type="application/ld+json"]')) {
			const d = JSON.parse(s.textContent);
			if (d.url && d.url.endsWith("#claim-size-1400")) return new URL(d.reviewRating.url).hash;
		}
		return "";
	})()`)
	if frag != "#rating-refuted" {
		t.Fatalf("claim-size-1400's ClaimReview rating links %q, want #rating-refuted", frag)
	}
	verdict := eval[string](tb, `(() => {
		const r = document.getElementById("claim-size-1400");
		if (!r) return "";
		const head = [...r.closest("table").querySelectorAll("thead th")].map(c => c.textContent);
		return r.cells[head.indexOf("verdict")].textContent;
	})()`)
	if !strings.Contains(verdict, "refuted") {
		t.Fatalf("claim-size-1400's row shows %q", verdict)
	}
	if !eval[bool](tb, `(() => {
		const a = [...document.querySelectorAll("a")].find(a => a.getAttribute("href") === "../../methodology/index.html#ratings");
		if (!a) return false;
		a.click();
		return true;
	})()`) {
		t.Fatal("the claims section has no link to the ratings")
	}
	// http.FileServer answers .../index.html with a redirect to the
	// directory; the fragment survives it.
	tb.waitFor(`/^\/methodology\/(index\.html)?$/.test(location.pathname) && location.hash === "#ratings" && document.readyState === "complete"`, 10*time.Second, "the methodology page at its ratings")
	tb.settle()
	// The rating's own anchor, as the ClaimReview names it, from the
	// ratings table.
	if !eval[bool](tb, fmt.Sprintf(`(() => { const a = document.querySelector('a[href=%q]'); if (!a) return false; a.click(); return true; })()`, frag)) {
		t.Fatalf("the ratings table has no link to %s", frag)
	}
	tb.settle()
	st := eval[anchorState](tb, fmt.Sprintf(`(() => {
		const e = document.getElementById(%q);
		if (!e) return {found: false, top: 0, bottom: 0, inner: innerHeight, scroll: scrollY};
		const r = e.getBoundingClientRect();
		return {found: true, top: r.top, bottom: r.bottom, inner: innerHeight, scroll: scrollY};
	})()`, strings.TrimPrefix(frag, "#")))
	switch {
	case !st.Found:
		t.Fatalf("the methodology page has no element %s", frag)
	case st.Top < -1 || st.Top >= st.Inner:
		t.Errorf("%s: top at %.0f px, outside the viewport (0–%.0f)", frag, st.Top, st.Inner)
	}
	def := eval[string](tb, fmt.Sprintf(`(() => { const h = document.getElementById(%q); const p = h && h.nextElementSibling; return h.textContent + " | " + (p ? p.textContent : ""); })()`, strings.TrimPrefix(frag, "#")))
	if !strings.Contains(def, "refuted") || !strings.Contains(def, "The artifacts give another figure") {
		t.Errorf("the definition at %s reads %q", frag, def)
	}
	for _, e := range tb.takeErrors() {
		t.Errorf("console: %s", e)
	}
}
