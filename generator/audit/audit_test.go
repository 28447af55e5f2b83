package audit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/catalog"
	"dossier/generator/pysnippet"
)

func table(t testing.TB) *Table {
	t.Helper()
	tb, err := LoadTable(os.DirFS("testdata"), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func parse(t testing.TB, name string) *pysnippet.Snippet {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	sn, err := pysnippet.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return sn
}

// k3Window is data/software.yaml's K3 row (seed 000 §6c).
var k3Window = &catalog.Window{Model: "moonshotai/Kimi-K3", Package: "transformers",
	What:  "remote code imports OutputRecorder from transformers.utils.generic",
	Works: []string{"4.57.1", "5.0.0", "5.1.0"}, Fails: []string{"5.2.0", "5.5.0", "5.16.1"},
	Source: "seed 000 §6c", AsOf: "2026-08-06"}

var known = []string{"meta-llama/Llama-3.1-8B", "moonshotai/Kimi-K2.5", "moonshotai/Kimi-K3", "moonshotai/Kimi-Linear-48B-A3B-Instruct"}

func versions(t testing.TB, kv ...string) map[string]Version {
	m := map[string]Version{}
	for i := 0; i+1 < len(kv); i += 2 {
		v, err := ParseVersion(kv[i+1])
		if err != nil {
			t.Fatal(err)
		}
		m[kv[i]] = v
	}
	return m
}

func summary(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Severity+" "+f.Kind+" "+f.Symbol)
	}
	return out
}

// TestSeedSnippet: the seed's four failures and the remote-code window,
// nothing else, each on its line and with a source.
func TestSeedSnippet(t *testing.T) {
	fs := Check(parse(t, "seed-k3-sft.py"), table(t), Options{Known: known, KnownSource: "site snapshots", Windows: []*catalog.Window{k3Window}})
	want := []string{
		"error model_id kimi/kimi-k3",
		"warning remote_code transformers",
		"error keyword SFTTrainer(tokenizer=)",
		"error type SFTTrainer(train_dataset=)",
		"error keyword SFTTrainer(max_seq_length=)",
	}
	if got := summary(fs); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	lines := []int{12, 12, 32, 33, 35}
	for i, f := range fs {
		if f.Line != lines[i] || f.Source == "" {
			t.Errorf("%s: line %d (want %d), source %q", f.Symbol, f.Line, lines[i], f.Source)
		}
	}
	if !strings.Contains(fs[0].Message, "moonshotai/Kimi-K3") {
		t.Errorf("model id finding does not suggest the real id: %s", fs[0].Message)
	}
	if !strings.Contains(fs[1].Message, "fails on 5.2.0") || !strings.Contains(fs[1].Message, "moonshotai/Kimi-K3") {
		t.Errorf("remote-code window for the suggested id: %s", fs[1].Message)
	}
	if !strings.Contains(fs[2].Message, "removed in trl 0.12.0") || !strings.Contains(fs[2].Message, "processing_class=") {
		t.Errorf("tokenizer finding: %s", fs[2].Message)
	}
	// With trl 0.11.4 stated, tokenizer= and max_seq_length= existed.
	old := Check(parse(t, "seed-k3-sft.py"), table(t), Options{Known: known, Versions: versions(t, "trl", "0.11.4"), Windows: []*catalog.Window{k3Window}})
	if got := summary(old); len(got) != 3 {
		t.Errorf("trl 0.11.4: %v, want only the id, the window and the str dataset", got)
	}
	// A stated transformers past the window makes the window an error.
	late := Check(parse(t, "seed-k3-sft.py"), table(t), Options{Known: known, Versions: versions(t, "transformers", "5.16.1"), Windows: []*catalog.Window{k3Window}})
	if late[1].Kind != KindRemoteCode || late[1].Severity != Error {
		t.Errorf("transformers 5.16.1: %v", summary(late))
	}
}

func TestFixedSnippet(t *testing.T) {
	opts := Options{Known: known, Windows: []*catalog.Window{k3Window},
		Versions: versions(t, "transformers", "5.1.0", "trl", "1.9.0", "peft", "0.20.0")}
	if fs := Check(parse(t, "fixed-k3-sft.py"), table(t), opts); len(fs) != 0 {
		t.Errorf("fixed snippet: %v", summary(fs))
	}
	// SFTConfig(max_length=) did not exist before trl 0.16.
	opts.Versions = versions(t, "transformers", "5.1.0", "trl", "0.15.2")
	fs := Check(parse(t, "fixed-k3-sft.py"), table(t), opts)
	if got := summary(fs); len(got) != 1 || got[0] != "error keyword SFTConfig(max_length=)" {
		t.Errorf("trl 0.15.2: %v", got)
	}
}

func TestHubResolve(t *testing.T) {
	sn, err := pysnippet.Parse([]byte("from transformers import AutoModel\nm = AutoModel.from_pretrained(\"acme/nope\")\nAutoModel.from_pretrained('moonshotai/Kimi-K3')\n"))
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	opts := Options{Known: known, HubSource: "hub", Resolve: func(id string) error {
		asked = append(asked, id)
		return errors.New("401 Unauthorized")
	}}
	fs := Check(sn, table(t), opts)
	if len(fs) != 1 || fs[0].Line != 2 || fs[0].Severity != Error || !strings.Contains(fs[0].Message, "401") {
		t.Errorf("findings %v", fs)
	}
	if strings.Join(asked, ",") != "acme/nope" {
		t.Errorf("asked the Hub about %v; a known id needs no request", asked)
	}
}

func TestImportsAndAliases(t *testing.T) {
	src := `import trl as t
from peft import prepare_model_for_int8_training
from trl import DataCollatorForCompletionOnlyLM as C
import transformers
args = transformers.TrainingArguments(output_dir="o", no_cuda=True, warmup_ratio=0.1)
trainer = t.DPOTrainer(model=m, beta=0.1)
AutoModelForCausalLM.from_pretrained("x/y", load_in_4bit=True)
transformers.AutoModelForCausalLM.from_pretrained(model_name, load_in_8bit=True, use_auth_token="hf_x")
`
	sn, err := pysnippet.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	fs := Check(sn, table(t), Options{Versions: versions(t, "peft", "0.10.0", "transformers", "5.0.0", "trl", "0.20.0")})
	want := []string{
		"error symbol peft.prepare_model_for_int8_training",
		"error symbol trl.DataCollatorForCompletionOnlyLM",
		"error keyword transformers.TrainingArguments(warmup_ratio=)",
		"error keyword transformers.TrainingArguments(no_cuda=)",
		"error keyword t.DPOTrainer(beta=)",
		"error keyword transformers.AutoModelForCausalLM.from_pretrained(load_in_8bit=)",
		"warning keyword transformers.AutoModelForCausalLM.from_pretrained(use_auth_token=)",
	}
	// AutoModelForCausalLM on line 7 is never imported: not resolved, not
	// reported (and "x/y" is not named as a model by an import we know).
	got := summary(fs)
	var noID []string
	for _, g := range got {
		if !strings.Contains(g, "model_id") {
			noID = append(noID, g)
		}
	}
	if strings.Join(noID, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(noID, "\n"), strings.Join(want, "\n"))
	}
}

func TestVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		cmp  int
	}{{"5.0.0", "4.57.1", 1}, {"0.12", "0.12.0", 0}, {"v1.9.0", "1.10.0", -1}, {"5.0.0rc1", "5.0.0", -1}, {"5.2.0", "5.16.1", -1}} {
		a, err1 := ParseVersion(c.a)
		b, err2 := ParseVersion(c.b)
		if err1 != nil || err2 != nil || Compare(a, b) != c.cmp {
			t.Errorf("Compare(%s, %s) = %d (%v %v), want %d", c.a, c.b, Compare(a, b), err1, err2, c.cmp)
		}
	}
	for _, bad := range []string{"", "latest", "5.x", "1.2.3.4.5", "99999999999.0"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q): no error", bad)
		}
	}
}

func TestTableValidation(t *testing.T) {
	if n := len(table(t).Changes); n < 30 {
		t.Errorf("%d rows, want at least 30", n)
	}
	row := "changes:\n  - {package: trl, symbol: SFTTrainer, keyword: tokenizer, removed_in: \"0.12.0\", source: s, as_of: \"2026-12-04\"}\n"
	if _, err := ParseTable("t.yaml", []byte(row)); err != nil {
		t.Fatalf("a good row: %v", err)
	}
	for _, c := range []struct{ from, to, field string }{
		{"package: trl", "package: torch", "changes[0].package"},
		{"source: s", "source: \"\"", "changes[0].source"},
		{"removed_in: \"0.12.0\"", "removed_in: \"soon\"", "changes[0].removed_in"},
		{"as_of: \"2026-12-04\"", "as_of: today", "changes[0].as_of"},
		{"keyword: tokenizer", "keyword: tokenizer, colour: red", "colour"},
		{"removed_in: \"0.12.0\"", "added_in: \"0.13.0\", removed_in: \"0.12.0\"", "changes[0].removed_in"},
	} {
		_, err := ParseTable("t.yaml", []byte(strings.Replace(row, c.from, c.to, 1)))
		if err == nil || !strings.Contains(err.Error(), "t.yaml") || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s → %s: %v, want an error naming t.yaml and %s", c.from, c.to, err, c.field)
		}
	}
}

// TestVariablesBindToClasses: a method called on a variable assigned from
// a class is that class's method.
func TestVariablesBindToClasses(t *testing.T) {
	sn, err := pysnippet.Parse([]byte("from transformers import Trainer\ntrainer = Trainer(model=m)\ntrainer.train(model_path=\"ckpt\")\n"))
	if err != nil {
		t.Fatal(err)
	}
	fs := Check(sn, table(t), Options{})
	if got := summary(fs); len(got) != 1 || got[0] != "error keyword trainer.train(model_path=)" || fs[0].Line != 3 {
		t.Errorf("findings %v", got)
	}
}

// TestModelFlag: --model names the model when the snippet's id is a
// variable the audit cannot read; its window applies.
func TestModelFlag(t *testing.T) {
	sn, err := pysnippet.Parse([]byte("import sys\nfrom transformers import AutoModelForCausalLM\nAutoModelForCausalLM.from_pretrained(sys.argv[1], trust_remote_code=True)\n"))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Windows: []*catalog.Window{k3Window}}
	if fs := Check(sn, table(t), opts); len(fs) != 0 {
		t.Errorf("no model known: %v", summary(fs))
	}
	opts.Model = "moonshotai/Kimi-K3"
	opts.Versions = versions(t, "transformers", "5.0.0")
	if fs := Check(sn, table(t), opts); len(fs) != 0 {
		t.Errorf("transformers 5.0.0 is in the window: %v", summary(fs))
	}
	opts.Versions = versions(t, "transformers", "5.3.0")
	fs := Check(sn, table(t), opts)
	if got := summary(fs); len(got) != 1 || got[0] != "error remote_code transformers" || fs[0].Line != 1 {
		t.Errorf("transformers 5.3.0 (past the first failing 5.2.0): %v", got)
	}
}
