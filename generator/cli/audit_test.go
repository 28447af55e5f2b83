package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/hub/hubtest"
	"dossier/generator/internal/sitetest"
)

// auditSite is the frozen fixture site with the audit package's frozen
// API-change table.
func auditSite(t *testing.T) string {
	t.Helper()
	root := sitetest.Fixture(t, func(string) bool { return false })
	b, err := os.ReadFile("../audit/testdata/api_changes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "data", "api_changes.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func auditSnippet(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "audit", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAuditSeedSnippet: the seed's snippet gives its four failures and
// the remote-code window, and exits 1; the corrected one exits 0.
func TestAuditSeedSnippet(t *testing.T) {
	root := auditSite(t)
	seed := auditSnippet(t, "seed-k3-sft.py")
	code, out, errs := run("--source", root, "audit", seed, "--offline")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		seed + ":12: error: model id \"kimi/kimi-k3\"",
		"moonshotai/Kimi-K3",
		seed + ":12: warning: moonshotai/Kimi-K3: remote code imports OutputRecorder",
		seed + ":32: error: SFTTrainer(tokenizer=)",
		seed + ":33: error: SFTTrainer(train_dataset=) is the str \"train.jsonl\"",
		seed + ":35: error: SFTTrainer(max_seq_length=)",
		"4 error(s), 1 warning(s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run("--source", root, "audit", seed, "--offline", "--format", "json")
	var doc auditDocument
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 {
		t.Fatalf("json: exit %d, %v\n%s", code, err, out)
	}
	if doc.Errors != 4 || doc.Warnings != 1 || len(doc.Findings) != 5 {
		t.Errorf("json: %d errors, %d warnings, %d findings", doc.Errors, doc.Warnings, len(doc.Findings))
	}
	for _, f := range doc.Findings {
		if f.Line == 0 || f.Kind == "" || f.Symbol == "" || f.Message == "" || f.Source == "" {
			t.Errorf("finding lacks a field: %+v", f)
		}
	}

	fixed := auditSnippet(t, "fixed-k3-sft.py")
	code, out, errs = run("--source", root, "audit", fixed, "--offline", "--transformers", "5.1.0", "--trl", "1.9.0", "--peft", "0.20.0")
	if code != 0 || !strings.Contains(out, "0 error(s), 0 warning(s)") {
		t.Errorf("fixed snippet: exit %d\n%s%s", code, out, errs)
	}
	// Past the remote-code window the fixed snippet fails too.
	code, out, _ = run("--source", root, "audit", fixed, "--offline", "--transformers", "5.16.1")
	if code != 1 || !strings.Contains(out, "transformers 5.16.1 is outside the working versions") {
		t.Errorf("transformers 5.16.1: exit %d\n%s", code, out)
	}
}

// TestAuditHub: an id the site does not know is asked of the Hub; a 404
// is an error naming the id.
func TestAuditHub(t *testing.T) {
	root := auditSite(t)
	srv := hubtest.New(t, planRepo(t))
	planAnywhere(t, srv)
	snippet := filepath.Join(t.TempDir(), "s.py")
	src := "from transformers import AutoModelForCausalLM\nAutoModelForCausalLM.from_pretrained(\"acme/tiny-llama\")\nAutoModelForCausalLM.from_pretrained(\"acme/missing\")\n"
	if err := os.WriteFile(snippet, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run("--source", root, "audit", snippet)
	if code != 1 || !strings.Contains(out, snippet+":3: error: model id \"acme/missing\" does not resolve on the Hub") || strings.Contains(out, ":2:") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}

func TestAuditBadSnippets(t *testing.T) {
	root := auditSite(t)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		path, msg string
		code      int
	}{
		{write("bin.py", []byte("import x\n\x00\x7fELF")), "bin.py:2: a NUL byte", 1},
		{write("big.py", []byte(strings.Repeat("# padding\n", 1<<20))), "larger than the", 1},
		{write("parens.py", []byte("f(a,\n  g(b)\n")), "parens.py:1: unbalanced \"(\": never closed", 1},
		{filepath.Join(dir, "missing.py"), "read snippet", 1},
		{dir, "not a regular file", 1},
	} {
		code, _, errs := run("--source", root, "audit", c.path, "--offline")
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d with %q", c.path, code, errs, c.code, c.msg)
		}
	}
	code, _, errs := run("--source", root, "audit", auditSnippet(t, "seed-k3-sft.py"), "--trl", "latest")
	if code != 2 || !strings.Contains(errs, "--trl") {
		t.Errorf("--trl latest: exit %d, %s", code, errs)
	}
}
