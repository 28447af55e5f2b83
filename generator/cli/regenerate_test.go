package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/hub/hubtest"
	"dossier/generator/internal/sitetest"
	"dossier/generator/pricing/pricingtest"
)

// priceFake serves one GPU on each fake price API and maps them in root's
// data/pricing/skus.yaml, so the prices step writes three snapshots.
func priceFake(t *testing.T, root string) *pricingtest.Server {
	t.Helper()
	srv := pricingtest.New(t)
	srv.AzureItems = []pricingtest.AzureItem{pricingtest.AzureVM("Standard_ND96isr_H200_v5", "eastus", 110.0)}
	srv.RunPodKey = "rp-test-key"
	srv.RunPodGPUs = []pricingtest.RunPodGPU{{ID: "NVIDIA B200", DisplayName: "B200", MemoryInGb: 180, SecureCloud: true, SecurePrice: pricingtest.Price(4.49)}}
	srv.VastOffers = []pricingtest.VastOffer{{ID: 1, GPUName: "B200", NumGPUs: 1, GPURAM: 183000, DPHTotal: 5.10, Reliability2: 0.99, Rentable: true, Verified: true, Geolocation: "US"}}
	skus := `providers:
  azure:
    - {sku: Standard_ND96isr_H200_v5, accelerator: H200, gpus: 8, source: "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/nd-h200-v5-series"}
  runpod:
    - {sku: "NVIDIA B200", accelerator: B200, gpus: 1, source: "https://docs.runpod.io/references/gpu-types"}
  vastai:
    - {sku: "B200", accelerator: B200, gpus: 1, source: "https://vast.ai/pricing"}
`
	if err := os.WriteFile(filepath.Join(root, "data", "pricing", "skus.yaml"), []byte(skus), 0o644); err != nil {
		t.Fatal(err)
	}
	return srv
}

// asDossier makes the test binary the dossier command when a script runs
// it with this variable set, so scripts/regenerate can be tested without
// building a binary.
const asDossier = "DOSSIER_TEST_BINARY_IS_DOSSIER"

func TestMain(m *testing.M) {
	if os.Getenv(asDossier) == "1" {
		os.Exit(Execute(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestRegenerateScript runs scripts/regenerate, the steps of the
// regenerate workflow, on a fixture site in a git repository against the
// fake Hub, where a tracked model has a newer commit and a watched
// organisation a new model, and the fake price APIs. The branch it commits
// must hold the updated snapshot, the new snapshot and draft, the price
// snapshots, the rebuilt outputs, and the body must be the diff report
// naming them; a second run commits nothing.
func TestRegenerateScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	// One shipped model keeps the builds quick; the repository's
	// .gitignore keeps HTML out of the commits, as in the repository.
	root := sitetest.Fixture(t, func(rel string) bool { return rel == "content/models/llama-3-1-8b.md" })
	ignore, err := os.ReadFile(filepath.Join(sitetest.RepoRoot(t), ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), ignore, 0o644); err != nil {
		t.Fatal(err)
	}
	v1, v2 := hubtest.SHAFor("tiny 1L v1"), hubtest.SHAFor("tiny 1L v2")
	srv := newHub(t, root,
		newTinyLlama(t, newTracked, v1, 1, 2048, "2026-10-01T00:00:00.000Z"),
		newTinyLlama(t, newArrival, hubtest.SHAFor("tiny 2L"), 2, 4096, "2026-11-20T09:30:00.000Z"))
	edit(t, filepath.Join(root, "hugo-like.yaml"), "watchOrgs: []", "watchOrgs: ["+newOrg+"]")
	prices := priceFake(t, root)
	if code, out, errs := run("--source", root, "new", newTracked); code != 0 {
		t.Fatalf("new: exit %d\n%s%s", code, out, errs)
	}
	edit(t, filepath.Join(root, "content/models/tiny-llama-1l.md"), "draft: true", "draft: false")
	if code, out, errs := run("--source", root, "build"); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, out, errs)
	}
	gitRun(t, root, "init", "-q", "-b", "main")
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-q", "-m", "the site as of v1")
	if err := srv.SetRepo(newTinyLlama(t, newTracked, v2, 1, 8192, "2026-10-01T00:00:00.000Z")); err != nil {
		t.Fatal(err)
	}

	script := filepath.Join(sitetest.RepoRoot(t), "scripts", "regenerate")
	body := filepath.Join(t.TempDir(), "body.md")
	regenerate := func() string {
		t.Helper()
		cmd := exec.Command("bash", script, "--base", "main", "--branch", "regenerate/auto", "--body", body)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), asDossier+"=1", "DOSSIER="+os.Args[0], "RUNPOD_API_KEY="+prices.RunPodKey,
			"DOSSIER_PRICING_AZURE_ENDPOINT="+prices.Endpoint(pricingtest.Azure),
			"DOSSIER_PRICING_RUNPOD_ENDPOINT="+prices.Endpoint(pricingtest.RunPod),
			"DOSSIER_PRICING_VASTAI_ENDPOINT="+prices.Endpoint(pricingtest.Vast),
			"GIT_AUTHOR_NAME=dossier test", "GIT_AUTHOR_EMAIL=test@dossier.invalid",
			"GIT_COMMITTER_NAME=dossier test", "GIT_COMMITTER_EMAIL=test@dossier.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("scripts/regenerate: %v\n%s", err, out)
		}
		return string(out)
	}

	out := regenerate()
	if branch := strings.TrimSpace(gitRun(t, root, "branch", "--show-current")); branch != "regenerate/auto" {
		t.Errorf("on branch %q after the script\n%s", branch, out)
	}
	if n := strings.TrimSpace(gitRun(t, root, "rev-list", "--count", "main..regenerate/auto")); n != "1" {
		t.Errorf("%s commits on the branch, want 1", n)
	}
	changed := gitRun(t, root, "diff", "--name-status", "main", "regenerate/auto")
	for _, want := range []string{
		"M\tdata/hub/" + newTracked + "/snapshot.json",
		"A\tdata/hub/" + newArrival + "/snapshot.json",
		"A\t" + newDraft,
		"M\tpublic/models/tiny-llama-1l/facts.json",
		"M\tpublic/models/tiny-llama-1l/index.md",
		"A\tdata/pricing/azure.json",
		"A\tdata/pricing/runpod.json",
		"A\tdata/pricing/vastai.json",
	} {
		if !strings.Contains(changed, want+"\n") {
			t.Errorf("the branch lacks %q:\n%s", want, changed)
		}
	}
	if status := gitRun(t, root, "status", "--porcelain"); status != "" {
		t.Errorf("files left uncommitted:\n%s", status)
	}
	b, err := os.ReadFile(body)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Dossier changes",
		"`data/hub/" + newTracked + "/snapshot.json`",
		"`" + newDraft + "`",
		"## " + newTracked,
		"Snapshot revision " + v1[:7] + " → " + v2[:7],
		"`arch.context`",
		"`data/pricing/runpod.json`",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the body lacks %q:\n%s", want, b)
		}
	}

	if out := regenerate(); !strings.Contains(out, "nothing changed: no commit") {
		t.Errorf("a second run with nothing new:\n%s", out)
	}
	if n := strings.TrimSpace(gitRun(t, root, "rev-list", "--count", "main..regenerate/auto")); n != "1" {
		t.Errorf("%s commits on the branch after the second run, want 1", n)
	}
}
