package cli

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// planSite is a frozen site: the catalogs and two snapshots as shipped,
// with three layouts, so the goldens move only with the report or sizing.
const planSite = "testdata/plan/site"

// planGoldens are the report outputs kept in testdata/plan/golden.
var planGoldens = []struct {
	name string
	args []string
}{
	{"llama.txt", []string{"plan", "meta-llama/Llama-3.1-8B"}},
	{"llama.md", []string{"plan", "meta-llama/Llama-3.1-8B", "--format", "markdown"}},
	{"llama-all.txt", []string{"plan", "meta-llama/Llama-3.1-8B", "--all"}},
	{"compare.txt", []string{"plan", "meta-llama/Llama-3.1-8B", "--compare", "Qwen/Qwen3-30B-A3B",
		"--hardware", "1xH100", "--hardware", "2xH100,1xB200", "--context", "32768", "--concurrency", "4", "--kv-dtype", "fp8"}},
	{"compare.md", []string{"plan", "meta-llama/Llama-3.1-8B", "--compare", "Qwen/Qwen3-30B-A3B", "--format", "md"}},
	{"gpt-oss-config.md", []string{"plan", "--config", "testdata/plan/configs/openai__gpt-oss-20b.json", "--format", "markdown"}},
	{"gpt-oss-config.txt", []string{"plan", "--config", "testdata/plan/configs/openai__gpt-oss-20b.json", "--hardware", "1xH100"}},
}

// TestPlanReportGolden compares plan's text and Markdown reports with the
// files in testdata/plan/golden (go test -run PlanReportGolden -update
// rewrites them).
func TestPlanReportGolden(t *testing.T) {
	for _, g := range planGoldens {
		t.Run(g.name, func(t *testing.T) {
			code, out, errs := run(append([]string{"--source", planSite}, g.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			path := filepath.Join("testdata/plan/golden", g.name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if out != string(want) {
				t.Errorf("output differs from %s (rerun with -update and read the diff):\n%s", path, out)
			}
		})
	}
}

// TestPlanReportShape: the text report answers first, keeps every line
// within 100 columns, prints each fact once, and groups facts in the
// reader's order rather than alphabetically.
func TestPlanReportShape(t *testing.T) {
	for _, args := range [][]string{
		{"plan", "meta-llama/Llama-3.1-8B"},
		{"plan", "meta-llama/Llama-3.1-8B", "--compare", "Qwen/Qwen3-30B-A3B"},
		{"plan", "meta-llama/Llama-3.1-8B", "--all"},
	} {
		code, out, errs := run(append([]string{"--source", planSite}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		lines := strings.Split(out, "\n")
		for i, l := range lines {
			if n := utf8.RuneCountInString(l); n > 100 {
				t.Errorf("%v: line %d is %d columns: %q", args, i+1, n, l)
			}
		}
		var titles []string
		seen := map[string]int{}
		for _, l := range lines {
			if l != "" && !strings.HasPrefix(l, " ") {
				titles = append(titles, l)
			}
			if f := strings.Fields(l); strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") && len(f) > 1 && strings.Contains(f[0], ".") {
				seen[f[0]]++
			}
		}
		for k, n := range seen {
			if n > 1 {
				t.Errorf("%v: fact %s printed %d times", args, k, n)
			}
		}
		if !slices.Contains(args, "--all") {
			// The answer and the top choice's command, no sections.
			if len(lines) > 60 || indexOf(titles, "Parameters") >= 0 {
				t.Errorf("%v: %d lines, titles %q: want at most 60 and no sections", args, len(lines), titles)
			}
			continue
		}
		want := []string{"Answer", "Parameters", "Architecture", "Bytes", "Memory", "Fit", "Cost"}
		at := -1
		for _, w := range want {
			i := indexOf(titles, w)
			if i <= at {
				t.Errorf("%v: section %q at %d, want it after the previous one (titles %q)", args, w, i, titles)
			}
			at = i
		}
		if !strings.Contains(out, "\nAnswer\n  checkpoint ") {
			t.Errorf("%v: the answer does not start with the checkpoint size", args)
		}
	}
}

// TestPlanIsShortForEveryShippedModel: the default report of every model
// of the fixture site (the shipped snapshots) is at most 60 lines, its
// answer at most 25, every choice line states the cache width, context
// and concurrency, and the command that follows is the top choice's.
func TestPlanIsShortForEveryShippedModel(t *testing.T) {
	for _, model := range []string{
		"Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-Next-80B-A3B-Thinking", "deepseek-ai/DeepSeek-V3",
		"meta-llama/Llama-3.1-8B", "mistralai/Mixtral-8x7B-v0.1", "moonshotai/Kimi-K2.5",
		"moonshotai/Kimi-K3", "moonshotai/Kimi-Linear-48B-A3B-Instruct", "openai/gpt-oss-20b",
	} {
		code, out, errs := run("--source", fixtureSite, "plan", model, "--offline")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", model, code, errs)
		}
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		start, end := indexOf(lines, "Answer"), -1
		for i := start + 1; i < len(lines); i++ {
			if lines[i] == "" {
				end = i
				break
			}
		}
		if len(lines) > 60 || start < 0 || end-start-1 > 25 {
			t.Errorf("%s: %d lines, answer %d lines:\n%s", model, len(lines), end-start-1, out)
		}
		// A choice is its labelled line and the continuation lines
		// (indented past the label column) below it.
		choice := map[string]string{}
		label := ""
		for _, l := range lines[start+1 : end] {
			if !strings.HasPrefix(l, "   ") {
				f := strings.SplitN(strings.TrimSpace(l), "  ", 2)
				label = f[0]
				choice[label] = strings.TrimSpace(l[len("  "+label):])
				continue
			}
			choice[label] += " " + strings.TrimSpace(l)
		}
		for _, c := range []string{"cheapest per token", "fastest stream", "smallest"} {
			line, ok := choice[c]
			if !ok {
				t.Errorf("%s: no %s line", model, c)
				continue
			}
			if strings.HasPrefix(line, "none deployable") || strings.HasPrefix(line, "the ") {
				continue
			}
			for _, want := range []string{" KV; ≤", " tokens; ", " of "} {
				if !strings.Contains(line, want) {
					t.Errorf("%s: %s line lacks %q: %q", model, c, want, line)
				}
			}
		}
		if !strings.Contains(out, "\nLaunch (") {
			t.Errorf("%s: no launch command", model)
		}
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// TestPlanFlagsAreValidated: a bad flag is one error naming the flag, with
// exit status 2, and nothing is printed on stdout.
func TestPlanFlagsAreValidated(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--hardware", "8xNOPE"}, `--hardware 8xNOPE: accelerator "NOPE" is not in the hardware catalog`},
		{[]string{"--hardware", "eight B200"}, "--hardware: expected COUNTxACCELERATOR"},
		{[]string{"--hardware", "0xB200"}, "--hardware: expected COUNTxACCELERATOR"},
		{[]string{"--context", "0"}, "--context: expected from 1 to 4294967296 tokens, found 0"},
		{[]string{"--concurrency", "-2"}, "--concurrency: expected from 1 to 1048576 sequences, found -2"},
		{[]string{"--kv-dtype", "fp4"}, `--kv-dtype: unknown precision "fp4"`},
		{[]string{"--format", "html"}, `--format: expected text, markdown or json, found "html"`},
		{[]string{"--json", "--format", "text"}, "--json and --format text disagree"},
		{[]string{"--compare", "not-an-id"}, "--compare:"},
		{[]string{"--context", "8k"}, `invalid argument "8k" for "--context" flag`},
	} {
		args := append([]string{"--source", planSite, "plan", "meta-llama/Llama-3.1-8B"}, tc.args...)
		code, out, errs := run(args...)
		if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %d bytes; want exit 2 and %q", tc.args, code, errs, len(out), tc.want)
		}
		if strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: want one error line, got %q", tc.args, errs)
		}
	}
}

// TestPlanCompareJSON: with --compare, --json prints both facts documents
// in order, each sized with the same flags.
func TestPlanCompareJSON(t *testing.T) {
	code, out, errs := run("--source", planSite, "plan", "meta-llama/Llama-3.1-8B", "--compare", "Qwen/Qwen3-30B-A3B",
		"--format", "json", "--hardware", "1xH100", "--kv-dtype", "fp8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Models []planDocument `json:"models"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Models) != 2 || !strings.HasPrefix(doc.Models[0].Config, "meta-llama/") || !strings.HasPrefix(doc.Models[1].Config, "Qwen/") {
		t.Fatalf("models %+v", doc.Models)
	}
	// FP8 KV: 2 (K, V) × 8 KV heads × 128 × 1 B × 32 layers for Llama,
	// 2 × 4 × 128 × 1 B × 48 layers for Qwen3-30B-A3B.
	wantInt(t, doc.Models[0].Facts, "kv.bytes_per_token", 2*8*128*32)
	wantInt(t, doc.Models[1].Facts, "kv.bytes_per_token", 2*4*128*48)
	wantBool(t, doc.Models[1].Facts, "fit.1xH100.at_rest", true)
}
