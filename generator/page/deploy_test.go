package page

import (
	"strings"
	"testing"

	"dossier/generator/facts"
)

// Links labelled "at this revision" point at the revision; without one
// they say they point at main.
func TestHubLinksSayWhereTheyPoint(t *testing.T) {
	pinned := (&Model{ModelID: "a/b", Revision: "0123abc"}).Hub()
	if !strings.HasSuffix(pinned.Files, "/tree/0123abc") || pinned.At != "at this revision" {
		t.Errorf("pinned: %+v", pinned)
	}
	loose := (&Model{ModelID: "a/b"}).Hub()
	if !strings.HasSuffix(loose.Files, "/tree/main") || strings.Contains(loose.At, "this revision") {
		t.Errorf("no revision recorded: %+v", loose)
	}
}

// The answer box leads with the deployments, each stating its cache
// width, context and concurrency; a repeated layout is named; the top
// choice's command follows.
func TestAnswerBoxLeadsWithDeployments(t *testing.T) {
	s := facts.NewSet()
	add := func(k string, v any, unit string) {
		s.Add(facts.Fact{Key: k, Value: v, Unit: unit, Sources: []string{"test"}})
	}
	add("params.total", int64(8e9), facts.UnitParams)
	add("deploy.answer_context", int64(131072), facts.UnitTokens)
	add("deploy.cheapest.layout", "1xH100", facts.UnitText)
	add("deploy.fastest.layout", "1xH100", facts.UnitText)
	add("deploy.1xH100.engine", "vllm", facts.UnitText)
	add("deploy.1xH100.layout", "TP 1", facts.UnitText)
	add("deploy.1xH100.kv_dtype", "bf16", facts.UnitText)
	add("deploy.1xH100.max_context", int64(131072), facts.UnitTokens)
	add("deploy.1xH100.max_concurrency.131072", int64(2), facts.UnitCount)
	add("deploy.1xH100.command", "vllm serve a/b --tensor-parallel-size 1 --max-model-len 131072 --gpu-memory-utilization 0.90", facts.UnitText)
	s.Unknown("deploy.local.layout", facts.UnitText, "no consumer GPU rig, Apple machine or CPU host holds the model")
	m := &Model{ModelID: "a/b", Facts: s}
	a := m.answer(nil, nil)
	got := map[string]string{}
	var order []string
	for _, l := range a.Lines {
		got[l.Question] = l.Text
		order = append(order, l.Question)
	}
	if order[0] != "parameters" || got["cheapest per token"] != "1 × H100, vllm TP 1, BF16 KV; ≤131,072 tokens; 2 seqs of 131,072" {
		t.Errorf("answer %q: cheapest %q", order, got["cheapest per token"])
	}
	if got["fastest stream"] != "the cheapest per token layout" {
		t.Errorf("fastest = %q", got["fastest stream"])
	}
	if !strings.HasPrefix(got["best local"], "none deployable: no consumer GPU") {
		t.Errorf("local = %q", got["best local"])
	}
	if !strings.Contains(got["launch (cheapest per token)"], "vllm serve a/b --tensor-parallel-size 1") {
		t.Errorf("launch = %q", got["launch (cheapest per token)"])
	}
}
