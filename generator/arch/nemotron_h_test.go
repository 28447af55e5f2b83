package arch

import "testing"

// Nemotron 3 Nano: 23 Mamba-2, 23 MoE and 6 attention layers by its
// hybrid_override_pattern (NVIDIA's card states the same counts).
func TestNemotronHPattern(t *testing.T) {
	a := load(t, "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json")
	if a.Count(SSM) != 23 || a.Count(Full) != 6 || a.Count(FFN) != 23 || len(a.MoELayers) != 23 || !a.Hybrid() {
		t.Errorf("ssm %d full %d ffn %d moe %d hybrid %v", a.Count(SSM), a.Count(Full), a.Count(FFN), len(a.MoELayers), a.Hybrid())
	}
	if a.LayerKinds[0] != SSM || a.LayerKinds[1] != FFN || a.LayerKinds[5] != Full || a.MoELayers[0] != 1 {
		t.Errorf("first layers %v, first MoE layer %d", a.LayerKinds[:6], a.MoELayers[0])
	}
	if a.SSMHeads != 64 || a.SSMHeadDim != 64 || a.SSMStateSize != 128 || a.SSMGroups != 8 || a.SSMConvKernel != 4 || a.SSMInner != 4096 || a.SSMStateDType != "float32" {
		t.Errorf("mamba dims %+v", a)
	}
	if a.StateLayers() != 23 || a.AttentionLayers() != 6 {
		t.Errorf("state %d attention %d", a.StateLayers(), a.AttentionLayers())
	}
	if a.SharedIntermediate != 3712 || a.RoutedExperts != 128 || a.ActiveExperts != 6 {
		t.Errorf("moe: shared width %d, experts %d/%d", a.SharedIntermediate, a.ActiveExperts, a.RoutedExperts)
	}
	// The 56B's time_step_limit holds Infinity; the pattern has MLP layers.
	a = load(t, "nvidia__Nemotron-H-56B-Base-8K.json")
	if a.Count(SSM) != 54 || a.Count(FFN) != 54 || a.Count(Full) != 10 || a.HeadDim != 128 || a.IsMoE() {
		t.Errorf("56B: ssm %d ffn %d full %d head_dim %d moe %v", a.Count(SSM), a.Count(FFN), a.Count(Full), a.HeadDim, a.IsMoE())
	}
}
