package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"dossier/generator/catalog"
	"dossier/generator/internal/sitetest"
)

// TestDataPullRequestPasses is what a routine data pull request does to the
// live site: a price moves and a model is added (a copied snapshot under a
// new id with its page), then `dossier build`. The live-site checks must
// pass without any Go change: `dossier check --strict` is clean, the
// committed outputs are current, and the diff names both changes. The
// edits are found in the live files rather than hard-coded, so the test
// keeps working as the data changes.
func TestDataPullRequestPasses(t *testing.T) {
	root := sitetest.Live(t)
	before := buildInto(t, root)

	pricing := changeFirstPrice(t, root)
	added := addCopiedModel(t, root)

	if code, out, errs := run("--source", root, "build"); code != 0 {
		t.Fatalf("dossier build: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run("--source", root, "check", "--strict"); code != 0 || !strings.Contains(out, "0 error(s), 0 warning(s)") {
		t.Fatalf("dossier check --strict after the data change: exit %d\n%s%s", code, out, errs)
	}
	// "Committed outputs are current": a fresh build equals what the
	// pull request commits under public/.
	for _, line := range sitetest.StaleOutputs(t, buildInto(t, root), filepath.Join(root, "public")) {
		t.Error(line)
	}
	code, out, errs := run("--source", root, "diff", "--base", before, "--head", filepath.Join(root, "public"))
	if code != 0 {
		t.Fatalf("dossier diff: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{added, "pricing:"} {
		if !strings.Contains(out, want) {
			t.Errorf("the diff after changing %s and adding %s lacks %q:\n%s", pricing, added, want, out)
		}
	}
}

var (
	priceRe = regexp.MustCompile(`(?m)^(\s*-?\s*usd_per_(?:gpu_)?hour:\s*)([0-9.]+)\s*$`)
	// a snapshot entry states both prices; both move together
	snapPriceRe = regexp.MustCompile(`"usd_per_hour": ([0-9.]+),\s*"usd_per_gpu_hour": ([0-9.]+),`)
)

// changeFirstPrice lowers the first hourly price of the first price list
// (a snapshot, else a hand-written list) by a quarter and returns the file
// it changed.
func changeFirstPrice(t *testing.T, root string) string {
	t.Helper()
	// In a snapshot, the first price the build uses: one for an
	// accelerator the hardware catalog describes.
	cat, err := catalog.Load(filepath.Join(root, "data"))
	if err != nil {
		t.Fatal(err)
	}
	// Only a price for a configuration the site shows in full is sure to
	// move a fact (every other layout shows the cheapest provider only).
	site, err := os.ReadFile(filepath.Join(root, "hugo-like.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pl := range cat.PriceLists {
		if !strings.HasSuffix(pl.File, ".json") || len(pl.Prices) == 0 {
			continue
		}
		first := -1
		for i, pr := range pl.Prices {
			if pr.GPUs > 0 && bytes.Contains(site, []byte(fmt.Sprintf("- %dx%s\n", pr.GPUs, pr.Accelerator))) {
				first = i
				break
			}
		}
		if first < 0 {
			continue
		}
		p := pl.File
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		at := bytes.Index(b, []byte(`"sku": `+strconv.Quote(pl.Prices[first].SKU)))
		m := snapPriceRe.FindSubmatch(b[max(at, 0):])
		if at < 0 || m == nil {
			t.Fatalf("%s: no prices after SKU %q", p, pl.Prices[first].SKU)
		}
		inst, err1 := strconv.ParseFloat(string(m[1]), 64)
		gpu, err2 := strconv.ParseFloat(string(m[2]), 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: unparsable price in %q", p, m[0])
		}
		sitetest.Edit(t, p, string(m[0]), `"usd_per_hour": `+strconv.FormatFloat(inst*0.75, 'f', 2, 64)+`, "usd_per_gpu_hour": `+strconv.FormatFloat(gpu*0.75, 'f', 2, 64)+`,`)
		return filepath.Base(p)
	}
	lists, _ := filepath.Glob(filepath.Join(root, "data", "pricing", "*.yaml"))
	sort.Strings(lists)
	for _, p := range lists {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m := priceRe.FindSubmatch(b)
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(string(m[2]), 64)
		if err != nil {
			t.Fatal(err)
		}
		sitetest.Edit(t, p, string(m[0]), string(m[1])+strconv.FormatFloat(v*0.75, 'f', 2, 64))
		return filepath.Base(p)
	}
	t.Fatalf("no usd_per_hour or usd_per_gpu_hour under %s/data/pricing: update this test to the price format", root)
	return ""
}

var modelLineRe = regexp.MustCompile(`(?m)^model:\s*"?([^"\s]+)"?\s*$`)

// addCopiedModel copies the first published page and its snapshot under a
// new Hub id and returns the id.
func addCopiedModel(t *testing.T, root string) string {
	t.Helper()
	pages, _ := filepath.Glob(filepath.Join(root, "content", "models", "*.md"))
	sort.Strings(pages)
	for _, p := range pages {
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m := modelLineRe.FindSubmatch(page)
		if m == nil || regexp.MustCompile(`(?m)^draft:\s*true`).Match(page) {
			continue
		}
		id := string(m[1])
		snap, err := os.ReadFile(filepath.Join(root, "data", "hub", filepath.FromSlash(id), "snapshot.json"))
		if err != nil {
			continue
		}
		newID := "dossier-test/" + id[strings.Index(id, "/")+1:] + "-copy"
		snap = []byte(strings.Replace(string(snap), `"model": "`+id+`"`, `"model": "`+newID+`"`, 1))
		dir := filepath.Join(root, "data", "hub", filepath.FromSlash(newID))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "snapshot.json"), snap, 0o644); err != nil {
			t.Fatal(err)
		}
		page = modelLineRe.ReplaceAll(page, []byte("model: "+newID))
		page = regexp.MustCompile(`(?m)^title:\s*"?(.*?)"?\s*$`).ReplaceAll(page, []byte(`title: "$1 (copy)"`))
		slug := strings.TrimSuffix(filepath.Base(p), ".md") + "-copy"
		if err := os.WriteFile(filepath.Join(root, "content", "models", slug+".md"), page, 0o644); err != nil {
			t.Fatal(err)
		}
		return newID
	}
	t.Fatalf("no published page with a snapshot under %s/content/models", root)
	return ""
}
