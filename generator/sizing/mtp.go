package sizing

import (
	"fmt"

	"dossier/generator/facts"
)

// compMTP is the module tree's component name of the
// multi-token-prediction modules (modeltree.CompMTP).
const compMTP = "mtp"

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
	if an.ByComponent == nil {
		why := "the module tree's per-component counts were not carried, so the MTP modules cannot be told from the main model"
		c.s.Unknown("params.mtp", facts.UnitParams, why)
		c.s.Unknown("params.main", facts.UnitParams, why)
		return
	}
	mtp := an.ByComponent[compMTP]
	how := "parameters of the multi-token-prediction modules in the module tree (their layers, norms, projection, and own embedding and head); loaded only with speculative decoding"
	if an.Extras != "" {
		how += "; not declared in config.json, shipped by the checkpoint: " + an.Extras
	}
	c.add("params.mtp", mtp, facts.UnitParams, how, srcConfig, srcAnalytic)
	c.add("params.main", an.Total-mtp, facts.UnitParams,
		"module-tree parameters without the multi-token-prediction modules: the main model a model card's headline counts", srcConfig, srcAnalytic)
}
