package site

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/internal/sitetest"
)

// finetuneSite is the fixture site with K3's page asking for the
// preflight: q/k/v/o at r = 16, the seed's snippet audited (the audit
// package's frozen table and snippet), and the seed's sentence on the
// module count as a claim checked against the computed facts.
func finetuneSite(t *testing.T) string {
	t.Helper()
	root := copySite(t)
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("../audit/testdata/api_changes.yaml", filepath.Join(root, "data", "api_changes.yaml"))
	copyFile("../audit/testdata/seed-k3-sft.py", filepath.Join(root, "content", "snippets", "kimi-k3-sft.py"))
	sitetest.Edit(t, filepath.Join(root, "content", "models", "kimi-k3.md"), "\nclaims:\n", `
finetune:
  targets: [q_proj, k_proj, v_proj, o_proj]
  snippet: snippets/kimi-k3-sft.py
  snippet_source: "seed 000 §4"
claims:
  - id: lora-targets
    text: "q_proj/k_proj/v_proj/o_proj resolving to 300 modules — 89 in the full-attention layers and 211 in the linear ones"
    by: "the course page"
    accessed: "2026-08-06"
    where: course-page
    kind: code
    checks:
      - {fact: lora.modules_matched, expect: 300}
      - {fact: lora.modules_matched.full_attention, expect: 89}
      - {fact: lora.modules_matched.linear_attention, expect: 211}
    reason: "The total holds, the split does not."
  - id: snippet-runs
    text: "This snippet fine-tunes kimi/kimi-k3."
    by: "a tutorial"
    accessed: "2026-08-06"
    where: course-page
    kind: code
    checks:
      - {fact: audit.errors, expect: 0}
    reason: "It fails four ways."
`)
	return root
}

// TestFinetunePreflight: K3's page computes the seed's figures at build —
// 300 modules, 24 in full-attention and 276 in linear-attention layers, so
// the seed's 89/211 sentence is rated misleading — and the snippet's four
// errors and one warning, so "it fine-tunes" is refuted.
func TestFinetunePreflight(t *testing.T) {
	root := finetuneSite(t)
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, root, dest); err != nil {
		t.Fatal(err)
	}
	ff := readFacts(t, filepath.Join(dest, "models", "kimi-k3", "facts.json"))
	for k, want := range map[string]int64{
		"lora.modules_matched": 300, "lora.modules_matched.full_attention": 24, "lora.modules_matched.linear_attention": 276,
		"lora.modules_matched.moe_experts": 0, "lora.adapter_params": 16 * 300 * (7168 + 12288),
		"audit.errors": 4, "audit.warnings": 1,
	} {
		if got, ok := ff.Facts.Get(k).Int(); !ok || got != want {
			t.Errorf("%s = %d (%v), want %d", k, got, ok, want)
		}
	}
	for _, k := range []string{"lora.memory.lora_checkpointed_bytes", "lora.memory.qlora_bytes"} {
		if f := ff.Facts.Get(k); !f.Known() {
			t.Errorf("%s unknown: %+v", k, f)
		}
	}
	if f := ff.Facts.Get("audit.finding.01"); f == nil || !strings.Contains(f.Display, "line 12, error") || !strings.Contains(f.Display, "moonshotai/Kimi-K3") {
		t.Errorf("first finding %+v", f)
	}
	b, err := os.ReadFile(filepath.Join(dest, "models", "kimi-k3", "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Claims []struct{ ID, Verdict string } `json:"claims"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, c := range doc.Claims {
		verdicts[c.ID] = c.Verdict
	}
	if verdicts["lora-targets"] != "misleading" || verdicts["snippet-runs"] != "refuted" {
		t.Errorf("verdicts lora-targets %q, snippet-runs %q", verdicts["lora-targets"], verdicts["snippet-runs"])
	}
	md, err := os.ReadFile(filepath.Join(dest, "models", "kimi-k3", "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Fine-tuning", "| … in linear attention | 276 of 552 |", "### A circulating snippet, audited", "line 35, error: SFTTrainer(max_seq_length=)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Pages without the block have no section.
	if md, _ := os.ReadFile(filepath.Join(dest, "models", "llama-3-1-8b", "index.md")); strings.Contains(string(md), "## Fine-tuning") {
		t.Error("a page without finetune has the section")
	}
}

// TestFinetuneBadInput: a snippet that does not parse or a target list
// that resolves to nothing is a build error naming the file.
func TestFinetuneBadInput(t *testing.T) {
	root := finetuneSite(t)
	snippet := filepath.Join(root, "content", "snippets", "kimi-k3-sft.py")
	if err := os.WriteFile(snippet, []byte("trainer = SFTTrainer(\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := build(t, root, filepath.Join(t.TempDir(), "public"))
	if err == nil || !strings.Contains(err.Error(), "snippets/kimi-k3-sft.py") || !strings.Contains(err.Error(), "never closed") {
		t.Errorf("unbalanced snippet: %v", err)
	}
	root = finetuneSite(t)
	sitetest.Edit(t, filepath.Join(root, "content", "models", "kimi-k3.md"), "targets: [q_proj, k_proj, v_proj, o_proj]", "targets: [\"re:(\"]")
	_, err = build(t, root, filepath.Join(t.TempDir(), "public"))
	if err == nil || !strings.Contains(err.Error(), "kimi-k3.md: field finetune.targets") {
		t.Errorf("bad target: %v", err)
	}
}

// TestFinetuneAuditSeesANewSnapshot: the snippet names kimi/kimi-k3, which
// the site has no snapshot of; once one is added, a build with the cache
// audits the snippet again (the list of snapshots is an input of every
// page) and publishes what a full build does.
func TestFinetuneAuditSeesANewSnapshot(t *testing.T) {
	root := finetuneSite(t)
	out := t.TempDir()
	dest := filepath.Join(out, "public")
	unknown := func(what string) bool {
		t.Helper()
		if _, err := build(t, root, dest); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		b, err := os.ReadFile(filepath.Join(dest, "models", "kimi-k3", "facts.json"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(string(b), `model id \"kimi/kimi-k3\" is not a model the site has a snapshot of`)
	}
	if !unknown("first build") {
		t.Fatal("the first build does not report kimi/kimi-k3 as a model without a snapshot")
	}
	snap, err := os.ReadFile(filepath.Join(root, "data", "hub", "moonshotai", "Kimi-K3", "snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	added := filepath.Join(root, "data", "hub", "kimi", "kimi-k3", "snapshot.json")
	if err := os.MkdirAll(filepath.Dir(added), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(added, snap, 0o644); err != nil {
		t.Fatal(err)
	}
	if unknown("after the snapshot was added") {
		t.Error("a build with the cache still reports kimi/kimi-k3 as a model without a snapshot")
	}
	full := filepath.Join(out, "full")
	if _, err := Build(loadSite(t, root, Options{Full: true}), Options{Destination: full}); err != nil {
		t.Fatal(err)
	}
	sameOutput(t, "snapshot added", dest, full)
}
