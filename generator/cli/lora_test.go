package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/hub/hubtest"
)

// The tiny llama at r = 4 on q/k/v/o, by hand: hidden 64, 4 heads of 16,
// 2 KV heads: q and o are 64→64, k and v 64→32. Per layer 4 × (128 + 96 +
// 96 + 128) = 1,792; two layers 3,584.
const tinyLoraParams = 2 * 4 * (128 + 96 + 96 + 128)

func loraJSON(t *testing.T, wantCode int, args ...string) (loraDocument, string) {
	t.Helper()
	code, out, errs := run(append([]string{"lora", "--format", "json"}, args...)...)
	if code != wantCode {
		t.Fatalf("lora %v: exit %d, want %d: %s", args, code, wantCode, errs)
	}
	var doc loraDocument
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("lora %v: %v\n%s", args, err, out)
	}
	return doc, errs
}

func TestLoraConfig(t *testing.T) {
	cfg := planTestdata(t, "tiny-llama.config.json")
	t.Chdir(t.TempDir())
	doc, _ := loraJSON(t, 0, "--config", cfg, "--target", "q_proj,k_proj,v_proj,o_proj,qkv_proj", "--rank", "4")
	s := doc.Facts
	wantInt(t, s, "lora.modules_matched", 8)
	wantInt(t, s, "lora.modules_matched.full_attention", 8)
	wantInt(t, s, "lora.modules_matched.dense_mlp", 0)
	wantInt(t, s, "lora.adapter_params", tinyLoraParams)
	wantInt(t, s, "lora.adapter_bytes", 4*tinyLoraParams)
	if v := s.Get("lora.targets_unmatched").Value; v != "qkv_proj" {
		t.Errorf("lora.targets_unmatched = %v", v)
	}
	if len(doc.Unmatched) != 1 || doc.Unmatched[0].Target != "qkv_proj" || len(doc.Unmatched[0].Closest) == 0 {
		t.Errorf("targets_unmatched %+v", doc.Unmatched)
	}
	// Every memory term is a fact with a derivation; the totals add up.
	var sum int64
	for _, k := range []string{"train.lora_frozen_bytes", "lora.memory.adapter_weights_bytes", "lora.memory.gradients_bytes",
		"lora.memory.optimizer_bytes", "lora.memory.activations_checkpointed_bytes"} {
		f := s.Get(k)
		v, ok := f.Int()
		if !ok || v <= 0 || (f.Derivation == "" && !strings.HasPrefix(k, "train.")) {
			t.Fatalf("%s = %+v", k, f)
		}
		sum += v
	}
	wantInt(t, s, "lora.memory.lora_checkpointed_bytes", sum)
	// config.json alone has no file listing, so the stored bytes and the
	// LoRA total are unknown only if sizing says so; QLoRA needs none.
	if f := s.Get("lora.memory.qlora_bytes"); !f.Known() {
		t.Errorf("lora.memory.qlora_bytes unknown: %s", f.Reason)
	}
}

func TestLoraHub(t *testing.T) {
	srv := hubtest.New(t, planRepo(t))
	planAnywhere(t, srv)
	code, out, errs := run("lora", planRepoID+"@"+planRepoSHA, "--target", "re:.*\\.0\\.self_attn\\.(q|v)_proj", "--rank", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"matched 2 nn.Linear modules", "unmatched targets: none", "adapter parameters 896 = r × Σ(in + out) over the 2 matched modules = 4 × 224"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestLoraErrors(t *testing.T) {
	cfg := planTestdata(t, "tiny-llama.config.json")
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		code int
		args []string
		msg  string
	}{
		{2, []string{"--config", cfg}, "--target"},
		{2, []string{"--config", cfg, "--target", "re:("}, "--target"},
		{2, []string{"--config", cfg, "--target", "q_proj", "--rank", "0"}, "--rank"},
		{2, []string{"--config", cfg, "--target", "q_proj", "--optimizer", "lion"}, "--optimizer"},
		{2, []string{"--target", "q_proj"}, "ORG/NAME"},
		{1, []string{"--config", cfg, "--target", "query_key_value"}, "no target matches"},
		{1, []string{"--config", "missing.json", "--target", "q_proj"}, "--config"},
	} {
		code, _, errs := run(append([]string{"lora"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("lora %v: exit %d, stderr %q; want exit %d naming %s", c.args, code, errs, c.code, c.msg)
		}
	}
}

// planTestdata is the absolute path of testdata/plan/NAME, taken before a
// test changes directory.
func planTestdata(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "plan", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
