package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func buildInto(t *testing.T, root string) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "public")
	if code, out, errs := run("--source", root, "build", "--destination", dest); code != 0 {
		t.Fatalf("build %s: exit %d\n%s%s", root, code, out, errs)
	}
	return dest
}

func TestDiffNoChanges(t *testing.T) {
	a := buildInto(t, "../..")
	code, out, errs := run("--source", "../..", "diff", "--base", a, "--head", a)
	if code != 0 || !strings.Contains(out, "no changes") {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
}

// A price change that moves the cheapest serving configuration must show
// as a flipped verdict naming the price list that moved it.
func TestDiffReportsPriceChange(t *testing.T) {
	base := buildInto(t, "../..")
	root := newSite(t)
	pricing := filepath.Join(root, "data/pricing/runpod.json")
	edit(t, pricing, `"as_of": "2026-09-23"`, `"as_of": "2026-12-01"`)
	edit(t, pricing, `"usd_per_hour": 2.39,`, `"usd_per_hour": 23.9,`)
	edit(t, pricing, `"usd_per_gpu_hour": 2.39,`, `"usd_per_gpu_hour": 23.9,`)
	head := buildInto(t, root)

	code, out, errs := run("--source", root, "diff", "--base", base, "--head", head)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	for _, want := range []string{"## moonshotai/Kimi-K3", "### Verdicts that flipped", "`fit.cheapest_serving`", "16xMI300X", "24xRTXPRO6000", "pricing:RunPod 2026-12-01", "`cost.8xMI300X.usd_per_hour.runpod`", "$191.20/h"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = run("--source", root, "diff", "--base", base, "--head", head, "--format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d", code)
	}
	var rep struct {
		Changed []struct {
			Model string `json:"model"`
			Facts []struct {
				Key  string `json:"key"`
				Old  string `json:"old"`
				New  string `json:"new"`
				Flip bool   `json:"verdict_flip"`
			} `json:"facts"`
		} `json:"changed"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json report does not parse: %v\n%s", err, out)
	}
	flipped := false
	for _, m := range rep.Changed {
		for _, f := range m.Facts {
			if m.Model == "moonshotai/Kimi-K3" && f.Key == "fit.cheapest_serving" && f.Flip && f.Old == "16xMI300X" && f.New == "24xRTXPRO6000" {
				flipped = true
			}
		}
	}
	if !flipped {
		t.Errorf("K3's cheapest serving configuration did not flip in the JSON report: %s", out)
	}
}

func TestDiffAgainstGitRef(t *testing.T) {
	// HEAD's committed public/ against the current inputs: it must run and
	// produce a report (the content of the report depends on the checkout).
	code, out, errs := run("--source", "../..", "diff", "--base", "HEAD")
	if code != 0 || !strings.HasPrefix(out, "# Dossier changes") {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
}
