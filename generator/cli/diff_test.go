package cli

import (
	"encoding/json"
	"os/exec"
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
	root := newSite(t)
	a := buildInto(t, root)
	code, out, errs := run("--source", root, "diff", "--base", a, "--head", a)
	if code != 0 || !strings.Contains(out, "no changes") {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
}

// A price change that moves the cheapest serving configuration must show
// as a flipped verdict naming the price list that moved it.
func TestDiffReportsPriceChange(t *testing.T) {
	root := newSite(t)
	base := buildInto(t, root)
	pricing := filepath.Join(root, "data/pricing/runpod.yaml")
	edit(t, pricing, `as_of: "2026-08-06"`, `as_of: "2026-12-01"`)
	edit(t, pricing, "usd_per_hour: 14\n", "usd_per_hour: 140\n")
	head := buildInto(t, root)

	code, out, errs := run("--source", root, "diff", "--base", base, "--head", head)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	for _, want := range []string{"3 verdicts flipped", "| `cost.8xRTXPRO6000.usd_per_hour` | ≈$14.00/h | ≈$140.00/h | sources pricing:RunPod 2026-08-06 → pricing:RunPod 2026-12-01 | 9 |", "## moonshotai/Kimi-K3", "### Verdicts that flipped", "`fit.cheapest_serving`", "24xRTXPRO6000", "pricing:RunPod 2026-12-01", "`cost.8xRTXPRO6000.usd_per_hour`", "$140.00/h"} {
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
				Key  string              `json:"key"`
				Old  struct{ Value any } `json:"old"`
				New  struct{ Value any } `json:"new"`
				Flip bool                `json:"verdict_flip"`
			} `json:"facts"`
		} `json:"changed"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json report does not parse: %v\n%s", err, out)
	}
	flipped := false
	for _, m := range rep.Changed {
		for _, f := range m.Facts {
			if m.Model == "moonshotai/Kimi-K3" && f.Key == "fit.cheapest_serving" && f.Flip && f.Old.Value == "24xRTXPRO6000" && f.New.Value != f.Old.Value {
				flipped = true
			}
		}
	}
	if !flipped {
		t.Errorf("K3's cheapest serving configuration did not flip in the JSON report: %s", out)
	}
}

// gitSite makes a git repository of a fixture site with its build
// committed under public/, as the live repository keeps it.
func gitSite(t *testing.T) string {
	t.Helper()
	root := newSite(t)
	if code, out, errs := run("--source", root, "build"); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, out, errs)
	}
	gitRun(t, root, "init", "-q", "-b", "main")
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-q", "-m", "site")
	return root
}

// gitRun runs git in dir with a fixed identity and fails t on an error.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=dossier test", "-c", "user.email=test@dossier.invalid", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// --base REF reads the facts.json committed at REF and compares them with
// a build of the current inputs.
func TestDiffAgainstGitRef(t *testing.T) {
	root := gitSite(t)
	code, out, errs := run("--source", root, "diff", "--base", "HEAD")
	if code != 0 || !strings.Contains(out, "no changes") {
		t.Fatalf("unchanged inputs: exit %d: %s%s", code, out, errs)
	}
	edit(t, filepath.Join(root, "data/pricing/runpod.yaml"), "usd_per_hour: 14\n", "usd_per_hour: 140\n")
	code, out, errs = run("--source", root, "diff", "--base", "HEAD")
	if code != 0 || !strings.HasPrefix(out, "# Dossier changes") || !strings.Contains(out, "`cost.8xRTXPRO6000.usd_per_hour`") ||
		!strings.Contains(out, "1 input file changed") || !strings.Contains(out, "`data/pricing/runpod.yaml`") {
		t.Fatalf("after a price change: exit %d: %s%s", code, out, errs)
	}
	if code, _, errs := run("--source", root, "diff", "--base", "no-such-ref"); code == 0 || !strings.Contains(errs, "no-such-ref") {
		t.Errorf("unknown ref: exit %d, %s", code, errs)
	}
}

// A changed speed assumption is a changed input: every prediction it feeds
// moves in the diff, and the summary names the site configuration.
func TestDiffReportsAssumptionChange(t *testing.T) {
	root := newSite(t)
	base := buildInto(t, root)
	edit(t, filepath.Join(root, "hugo-like.yaml"), "sizing:\n", "sizing:\n  speed:\n    memoryEfficiency: 0.3\n")
	head := buildInto(t, root)
	code, out, errs := run("--source", root, "diff", "--base", base, "--head", head)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	// Half the memory efficiency halves a memory-bound decode and doubles
	// its cost per token.
	for _, want := range []string{"`speed.assumptions`", "decode roofline at 30% of HBM bandwidth", "site:hugo-like.yaml sizing.speed",
		"| `speed.1xB200.decode_tokens_per_second` | 639 tokens/s | 320 tokens/s |", "| `cost.1xB200.usd_per_million_output_tokens` | $0.93 | $1.86 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// A price-only edit against a git ref: every change cites the price file
// and nothing else, and the kept date is a note.
func TestDiffPriceOnlyCitesThePriceFile(t *testing.T) {
	root := gitSite(t)
	edit(t, filepath.Join(root, "data/pricing/runpod.yaml"), "usd_per_hour: 14\n", "usd_per_hour: 140\n")
	code, out, errs := run("--source", root, "diff", "--base", "HEAD")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	if strings.Contains(out, "hugo-like.yaml") || strings.Contains(out, "hardware.yaml") || strings.Contains(out, "an input behind") {
		t.Errorf("the report cites an input that did not change:\n%s", out)
	}
	for _, want := range []string{"data/pricing/runpod.yaml (pricing:RunPod 2026-08-06)", "- Note: `pricing:RunPod 2026-08-06`: a price changed"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
