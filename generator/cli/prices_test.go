package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
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

func TestChangedPriceFiles(t *testing.T) {
	top := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", top, "-c", "user.email=t@example.org", "-c", "user.name=t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	dir := filepath.Join(top, "data", "pricing")
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "azure.json"), []byte("{}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "skus.yaml"), []byte("providers: {}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(top, "other.txt"), []byte("x\n"), 0o644))
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "base")
	must(t, os.WriteFile(filepath.Join(dir, "azure.json"), []byte("{\"a\":1}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "vastai.json"), []byte("{}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(top, "other.txt"), []byte("y\n"), 0o644))
	got, err := changedPriceFiles(top, "HEAD", dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "M data/pricing/azure.json,A data/pricing/vastai.json" {
		t.Errorf("changed = %v", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
