package site

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/config"
	"dossier/generator/corrections"
	"dossier/generator/internal/sitetest"
)

// commitAll commits everything under root as of date, with a fixed
// identity so the history is the same on every machine.
func commitAll(t *testing.T, root, date, msg string) string {
	t.Helper()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=dossier test", "-c", "user.email=test@dossier.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date+"T12:00:00Z", "GIT_COMMITTER_DATE="+date+"T12:00:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		git("init", "-q", "-b", "main")
	}
	git("add", "-A")
	git("commit", "-q", "-m", msg)
	return git("rev-parse", "HEAD")
}

// TestCorrectionsLog builds a fixture site in a git repository twice, the
// second time after a price change that flips K3's cheapest serving
// configuration, committing public/ each time as the repository does. The
// next build's K3 page carries the log (golden), and the feed an item for
// the flip.
func TestCorrectionsLog(t *testing.T) {
	root := copySite(t)
	public := filepath.Join(root, "public")
	if _, err := build(t, root, public); err != nil {
		t.Fatal(err)
	}
	first := commitAll(t, root, "2026-08-06", "first build")
	pricing := filepath.Join(root, "data/pricing/runpod.yaml")
	for old, new := range map[string]string{`as_of: "2026-08-06"`: `as_of: "2026-12-01"`, "usd_per_hour: 14\n": "usd_per_hour: 140\n"} {
		b, _ := os.ReadFile(pricing)
		if !strings.Contains(string(b), old) {
			t.Fatalf("%s lacks %q", pricing, old)
		}
		if err := os.WriteFile(pricing, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := build(t, root, public); err != nil {
		t.Fatal(err)
	}
	second := commitAll(t, root, "2026-12-01", "RunPod prices of 2026-12-01")

	cfg, err := config.Load(root, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	log := s.corrections["kimi-k3"]
	if len(log) != 2 || log[0].Commit != second || log[1].Commit != first || !log[1].First {
		t.Fatalf("K3 log %+v: want the price change over the first version", log)
	}
	// The price is the cause; figures new with the new cheapest layout
	// (its speed and $/M tokens) cite the catalog and settings as well.
	if !log[0].Flipped() || len(log[0].Why) == 0 || log[0].Why[0] != corrections.WhyPrice {
		t.Errorf("K3 log entry %+v: want a verdict flipped by a price", log[0])
	}
	md := corrections.Markdown(log, nil)
	md = strings.ReplaceAll(strings.ReplaceAll(md, second[:7], "SECOND"), first[:7], "FIRST")
	golden := filepath.Join("testdata", "kimi-k3.corrections.md")
	if *update {
		if err := os.WriteFile(golden, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if want, err := os.ReadFile(golden); err != nil || string(want) != md {
		t.Errorf("%s differs (%v); run with -update if the change is intended.\n%s", golden, err, sitetest.FirstDiff(string(want), md))
	}

	dest := filepath.Join(t.TempDir(), "public")
	if _, err := Build(s, Options{Destination: dest}); err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(filepath.Join(dest, "models/kimi-k3/index.html"))
	if !strings.Contains(string(html), "Corrections") || !strings.Contains(string(html), "24xRTXPRO6000 → ") {
		t.Error("the K3 page does not show its corrections log")
	}
	if md, _ := os.ReadFile(filepath.Join(dest, "models/kimi-k3/index.md")); strings.Contains(string(md), "Corrections") {
		t.Error("the committed Markdown carries the log, which would change with every commit of itself")
	}
	feed := readRSS(t, dest)
	var flips int
	for _, it := range feed.Items {
		if it.GUID == "dossier:moonshotai/Kimi-K3:correction@"+second {
			flips++
			if !strings.Contains(it.Title, "verdict changed (price") || !strings.Contains(it.Date, "01 Dec 2026") {
				t.Errorf("feed item %+v", it)
			}
		}
	}
	if flips != 1 {
		t.Errorf("%d feed items for K3's flip, want 1", flips)
	}
}
