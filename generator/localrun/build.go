package localrun

import (
	"fmt"

	"dossier/generator/facts"
	"dossier/generator/gguf"
)

// DefaultMachines are the machine classes a plan covers when none are
// named: a DDR4 and DDR5 desktops with one 24 or 32 GB card, two 3090s
// in a workstation, an EPYC server alone and with a card, two Macs.
var DefaultMachines = []string{
	"1xRTX3090@DDR4Desktop64", "1xRTX4090@Desktop64", "1xRTX4090@Desktop128", "1xRTX5090@Desktop192",
	"2xRTX3090@Workstation256", "1xRTX4090@Workstation512", "EPYC768", "1xRTX4090@EPYC1536",
	"M4Max128", "M3Ultra512",
}

// Build plans every quant of a repository on every machine and returns
// the facts (gguf.*, local.*) with the plans.
func Build(quants []*gguf.Quant, src Sources, machines []Machine, opts Options) (*facts.Set, []Plan, error) {
	s := facts.NewSet()
	var qs []Quant
	var plans []Plan
	for _, gq := range quants {
		q, err := FromGGUF(gq)
		if err != nil {
			return nil, nil, err
		}
		qs = append(qs, q)
		AddQuantFacts(s, q, src)
		for _, m := range machines {
			p, err := Make(q, m, opts)
			if err != nil {
				return nil, nil, fmt.Errorf("quant %s on %s: %w", q.Label, m.ID, err)
			}
			AddPlanFacts(s, p, src)
			plans = append(plans, p)
		}
	}
	ids := make([]string, len(machines))
	for i, m := range machines {
		ids[i] = m.ID
	}
	AddBestFacts(s, qs, plans, ids)
	return s, plans, nil
}
