package sizing

import (
	"strings"

	"dossier/generator/catalog"
	"dossier/generator/facts"
)

// Priced reports, for each fact of set in key order, whether prices
// decide it: a cost fact (cost.*, with a price or unknown for want of
// one), a fact citing a price list, or a fact citing a fact prices decide
// (download.idle_usd.* cites cost.*). With every other input the same, a
// price change changes only these and which speed facts the cheapest
// layout adds (a caller compares the other facts' keys for that).
// TestPricedCoversWhatPricesChange holds it to builds with other prices.
func Priced(set *facts.Set) []bool {
	out := make([]bool, 0, set.Len())
	priced := map[string]bool{}
	var cites []*facts.Fact // facts citing other facts: decided once those are
	for f := range set.All() {
		p := strings.HasPrefix(f.Key, "cost.")
		for _, src := range f.Sources {
			if strings.HasPrefix(src, catalog.PriceSourcePrefix) {
				p = true
				break
			}
		}
		if p {
			priced[f.Key] = true
		} else if len(f.Sources) > 0 {
			cites = append(cites, f)
		}
		out = append(out, p)
	}
	// A fact may cite one after it in key order: repeat until nothing
	// changes (a chain of citations is a few links long).
	for changed := true; changed; {
		changed = false
		for _, f := range cites {
			if priced[f.Key] {
				continue
			}
			for _, src := range f.Sources {
				if priced[src] {
					priced[f.Key], changed = true, true
					break
				}
			}
		}
	}
	if len(priced) > 0 {
		i := 0
		for f := range set.All() {
			out[i] = priced[f.Key]
			i++
		}
	}
	return out
}
