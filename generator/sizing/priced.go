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
	fs := make([]*facts.Fact, 0, set.Len())
	for f := range set.All() {
		fs = append(fs, f)
	}
	out := make([]bool, len(fs))
	priced := map[string]bool{} // the keys of the facts marked so far
	for i, f := range fs {
		p := strings.HasPrefix(f.Key, "cost.")
		for _, src := range f.Sources {
			if p {
				break
			}
			p = strings.HasPrefix(src, catalog.PriceSourcePrefix)
		}
		if p {
			out[i], priced[f.Key] = true, true
		}
	}
	// A fact may cite one after it in key order: repeat until nothing
	// changes (a chain of citations is a few links long).
	for changed := len(priced) > 0; changed; {
		changed = false
		for i, f := range fs {
			if out[i] {
				continue
			}
			for _, src := range f.Sources {
				if priced[src] {
					out[i], priced[f.Key], changed = true, true, true
					break
				}
			}
		}
	}
	return out
}
