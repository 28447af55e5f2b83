package site

import (
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
		Extras:        inv.Extras,
	}
	byRole := inv.BytesByRole()
	paramsByRole := inv.ParamsByRole()
	a.PayloadBytes = byRole[modeltree.Payload]
	a.ScaleBytes = byRole[modeltree.Scale] + byRole[modeltree.Aux]
	a.UnquantBytes = byRole[modeltree.Unquantized]
	a.UnquantParams = paramsByRole[modeltree.Unquantized]
	a.Experts, a.ExpertBytes = inv.ExpertParams()
	return a, nil
}
