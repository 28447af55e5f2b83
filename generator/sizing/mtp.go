package sizing

import (
	"fmt"

	"dossier/generator/facts"
)

// Component names of the module tree (modeltree.CompText, CompMTP).
const (
	compText = "text"
	compMTP  = "mtp"
)

// mtp splits the parameter count into the main model and its
// multi-token-prediction modules. The Hub counts every stored tensor, MTP
// included (DeepSeek-V3: "685B"), while a model card's headline is the main
// model ("671B"); the page shows both. Nothing is emitted for a model
// without MTP layers.
func (c *calc) mtp() {
	a, an := c.in.Arch, c.in.Analytic
	if a.MTPLayers <= 0 && (an == nil || an.ByComponent[compMTP] == 0) {
		return
	}
	if an == nil {
		why := fmt.Sprintf("config.json declares %d multi-token-prediction layer(s), but there is no module tree to count them", a.MTPLayers)
		c.s.Unknown("params.mtp", facts.UnitParams, why)
		c.s.Unknown("params.main", facts.UnitParams, why)
		return
	}
	var mtp int64
	var how string
	if an.ByComponent != nil {
		mtp = an.ByComponent[compMTP]
		how = "parameters of the multi-token-prediction modules in the module tree (their layers, norms, projection, and own embedding and head)"
	} else {
		text, ok := textParams(an, a.RoutedExperts, a.ActiveExperts)
		if !ok {
			c.s.Unknown("params.mtp", facts.UnitParams, "the module tree's per-token figures do not separate the main model from the MTP modules")
			c.s.Unknown("params.main", facts.UnitParams, "the module tree's per-token figures do not separate the main model from the MTP modules")
			return
		}
		if a.HasVision {
			why := "the module tree counts a vision tower and MTP modules beside the text model and this build does not carry per-component counts to tell them apart"
			c.s.Unknown("params.mtp", facts.UnitParams, why)
			c.s.Unknown("params.main", facts.UnitParams, why)
			return
		}
		mtp = an.Total - text
		how = fmt.Sprintf("module-tree total %s − main text model %s (its non-expert tensors, recovered from params.active, plus params.experts): the %d MTP layer(s) with their own embedding and head",
			facts.Int(an.Total), facts.Int(text), a.MTPLayers)
	}
	c.add("params.mtp", mtp, facts.UnitParams, how, srcConfig, srcAnalytic)
	c.add("params.main", an.Total-mtp, facts.UnitParams,
		"module-tree parameters without the multi-token-prediction modules: the main model a model card's headline counts", srcConfig, srcAnalytic)
}

// textParams recovers the text model's parameters from what Analytic
// carries: Active counts every non-expert text parameter (embedding
// included) plus the routed experts scaled by k/E exactly as modeltree's
// ActiveParams does, and Experts is the text model's routed-expert total.
func textParams(an *Analytic, routed, perToken int64) (int64, bool) {
	if an.Experts == 0 {
		return an.Active, true
	}
	if routed <= 0 || perToken <= 0 {
		return 0, false
	}
	active := an.Experts/routed*perToken + an.Experts%routed*perToken/routed
	dense := an.Active - active
	if dense < 0 {
		return 0, false
	}
	return dense + an.Experts, true
}
