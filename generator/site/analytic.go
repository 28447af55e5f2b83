package site

import (
	"strings"

	"dossier/generator/modeltree"
	"dossier/generator/sizing"
)

// Analytic builds the module-tree figures for a config. It returns nil and
// the reason when the family has no module tree or the config lacks what
// the tree needs; the page then says so instead of guessing.
func Analytic(config, hfQuant []byte) (*sizing.Analytic, error) {
	inv, err := modeltree.FromConfig(config, hfQuant)
	if err != nil {
		return nil, err
	}
	a := &sizing.Analytic{
		Census:        inv.Census(),
		Elements:      inv.StoredElements(),
		TensorBytes:   inv.TensorBytes(),
		Tensors:       inv.Count(),
		Total:         inv.TotalParams(),
		Active:        inv.ActiveParams(true),
		ActiveNoEmbed: inv.ActiveParams(false),
		ByComponent:   inv.ParamsByComponent(),
	}
	byRole := inv.BytesByRole()
	paramsByRole := inv.ParamsByRole()
	a.PayloadBytes = byRole[modeltree.Payload]
	a.ScaleBytes = byRole[modeltree.Scale] + byRole[modeltree.Aux]
	a.UnquantBytes = byRole[modeltree.Unquantized]
	a.UnquantParams = paramsByRole[modeltree.Unquantized]
	for i := range inv.Tensors {
		if t := &inv.Tensors[i]; t.Expert && t.Component == modeltree.CompText {
			a.Experts += t.Params
			a.ExpertBytes += t.Bytes()
		}
	}
	placement(inv, a)
	return a, nil
}

// placement sorts the tensors the way vLLM and SGLang place them under
// tensor parallelism: what every rank holds whole, the GQA K/V
// projections, the MTP modules; everything else is sharded (embedding and
// head are vocab-parallel, attention and MLP column/row-parallel, routed
// experts split by TP or EP alike).
func placement(inv *modeltree.Inventory, a *sizing.Analytic) {
	for i := range inv.Tensors {
		t := &inv.Tensors[i]
		n := t.Name
		switch {
		case t.Component == modeltree.CompMTP:
			a.MTPBytes += t.Bytes()
		case t.Component == modeltree.CompVision || t.Component == modeltree.CompProjector,
			len(t.Shape) <= 1,
			strings.Contains(n, "mlp.gate.") || strings.Contains(n, "block_sparse_moe.gate.") || strings.Contains(n, ".router.") || strings.Contains(n, "shared_expert_gate."),
			strings.Contains(n, "q_a_proj.") || strings.Contains(n, "kv_a_proj_with_mqa."):
			a.ReplicatedBytes += t.Bytes()
		case strings.Contains(n, "self_attn.k_proj.") || strings.Contains(n, "self_attn.v_proj."):
			a.KVProjBytes += t.Bytes()
		}
	}
	a.ReplicatedWhat = "replicated on every rank: 1-D tensors (norms, biases), MoE routers, MLA's q_a/kv_a down-projections, vision tower and projector"
}
