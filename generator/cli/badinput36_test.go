package cli

import (
	"os"
	"path/filepath"
	"strings"
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
		if err := mkfifo(p); err != nil {
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
			badCase{name: in.kind + " linked outside the site (36.1)", prepare: linkTo(in.file, "outside"), code: 1, want: []string{base, "a symbolic link to", ", outside"}},
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
		}, code: 1, want: []string{llamaPage, "not a regular file (a directory)"}},
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
		badCase{name: "cached snapshot linked outside the cache (36.1)", env: cacheEnv, prepare: linkTo(cachedSnap, "outside"), args: planCached, code: 1, want: []string{cachedSHA + ".json", "a symbolic link to", ", outside"}},
		badCase{name: "cached ref linked to proc-self-environ (36.1)", env: cacheEnv, prepare: linkTo(cachedRef, "/proc/self/environ"), args: planRef, code: 1, want: []string{"refs/main", "/proc"}},
		badCase{name: "cached ref linked to dev-zero (36.1)", env: cacheEnv, prepare: linkTo(cachedRef, "/dev/zero"), args: planRef, code: 1, want: []string{"refs/main", "/dev"}},
	)
	cs = append(cs, priceCases()...)
	cs = append(cs, typingCases()...)
	cs = append(cs, rangeCases()...)
	cs = append(cs, provenanceCases()...)
	cs = append(cs, whereCases()...)
	cs = append(cs, offlineCases()...)
	return cs
}

// offlineCases run plan and sync in huggingface_hub's offline mode with
// nothing cached (issue 36 item 7): each fails at once naming the
// variable and the cache, without a request (HF_ENDPOINT points nowhere).
func offlineCases() []badCase {
	env := func(kv ...string) map[string]string {
		m := map[string]string{"DOSSIER_CACHE": "usercache", "HF_ENDPOINT": "http://127.0.0.1:1"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	return []badCase{
		{name: "HF_HUB_OFFLINE with nothing cached (36.7)", env: env("HF_HUB_OFFLINE", "1"), args: []string{"plan", "acme/tiny"}, code: 1, want: []string{"HF_HUB_OFFLINE=1", "usercache", "no commit of main is cached"}},
		{name: "HF_HUB_OFFLINE true with a commit not cached (36.7)", env: env("HF_HUB_OFFLINE", "true"), args: []string{"plan", "acme/tiny@" + cachedSHA}, code: 1, want: []string{"HF_HUB_OFFLINE=true", "not in the user cache"}},
		{name: "TRANSFORMERS_OFFLINE with nothing cached (36.7)", env: env("TRANSFORMERS_OFFLINE", "YES"), args: []string{"plan", "acme/tiny"}, code: 1, want: []string{"TRANSFORMERS_OFFLINE=YES", "usercache"}},
		{name: "HF_HUB_OFFLINE compare not cached (36.7)", env: env("HF_HUB_OFFLINE", "1"), args: []string{"plan", "meta-llama/Llama-3.1-8B", "--compare", "acme/tiny"}, code: 1, want: []string{"HF_HUB_OFFLINE=1", "acme/tiny"}},
		{name: "HF_HUB_OFFLINE sync makes no request (36.7)", env: env("HF_HUB_OFFLINE", "on"), args: []string{"sync", "meta-llama/Llama-3.1-8B"}, code: 1, want: []string{"HF_HUB_OFFLINE=on", "no request"}},
	}
}

// foreignDir makes a non-empty directory outside the site that no build
// wrote, and points publishDir at it when setting is true.
func foreignDir(setting bool) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		t.Helper()
		dir := filepath.Join(root, "foreign") // the flag's case: inside the site
		if setting {
			dir = filepath.Join(t.TempDir(), "not-ours")
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("someone's file\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if setting {
			apply(t, root, change{siteFile, "publishDir: public", "publishDir: " + dir})
		}
	}
}

// whereCases are errors that must say where (issue 36 item 6).
func whereCases() []badCase {
	cacheEnv := map[string]string{"DOSSIER_CACHE": "usercache"}
	cachedSnap := "usercache/hub/acme/tiny/" + cachedSHA + ".json"
	return []badCase{
		{name: "publishDir holds files nobody built (36.6)", prepare: foreignDir(true), code: 1, want: []string{"hugo-like.yaml", "field publishDir", "not written by dossier"}},
		{name: "destination holds files nobody built (36.6)", prepare: foreignDir(false), args: []string{"build", "--destination", "foreign"}, code: 1, want: []string{"flag --destination", "field publishDir", "not written by dossier"}},
		{name: "Hub snapshot syntax error has a line (36.6)", changes: []change{{llamaSnap, `"schema": 1,`, `"schema": 1`}}, code: 1, want: []string{"snapshot.json", "line 3", "invalid JSON"}},
		{name: "Hub snapshot cut short has a line (36.6)", changes: []change{{llamaSnap, "\n}\n", "\n"}}, code: 1, want: []string{"snapshot.json", "line ", "ends before"}},
		{name: "plan config syntax error has a line (36.6)", changes: []change{{planConf, `"hidden_size": 4096,`, `"hidden_size": 4096`}}, args: []string{"plan", "--config", planConf}, code: 1, want: []string{planConf, "line ", "invalid character"}},
		{name: "cached snapshot cut short names the file (36.6)", env: cacheEnv, changes: []change{{cachedSnap, "", "{\"schema\": 1,\n\"model\": \"acme/tiny\",\n"}}, args: []string{"plan", "acme/tiny@" + cachedSHA, "--offline"}, code: 1, want: []string{cachedSHA + ".json", "line 3"}},
		{name: "hardware type error names the key (36.6)", changes: []change{{hwFile, "memory_bytes: 192265846784", "memory_bytes: lots"}}, code: 1, want: []string{"hardware.yaml", "line 17", "accelerators[0].memory_bytes", "expected an integer"}},
		{name: "price list type error names the key (36.6)", changes: []change{{priceFile, "gpus: 8\n", "gpus: eight\n"}}, code: 1, want: []string{"runpod.yaml", "prices[1].gpus"}},
		{name: "front matter type error names the key (36.6)", changes: []change{{llamaPage, "org: Meta", "org: Meta\ndraft: maybe"}}, code: 1, want: []string{"llama-3-1-8b.md", "field draft", "true or false"}},
		{name: "site configuration type error names the key (36.6)", changes: []change{{siteFile, "contexts: [8192, 131072, 1048576]", "contexts: 8192 tokens"}}, code: 1, want: []string{"hugo-like.yaml", "sizing.contexts"}},
	}
}

// rangeCases pass the limits the README states, and NaN, infinite and
// denormal inputs (issue 36 item 4).
func rangeCases() []badCase {
	plan := func(flags ...string) []string { return append([]string{"plan", "--config", planConf}, flags...) }
	hw := func(old, new string) []change { return []change{{hwFile, old, new}} }
	bandwidth := "memory_bandwidth:\n      value: 8e+12\n"
	peak := "peak_bf16_flops:\n      value: 2.25e+15\n"
	interval := func(low, high string) []change {
		return []change{{llamaPage, "published:\n", strings.Replace(withMeasurement, "    source: https://example.org/m\n", "    interval: {low: "+low+", high: "+high+", level: \"90% CI\"}\n    source: https://example.org/m\n", 1)}}
	}
	return []badCase{
		{name: "plan context 10^12 (36.4)", args: plan("--context", "1000000000000"), code: 2, want: []string{"--context", "expected from 1 to 4294967296 tokens"}},
		{name: "plan context 2^32+1 (36.4)", args: plan("--context", "4294967297"), code: 2, want: []string{"--context", "4294967297"}},
		{name: "plan context 2^63-1 (36.4)", args: plan("--context", "9223372036854775807"), code: 2, want: []string{"--context", "9223372036854775807"}},
		{name: "plan context negative (36.4)", args: plan("--context", "-8"), code: 2, want: []string{"--context"}},
		{name: "plan concurrency 2^20+1 (36.4)", args: plan("--concurrency", "1048577"), code: 2, want: []string{"--concurrency", "expected from 1 to 1048576 sequences"}},
		{name: "plan concurrency 2^63-1 (36.4)", args: plan("--concurrency", "9223372036854775807"), code: 2, want: []string{"--concurrency"}},
		{name: "plan hardware 65537 GPUs (36.4)", args: plan("--hardware", "65537xB200"), code: 2, want: []string{"--hardware", "65536"}},
		{name: "site hardware 65537 GPUs (36.4)", changes: []change{{siteFile, "  - 8xB200\n", "  - 65537xB200\n"}}, code: 1, want: []string{"hugo-like.yaml", "hardware[0]", "65536"}},
		{name: "measurement interval NaN (36.4)", changes: interval(".nan", "1"), code: 1, want: []string{"llama-3-1-8b.md", "measurements[0].interval.low"}},
		{name: "measurement interval infinite (36.4)", changes: interval("1", ".inf"), code: 1, want: []string{"llama-3-1-8b.md", "measurements[0].interval.high"}},
		{name: "measurement interval denormal (36.4)", changes: interval("5e-324", "1"), code: 1, want: []string{"llama-3-1-8b.md", "measurements[0].interval.low", "normal size"}},
		{name: "bandwidth 1e-300 (36.4)", changes: hw(bandwidth, "memory_bandwidth:\n      value: 1e-300\n"), code: 1, want: []string{"hardware.yaml", "accelerators[0].memory_bandwidth.value", "from 1e+06"}},
		{name: "bandwidth denormal (36.4)", changes: hw(bandwidth, "memory_bandwidth:\n      value: 5e-324\n"), code: 1, want: []string{"hardware.yaml", "accelerators[0].memory_bandwidth.value"}},
		{name: "bandwidth NaN (36.4)", changes: hw(bandwidth, "memory_bandwidth:\n      value: .nan\n"), code: 1, want: []string{"hardware.yaml", "accelerators[0].memory_bandwidth.value"}},
		{name: "peak FLOP/s infinite (36.4)", changes: hw(peak, "peak_bf16_flops:\n      value: .inf\n"), code: 1, want: []string{"hardware.yaml", "accelerators[0].peak_bf16_flops.value"}},
		{name: "plan bandwidth 1e-300 (36.4)", changes: hw(bandwidth, "memory_bandwidth:\n      value: 1e-300\n"), args: plan(), code: 1, want: []string{"hardware.yaml", "memory_bandwidth.value"}},
		{name: "gpu wired share NaN (36.4)", changes: hw("    memory_verified: true\n", "    memory_verified: true\n    gpu_wired_share: .nan\n"), code: 1, want: []string{"hardware.yaml", "gpu_wired_share"}},
		{name: "price list price denormal (36.4)", changes: []change{{priceFile, "usd_per_gpu_hour: 5.98", "usd_per_gpu_hour: 5e-324"}}, code: 1, want: []string{"runpod.yaml", "prices[0].usd_per_gpu_hour"}},
		{name: "download rate denormal (36.4)", changes: []change{{siteFile, "downloadBytesPerSecond: 126300000", "downloadBytesPerSecond: 5e-324"}}, code: 1, want: []string{"hugo-like.yaml", "sizing.downloadBytesPerSecond"}},
		{name: "download rate below a byte (36.4)", changes: []change{{siteFile, "downloadBytesPerSecond: 126300000", "downloadBytesPerSecond: 1e-300"}}, code: 1, want: []string{"hugo-like.yaml", "sizing.downloadBytesPerSecond", "from 1 to"}},
		{name: "disk rate denormal in env (36.4)", env: map[string]string{"DOSSIER_SIZING_SPEED_DISKBYTESPERSECOND": "5e-324"}, code: 1, want: []string{"DOSSIER_SIZING_SPEED_DISKBYTESPERSECOND", "sizing.speed.diskBytesPerSecond"}},
		{name: "utilization denormal (36.4)", changes: []change{{siteFile, "gpuMemoryUtilization: 0.90 ", "gpuMemoryUtilization: 5e-324 "}}, code: 1, want: []string{"hugo-like.yaml", "sizing.gpuMemoryUtilization"}},
		{name: "published value denormal (36.4)", changes: []change{{llamaPage, "    value: 8e9\n", "    value: 5e-324\n"}}, code: 1, want: []string{"llama-3-1-8b.md", "published[0].value"}},
		{name: "claim check min NaN (36.4)", changes: []change{{llamaPage, "published:\n", strings.Replace(withClaim, "{fact: bytes.tensors, expect: 16e9, tolerance: 0.01}", "{fact: bytes.tensors, min: .nan}", 1)}}, code: 1, want: []string{"llama-3-1-8b.md", "claims[0].checks[0].min"}},
	}
}

// provenanceCases break the sources, claims and measurements of a page
// (issue 36 item 5).
func provenanceCases() []badCase {
	sources := "sources:\n  - {id: meta-blog, title: \"Introducing Llama 3.1\", by: Meta, date: \"2024-07-23\", url: \"https://ai.meta.com/blog/meta-llama-3-1/\"}\n"
	page := func(front string) []change { return []change{{llamaPage, "published:\n", front}} }
	named := strings.Replace(withClaim, "by: someone", "by: Meta", 1)
	claim := func(old, new string) []change {
		return page(sources + strings.Replace(named, old, new, 1))
	}
	meas := func(old, new string) []change {
		return page(sources + strings.Replace(withMeasurement, old, new, 1))
	}
	src := func(old, new string) []change {
		return page(strings.Replace(sources, old, new, 1) + named)
	}
	return []badCase{
		{name: "claim read before its source was published (36.5)", changes: claim("    date: \"2026-08-01\"\n    where: https://example.org/c\n", "    accessed: \"2024-07-01\"\n    where: meta-blog\n"), code: 1, want: []string{"llama-3-1-8b.md", "claims[0].accessed", "before its source"}},
		{name: "claim published before its source (36.5)", changes: claim("    date: \"2026-08-01\"\n    where: https://example.org/c\n", "    date: \"2024-07-01\"\n    where: meta-blog\n"), code: 1, want: []string{"llama-3-1-8b.md", "claims[0].date", "before its source"}},
		{name: "claim where mistyped source id (36.5)", changes: claim("where: https://example.org/c", "where: meta-blgo"), code: 1, want: []string{"llama-3-1-8b.md", "claims[0].where", "meta-blgo", "meta-blog"}},
		{name: "measurement source mistyped id (36.5)", changes: meas("source: https://example.org/m", "source: meta-blog-2"), code: 1, want: []string{"llama-3-1-8b.md", "measurements[0].source", "meta-blog-2"}},
		{name: "measurement measured before its source (36.5)", changes: page(sources + strings.NewReplacer("    date: \"2026-08-01\"\n", "    date: \"2024-01-01\"\n", "source: https://example.org/m", "source: meta-blog").Replace(withMeasurement)), code: 1, want: []string{"llama-3-1-8b.md", "measurements[0].date", "before its source"}},
		{name: "source date after accessed (36.5)", changes: src(`date: "2024-07-23"`, `date: "2024-07-23", accessed: "2024-07-01"`), code: 1, want: []string{"llama-3-1-8b.md", "sources[0].date", "after accessed"}},
		{name: "claim by experts (36.5)", changes: claim("by: Meta", "by: experts"), code: 1, want: []string{"llama-3-1-8b.md", "claims[0].by", "experts"}},
		{name: "claim by anonymous (36.5)", changes: claim("by: Meta", "by: anonymous"), code: 1, want: []string{"llama-3-1-8b.md", "claims[0].by"}},
		{name: "claim by Reddit users (36.5)", changes: claim("by: Meta", "by: Reddit users"), code: 1, want: []string{"llama-3-1-8b.md", "claims[0].by", "Reddit users"}},
		{name: "claim by users of Hacker News (36.5)", changes: claim("by: Meta", "by: users of Hacker News"), code: 1, want: []string{"llama-3-1-8b.md", "claims[0].by"}},
		{name: "claim by AI researchers (36.5)", changes: claim("by: Meta", "by: AI researchers"), code: 1, want: []string{"llama-3-1-8b.md", "claims[0].by"}},
		{name: "claim by everybody (36.5)", changes: claim("by: Meta", "by: everybody"), code: 1, want: []string{"llama-3-1-8b.md", "claims[0].by"}},
		{name: "source by commentators (36.5)", changes: src("by: Meta", "by: \"several commentators, per the thread\""), code: 1, want: []string{"llama-3-1-8b.md", "sources[0].by"}},
		{name: "measurement rank 54 of 10 (36.5)", changes: meas("    source: https://example.org/m\n", "    rank: {position: 54, of: 10}\n    source: https://example.org/m\n"), code: 1, want: []string{"llama-3-1-8b.md", "measurements[0].rank.position", "54"}},
		{name: "measurement rank 0 (36.5)", changes: meas("    source: https://example.org/m\n", "    rank: {position: 0, of: 10}\n    source: https://example.org/m\n"), code: 1, want: []string{"llama-3-1-8b.md", "measurements[0].rank.position"}},
		{name: "measurement rank negative (36.5)", changes: meas("    source: https://example.org/m\n", "    rank: {position: -3, of: 10}\n    source: https://example.org/m\n"), code: 1, want: []string{"llama-3-1-8b.md", "measurements[0].rank.position"}},
		{name: "measurement board of -1 (36.5)", changes: meas("    source: https://example.org/m\n", "    rank: {position: 1, of: -1}\n    source: https://example.org/m\n"), code: 1, want: []string{"llama-3-1-8b.md", "measurements[0].rank.of"}},
		{name: "measurement layout unknown accelerator (36.5)", changes: meas("batch: \"1\"}", "batch: \"1\", layout: 8xH1000}"), code: 1, want: []string{"llama-3-1-8b.md", "measurements[0].configuration.layout", "H1000"}},
		{name: "measurement layout 0xH100 (36.5)", changes: meas("batch: \"1\"}", "batch: \"1\", layout: 0xH100}"), code: 1, want: []string{"llama-3-1-8b.md", "measurements[0].configuration.layout", "0xH100"}},
		{name: "measurement layout malformed (36.5)", changes: meas("batch: \"1\"}", "batch: \"1\", layout: \"eight H100\"}"), code: 1, want: []string{"llama-3-1-8b.md", "measurements[0].configuration.layout"}},
		{name: "measurement layout too many GPUs (36.5)", changes: meas("batch: \"1\"}", "batch: \"1\", layout: 100000xH100}"), code: 1, want: []string{"llama-3-1-8b.md", "measurements[0].configuration.layout", "65536"}},
	}
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
		{name: "skus.yaml is garbage (36.2)", changes: []change{{skus, "", "\x7fELF\x02\x01 not yaml: [\n"}}, code: 1, want: []string{"data/pricing/skus.yaml: control characters"}},
		{name: "skus.yaml is garbage in check (36.2)", changes: []change{{skus, "", "providers: 12\n"}}, args: check, code: 1, want: []string{"data/pricing/skus.yaml: line 1", "field providers"}},
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
