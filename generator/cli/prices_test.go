package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/pricing/pricingtest"
)

// pricesSite copies the fixture site testdata/pricesite to a temp root.
func pricesSite(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/pricesite")); err != nil {
		t.Fatal(err)
	}
	return root
}

// tree hashes every file under root, to tell whether a command wrote one.
func tree(t *testing.T, root string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func planFacts(t *testing.T, root string) map[string]struct {
	Value      any    `json:"value"`
	Derivation string `json:"derivation"`
	Sources    []string
} {
	t.Helper()
	code, out, errs := run("--source", root, "plan", "--config", filepath.Join(root, "config.json"), "--json")
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	var doc struct {
		Facts map[string]struct {
			Value      any    `json:"value"`
			Derivation string `json:"derivation"`
			Sources    []string
		} `json:"facts"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Facts
}

// The acceptance test of issue 18: the ND96isr H100 v5 Linux on-demand
// meter, synced through the CLI from a fake Azure API, is what
// cost.8xH100.usd_per_hour.azure says, and a second sync writes nothing.
func TestPricesSyncAzureGivesTheMeterPrice(t *testing.T) {
	root := pricesSite(t)
	srv := pricingtest.New(t)
	linux := pricingtest.AzureVM("Standard_ND96isr_H100_v5", "eastus", 98.32)
	srv.AzureItems = []pricingtest.AzureItem{
		pricingtest.Windows(linux, 102.736),
		pricingtest.Spot(linux, "Spot", 18.169536),
		linux,
		pricingtest.Spot(linux, "Low Priority", 41.094),
	}
	t.Setenv("DOSSIER_PRICING_AZURE_ENDPOINT", srv.Endpoint(pricingtest.Azure))

	before := tree(t, root)
	code, out, errs := run("--source", root, "prices", "sync", "azure")
	if code != 0 || !strings.Contains(out, "azure: wrote data/pricing/azure.json (1 prices") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	f := planFacts(t, root)
	got := f["cost.8xH100.usd_per_hour.azure"]
	if got.Value != 98.32 || !strings.Contains(got.Derivation, "Standard_ND96isr_H100_v5, eastus") {
		t.Errorf("cost.8xH100.usd_per_hour.azure = %v (%s), want the Linux meter's 98.32", got.Value, got.Derivation)
	}
	if c := f["cost.8xH100.usd_per_hour"]; c.Value != 98.32 || !strings.Contains(c.Derivation, "(Azure") {
		t.Errorf("cost.8xH100.usd_per_hour = %v (%s), want Azure named", c.Value, c.Derivation)
	}

	after := tree(t, root)
	if len(after) != len(before)+1 {
		t.Errorf("first sync wrote %d files, want only azure.json", len(after)-len(before))
	}
	code, out, errs = run("--source", root, "prices", "sync", "azure")
	if code != 0 || !strings.Contains(out, "unchanged") {
		t.Fatalf("second sync: exit %d\n%s%s", code, out, errs)
	}
	again := tree(t, root)
	for p, h := range after {
		if again[p] != h {
			t.Errorf("second sync with unchanged prices changed %s", p)
		}
	}
	if len(again) != len(after) {
		t.Errorf("second sync added files")
	}
}

func TestPricesSyncFailureExitsAndKeepsFiles(t *testing.T) {
	root := pricesSite(t)
	srv := pricingtest.New(t)
	srv.Fail(pricingtest.Azure, pricingtest.Fault{Status: 403, Body: "forbidden"})
	t.Setenv("DOSSIER_PRICING_AZURE_ENDPOINT", srv.Endpoint(pricingtest.Azure))
	before := tree(t, root)
	code, _, errs := run("--source", root, "prices", "sync", "azure")
	if code == 0 || !strings.Contains(errs, "azure: GET ") || !strings.Contains(errs, "HTTP 403") || !strings.Contains(errs, "1 of 1 provider(s) failed") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if after := tree(t, root); len(after) != len(before) {
		t.Error("a failed sync wrote a file")
	}
	if code, _, errs := run("--source", root, "prices", "sync", "gcp"); code != 2 || !strings.Contains(errs, `unknown provider "gcp"`) {
		t.Errorf("unknown provider: exit %d, %q", code, errs)
	}
}

// The RunPod key appears nowhere: not on stdout or stderr, whether the
// sync fails (a server that echoes it) or succeeds, and in no file.
func TestPricesSyncNeverShowsTheRunPodKey(t *testing.T) {
	const key = "rpa_TOPSECRET9876543210"
	for _, serverKey := range []string{"rpa_OTHERKEY", key} {
		root := pricesSite(t)
		srv := pricingtest.New(t)
		srv.RunPodKey = serverKey
		srv.RunPodGPUs = []pricingtest.RunPodGPU{
			{ID: "NVIDIA H100 80GB HBM3", SecureCloud: true, SecurePrice: pricingtest.Price(2.69)},
			{ID: "NVIDIA GeForce RTX 4090", CommunityCloud: true, CommunityPrice: pricingtest.Price(0.34)},
		}
		t.Setenv("DOSSIER_PRICING_RUNPOD_ENDPOINT", srv.Endpoint(pricingtest.RunPod))
		t.Setenv("RUNPOD_API_KEY", key)
		code, out, errs := run("--source", root, "prices", "sync", "runpod")
		if (code == 0) != (serverKey == key) {
			t.Errorf("server key %s: exit %d\n%s%s", serverKey, code, out, errs)
		}
		if strings.Contains(out+errs, key) {
			t.Errorf("the key is in the output:\n%s%s", out, errs)
		}
		if serverKey == key && !strings.Contains(out, "note: runpod.json: RTX4090 (NVIDIA GeForce RTX 4090) is not in hardware.yaml") {
			t.Errorf("the report does not say RTX4090 gives no cost facts:\n%s", out)
		}
		for p := range tree(t, root) {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(key)) {
				t.Errorf("the key is in %s", p)
			}
		}
	}
}

// An entry of a hand capture dated apart from its snapshot is held to the
// freshness limit on its own date.
func TestCheckDatesEachCapturedPrice(t *testing.T) {
	root := newSite(t)
	snap := `{"provider": "lambda", "name": "Lambda", "fetched": "2026-11-30", "endpoint": "https://lambda.ai/pricing", "method": "hand capture", "scope": "on-demand",
  "prices": [{"sku": "1x B200 SXM6", "accelerator": "B200", "gpus": 1, "usd_per_hour": 6.99, "usd_per_gpu_hour": 6.99, "currency": "USD", "source": "an older page", "as_of": "2026-09-25"}]}
`
	must(t, os.WriteFile(filepath.Join(root, "data", "pricing", "lambda.json"), []byte(snap), 0o644))
	edit(t, filepath.Join(root, "hugo-like.yaml"), "maxAgeDays: 0 ", "maxAgeDays: 30\n  today: \"2026-12-02\" ")
	_, out, _ := run("--source", root, "check")
	if !strings.Contains(out, "data/pricing/lambda.json:1: error: price of 1x B200 SXM6 (Lambda) is 68 days old (as of 2026-09-25)") {
		t.Errorf("output lacks the stale entry:\n%s", out)
	}
	if strings.Contains(out, "price list Lambda is") {
		t.Errorf("the list itself (2026-11-30) is fresh:\n%s", out)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
