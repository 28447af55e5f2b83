package review

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"dossier/generator/facts"
)

// layoutRe is a hardware configuration as fact keys name it: 8xH200.
var layoutRe = regexp.MustCompile(`^[0-9]+x[A-Za-z0-9-]+$`)

// layoutOnly returns the layout of a fact the build computes for one
// layout only (the cheapest that serves): its speed and its $/M tokens.
func layoutOnly(key string) (string, bool) {
	parts := strings.SplitN(key, ".", 3)
	if len(parts) != 3 || !layoutRe.MatchString(parts[1]) {
		return "", false
	}
	switch {
	case parts[0] == "speed":
		return parts[1], true
	case parts[0] == "cost" && strings.HasPrefix(parts[2], "usd_per_million_"):
		return parts[1], true
	}
	return "", false
}

func known(v *Value) bool { return v != nil && v.Value != nil }

// appeared and vanished tell a fact that started or stopped being
// computed (present or known) from one whose value merely changed.
func appeared(c Change) bool { return c.Old == nil || (!known(c.Old) && known(c.New)) }
func vanished(c Change) bool { return c.New == nil || (known(c.Old) && !known(c.New)) }

// switchLayouts takes out of changes the layout-only facts that merely
// started or stopped being computed, and returns them as one switch. A
// layout some of whose facts appeared and others disappeared keeps its
// rows: that is not a switch.
func switchLayouts(changes []Change) ([]Change, *LayoutSwitch) {
	gained, lost := map[string]int{}, map[string]int{}
	for _, c := range changes {
		cfg, ok := layoutOnly(c.Key)
		if !ok || appeared(c) == vanished(c) {
			continue
		}
		if appeared(c) {
			gained[cfg]++
		} else {
			lost[cfg]++
		}
	}
	grouped := func(c Change) (string, bool) {
		cfg, ok := layoutOnly(c.Key)
		if !ok || appeared(c) == vanished(c) || (gained[cfg] > 0 && lost[cfg] > 0) {
			return "", false
		}
		return cfg, true
	}
	sw := &LayoutSwitch{From: []string{}, To: []string{}}
	kept := []Change{}
	for _, c := range changes {
		if _, ok := grouped(c); !ok {
			kept = append(kept, c)
			continue
		}
		sw.Facts++
	}
	if sw.Facts == 0 {
		return changes, nil
	}
	for cfg := range gained {
		if lost[cfg] == 0 {
			sw.To = append(sw.To, cfg)
		}
	}
	for cfg := range lost {
		if gained[cfg] == 0 {
			sw.From = append(sw.From, cfg)
		}
	}
	sort.Strings(sw.To)
	sort.Strings(sw.From)
	return kept, sw
}

// staleDate is a price fact whose value changed while the dated price
// list it cites kept its date: the list's as_of was not moved with its
// prices.
type staleDate struct {
	source, key string
	old, new    *Value
}

func (n staleDate) String(model string) string {
	return fmt.Sprintf("`%s`: a price changed (%s `%s`: %s → %s) but the list's date did not; its `as_of` should say when the new prices were read",
		n.source, model, n.key, display(n.old), display(n.new))
}

// priceDateKept reports a fact read from price lists alone whose value
// moved while every list it cites kept its dated id.
func priceDateKept(key string, of, nf *facts.Fact) (staleDate, bool) {
	if of == nil || nf == nil || of.Value == nil || nf.Value == nil || len(nf.Sources) == 0 || strings.Join(of.Sources, "\n") != strings.Join(nf.Sources, "\n") {
		return staleDate{}, false
	}
	for _, s := range nf.Sources {
		if !strings.HasPrefix(s, "pricing:") {
			return staleDate{}, false
		}
	}
	return staleDate{source: strings.Join(nf.Sources, ", "), key: key, old: value(of), new: value(nf)}, true
}
