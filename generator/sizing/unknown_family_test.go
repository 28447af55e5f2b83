package sizing_test

import (
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/sizing"
	"dossier/generator/snapshot"
)

// TestUnknownFamilyFromHeaders: a synced repository whose model_type no
// registry family handles still gets the figures its artifacts and
// standard config keys pin: the census and tensor bytes from the Hub,
// active parameters from the standard MoE keys (experts stored per index
// or fused 3-D alike: the count comes from the widths, not the names),
// KV from layer_types and the head counts, and fit verdicts. What needs
// the family's tensor list is unknown with the reason.
func TestUnknownFamilyFromHeaders(t *testing.T) {
	cfg := []byte(`{"model_type":"acme_moe","hidden_size":1024,"num_hidden_layers":4,"vocab_size":32000,
		"num_attention_heads":16,"num_key_value_heads":4,"head_dim":64,"intermediate_size":4096,
		"num_experts":8,"num_experts_per_tok":2,"moe_intermediate_size":512,
		"layer_types":["sliding_attention","full_attention","sliding_attention","full_attention"],"sliding_window":1024,
		"torch_dtype":"bfloat16"}`)
	// Experts: 4 layers × 8 × 3 × 1024 × 512 = 50,331,648 of 200,000,000.
	const total = 200_000_000
	snap := &snapshot.Snapshot{Revision: "0123456789abcdef0123456789abcdef01234567", Census: snapshot.Counts{"BF16": total},
		CensusSource: "model_info safetensors.parameters",
		Index:        &snapshot.Index{TotalSize: 2 * total},
		Shards:       snapshot.Shards{Count: 1, Bytes: 2*total + 20_000}}
	cat, err := catalog.Load("../../data")
	if err != nil {
		t.Fatal(err)
	}
	an, anErr := sizing.AnalyticOf(cfg, nil)
	if an != nil || anErr == nil {
		t.Fatalf("acme_moe has a module tree: %v", anErr)
	}
	a, err := arch.Parse(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := sizing.Compute(sizing.Input{Model: "acme/moe", Arch: a, Snapshot: snap, Catalog: cat, Hardware: []string{"1xH100"},
		AnalyticErr: anErr, Sizing: assumptions()})
	if got := intOf(t, s, "params.total"); got != total {
		t.Errorf("params.total = %d", got)
	}
	if d := s.Get("params.total").Derivation; !strings.Contains(d, "Hub census (safetensors headers)") {
		t.Errorf("params.total derivation %q does not say it is the Hub's census", d)
	}
	if got := intOf(t, s, "bytes.tensors"); got != 2*total {
		t.Errorf("bytes.tensors = %d", got)
	}
	experts := int64(4 * 8 * 3 * 1024 * 512)
	if got := intOf(t, s, "params.experts"); got != experts {
		t.Errorf("params.experts = %d, want %d", got, experts)
	}
	if f := s.Get("params.active"); !f.Known() {
		t.Errorf("params.active unknown: %s", f.Reason)
	}
	// Two full layers cache K and V: 2 × 2 × 4 heads × 64 × 2 B; the
	// sliding ones are capped at the window.
	if got := intOf(t, s, "kv.bytes_per_token"); got != 2*2*4*64*2 {
		t.Errorf("kv.bytes_per_token = %d", got)
	}
	for _, k := range []string{"fit.1xH100.at_rest", "fit.1xH100.serving"} {
		if f := s.Get(k); !f.Known() {
			t.Errorf("%s unknown: %+v", k, f)
		}
	}
	if f := s.Get("analytic.supported"); f.Value != false || !strings.Contains(f.Derivation, `unsupported family "acme_moe"`) {
		t.Errorf("analytic.supported = %+v", f)
	}
	if f := s.Get("tensors.count"); f != nil && f.Known() {
		t.Errorf("tensors.count known without a module tree: %+v", f)
	}
}
