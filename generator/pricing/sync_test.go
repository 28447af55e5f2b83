package pricing_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dossier/generator/pricing"
	"dossier/generator/pricing/pricingtest"
)

const h100 = "Standard_ND96isr_H100_v5"

// site is a data directory holding the test SKU map.
func site(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile("testdata/skus.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "pricing"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pricing.SKUPath(dir), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// azureFake serves the H100 VM's four eastus meters (Linux, Windows, Spot,
// Low Priority), another region's Linux meter and an H200 VM, paged two
// items at a time.
func azureFake(t *testing.T) *pricingtest.Server {
	srv := pricingtest.New(t)
	linux := pricingtest.AzureVM(h100, "eastus", 98.32)
	srv.AzureItems = []pricingtest.AzureItem{
		pricingtest.Windows(linux, 102.736),
		pricingtest.Spot(linux, "Spot", 18.169536),
		pricingtest.Spot(pricingtest.Windows(linux, 0), "Low Priority", 41.094),
		pricingtest.AzureVM(h100, "westeurope", 132.0),
		linux,
		pricingtest.AzureVM("Standard_ND96isr_H200_v5", "eastus", 110.0),
	}
	return srv
}

type waits struct{ d []time.Duration }

func (w *waits) sleep(_ context.Context, d time.Duration) error { w.d = append(w.d, d); return nil }

func opts(srv *pricingtest.Server, w *waits, env map[string]string) pricing.Options {
	e := map[string]string{
		"DOSSIER_PRICING_AZURE_ENDPOINT":  srv.Endpoint(pricingtest.Azure),
		"DOSSIER_PRICING_RUNPOD_ENDPOINT": srv.Endpoint(pricingtest.RunPod),
		"DOSSIER_PRICING_VASTAI_ENDPOINT": srv.Endpoint(pricingtest.Vast),
	}
	for k, v := range env {
		e[k] = v
	}
	if w == nil {
		w = &waits{}
	}
	return pricing.Options{
		Env:  func(k string) string { return e[k] },
		HTTP: pricing.Config{Sleep: w.sleep},
		Now:  func() time.Time { return time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC) },
	}
}

func TestAzureKeepsLinuxOnDemandAcrossPages(t *testing.T) {
	srv := azureFake(t)
	dir := site(t)
	rs, err := pricing.Sync(context.Background(), dir, []string{"azure"}, opts(srv, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests(pricingtest.Azure)); n != 3 {
		t.Errorf("requests = %d, want 3 (five eastus meters, two per page)", n)
	}
	snap, err := pricing.Read(pricing.Path(dir, "azure"))
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Prices) != 2 {
		t.Fatalf("prices = %+v, want the H100 and H200 Linux meters", snap.Prices)
	}
	p := snap.Prices[0]
	if p.SKU != h100 || p.USDPerHour != 98.32 || p.GPUs != 8 || p.USDPerGPU != 98.32/8 || p.Region != "eastus" || p.Accelerator != "H100" {
		t.Errorf("H100 price = %+v, want the Linux on-demand meter 98.32 for 8 GPUs in eastus", p)
	}
	if !strings.Contains(snap.Scope, "eastus") || !strings.Contains(snap.Scope, "Windows, Spot and Low Priority meters excluded") {
		t.Errorf("scope = %q", snap.Scope)
	}
	if !rs[0].Wrote || len(rs[0].Changes) != 2 {
		t.Errorf("result = %+v", rs[0])
	}
	filter := srv.Requests(pricingtest.Azure)[0].URL.Query().Get("$filter")
	for _, want := range []string{"serviceName eq 'Virtual Machines'", "armSkuName eq '" + h100 + "'", "armRegionName eq 'eastus'"} {
		if !strings.Contains(filter, want) {
			t.Errorf("$filter %q lacks %q", filter, want)
		}
	}
}

func TestUnchangedPricesWriteNothing(t *testing.T) {
	srv := azureFake(t)
	dir := site(t)
	o := opts(srv, nil, nil)
	if _, err := pricing.Sync(context.Background(), dir, []string{"azure"}, o); err != nil {
		t.Fatal(err)
	}
	path := pricing.Path(dir, "azure")
	before, _ := os.ReadFile(path)
	st1, _ := os.Stat(path)
	o.Now = func() time.Time { return time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC) }
	rs, err := pricing.Sync(context.Background(), dir, []string{"azure"}, o)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	st2, _ := os.Stat(path)
	if rs[0].Wrote || !bytes.Equal(before, after) || !st1.ModTime().Equal(st2.ModTime()) {
		t.Errorf("second sync with the same prices rewrote %s: %+v", path, rs[0])
	}
}

func TestRetriesHonourRetryAfter(t *testing.T) {
	srv := azureFake(t)
	srv.Fail(pricingtest.Azure, pricingtest.Fault{Status: 429, RetryAfter: "7"}, pricingtest.Fault{Status: 503}, pricingtest.Fault{Status: 502})
	w := &waits{}
	if _, err := pricing.Sync(context.Background(), site(t), []string{"azure"}, opts(srv, w, nil)); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{7 * time.Second, 2 * time.Second, 4 * time.Second}
	if len(w.d) != 3 || w.d[0] != want[0] || w.d[1] != want[1] || w.d[2] != want[2] {
		t.Errorf("waits = %v, want %v (Retry-After, then backoff)", w.d, want)
	}
}

// writePrevious syncs once so a snapshot exists, and returns its bytes.
func writePrevious(t *testing.T, dir string) []byte {
	t.Helper()
	srv := azureFake(t)
	if _, err := pricing.Sync(context.Background(), dir, []string{"azure"}, opts(srv, nil, nil)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pricing.Path(dir, "azure"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFailuresKeepTheOldSnapshot(t *testing.T) {
	cases := []struct {
		name  string
		setup func(*pricingtest.Server)
		want  []string
	}{
		{"not found", func(s *pricingtest.Server) {
			s.Fail(pricingtest.Azure, pricingtest.Fault{Status: 404, Body: `{"Error":{"Message":"gone"}}`})
		},
			[]string{"azure: GET ", "/api/retail/prices?$filter=serviceName eq 'Virtual Machines'", "HTTP 404", "gone"}},
		{"server errors until the tries run out", func(s *pricingtest.Server) {
			for range 5 {
				s.Fail(pricingtest.Azure, pricingtest.Fault{Status: 500})
			}
		}, []string{"azure: GET ", "HTTP 500", "gave up after 5 tries"}},
		{"Retry-After beyond the longest wait", func(s *pricingtest.Server) {
			s.Fail(pricingtest.Azure, pricingtest.Fault{Status: 429, RetryAfter: "86400"})
		},
			[]string{"HTTP 429"}},
		{"non-USD currency", func(s *pricingtest.Server) {
			for i := range s.AzureItems {
				s.AzureItems[i].CurrencyCode = "EUR"
			}
		}, []string{"azure", h100, `"EUR"`, "expected USD"}},
		{"zero price", func(s *pricingtest.Server) { s.AzureItems[4].RetailPrice = 0 }, []string{"azure", h100, "expected a positive number"}},
		{"negative price", func(s *pricingtest.Server) { s.AzureItems[4].RetailPrice = -98.32 }, []string{"expected a positive number"}},
		{"100× jump", func(s *pricingtest.Server) { s.AzureItems[4].RetailPrice = 98.32 * 100 }, []string{"azure", h100, "move of 100× or more", "refusing to publish"}},
		{"100× drop", func(s *pricingtest.Server) { s.AzureItems[4].RetailPrice = 0.9832 }, []string{"move of 100× or more"}},
		{"two Linux meters", func(s *pricingtest.Server) { s.AzureItems = append(s.AzureItems, s.AzureItems[4]) }, []string{"2 Linux on-demand meters", "expected one"}},
		{"shape changed", func(s *pricingtest.Server) { s.AzureItems = nil; s.AzurePageSize = 0 }, []string{"no mapped SKU priced"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := site(t)
			old := writePrevious(t, dir)
			srv := azureFake(t)
			tc.setup(srv)
			_, err := pricing.Sync(context.Background(), dir, []string{"azure"}, opts(srv, nil, nil))
			if err == nil {
				t.Fatal("sync succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if now, _ := os.ReadFile(pricing.Path(dir, "azure")); !bytes.Equal(now, old) {
				t.Error("the old snapshot was changed")
			}
		})
	}
}

func TestEndpointVariableIsChecked(t *testing.T) {
	srv := azureFake(t)
	_, err := pricing.Sync(context.Background(), site(t), []string{"azure"}, opts(srv, nil, map[string]string{"DOSSIER_PRICING_AZURE_ENDPOINT": "prices.example"}))
	if err == nil || !strings.Contains(err.Error(), "DOSSIER_PRICING_AZURE_ENDPOINT") {
		t.Errorf("err = %v", err)
	}
	if _, err := pricing.Sync(context.Background(), site(t), []string{"aws"}, opts(srv, nil, nil)); err == nil || !strings.Contains(err.Error(), `"aws"`) {
		t.Errorf("unknown provider: err = %v", err)
	}
}

const secret = "rpa_S3CRETKEY0123456789"

func runpodFake(t *testing.T) *pricingtest.Server {
	srv := pricingtest.New(t)
	srv.RunPodKey = secret
	srv.RunPodGPUs = []pricingtest.RunPodGPU{
		{ID: "NVIDIA H100 80GB HBM3", DisplayName: "H100 SXM", MemoryInGb: 80, SecureCloud: true, CommunityCloud: true, SecurePrice: pricingtest.Price(2.69), CommunityPrice: pricingtest.Price(2.39)},
		{ID: "NVIDIA GeForce RTX 4090", DisplayName: "RTX 4090", MemoryInGb: 24, SecureCloud: false, CommunityCloud: true, SecurePrice: pricingtest.Price(0), CommunityPrice: pricingtest.Price(0.34)}, // not offered in Secure Cloud: its 0 is no price
		{ID: "NVIDIA A40", DisplayName: "A40", MemoryInGb: 48, SecureCloud: true, SecurePrice: pricingtest.Price(0.40)},
		{ID: "NVIDIA GeForce RTX 3070", DisplayName: "RTX 3070", MemoryInGb: 8},
	}
	return srv
}

func TestRunPodPricesAndUnmappedSKUs(t *testing.T) {
	srv := runpodFake(t)
	dir := site(t)
	rs, err := pricing.Sync(context.Background(), dir, []string{"runpod"}, opts(srv, nil, map[string]string{"RUNPOD_API_KEY": secret}))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := pricing.Read(pricing.Path(dir, "runpod"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]pricing.Price{}
	for _, p := range snap.Prices {
		got[p.SKU] = p
	}
	if p := got["NVIDIA H100 80GB HBM3"]; p.USDPerGPU != 2.39 || p.Region != "Community Cloud" || p.Accelerator != "H100" {
		t.Errorf("H100 = %+v, want the lower on-demand price, Community Cloud $2.39", p)
	}
	if p := got["NVIDIA A40"]; p.SKU != "" {
		t.Errorf("the unmapped A40 was priced: %+v", p)
	}
	if p := got["NVIDIA GeForce RTX 4090"]; p.USDPerGPU != 0.34 || p.Region != "Community Cloud" || p.Accelerator != "RTX4090" {
		t.Errorf("RTX 4090 = %+v, want Community Cloud $0.34 (not offered in Secure Cloud)", p)
	}
	if strings.Join(rs[0].Unmapped, ",") != "NVIDIA A40" {
		t.Errorf("unmapped = %v, want the A40 listed, not guessed", rs[0].Unmapped)
	}
	if r := srv.Requests(pricingtest.RunPod)[0]; r.URL.RawQuery != "" {
		t.Errorf("the key must travel in a header, not the URL: %s", r.URL)
	}
}

func TestRunPodErrors(t *testing.T) {
	cases := []struct {
		name string
		key  string
		errs []string
		want string
	}{
		{"no key", "", nil, "RUNPOD_API_KEY is not set"},
		{"wrong key", "rpa_WRONGKEY987654321", nil, "HTTP 401"},
		{"GraphQL errors array", secret, []string{"Something went wrong", "rate limited"}, "GraphQL errors: Something went wrong; rate limited"},
		{"zero price where offered", secret, nil, "NVIDIA H100 80GB HBM3: price 0 per hour: expected a positive number"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := runpodFake(t)
			srv.RunPodErrors = tc.errs
			if tc.name == "zero price where offered" {
				srv.RunPodGPUs[0].CommunityPrice = pricingtest.Price(0)
			}
			dir := site(t)
			_, err := pricing.Sync(context.Background(), dir, []string{"runpod"}, opts(srv, nil, map[string]string{"RUNPOD_API_KEY": tc.key}))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if tc.key != "" && strings.Contains(err.Error(), tc.key) {
				t.Errorf("the key appears in the error: %v", err)
			}
			if _, serr := os.Stat(pricing.Path(dir, "runpod")); serr == nil {
				t.Error("a failed sync wrote a snapshot")
			}
		})
	}
}

// TestRunPodKeyNeverWritten scans everything a successful sync leaves.
func TestRunPodKeyNeverWritten(t *testing.T) {
	srv := runpodFake(t)
	dir := site(t)
	rs, err := pricing.Sync(context.Background(), dir, []string{"runpod"}, opts(srv, nil, map[string]string{"RUNPOD_API_KEY": secret}))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		for _, s := range append(append([]string{r.Summary(), r.Endpoint}, r.Changes...), r.Warnings...) {
			if strings.Contains(s, secret) {
				t.Errorf("key in report line %q", s)
			}
		}
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(secret)) {
				t.Errorf("key written to %s", path)
			}
		}
		return nil
	})
}

func TestVastMedianAfterReliabilityAndOutliers(t *testing.T) {
	srv := pricingtest.New(t)
	offer := func(id int64, name string, gpus int, dph, rel float64) pricingtest.VastOffer {
		return pricingtest.VastOffer{ID: id, GPUName: name, NumGPUs: gpus, DPHTotal: dph, Reliability2: rel, Rentable: true, Verified: true}
	}
	srv.VastOffers = []pricingtest.VastOffer{
		offer(1, "H100 SXM", 8, 8*2.00, 0.995),
		offer(2, "H100 SXM", 1, 2.40, 0.99),
		offer(3, "H100 SXM", 2, 2*2.20, 0.985),
		offer(4, "H100 SXM", 1, 1.50, 0.90),   // below the reliability filter
		offer(5, "H100 SXM", 1, 400.0, 0.999), // a listing at $400/GPU-h: outlier
		offer(6, "H100 SXM", 1, 0.01, 0.999),  // a $0.01 listing: outlier
		offer(7, "H100 SXM", 1, 0, 0.999),     // no price
		offer(8, "RTX 4090", 1, 0.35, 0.99),
		offer(9, "RTX 4090", 2, 0.80, 0.99),
		offer(10, "A40", 1, 0.30, 0.99),
	}
	dir := site(t)
	rs, err := pricing.Sync(context.Background(), dir, []string{"vastai"}, opts(srv, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := pricing.Read(pricing.Path(dir, "vastai"))
	if err != nil {
		t.Fatal(err)
	}
	h := snap.Prices[0]
	if h.SKU != "H100 SXM" || h.Offers == nil || h.Offers.Count != 3 || h.Offers.Min != 2.00 || h.Offers.Median != 2.20 || h.Offers.Max != 2.40 || h.USDPerGPU != 2.20 {
		t.Errorf("H100 = %+v %+v, want 3 offers, min 2.00, median 2.20", h, h.Offers)
	}
	if r := snap.Prices[1]; r.Offers.Count != 2 || r.Offers.Median != (0.35+0.40)/2 {
		t.Errorf("RTX 4090 = %+v", r.Offers)
	}
	joined := strings.Join(rs[0].Warnings, "\n")
	if !strings.Contains(joined, "H100 SXM: 2 outlier offer(s)") || !strings.Contains(joined, "1 offer(s) without") {
		t.Errorf("warnings = %q", joined)
	}
	if !strings.Contains(snap.Scope, "reliability ≥ 0.98") {
		t.Errorf("scope = %q: the filter must be stated", snap.Scope)
	}
	if strings.Join(rs[0].Unmapped, ",") != "A40" {
		t.Errorf("unmapped = %v", rs[0].Unmapped)
	}
}

func TestOneProviderFailingLeavesTheOthers(t *testing.T) {
	srv := azureFake(t)
	srv.VastOffers = []pricingtest.VastOffer{{ID: 1, GPUName: "RTX 4090", NumGPUs: 1, DPHTotal: 0.4, Reliability2: 0.99, Rentable: true, Verified: true}}
	dir := site(t)
	rs, err := pricing.Sync(context.Background(), dir, nil, opts(srv, nil, nil)) // runpod has no key
	if err == nil || !strings.Contains(err.Error(), "RUNPOD_API_KEY") {
		t.Fatalf("err = %v", err)
	}
	if len(rs) != 2 || rs[0].Provider != "azure" || rs[1].Provider != "vastai" {
		t.Errorf("results = %+v", rs)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	srv := azureFake(t)
	dir := site(t)
	o := opts(srv, nil, nil)
	o.DryRun = true
	rs, err := pricing.Sync(context.Background(), dir, []string{"azure"}, o)
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Wrote || len(rs[0].Changes) != 2 || !strings.Contains(rs[0].Summary(), "dry run") {
		t.Errorf("result = %+v (%s)", rs[0], rs[0].Summary())
	}
	if _, err := os.Stat(pricing.Path(dir, "azure")); err == nil {
		t.Error("a dry run wrote the snapshot")
	}
}

func TestUnreachableEndpointIsRetriedThenNamed(t *testing.T) {
	srv := azureFake(t)
	endpoint := srv.Endpoint(pricingtest.Azure)
	srv.Close() // nothing listens there any more
	w := &waits{}
	_, err := pricing.Sync(context.Background(), site(t), []string{"azure"}, opts(srv, w, map[string]string{"DOSSIER_PRICING_AZURE_ENDPOINT": endpoint}))
	if err == nil || !strings.Contains(err.Error(), "azure: GET "+endpoint) || !strings.Contains(err.Error(), "gave up after 5 tries") {
		t.Errorf("err = %v", err)
	}
	if len(w.d) != 4 {
		t.Errorf("waited %v, want four backoffs between five tries", w.d)
	}
}
