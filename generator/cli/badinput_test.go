package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"dossier/generator/internal/sitetest"
	"dossier/generator/site"
)

// badSite is the frozen fixture site the bad-input cases break: one model
// (Llama 3.1 8B), the hardware catalog, a hand-written price list and a
// price snapshot, and a config.json for `plan --config`; the templates are
// the repository's (badSiteCopy).
const badSite = "testdata/badinput"

const (
	llamaPage = "content/models/llama-3-1-8b.md"
	llamaSnap = "data/hub/meta-llama/Llama-3.1-8B/snapshot.json"
	hwFile    = "data/hardware.yaml"
	priceFile = "data/pricing/runpod.yaml"
	siteFile  = "hugo-like.yaml"
	planConf  = "plan-llama.json"
)

// change is one edit to the copied fixture: replace the first old with new
// in file; old "" writes new as the whole file; new "\x00" removes it.
type change struct{ file, old, new string }

type badCase struct {
	name    string
	changes []change
	env     map[string]string
	args    []string // default: build
	code    int      // expected exit status; 0 means any non-zero status
	want    []string // substrings of stdout+stderr: the file (or variable, flag) and the field
	prepare func(t *testing.T, root string)
}

const (
	kvheads = `"num_key_value_heads": 8,`
	hidden  = `"hidden_size": 4096,`
	// a measurement and a claim to break, inserted before published:
	withMeasurement = "measurements:\n  - id: speed\n    metric: decode speed\n    value: 100\n    unit: tokens/s\n    by: someone\n    date: \"2026-08-01\"\n    kind: self-hosted\n    configuration: {model: llama, hardware: 1xH100, batch: \"1\"}\n    source: https://example.org/m\npublished:\n"
	withClaim       = "claims:\n  - id: big\n    text: \"Llama is 16 GB.\"\n    by: someone\n    date: \"2026-08-01\"\n    where: https://example.org/c\n    kind: size\n    checks:\n      - {fact: bytes.tensors, expect: 16e9, tolerance: 0.01}\n    reason: checked\npublished:\n"
)

func measurement(field, value string) change {
	return change{llamaPage, "published:\n", strings.Replace(withMeasurement, "    "+field+": "+fieldDefault(field)+"\n", "    "+field+": "+value+"\n", 1)}
}

func fieldDefault(field string) string {
	switch field {
	case "value":
		return "100"
	case "date":
		return `"2026-08-01"`
	}
	panic("no default for " + field)
}

func badInputCases() []badCase {
	cfgEdit := func(old, new string) []change { return []change{{siteFile, old, new}} }
	snapEdit := func(old, new string) []change { return []change{{llamaSnap, old, new}} }
	pageEdit := func(old, new string) []change { return []change{{llamaPage, old, new}} }
	confEdit := func(old, new string) []change { return []change{{planConf, old, new}} }
	planArgs := []string{"plan", "--config", planConf}
	long := strings.Repeat("o", 300)
	return []badCase{
		// Site configuration (hugo-like.yaml): every number has a range.
		{name: "reserve overflows (1)", changes: cfgEdit("reservePerGpuBytes: 0 ", "reservePerGpuBytes: 9000000000000000000 "), want: []string{"hugo-like.yaml", "sizing.reservePerGpuBytes", "from 0 to 10000000000000 bytes"}},
		{name: "concurrency overflows (1)", changes: cfgEdit("concurrency: 1 ", "concurrency: 1000000000000000000 "), want: []string{"hugo-like.yaml", "sizing.concurrency"}},
		{name: "kv dtype bytes overflow (1)", changes: cfgEdit("kvDtypeBytes: 2 ", "kvDtypeBytes: 9223372036854775807 "), want: []string{"hugo-like.yaml", "sizing.kvDtypeBytes"}},
		{name: "kv dtype bytes past int64", changes: cfgEdit("kvDtypeBytes: 2 ", "kvDtypeBytes: 99999999999999999999 "), want: []string{"hugo-like.yaml", "sizing.kvDtypeBytes"}},
		{name: "state dtype bytes zero", changes: cfgEdit("stateDtypeBytes: 4 ", "stateDtypeBytes: 0 "), want: []string{"hugo-like.yaml", "sizing.stateDtypeBytes"}},
		{name: "negative context", changes: cfgEdit("contexts: [8192, 131072, 1048576]", "contexts: [8192, -1]"), want: []string{"hugo-like.yaml", "sizing.contexts[1]"}},
		{name: "huge context (1)", changes: cfgEdit("contexts: [8192, 131072, 1048576]", "contexts: [99999999999999]"), want: []string{"hugo-like.yaml", "sizing.contexts[0]"}},
		{name: "no contexts", changes: cfgEdit("contexts: [8192, 131072, 1048576]", "contexts: []"), want: []string{"hugo-like.yaml", "sizing.contexts"}},
		{name: "serving context zero", changes: cfgEdit("servingContext: 131072 ", "servingContext: 0 "), want: []string{"hugo-like.yaml", "sizing.servingContext"}},
		{name: "serving context huge", changes: cfgEdit("servingContext: 131072 ", "servingContext: 9000000000000000000 "), want: []string{"hugo-like.yaml", "sizing.servingContext"}},
		{name: "utilization above one", changes: cfgEdit("gpuMemoryUtilization: 0.90 ", "gpuMemoryUtilization: 1.5 "), want: []string{"hugo-like.yaml", "sizing.gpuMemoryUtilization"}},
		{name: "utilization NaN", changes: cfgEdit("gpuMemoryUtilization: 0.90 ", "gpuMemoryUtilization: .nan "), want: []string{"hugo-like.yaml", "sizing.gpuMemoryUtilization"}},
		{name: "tensor parallel zero", changes: cfgEdit("tensorParallelSizes: [1, 2, 4, 8]", "tensorParallelSizes: [1, 0]"), want: []string{"hugo-like.yaml", "sizing.tensorParallelSizes[1]"}},
		{name: "tensor parallel huge", changes: cfgEdit("tensorParallelSizes: [1, 2, 4, 8]", "tensorParallelSizes: [1, 100000000000]"), want: []string{"hugo-like.yaml", "sizing.tensorParallelSizes[1]"}},
		{name: "download rate negative", changes: cfgEdit("downloadBytesPerSecond: 126300000", "downloadBytesPerSecond: -1"), want: []string{"hugo-like.yaml", "sizing.downloadBytesPerSecond"}},
		{name: "download rate 1e300", changes: cfgEdit("downloadBytesPerSecond: 126300000", "downloadBytesPerSecond: 1e300"), want: []string{"hugo-like.yaml", "sizing.downloadBytesPerSecond"}},
		{name: "wait window infinite", changes: cfgEdit("waitWindowSeconds: 1800", "waitWindowSeconds: .inf"), want: []string{"hugo-like.yaml", "sizing.waitWindowSeconds"}},
		{name: "hardware count overflows memory (1)", changes: cfgEdit("  - 8xB200\n", "  - 1000000000xB200\n"), want: []string{"hugo-like.yaml", "hardware[0]", "from 1 to 65536"}},
		{name: "hardware count past int64 (1)", changes: cfgEdit("  - 8xB200\n", "  - 99999999999999999999xB200\n"), want: []string{"hugo-like.yaml", "hardware[0]"}},
		{name: "hardware without accelerator", changes: cfgEdit("  - 8xB200\n", "  - 8x\n"), want: []string{"hugo-like.yaml", "hardware[0]"}},
		{name: "hardware unknown accelerator", changes: cfgEdit("  - 8xB200\n", "  - 8xB2000\n"), want: []string{"hugo-like.yaml", "hardware[0]", "B2000", "hardware.yaml"}},
		{name: "contentDir typo (2)", changes: cfgEdit("contentDir: content", "contentDir: contnet"), code: 1, want: []string{"hugo-like.yaml", "contentDir", "contnet"}},
		{name: "dataDir typo", changes: cfgEdit("dataDir: data", "dataDir: dtaa"), want: []string{"hugo-like.yaml", "dataDir", "dtaa"}},
		{name: "templatesDir typo", changes: cfgEdit("templatesDir: templates", "templatesDir: tmpl"), want: []string{"hugo-like.yaml", "templatesDir", "tmpl"}},
		{name: "publishDir inside content (12)", changes: cfgEdit("publishDir: public", "publishDir: content/out"), want: []string{"hugo-like.yaml", "publishDir", "content"}},
		{name: "unknown key", changes: cfgEdit("sizing:\n", "sizng:\n  x: 1\nsizing:\n"), want: []string{"hugo-like.yaml", "sizng"}},
		{name: "impossible freshness.today (4)", changes: cfgEdit("maxAgeDays: 0 ", "maxAgeDays: 0\n  today: \"2026-02-30\" "), want: []string{"hugo-like.yaml", "freshness.today"}},
		{name: "negative maxAgeDays", changes: cfgEdit("maxAgeDays: 0 ", "maxAgeDays: -1 "), want: []string{"hugo-like.yaml", "freshness.maxAgeDays"}},
		{name: "maxAgeDays huge", changes: cfgEdit("maxAgeDays: 0 ", "maxAgeDays: 99999999999 "), want: []string{"hugo-like.yaml", "freshness.maxAgeDays"}},
		{name: "unclosed quote in site config (13)", changes: cfgEdit(`title: "dossier: fact-checked model dossiers"`, `title: "dossier: fact-checked model dossiers`), want: []string{"hugo-like.yaml: line 4:", "not closed"}},

		// Environment variables are blamed by name, never the file.
		{name: "env not a number (13)", env: map[string]string{"DOSSIER_SIZING_CONCURRENCY": "abc"}, want: []string{"DOSSIER_SIZING_CONCURRENCY", "sizing.concurrency"}},
		{name: "env reserve overflows (1)", env: map[string]string{"DOSSIER_SIZING_RESERVEPERGPUBYTES": "9000000000000000000"}, want: []string{"DOSSIER_SIZING_RESERVEPERGPUBYTES", "sizing.reservePerGpuBytes", "from 0 to"}},
		{name: "env concurrency overflows (1)", env: map[string]string{"DOSSIER_SIZING_CONCURRENCY": "1000000000000000000"}, want: []string{"DOSSIER_SIZING_CONCURRENCY"}},
		{name: "env kv bytes overflow (1)", env: map[string]string{"DOSSIER_SIZING_KVDTYPEBYTES": "9223372036854775807"}, want: []string{"DOSSIER_SIZING_KVDTYPEBYTES"}},
		{name: "env misspelt (13)", env: map[string]string{"DOSSIER_SIZNG_CONCURRENCY": "4"}, want: []string{"DOSSIER_SIZNG_CONCURRENCY", "DOSSIER_SIZING_CONCURRENCY"}},
		{name: "env misspelt top level", env: map[string]string{"DOSSIER_PUBLISHDR": "x"}, want: []string{"DOSSIER_PUBLISHDR", "DOSSIER_PUBLISHDIR"}},
		{name: "env misspelt in a section", env: map[string]string{"DOSSIER_SIZING_CONCURENCY_X": "4"}, want: []string{"DOSSIER_SIZING_CONCURENCY_X", "names no setting"}},
		{name: "env contentDir missing (2)", env: map[string]string{"DOSSIER_CONTENTDIR": "nowhere"}, want: []string{"DOSSIER_CONTENTDIR", "nowhere"}},
		{name: "env utilization", env: map[string]string{"DOSSIER_SIZING_GPUMEMORYUTILIZATION": "2"}, want: []string{"DOSSIER_SIZING_GPUMEMORYUTILIZATION"}},
		{name: "env publishDir inside data (12)", env: map[string]string{"DOSSIER_PUBLISHDIR": "data/pricing/out"}, want: []string{"DOSSIER_PUBLISHDIR", "data"}},
		{name: "env impossible today (4)", env: map[string]string{"DOSSIER_FRESHNESS_TODAY": "2026-13-45"}, want: []string{"DOSSIER_FRESHNESS_TODAY"}},
		{name: "env hardware", env: map[string]string{"DOSSIER_HARDWARE": "0xB200"}, want: []string{"DOSSIER_HARDWARE"}},
		{name: "env on plan (13)", env: map[string]string{"DOSSIER_SIZING_CONCURRENCY": "abc"}, args: planArgs, want: []string{"DOSSIER_SIZING_CONCURRENCY"}},

		// Flags and destinations.
		{name: "destination in content (12)", args: []string{"build", "--destination", "content/out"}, want: []string{"--destination", "content"}},
		{name: "destination in pricing data (12)", args: []string{"build", "--destination", "data/pricing/out"}, want: []string{"--destination", "data"}},
		{name: "destination in templates (12)", args: []string{"build", "--destination", "templates/x"}, want: []string{"--destination", "templates"}},
		{name: "destination is the root", args: []string{"build", "--destination", "."}, want: []string{"--destination"}},
		{name: "destination is a file", args: []string{"build", "--destination", siteFile}, want: []string{"--destination", "hugo-like.yaml"}},
		{name: "unknown flag suggests (13)", args: []string{"build", "--destinaton", "x"}, code: 2, want: []string{"--destinaton", "--destination"}},
		{name: "unknown command", args: []string{"biuld"}, code: 2, want: []string{"biuld", "build"}},
		{name: "plan without input is usage", args: []string{"plan"}, code: 2, want: []string{"--config"}},
		{name: "diff bad format is usage", args: []string{"diff", "--base", "x", "--format", "yaml"}, code: 2, want: []string{"--format"}},
		{name: "serve port out of range", args: []string{"serve", "--port", "70000"}, code: 2, want: []string{"--port"}},
		{name: "build takes no argument", args: []string{"build", "extra"}, code: 2, want: []string{"extra"}},
		{name: "symlinked public (10)", prepare: symlinkPublic, want: []string{"public", "symbolic link"}},

		// Front matter.
		{name: "impossible review date (4)", changes: pageEdit(`review: "2026-12-02"`, `review: "2026-02-30"`), want: []string{"llama-3-1-8b.md", "review", "2026-02-30"}},
		{name: "month 13 review date (4)", changes: pageEdit(`review: "2026-12-02"`, `review: "2026-13-45"`), want: []string{"llama-3-1-8b.md", "review"}},
		{name: "impossible release date (4)", changes: pageEdit(`review: "2026-12-02"`, "review: \"2026-12-02\"\ndate: \"2026-02-29\""), want: []string{"llama-3-1-8b.md", "date"}},
		{name: "future review in check (4)", changes: append(pageEdit(`review: "2026-12-02"`, `review: "2099-01-01"`), change{siteFile, "maxAgeDays: 0 ", "maxAgeDays: 365\n  today: \"2026-12-02\" "}), args: []string{"check"}, code: 1, want: []string{"llama-3-1-8b.md", "review", "future"}},
		{name: "300-character org (7)", changes: pageEdit("org: Meta", "org: "+long), want: []string{"llama-3-1-8b.md", "field org"}},
		{name: "org with a slash (7)", changes: pageEdit("org: Meta", "org: \"../../etc\""), want: []string{"llama-3-1-8b.md", "field org"}},
		{name: "negative published params.total (13)", changes: pageEdit("    value: 8e9\n", "    value: -8e9\n"), want: []string{"llama-3-1-8b.md", "published[0].value"}},
		{name: "NaN published value", changes: pageEdit("    value: 8e9\n", "    value: .nan\n"), want: []string{"llama-3-1-8b.md", "published[0].value"}},
		{name: "infinite published value", changes: pageEdit("    value: 8e9\n", "    value: .inf\n"), want: []string{"llama-3-1-8b.md", "published[0].value"}},
		{name: "unknown front matter field", changes: pageEdit("org: Meta", "org: Meta\ntitel: x"), want: []string{"llama-3-1-8b.md", "titel"}},
		{name: "model id escapes data/hub", changes: pageEdit("model: meta-llama/Llama-3.1-8B", "model: ../../Llama-3.1-8B"), want: []string{"llama-3-1-8b.md", "field model"}},
		{name: "model without snapshot", changes: pageEdit("model: meta-llama/Llama-3.1-8B", "model: meta-llama/Llama-3.1-9B"), want: []string{"llama-3-1-8b.md", "Llama-3.1-9B"}},
		{name: "measurement NaN (5)", changes: []change{measurement("value", ".nan")}, want: []string{"llama-3-1-8b.md", "measurements[0].value"}},
		{name: "measurement Inf (5)", changes: []change{measurement("value", "-.inf")}, want: []string{"llama-3-1-8b.md", "measurements[0].value"}},
		{name: "measurement impossible date (4)", changes: []change{measurement("date", `"2026-02-30"`)}, want: []string{"llama-3-1-8b.md", "measurements[0].date"}},
		{name: "claim tolerance NaN", changes: pageEdit("published:\n", strings.Replace(withClaim, "tolerance: 0.01", "tolerance: .nan", 1)), want: []string{"llama-3-1-8b.md", "tolerance"}},
		{name: "claim expect infinite", changes: pageEdit("published:\n", strings.Replace(withClaim, "expect: 16e9", "expect: .inf", 1)), want: []string{"llama-3-1-8b.md", "expect"}},
		{name: "variant bytes 1e300", changes: pageEdit("published:\n", "variants:\n  - {name: q4, repo: x/y, format: gguf, bytes: 1e300, source: listing}\npublished:\n"), want: []string{"llama-3-1-8b.md", "variants[0].bytes"}},
		{name: "empty claim item (fuzz)", changes: pageEdit("published:\n", "claims:\n  -\npublished:\n"), want: []string{"llama-3-1-8b.md", "claims[0]", "empty item"}},
		{name: "unclosed front matter", changes: pageEdit("---\nThe module", "The module"), want: []string{"llama-3-1-8b.md", "never closed"}},
		{name: "unclosed quote in front matter (13)", changes: pageEdit(`title: "Llama 3.1 8B"`, `title: "Llama 3.1 8B`), want: []string{"llama-3-1-8b.md: line 2:", "not closed"}},

		// Shortcodes.
		{name: "fact shortcode without key (3)", changes: pageEdit("{{< fact arch.layers >}}", "{{< fact >}}"), want: []string{"llama-3-1-8b.md:", "shortcode"}},
		{name: "misspelt shortcode (3)", changes: pageEdit("{{< fact arch.layers >}}", "{{< fakt arch.layers >}}"), want: []string{"llama-3-1-8b.md:", "fakt"}},
		{name: "unclosed shortcode (3)", changes: pageEdit("{{< fact arch.layers >}}", "{{< fact arch.layers"), want: []string{"llama-3-1-8b.md:", "never closed"}},
		{name: "shortcode with two keys (3)", changes: pageEdit("{{< fact arch.layers >}}", "{{< fact arch.layers arch.hybrid >}}"), want: []string{"llama-3-1-8b.md:", "shortcode"}},
		{name: "empty shortcode (3)", changes: pageEdit("{{< fact arch.layers >}}", "{{< >}}"), want: []string{"llama-3-1-8b.md:", "shortcode"}},
		{name: "percent shortcode (3)", changes: pageEdit("{{< fact arch.layers >}}", "{{% fact arch.layers %}}"), want: []string{"llama-3-1-8b.md:", "shortcode"}},
		{name: "fact that does not exist", changes: pageEdit("{{< fact arch.layers >}}", "{{< fact arch.layerz >}}"), want: []string{"llama-3-1-8b.md:", "arch.layerz"}},
		{name: "no model pages (2)", changes: []change{{llamaPage, "", "\x00"}}, code: 3, want: []string{"content/models", "no model"}},

		// Snapshots.
		{name: "duplicate key in snapshot (13)", changes: snapEdit(`"schema": 1,`, `"schema": 1, "schema": 1,`), want: []string{"snapshot.json", "schema", "duplicate"}},
		{name: "duplicate key in snapshot config (13)", changes: snapEdit(hidden, hidden+` "hidden_size": 2048,`), want: []string{"snapshot.json", "config.hidden_size", "duplicate"}},
		{name: "hidden_size 1e15 (1)", changes: snapEdit(hidden, `"hidden_size": 1000000000000000,`), want: []string{"snapshot.json", "config.hidden_size"}},
		{name: "more KV heads than heads (13)", changes: snapEdit(kvheads, `"num_key_value_heads": 64,`), want: []string{"snapshot.json", "config.num_key_value_heads"}},
		{name: "KV heads not dividing (13)", changes: snapEdit(kvheads, `"num_key_value_heads": 7,`), want: []string{"snapshot.json", "config.num_key_value_heads"}},
		{name: "head_dim zero (13)", changes: snapEdit(kvheads, kvheads+` "head_dim": 0,`), want: []string{"snapshot.json", "config.head_dim"}},
		{name: "rope_theta 1e999 (13)", changes: snapEdit(`"rope_theta": 500000.0,`, `"rope_theta": 1e999,`), want: []string{"snapshot.json", "config.rope_theta"}},
		{name: "negative layers", changes: snapEdit(`"num_hidden_layers": 32,`, `"num_hidden_layers": -32,`), want: []string{"snapshot.json", "config.num_hidden_layers"}},
		{name: "unknown model_type blames the config (6)", changes: snapEdit(`"model_type": "llama",`, `"model_type": "llamax",`), want: []string{"snapshot.json", "field config.model_type", "llamax"}},
		{name: "shard sizes past 2^63 (1)", changes: snapEdit("    {\n      \"path\": \"config.json\"\n    }\n  ],\n  \"shards\": {\n    \"count\": 0,\n    \"bytes\": 0,",
			"    {\"path\": \"config.json\"},\n    {\"path\": \"a.safetensors\", \"size\": 9000000000000000000},\n    {\"path\": \"b.safetensors\", \"size\": 9000000000000000000}\n  ],\n  \"shards\": {\n    \"count\": 2,\n    \"bytes\": 2,"),
			want: []string{"snapshot.json", "files[2].size", "int64"}},
		{name: "negative shard bytes", changes: snapEdit(`"bytes": 0,`, `"bytes": -1,`), want: []string{"snapshot.json", "shards.bytes"}},
		{name: "wrong schema", changes: snapEdit(`"schema": 1,`, `"schema": 2,`), want: []string{"snapshot.json", "schema"}},
		{name: "trailing data in snapshot", changes: []change{{llamaSnap, "\"config_source\"", "\"config_source\""}, {llamaSnap, "\n}\n", "\n}\n{}"}}, want: []string{"snapshot.json", "trailing"}},
		{name: "snapshot model mismatch", changes: snapEdit(`"model": "meta-llama/Llama-3.1-8B",`, `"model": "meta-llama/Llama-3.1-70B",`), want: []string{"snapshot.json", "model"}},
		{name: "vocab size absurd", changes: snapEdit(`"vocab_size": 128256`, `"vocab_size": 1e15`), want: []string{"snapshot.json", "config.vocab_size"}},

		// Catalogs.
		{name: "memory_bytes 9e18 (1)", changes: []change{{hwFile, "memory_bytes: 192265846784", "memory_bytes: 9e18"}}, want: []string{"hardware.yaml:17", "accelerators[0].memory_bytes", "from 1 to"}},
		{name: "memory_bytes zero", changes: []change{{hwFile, "memory_bytes: 192265846784", "memory_bytes: 0"}}, want: []string{"hardware.yaml:17", "memory_bytes"}},
		{name: "gpus_per_node huge", changes: []change{{hwFile, "gpus_per_node: 8", "gpus_per_node: 99999999999"}}, want: []string{"hardware.yaml", "gpus_per_node"}},
		{name: "hardware as_of impossible (4)", changes: []change{{hwFile, "\n    as_of: \"2026-12-02\"", "\n    as_of: \"2026-13-45\""}}, want: []string{"hardware.yaml:53", "as_of"}},
		{name: "check names the catalog entry line (13)", changes: []change{{hwFile, "memory_bytes: 288400343040", "memory_bytes: -1"}}, args: []string{"check"}, want: []string{"hardware.yaml:58", "memory_bytes"}},
		{name: "price 1e300 (8)", changes: []change{{priceFile, "usd_per_gpu_hour: 5.98", "usd_per_gpu_hour: 1e300"}}, want: []string{"runpod.yaml:9", "prices[0].usd_per_gpu_hour", "from 0 to"}},
		{name: "price negative", changes: []change{{priceFile, "usd_per_gpu_hour: 5.98", "usd_per_gpu_hour: -5.98"}}, want: []string{"runpod.yaml", "usd_per_gpu_hour"}},
		{name: "price NaN", changes: []change{{priceFile, "usd_per_gpu_hour: 5.98", "usd_per_gpu_hour: .nan"}}, want: []string{"runpod.yaml", "usd_per_gpu_hour"}},
		{name: "price gpus huge", changes: []change{{priceFile, "gpus: 8\n", "gpus: 9999999999\n"}}, want: []string{"runpod.yaml", "gpus"}},
		{name: "price as_of impossible (4)", changes: []change{{priceFile, `as_of: "2026-08-06"`, `as_of: "2026-02-30"`}}, want: []string{"runpod.yaml", "as_of"}},
		{name: "price as_of future in check (4)", changes: []change{{priceFile, `as_of: "2026-08-06"`, `as_of: "2099-01-01"`}, {siteFile, "maxAgeDays: 0 ", "maxAgeDays: 365\n  today: \"2026-12-02\" "}}, args: []string{"check", "--strict"}, code: 1, want: []string{"runpod.yaml", "as_of", "future"}},
		{name: "price snapshot 1e300 (8)", changes: []change{{"data/pricing/lambda.json", `"usd_per_hour": 6.99,`, `"usd_per_hour": 1e300,`}}, want: []string{"lambda.json", "prices[0].usd_per_hour", "from 0 to"}},
		{name: "price snapshot gpus huge", changes: []change{{"data/pricing/lambda.json", `"gpus": 1,`, `"gpus": 100000000,`}}, want: []string{"lambda.json", "prices[0].gpus"}},
		{name: "price snapshot duplicate key (13)", changes: []change{{"data/pricing/lambda.json", `"name": "Lambda",`, `"name": "Lambda", "name": "Lambda",`}}, want: []string{"lambda.json", "field name", "duplicate"}},
		{name: "unclosed quote in catalog (13)", changes: []change{{priceFile, `provider: RunPod`, `provider: "RunPod`}}, want: []string{"runpod.yaml: line 4:", "not closed"}},

		// Plan configs.
		{name: "plan hidden_size 1e15 (1)", changes: confEdit(`"hidden_size": 4096,`, `"hidden_size": 1000000000000000,`), args: planArgs, want: []string{planConf, "hidden_size"}},
		{name: "plan KV heads 64 (13)", changes: confEdit(`"num_key_value_heads": 8,`, `"num_key_value_heads": 64,`), args: planArgs, want: []string{planConf, "num_key_value_heads"}},
		{name: "plan head_dim 0 (13)", changes: confEdit(`"num_key_value_heads": 8,`, `"num_key_value_heads": 8, "head_dim": 0,`), args: planArgs, want: []string{planConf, "head_dim"}},
		{name: "plan rope_theta 1e999 (13)", changes: confEdit(`"rope_theta": 500000.0,`, `"rope_theta": 1e999,`), args: planArgs, want: []string{planConf, "rope_theta"}},
		{name: "plan duplicate key (13)", changes: confEdit(`"num_key_value_heads": 8,`, `"num_key_value_heads": 8, "num_key_value_heads": 4,`), args: planArgs, want: []string{planConf, "num_key_value_heads", "duplicate"}},
		{name: "plan missing file", args: []string{"plan", "--config", "nope.json"}, want: []string{"--config", "nope.json"}},
		{name: "plan reserve overflow (1)", changes: cfgEdit("reservePerGpuBytes: 0 ", "reservePerGpuBytes: 9000000000000000000 "), args: planArgs, want: []string{"hugo-like.yaml", "sizing.reservePerGpuBytes"}},
		{name: "plan memory_bytes 9e18 (1)", changes: []change{{hwFile, "memory_bytes: 192265846784", "memory_bytes: 9e18"}}, args: planArgs, want: []string{"hardware.yaml:17", "memory_bytes"}},
		{name: "plan context times concurrency overflows (1)", changes: append(confEdit(`"num_key_value_heads": 8,`, `"num_key_value_heads": 8, "head_dim": 1000000,`), change{siteFile, "concurrency: 1 ", "concurrency: 1000000 "}, change{siteFile, "servingContext: 131072 ", "servingContext: 1000000000 "}, change{planConf, `"max_position_embeddings": 131072,`, `"max_position_embeddings": 1000000000,`}), args: planArgs, want: []string{"overflow", "sizing.concurrency"}},
	}
}

// symlinkPublic makes public/ a symbolic link to a directory elsewhere.
func symlinkPublic(t *testing.T, root string) {
	t.Helper()
	target := filepath.Join(t.TempDir(), "site")
	if err := os.Rename(filepath.Join(root, "public"), target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(root, "public")); err != nil {
		t.Fatal(err)
	}
}

// TestBadInput breaks the fixture site one way per case and runs the real
// command line on it: each must exit non-zero without a panic, name the
// file (or variable, or flag) and the field, and leave every file of the
// site as it was, public/ and data/ included.
func TestBadInput(t *testing.T) {
	cases := append(badInputCases(), issue36Cases()...)
	if len(cases) < 80 {
		t.Errorf("%d cases, want at least 80", len(cases))
	}
	if n := len(issue36Cases()); n < 100 {
		t.Errorf("%d cases of issue 36, want at least 100", n)
	}
	// One good build to copy: the cases start from a published site.
	clean := badSiteCopy(t)
	if err := copyFile(filepath.Join(badSite, planConf), filepath.Join(clean, planConf)); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run("--source", clean, "build"); code != 0 {
		t.Fatalf("the fixture site does not build: exit %d\n%s%s", code, out, errs)
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.name] {
			t.Fatalf("two cases named %q", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			root := copyTree(t, clean)
			for _, c := range tc.changes {
				apply(t, root, c)
			}
			if tc.prepare != nil {
				tc.prepare(t, root)
			}
			t.Setenv("HF_TOKEN", secretToken)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			before := treeHashes(t, root)
			args := tc.args
			if args == nil {
				args = []string{"build"}
			}
			code, out, errs := runInDir(t, root, args)
			msg := out + errs
			if os.Getenv("BADINPUT_SHOW") != "" {
				t.Logf("exit %d: %s", code, msg)
			}
			switch {
			case code == 0:
				t.Errorf("exit 0, want an error\n%s", msg)
			case tc.code != 0 && code != tc.code:
				t.Errorf("exit %d, want %d\n%s", code, tc.code, msg)
			}
			for _, secret := range []string{secretToken, outsideText} {
				if strings.Contains(msg, secret) {
					t.Errorf("output holds %q:\n%s", secret, msg)
				}
			}
			if strings.Contains(msg, "panic") || strings.Contains(msg, "goroutine ") {
				t.Errorf("output mentions a panic:\n%s", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("output lacks %q:\n%s", w, msg)
				}
			}
			after := treeHashes(t, root)
			for p, h := range before {
				if after[p] != h {
					t.Errorf("%s changed", p)
				}
			}
			for p := range after {
				if _, ok := before[p]; !ok {
					t.Errorf("%s appeared", p)
				}
			}
		})
	}
}

// runInDir runs the command line with the working directory at root, so
// relative flags (--destination content/out) resolve inside the copy, and
// recovers a panic into a failure.
func runInDir(t *testing.T, root string, args []string) (code int, out, errs string) {
	t.Helper()
	t.Chdir(root)
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v", r)
		}
	}()
	return run(append([]string{"--source", root}, args...)...)
}

func apply(t *testing.T, root string, c change) {
	t.Helper()
	p := filepath.Join(root, c.file)
	switch {
	case c.new == "\x00":
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	case c.old == "":
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c.new), 0o644); err != nil {
			t.Fatal(err)
		}
	default:
		sitetest.Edit(t, p, c.old, c.new)
	}
}

// badSiteCopy copies the fixture site into a new temporary root with the
// repository's templates, which belong to the engine, not to the data.
func badSiteCopy(t *testing.T) string {
	t.Helper()
	root := sitetest.Copy(t, badSite, nil)
	copyDir(t, filepath.Join(sitetest.RepoRoot(t), "templates"), filepath.Join(root, "templates"))
	return root
}

// copyTree copies every file under src to a new temporary directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	copyDir(t, src, dst)
	return dst
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// treeHashes maps every path under root (files, directories and links,
// following none) to a hash of what it is and holds.
func treeHashes(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case rel == site.CacheDir || rel == ".public.lock":
			// The build cache and the lock are the build's own, not inputs
			// or outputs; a failed build may have added correct entries.
			if e.IsDir() {
				return filepath.SkipDir
			}
		case e.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "link " + target
			// A directory linked from outside root (public/): hash it too.
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				sub := treeHashes(t, target)
				for k, v := range sub {
					out[rel+"/"+k] = v
				}
			}
		case e.IsDir():
			out[rel] = "dir"
		case !e.Type().IsRegular():
			out[rel] = "special " + e.Type().String() // a pipe is never read
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			out[rel] = hex.EncodeToString(sum[:])
		}
		return nil
	})
	if err != nil {
		t.Fatal(fmt.Errorf("hash %s: %w", root, err))
	}
	return out
}

// Item 9 of issue 15: a heading attribute other than the id (a style, an
// event handler) written in a title or in prose never reaches the HTML.
func TestHeadingAttributesStayText(t *testing.T) {
	root := badSiteCopy(t)
	page := filepath.Join(root, llamaPage)
	sitetest.Edit(t, page, `title: "Llama 3.1 8B"`, `title: "Llama {#site-header style=\"position:fixed\"}"`)
	sitetest.Edit(t, page, "This is a dense model", "## Layout {#site-header style=\"position:fixed\"}\n\nThis is a dense model")
	if code, out, errs := run("--source", root, "build"); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	b, err := os.ReadFile(filepath.Join(root, "public/models/llama-3-1-8b/index.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	// Only an id may come from {#…} (the templates' anchors use it).
	if strings.Contains(html, `style="position:fixed`) {
		t.Errorf("a style attribute reached the HTML")
	}
}

// A future date is an error in check (TestBadInput) and a warning in
// build, which still publishes.
func TestFutureDateWarnsInBuild(t *testing.T) {
	root := badSiteCopy(t)
	sitetest.Edit(t, filepath.Join(root, llamaPage), `review: "2026-12-02"`, `review: "2099-01-01"`)
	sitetest.Edit(t, filepath.Join(root, siteFile), "maxAgeDays: 0 ", "maxAgeDays: 0\n  today: \"2026-12-02\" ")
	code, _, errs := run("--source", root, "build")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "llama-3-1-8b.md:5: warning: field review: 2099-01-01 is in the future") {
		t.Errorf("no warning naming file, line and field:\n%s", errs)
	}
}

// A catalog date in the future is found on its line: the line is looked
// up only for such a date, and the others cost no parse.
func TestFutureCatalogDatesNameTheirLines(t *testing.T) {
	root := badSiteCopy(t)
	hw := filepath.Join(root, "data", "hardware.yaml")
	sitetest.Edit(t, hw, "    node_name: \"DGX B200\"\n    source: \"https://www.nvidia.com/en-us/data-center/dgx-b200/\"\n    as_of: \"2026-12-02\"",
		"    node_name: \"DGX B200\"\n    source: \"https://www.nvidia.com/en-us/data-center/dgx-b200/\"\n    as_of: \"2099-02-03\"")
	sitetest.Edit(t, filepath.Join(root, "data", "pricing", "runpod.yaml"), `as_of: "2026-08-06"`, `as_of: "2099-04-05"`)
	sitetest.Edit(t, filepath.Join(root, siteFile), "maxAgeDays: 0 ", "maxAgeDays: 0\n  today: \"2026-12-02\" ")
	code, _, errs := run("--source", root, "build")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"data/hardware.yaml:" + lineOf(t, hw, `as_of: "2099-02-03"`) + ": warning: field as_of of B200: 2099-02-03 is in the future",
		"data/pricing/runpod.yaml:6: warning: field as_of: 2099-04-05 is in the future",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("no warning %q:\n%s", want, errs)
		}
	}
	if n := strings.Count(errs, "is in the future"); n != 2 {
		t.Errorf("%d future dates reported, want 2:\n%s", n, errs)
	}
}

// lineOf is the line number of the first line of path holding text.
func lineOf(t *testing.T, path, text string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, text) {
			return strconv.Itoa(i + 1)
		}
	}
	t.Fatalf("%s holds no %q", path, text)
	return ""
}

// serve checks its port before it builds: on a busy port it fails at once
// with a usage error and never builds.
func TestServeBusyPortFailsBeforeBuilding(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	root := badSiteCopy(t)
	// A site that cannot build: were it built first, that error would show.
	sitetest.Edit(t, filepath.Join(root, llamaPage), "{{< fact arch.layers >}}", "{{< fakt arch.layers >}}")
	code, _, errs := run("--source", root, "serve", "--port", port)
	if code != 2 || !strings.Contains(errs, "--port") || strings.Contains(errs, "fakt") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// Item 11 of issue 15: a build killed between the two renames of its swap
// leaves no public/, the previous output in .public.new-N.old and the new
// one in .public.new-N. The next build repairs that and removes both.
// (A build exchanges the directories at once where the file system can,
// and falls back to the two renames where it cannot.)
func TestBuildRepairsACrashedSwap(t *testing.T) {
	root := badSiteCopy(t)
	if code, out, errs := run("--source", root, "build"); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	pub := filepath.Join(root, "public")
	if err := os.Rename(pub, filepath.Join(root, ".public.new-42.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".public.new-42", "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run("--source", root, "build"); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		// The lock file stays, so every build locks the same file.
		if strings.HasPrefix(e.Name(), ".public") && e.Name() != ".public.lock" {
			t.Errorf("%s left behind", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(pub, "models", "llama-3-1-8b", "facts.json")); err != nil {
		t.Errorf("public/ not rebuilt: %v", err)
	}
}
