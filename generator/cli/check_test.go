package cli

import (
	"bytes"
	"dossier/generator/internal/sitetest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newSite copies the frozen fixture site (testdata/site at the repository
// root) into a temporary root: tests assert numbers on it, never on the
// live content/ and data/.
func newSite(t *testing.T) string { return sitetest.Fixture(t, nil) }

// fixtureSite is the fixture site itself, for commands that only read it
// (plan reads the configuration and catalogs, not the templates).
const fixtureSite = "../../testdata/site"

func edit(t *testing.T, path, old, new string) { sitetest.Edit(t, path, old, new) }

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Execute(args, &out, &errb)
	return code, out.String(), errb.String()
}

// The live site must pass its own checks: this and "committed outputs are
// current" are the only tests that read the live content/ and data/.
func TestCheckShippedSiteIsClean(t *testing.T) {
	code, out, errs := run("--source", sitetest.RepoRoot(t), "check", "--strict")
	if code != 0 {
		t.Fatalf("dossier check --strict on the shipped site: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "0 error(s), 0 warning(s)") {
		t.Errorf("output %q", out)
	}
}

// Each fixture breaks one rule; check must exit 1 and name the file and
// line of what is wrong.
func TestCheckFailsOnEachRule(t *testing.T) {
	const k3 = "content/models/kimi-k3.md"
	cases := []struct {
		name, file, old, new string
		want                 string
	}{
		{"claim without evidence", k3, "    evidence: [measurement:aa-speed, measurement:aa-speed-median, measurement:aa-ttft]\n", "",
			"error: claim faster-inference: no evidence and no check"},
		{"contradicted verdict", k3, "      - {fact: bytes.checkpoint, expect: 1400e9, tolerance: 0.01}\n", "      - {fact: bytes.checkpoint, expect: 1400e9, tolerance: 0.01}\n    verdict: supported\n",
			`error: claim size-1400: hand-written verdict "supported" contradicts the computed verdict "refuted"`},
		{"measurement without configuration", k3, `    configuration: {model: "a nano model on K3's architecture", hardware: "Nangate 45 nm open cell library, 100 MHz, 4 mm², not fabricated", setting: "in simulation"}` + "\n", "",
			"error: measurement chip-demo: no configuration"},
		{"measurement without date", k3, "    accessed: \"2026-08-06\"\n    kind: community\n", "    kind: community\n",
			"error: measurement airllm-stream: no date"},
		{"stale data", "hugo-like.yaml", "maxAgeDays: 0 ", "maxAgeDays: 30\n  today: \"2026-12-02\" ",
			"error: price list RunPod is 118 days old"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := newSite(t)
			edit(t, filepath.Join(root, tc.file), tc.old, tc.new)
			code, out, errs := run("--source", root, "check")
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s%s", code, out, errs)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, out)
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if strings.Contains(line, "error:") && !strings.Contains(strings.SplitN(line, ": ", 2)[0], ":") {
					t.Errorf("line %q is not file:line: ...", line)
				}
			}
		})
	}
}

func TestProseTellsWarnUnlessStrict(t *testing.T) {
	root := newSite(t)
	edit(t, filepath.Join(root, "content/models/kimi-k3.md"), "Two sparsity figures", "A successor is coming soon.\n\nTwo sparsity figures")
	code, out, _ := run("--source", root, "check")
	if code != 0 || !strings.Contains(out, "warning: tell 6") {
		t.Fatalf("without --strict: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "content/models/kimi-k3.md:") {
		t.Errorf("warning does not name the file: %s", out)
	}
	code, out, _ = run("--source", root, "check", "--strict")
	if code != 1 || !strings.Contains(out, "error: tell 6") {
		t.Fatalf("with --strict: exit %d\n%s", code, out)
	}
}

func TestBuildRefusesContradictedVerdict(t *testing.T) {
	root := newSite(t)
	edit(t, filepath.Join(root, "content/models/kimi-k3.md"), "      - {fact: fit.8xB200.at_rest, expect: true}\n", "      - {fact: fit.8xB200.at_rest, expect: true}\n    verdict: supported\n")
	code, _, errs := run("--source", root, "build")
	if code == 0 || !strings.Contains(errs, "kimi-k3.md:") || !strings.Contains(errs, "contradicts the computed verdict") {
		t.Fatalf("build exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(root, "public")); !os.IsNotExist(err) {
		t.Error("a failed build created public/")
	}
}

// A price edited while its list kept its date is a warning in check,
// whether the edit is in the working tree or already committed (a pull
// request), until the date moves with it.
func TestCheckWarnsOnPriceWithKeptDate(t *testing.T) {
	root := gitSite(t)
	pricing := filepath.Join(root, "data/pricing/runpod.yaml")
	const want = "data/pricing/runpod.yaml:16: warning: price of 8xRTXPRO6000 (RunPod) changed from $14/h to $140/h but its date stayed 2026-08-06: set as_of to the day the new price was read"
	if _, out, _ := run("--source", root, "check"); strings.Contains(out, "changed from") {
		t.Fatalf("unedited prices flagged:\n%s", out)
	}
	edit(t, pricing, "usd_per_hour: 14\n", "usd_per_hour: 140\n")
	code, out, errs := run("--source", root, "check")
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("uncommitted edit: exit %d, want the warning %q:\n%s%s", code, want, out, errs)
	}
	gitRun(t, root, "commit", "-q", "-am", "price")
	if _, out, _ = run("--source", root, "check"); !strings.Contains(out, want) {
		t.Errorf("committed edit: want the warning %q:\n%s", want, out)
	}
	edit(t, pricing, `as_of: "2026-08-06"`, `as_of: "2026-12-01"`)
	if _, out, _ = run("--source", root, "check"); strings.Contains(out, "changed from") {
		t.Errorf("a new date still flagged:\n%s", out)
	}
}

// A web source without an archived copy, a hash or a reason is a warning
// naming its line; the model's own Hub repository is pinned by the
// snapshot and exempt.
func TestCheckWarnsOnUnarchivedWebSource(t *testing.T) {
	root := newSite(t)
	const want = "content/models/kimi-k3.md:210: warning: field sources[6]: aa-k3 is read on the web but has no archived copy"
	code, out, errs := run("--source", root, "check")
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("exit %d, want %q:\n%s%s", code, want, out, errs)
	}
	if strings.Contains(out, "hf-repo is read on the web") {
		t.Errorf("the model's Hub repository is flagged:\n%s", out)
	}
	k3 := filepath.Join(root, "content/models/kimi-k3.md")
	edit(t, k3, "    url: \"https://artificialanalysis.ai/models/kimi-k3\"\n", "    url: \"https://artificialanalysis.ai/models/kimi-k3\"\n    sha256: \"0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0\"\n")
	edit(t, k3, "    url: \"https://lmarena.ai/leaderboard/text\"\n", "    url: \"https://lmarena.ai/leaderboard/text\"\n    unarchived: \"a leaderboard that changes daily; no copy was kept\"\n")
	if _, out, _ = run("--source", root, "check"); strings.Contains(out, "aa-k3 is read on the web") || strings.Contains(out, "lmarena-text is read on the web") {
		t.Errorf("a hashed or explained source still flagged:\n%s", out)
	}
}
