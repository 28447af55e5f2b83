package sizing

import (
	"strings"

	"dossier/generator/modeltree"
)

// AnalyticOf builds the module-tree figures for a config. It returns nil
// and the reason when the family has no module tree or the config lacks
// what the tree needs; the page then says so instead of guessing.
func AnalyticOf(config, hfQuant []byte) (*Analytic, error) {
	inv, err := modeltree.FromConfig(config, hfQuant)
	if err != nil {
		return nil, err
	}
	a := &Analytic{
		Census:        inv.Census(),
		Elements:      inv.StoredElements(),
		TensorBytes:   inv.TensorBytes(),
		Tensors:       inv.Count(),
		Total:         inv.TotalParams(),
		Active:        inv.ActiveParams(true),
		ActiveNoEmbed: inv.ActiveParams(false),
		ByComponent:   inv.ParamsByComponent(),
		Extras:        inv.Extras,
	}
	byRole := inv.BytesByRole()
	paramsByRole := inv.ParamsByRole()
	a.PayloadBytes = byRole[modeltree.Payload]
	a.ScaleBytes = byRole[modeltree.Scale] + byRole[modeltree.Aux]
	a.UnquantBytes = byRole[modeltree.Unquantized]
	a.UnquantParams = paramsByRole[modeltree.Unquantized]
	a.Experts, a.ExpertBytes = inv.ExpertParams()
	placeTensors(inv, a)
	return a, nil
}

// placeTensors sorts the tensors the way vLLM and SGLang place them under
// tensor parallelism: what every rank holds whole, the GQA K/V
// projections, the MTP modules; everything else is sharded (embedding and
// head are vocab-parallel, attention and MLP column/row-parallel, routed
// experts split by TP or EP alike).
func placeTensors(inv *modeltree.Inventory, a *Analytic) {
	// Groups, not tensors: a group's pattern names its tensors' kind, and
	// K3's 497,220 tensors are 3,180 groups.
	for i := range inv.Groups {
		g := &inv.Groups[i]
		n, bytes := g.Pattern, g.Count*g.Bytes()
		switch {
		case g.Component == modeltree.CompMTP:
			a.MTPBytes += bytes
		case g.Component == modeltree.CompVision || g.Component == modeltree.CompProjector,
			len(g.Shape) <= 1,
			strings.Contains(n, "mlp.gate.") || strings.Contains(n, "block_sparse_moe.gate.") || strings.Contains(n, ".router.") || strings.Contains(n, "shared_expert_gate."),
			strings.Contains(n, "q_a_proj.") || strings.Contains(n, "kv_a_proj_with_mqa."):
			a.ReplicatedBytes += bytes
		case strings.Contains(n, "self_attn.k_proj.") || strings.Contains(n, "self_attn.v_proj."):
			a.KVProjBytes += bytes
		}
	}
	a.ReplicatedWhat = "replicated on every rank: 1-D tensors (norms, biases), MoE routers, MLA's q_a/kv_a down-projections, vision tower and projector"
}
