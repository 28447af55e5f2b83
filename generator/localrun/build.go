package localrun

import (
	"fmt"
	"sort"

	"dossier/generator/facts"
	"dossier/generator/gguf"
)

// DefaultMachines are the machine classes a plan covers when none are
// named: DDR4 and DDR5 desktops with one 24 or 32 GB card, workstations
// with one or two cards, an EPYC server alone and with a card, two Macs.
var DefaultMachines = []string{
	"1xRTX3090@DDR4Desktop64", "1xRTX4090@Desktop64", "1xRTX4090@Desktop128", "1xRTX5090@Desktop192",
	"2xRTX3090@Workstation256", "1xRTX4090@Workstation512", "EPYC768", "1xRTX4090@EPYC1536",
	"M4Max128", "M3Ultra512",
}

// FromGGUFAll reads every quant's plan inputs from its headers, smallest
// on disk first.
func FromGGUFAll(quants []*gguf.Quant) ([]Quant, error) {
	var qs []Quant
	for _, gq := range quants {
		q, err := FromGGUF(gq)
		if err != nil {
			return nil, err
		}
		qs = append(qs, q)
	}
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].Sizes.Bytes < qs[j].Sizes.Bytes })
	return qs, nil
}

// Build plans every quant of a repository on every machine and returns
// the facts (gguf.*, local.*) with the plans.
func Build(qs []Quant, src Sources, machines []Machine, opts Options) (*facts.Set, []Plan, error) {
	s := facts.NewSet()
	var plans []Plan
	for _, q := range qs {
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
