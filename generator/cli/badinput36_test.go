package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// secretToken is in the environment of every bad-input case: no message
// and no published file may hold it.
const secretToken = "hf_badinputSecretToken36"

// outsideText is what a file outside the site holds: a link to it must
// not publish it.
const outsideText = "OUTSIDE-THE-SITE-36"

// cachedSHA is the commit of the user-cache entries the cases break.
const cachedSHA = "0123456789abcdef0123456789abcdef01234567"

// linkTo replaces file with a symbolic link to target; "outside" is a
// regular file outside the site holding outsideText.
func linkTo(file, target string) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		t.Helper()
		if target == "outside" {
			target = filepath.Join(t.TempDir(), "outside.txt")
			if err := os.WriteFile(target, []byte(outsideText+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p := filepath.Join(root, file)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
}

// fifoAt replaces file with a named pipe nobody writes to: reading it
// would wait for ever.
func fifoAt(file string) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		t.Helper()
		p := filepath.Join(root, file)
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
	}
}

// grow appends n bytes of YAML comment to file.
func grow(file string, n int) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(root, file), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		line := "# " + strings.Repeat("x", 1021) + "\n"
		for range n / len(line) {
			if _, err := f.WriteString(line); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// issue36Cases are the bad inputs of issue 36, counted apart: see the
// closing note of the issue for how many the code before it mishandled.
func issue36Cases() []badCase {
	cacheDir := "usercache"
	cacheEnv := map[string]string{"DOSSIER_CACHE": cacheDir}
	cachedSnap := cacheDir + "/hub/acme/tiny/" + cachedSHA + ".json"
	cachedRef := cacheDir + "/hub/acme/tiny/refs/main"
	planCached := []string{"plan", "acme/tiny@" + cachedSHA, "--offline"}
	planRef := []string{"plan", "acme/tiny", "--offline"}
	inputs := []struct{ kind, file string }{
		{"template", "templates/dossier.md"},
		{"html template", "templates/base.html"},
		{"stylesheet", "templates/style.css"},
		{"page", llamaPage},
		{"section page", "content/_index.md"},
		{"hardware catalog", hwFile},
		{"price list", priceFile},
		{"price snapshot", "data/pricing/lambda.json"},
		{"software windows", "data/software.yaml"},
		{"Hub snapshot", llamaSnap},
		{"site configuration", siteFile},
	}
	var cs []badCase
	for _, in := range inputs {
		base := filepath.Base(in.file)
		cs = append(cs,
			badCase{name: in.kind + " linked to proc-self-environ (36.1)", prepare: linkTo(in.file, "/proc/self/environ"), code: 1, want: []string{base, "/proc"}},
			badCase{name: in.kind + " linked to dev-zero (36.1)", prepare: linkTo(in.file, "/dev/zero"), code: 1, want: []string{base, "/dev"}},
			badCase{name: in.kind + " linked outside the site (36.1)", prepare: linkTo(in.file, "outside"), code: 1, want: []string{base, "outside"}},
		)
	}
	cs = append(cs,
		// Other kinds of files where an input belongs.
		badCase{name: "page linked to dev-urandom (36.1)", prepare: linkTo(llamaPage, "/dev/urandom"), code: 1, want: []string{"llama-3-1-8b.md", "/dev"}},
		badCase{name: "page is a named pipe (36.1)", prepare: fifoAt(llamaPage), code: 1, want: []string{"llama-3-1-8b.md", "named pipe"}},
		badCase{name: "hardware catalog is a named pipe (36.1)", prepare: fifoAt(hwFile), code: 1, want: []string{"hardware.yaml", "named pipe"}},
		badCase{name: "template is a named pipe (36.1)", prepare: fifoAt("templates/dossier.md"), code: 1, want: []string{"dossier.md", "named pipe"}},
		badCase{name: "page linked to nothing (36.1)", prepare: linkTo(llamaPage, "/nonexistent/page.md"), code: 1, want: []string{"llama-3-1-8b.md", "does not exist"}},
		badCase{name: "page is a directory (36.1)", prepare: func(t *testing.T, root string) {
			p := filepath.Join(root, llamaPage)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, code: 1, want: []string{"llama-3-1-8b.md", "directory"}},
		badCase{name: "site configuration past its limit (36.1)", prepare: grow(siteFile, 1100<<10), code: 1, want: []string{"hugo-like.yaml", "limit of 1048576 bytes"}},
		badCase{name: "hardware catalog past its limit (36.1)", prepare: grow(hwFile, 9<<20), code: 1, want: []string{"hardware.yaml", "limit of 8388608 bytes"}},
		badCase{name: "template past its limit (36.1)", prepare: grow("templates/style.css", 1100<<10), code: 1, want: []string{"style.css", "limit of 1048576 bytes"}},
		badCase{name: "plan config linked to proc-self-environ (36.1)", prepare: linkTo(planConf, "/proc/self/environ"), args: []string{"plan", "--config", planConf}, code: 1, want: []string{planConf, "/proc"}},
		badCase{name: "plan config linked to dev-zero (36.1)", prepare: linkTo(planConf, "/dev/zero"), args: []string{"plan", "--config", planConf}, code: 1, want: []string{planConf, "/dev"}},
		badCase{name: "plan config is a named pipe (36.1)", prepare: fifoAt(planConf), args: []string{"plan", "--config", planConf}, code: 1, want: []string{planConf, "named pipe"}},
		badCase{name: "plan hardware catalog linked to dev-zero (36.1)", prepare: linkTo(hwFile, "/dev/zero"), args: []string{"plan", "--config", planConf}, code: 1, want: []string{"hardware.yaml", "/dev"}},
		badCase{name: "plan site snapshot linked to proc-self-environ (36.1)", prepare: linkTo(llamaSnap, "/proc/self/environ"), args: []string{"plan", "meta-llama/Llama-3.1-8B"}, code: 1, want: []string{"snapshot.json", "/proc"}},
		badCase{name: "cached snapshot linked to proc-self-environ (36.1)", env: cacheEnv, prepare: linkTo(cachedSnap, "/proc/self/environ"), args: planCached, code: 1, want: []string{cachedSHA + ".json", "/proc"}},
		badCase{name: "cached snapshot linked to dev-zero (36.1)", env: cacheEnv, prepare: linkTo(cachedSnap, "/dev/zero"), args: planCached, code: 1, want: []string{cachedSHA + ".json", "/dev"}},
		badCase{name: "cached snapshot linked outside the cache (36.1)", env: cacheEnv, prepare: linkTo(cachedSnap, "outside"), args: planCached, code: 1, want: []string{cachedSHA + ".json", "outside"}},
		badCase{name: "cached ref linked to proc-self-environ (36.1)", env: cacheEnv, prepare: linkTo(cachedRef, "/proc/self/environ"), args: planRef, code: 1, want: []string{"refs/main", "/proc"}},
		badCase{name: "cached ref linked to dev-zero (36.1)", env: cacheEnv, prepare: linkTo(cachedRef, "/dev/zero"), args: planRef, code: 1, want: []string{"refs/main", "/dev"}},
	)
	cs = append(cs, priceCases()...)
	cs = append(cs, typingCases()...)
	return cs
}

// typingCases put a boolean or a fraction where the site configuration
// expects an integer or a ratio (issue 36 item 3).
func typingCases() []badCase {
	cfg := func(old, new string) []change { return []change{{siteFile, old, new}} }
	speed := func(line string) []change {
		return cfg("waitWindowSeconds: 1800", "waitWindowSeconds: 1800\n  speed:\n    "+line)
	}
	env := func(k, v string) map[string]string { return map[string]string{k: v} }
	return []badCase{
		{name: "kvDtypeBytes true (36.3)", changes: cfg("kvDtypeBytes: 2 ", "kvDtypeBytes: true "), code: 1, want: []string{"hugo-like.yaml", "field sizing.kvDtypeBytes", "expected an integer"}},
		{name: "stateDtypeBytes false (36.3)", changes: cfg("stateDtypeBytes: 4 ", "stateDtypeBytes: false "), code: 1, want: []string{"hugo-like.yaml", "field sizing.stateDtypeBytes"}},
		{name: "concurrency 2.5 (36.3)", changes: cfg("concurrency: 1 ", "concurrency: 2.5 "), code: 1, want: []string{"hugo-like.yaml", "field sizing.concurrency", "2.5"}},
		{name: "servingContext 131072.5 (36.3)", changes: cfg("servingContext: 131072 ", "servingContext: 131072.5 "), code: 1, want: []string{"hugo-like.yaml", "field sizing.servingContext"}},
		{name: "reservePerGpuBytes 1.5 (36.3)", changes: cfg("reservePerGpuBytes: 0 ", "reservePerGpuBytes: 1.5 "), code: 1, want: []string{"hugo-like.yaml", "field sizing.reservePerGpuBytes"}},
		{name: "a context of 2.5 tokens (36.3)", changes: cfg("contexts: [8192, 131072, 1048576]", "contexts: [8192, 2.5]"), code: 1, want: []string{"hugo-like.yaml", "field sizing.contexts[1]"}},
		{name: "a context of true tokens (36.3)", changes: cfg("contexts: [8192, 131072, 1048576]", "contexts: [true]"), code: 1, want: []string{"hugo-like.yaml", "field sizing.contexts[0]"}},
		{name: "tensor parallel size true (36.3)", changes: cfg("tensorParallelSizes: [1, 2, 4, 8]", "tensorParallelSizes: [1, true]"), code: 1, want: []string{"hugo-like.yaml", "field sizing.tensorParallelSizes[1]"}},
		{name: "tensor parallel size 1.5 (36.3)", changes: cfg("tensorParallelSizes: [1, 2, 4, 8]", "tensorParallelSizes: [1.5]"), code: 1, want: []string{"hugo-like.yaml", "field sizing.tensorParallelSizes[0]"}},
		{name: "gpuMemoryUtilization true (36.3)", changes: cfg("gpuMemoryUtilization: 0.90 ", "gpuMemoryUtilization: true "), code: 1, want: []string{"hugo-like.yaml", "field sizing.gpuMemoryUtilization", "expected a number"}},
		{name: "memoryEfficiency true (36.3)", changes: speed("memoryEfficiency: true"), code: 1, want: []string{"hugo-like.yaml", "field sizing.speed.memoryEfficiency"}},
		{name: "computeEfficiency yes (36.3)", changes: speed("computeEfficiency: yes"), code: 1, want: []string{"hugo-like.yaml", "field sizing.speed.computeEfficiency"}},
		{name: "promptTokens 8192.5 (36.3)", changes: speed("promptTokens: 8192.5"), code: 1, want: []string{"hugo-like.yaml", "field sizing.speed.promptTokens"}},
		{name: "downloadBytesPerSecond true (36.3)", changes: cfg("downloadBytesPerSecond: 126300000", "downloadBytesPerSecond: true"), code: 1, want: []string{"hugo-like.yaml", "field sizing.downloadBytesPerSecond"}},
		{name: "maxAgeDays 1.5 (36.3)", changes: cfg("maxAgeDays: 0 ", "maxAgeDays: 1.5 "), code: 1, want: []string{"hugo-like.yaml", "field freshness.maxAgeDays"}},
		{name: "search 1 (36.3)", changes: cfg("watchOrgs: []", "watchOrgs: []\nsearch: 1"), code: 1, want: []string{"hugo-like.yaml", "field search", "true or false"}},
		{name: "env concurrency 2.5 (36.3)", env: env("DOSSIER_SIZING_CONCURRENCY", "2.5"), code: 1, want: []string{"DOSSIER_SIZING_CONCURRENCY", "sizing.concurrency"}},
		{name: "env kvDtypeBytes true (36.3)", env: env("DOSSIER_SIZING_KVDTYPEBYTES", "true"), code: 1, want: []string{"DOSSIER_SIZING_KVDTYPEBYTES", "sizing.kvDtypeBytes"}},
		{name: "env memoryEfficiency true (36.3)", env: env("DOSSIER_SIZING_SPEED_MEMORYEFFICIENCY", "true"), code: 1, want: []string{"DOSSIER_SIZING_SPEED_MEMORYEFFICIENCY", "sizing.speed.memoryEfficiency"}},
		{name: "env contexts with a fraction (36.3)", env: env("DOSSIER_SIZING_CONTEXTS", "8192,2.5"), code: 1, want: []string{"DOSSIER_SIZING_CONTEXTS", "sizing.contexts"}},
		{name: "env search 1.5 (36.3)", env: env("DOSSIER_SEARCH", "1.5"), code: 1, want: []string{"DOSSIER_SEARCH", "search"}},
		{name: "plan concurrency 2.5 (36.3)", changes: cfg("concurrency: 1 ", "concurrency: 2.5 "), args: []string{"plan", "--config", planConf}, code: 1, want: []string{"hugo-like.yaml", "field sizing.concurrency"}},
	}
}

// priceCases break the price snapshot (lambda.json), the SKU map and the
// hand-written lists (issue 36 item 2).
func priceCases() []badCase {
	const snap = "data/pricing/lambda.json"
	const skus = "data/pricing/skus.yaml"
	edit := func(old, new string) []change { return []change{{snap, old, new}} }
	lambdaSKUs := "providers:\n  lambda:\n    - {sku: \"1x B200 SXM6\", accelerator: B200, gpus: 1, source: \"https://lambda.ai/pricing\"}\n    - {sku: \"1x H100 SXM\", accelerator: H100, gpus: 1, source: \"https://lambda.ai/pricing\"}\n"
	withSKUs := func(cs ...change) []change { return append([]change{{skus, "", lambdaSKUs}}, cs...) }
	offers := func(o string) []change {
		return edit(`"currency": "USD",
      "source": "https://lambda.ai/pricing, as recorded in https://github.com/tgarg01/silybench-data/blob/94d2bb9525ff0f3fb9ea6648724cc5d1c85ee696/derived/cost.json"
    },
    {
      "sku": "1x H100 SXM"`, `"currency": "USD", "offers": `+o+`,
      "source": "https://lambda.ai/pricing, as recorded in https://github.com/tgarg01/silybench-data/blob/94d2bb9525ff0f3fb9ea6648724cc5d1c85ee696/derived/cost.json"
    },
    {
      "sku": "1x H100 SXM"`)
	}
	future := change{siteFile, "maxAgeDays: 0 ", "maxAgeDays: 365\n  today: \"2026-12-02\" "}
	check := []string{"check", "--strict"}
	return []badCase{
		{name: "snapshot provider is another provider (36.2)", changes: edit(`"provider": "lambda",`, `"provider": "runpod",`), code: 1, want: []string{"lambda.json:2", "field provider", "file name"}},
		{name: "snapshot provider is another provider in check (36.2)", changes: edit(`"provider": "lambda",`, `"provider": "azure",`), args: check, code: 1, want: []string{"lambda.json:2", "field provider"}},
		{name: "two hand-written lists for one provider (36.2)", prepare: func(t *testing.T, root string) {
			b, err := os.ReadFile(filepath.Join(root, priceFile))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "data/pricing/runpod-cheap.yaml"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, code: 1, want: []string{"runpod.yaml:4", "field provider", "one file per provider"}},
		{name: "usd_per_hour is not gpus times the GPU price (36.2)", changes: edit(`"usd_per_hour": 6.99,`, `"usd_per_hour": 7.99,`), code: 1, want: []string{"lambda.json:13", "prices[0].usd_per_hour", "gpus × usd_per_gpu_hour"}},
		{name: "eight GPUs at the price of one (36.2)", changes: edit(`"gpus": 1,`, `"gpus": 8,`), code: 1, want: []string{"lambda.json:13", "prices[0].usd_per_hour", "8 × 6.99"}},
		{name: "two cents off (36.2)", changes: edit(`"usd_per_gpu_hour": 6.99,`, `"usd_per_gpu_hour": 6.97,`), code: 1, want: []string{"lambda.json", "prices[0].usd_per_hour", "within a cent"}},
		{name: "negative GPU price blamed on usd_per_gpu_hour (36.6)", changes: edit(`"usd_per_gpu_hour": 6.99,`, `"usd_per_gpu_hour": -6.99,`), code: 1, want: []string{"lambda.json:14", "prices[0].usd_per_gpu_hour"}},
		{name: "zero GPU price (36.2)", changes: edit(`"usd_per_gpu_hour": 6.99,`, `"usd_per_gpu_hour": 0,`), code: 1, want: []string{"lambda.json:14", "prices[0].usd_per_gpu_hour"}},
		{name: "offers median below min (36.2)", changes: offers(`{"count": 3, "min_usd_per_gpu_hour": 7.5, "median_usd_per_gpu_hour": 6.99, "max_usd_per_gpu_hour": 9}`), code: 1, want: []string{"lambda.json:15", "prices[0].offers.min_usd_per_gpu_hour", "above the median"}},
		{name: "offers median above max (36.2)", changes: offers(`{"count": 3, "min_usd_per_gpu_hour": 5, "median_usd_per_gpu_hour": 6.99, "max_usd_per_gpu_hour": 6}`), code: 1, want: []string{"lambda.json:15", "prices[0].offers.max_usd_per_gpu_hour", "below the median"}},
		{name: "offers min above max (36.2)", changes: offers(`{"count": 3, "min_usd_per_gpu_hour": 9, "median_usd_per_gpu_hour": 6.99, "max_usd_per_gpu_hour": 5}`), code: 1, want: []string{"lambda.json:15", "offers.min_usd_per_gpu_hour", "above max"}},
		{name: "offers median is not the price (36.2)", changes: offers(`{"count": 3, "median_usd_per_gpu_hour": 0.08}`), code: 1, want: []string{"lambda.json:15", "offers.median_usd_per_gpu_hour", "quoted"}},
		{name: "offers without a count (36.2)", changes: offers(`{"count": 0, "median_usd_per_gpu_hour": 6.99}`), code: 1, want: []string{"lambda.json:15", "offers.count"}},
		{name: "offers negative min (36.2)", changes: offers(`{"count": 3, "min_usd_per_gpu_hour": -1, "median_usd_per_gpu_hour": 6.99}`), code: 1, want: []string{"lambda.json:15", "offers.min_usd_per_gpu_hour"}},
		{name: "accelerator contradicts skus.yaml (36.2)", changes: withSKUs(change{snap, `"accelerator": "B200",`, `"accelerator": "H100",`}), code: 1, want: []string{"lambda.json:11", "prices[0].accelerator", "skus.yaml maps"}},
		{name: "gpus contradict skus.yaml (36.2)", changes: withSKUs(change{snap, `"gpus": 1,
      "usd_per_hour": 6.99,`, `"gpus": 2,
      "usd_per_hour": 13.98,`}), code: 1, want: []string{"lambda.json:12", "prices[0].gpus", "skus.yaml maps"}},
		{name: "skus.yaml is garbage (36.2)", changes: []change{{skus, "", "\x7fELF\x02\x01 not yaml: [\n"}}, code: 1, want: []string{"skus.yaml"}},
		{name: "skus.yaml is garbage in check (36.2)", changes: []change{{skus, "", "providers: 12\n"}}, args: check, code: 1, want: []string{"skus.yaml", "providers"}},
		{name: "skus.yaml without providers (36.2)", changes: []change{{skus, "", "# nothing\nproviders:\n"}}, code: 1, want: []string{"skus.yaml", "field providers"}},
		{name: "skus.yaml negative gpus (36.2)", changes: []change{{skus, "", strings.Replace(lambdaSKUs, "gpus: 1", "gpus: -8", 1)}}, code: 1, want: []string{"skus.yaml:3", "providers.lambda[0].gpus"}},
		{name: "skus.yaml provider not an id (36.2)", changes: []change{{skus, "", strings.Replace(lambdaSKUs, "lambda:", "Lambda Labs:", 1)}}, code: 1, want: []string{"skus.yaml:3", "providers.Lambda Labs"}},
		{name: "skus.yaml without source (36.2)", changes: []change{{skus, "", strings.Replace(lambdaSKUs, `, source: "https://lambda.ai/pricing"}`, "}", 1)}}, code: 1, want: []string{"skus.yaml:3", "providers.lambda[0].source"}},
		{name: "skus.yaml unknown field (36.2)", changes: []change{{skus, "", strings.Replace(lambdaSKUs, "gpus: 1,", "gpus: 1, gpu: 2,", 1)}}, code: 1, want: []string{"skus.yaml", "gpu"}},
		{name: "snapshot fetched February 30 (36.2)", changes: edit(`"fetched": "2026-09-25",`, `"fetched": "2026-02-30",`), code: 1, want: []string{"lambda.json:4", "field fetched", "2026-02-30"}},
		{name: "snapshot fetched month 13 (36.2)", changes: edit(`"fetched": "2026-09-25",`, `"fetched": "2026-13-01",`), code: 1, want: []string{"lambda.json:4", "field fetched"}},
		{name: "snapshot fetched or so (36.2)", changes: edit(`"fetched": "2026-09-25",`, `"fetched": "2026-09-25 or so",`), code: 1, want: []string{"lambda.json:4", "field fetched"}},
		{name: "snapshot fetched bad time (36.2)", changes: edit(`"fetched": "2026-09-25",`, `"fetched": "2026-09-25T25:61:00Z",`), code: 1, want: []string{"lambda.json:4", "field fetched"}},
		{name: "snapshot fetched without zone (36.2)", changes: edit(`"fetched": "2026-09-25",`, `"fetched": "2026-09-25T10:00:00",`), code: 1, want: []string{"lambda.json:4", "field fetched"}},
		{name: "snapshot entry as_of impossible (36.2)", changes: edit(`"currency": "USD",`, `"currency": "USD", "as_of": "2026-02-30",`), code: 1, want: []string{"lambda.json:15", "prices[0].as_of"}},
		{name: "snapshot fetched in the future in check (36.6)", changes: append(edit(`"fetched": "2026-09-25",`, `"fetched": "2099-09-25",`), future), args: check, code: 1, want: []string{"lambda.json:4", "field fetched", "future"}},
		{name: "snapshot entry as_of in the future in check (36.2)", changes: append(edit(`"currency": "USD",`, `"currency": "USD", "as_of": "2099-01-01",`), future), args: check, code: 1, want: []string{"lambda.json:15", "as_of of 1x B200 SXM6", "future"}},
		{name: "snapshot syntax error has a line (36.6)", changes: edit(`"gpus": 1,`, `"gpus": 1`), code: 1, want: []string{"lambda.json:13", "invalid character"}},
		{name: "snapshot string for a number has a line (36.6)", changes: edit(`"gpus": 1,`, `"gpus": "1",`), code: 1, want: []string{"lambda.json:12", "gpus"}},
		{name: "snapshot currency (36.2)", changes: edit(`"currency": "USD",`, `"currency": "EUR",`), code: 1, want: []string{"lambda.json:15", "prices[0].currency"}},
		{name: "snapshot gpus zero (36.2)", changes: edit(`"gpus": 1,`, `"gpus": 0,`), code: 1, want: []string{"lambda.json:12", "prices[0].gpus"}},
		{name: "snapshot unknown field has a line (36.6)", changes: edit(`"gpus": 1,`, `"gpus": 1, "gpu": 1,`), code: 1, want: []string{"lambda.json", "gpu"}},
	}
}
