// Package lora answers, from a checkpoint's module tree alone, what a
// PEFT LoRA configuration would adapt: which nn.Linear modules its
// target_modules resolve to (by layer kind), which targets resolve to
// nothing and what the model calls them instead, how many adapter
// parameters and bytes a rank gives, and what LoRA and QLoRA training
// hold in memory at a stated batch, sequence length and optimizer.
//
// Matching follows PEFT's check_target_module_exists
// (src/peft/tuners/tuners_utils.py, huggingface/peft at
// 005fdd53c63ed5a27177fd200295a00f93a57b55): a list of names matches a
// module whose full name equals a name or ends with "." + name; a single
// string is a regular expression that must match the whole module name;
// "all-linear" (_maybe_include_all_linear_layers there) is every Linear
// module except the output head.
package lora

import (
	"fmt"
	"regexp"
	"strings"
)

// AllLinear is PEFT's shorthand for every Linear layer but the output head.
const AllLinear = "all-linear"

// regexPrefix marks a target as PEFT's single-string form, a regular
// expression full-matched against module names. On a command line a list
// of one name and a string look alike, so the form is spelled out.
const regexPrefix = "re:"

// Targets is a parsed target_modules.
type Targets struct {
	Names     []string         // exact or suffix names, in the order given
	Regex     []*regexp.Regexp // full-match expressions ("re:" entries)
	regexSrc  []string
	AllLinear bool
}

// ParseTargets reads target_modules as a list: each entry is a module name
// (matched exactly or as a dotted suffix), "re:EXPR" (EXPR must match a
// whole module name, as PEFT treats a single string), or "all-linear".
func ParseTargets(list []string) (Targets, error) {
	var t Targets
	seen := map[string]bool{}
	for _, raw := range list {
		e := strings.TrimSpace(raw)
		switch {
		case e == "":
			return Targets{}, fmt.Errorf("target_modules: empty entry")
		case seen[e]:
			continue
		case strings.EqualFold(e, AllLinear):
			t.AllLinear = true
		case strings.HasPrefix(e, regexPrefix):
			src := strings.TrimPrefix(e, regexPrefix)
			// Go's RE2 syntax; PEFT uses Python's re. Both full-match here.
			re, err := regexp.Compile(`^(?:` + src + `)$`)
			if err != nil {
				return Targets{}, fmt.Errorf("target_modules: %q: %w", e, err)
			}
			t.Regex = append(t.Regex, re)
			t.regexSrc = append(t.regexSrc, e)
		default:
			if strings.HasPrefix(e, ".") || strings.HasSuffix(e, ".") || strings.Contains(e, "..") {
				return Targets{}, fmt.Errorf("target_modules: %q is not a module name", e)
			}
			t.Names = append(t.Names, e)
		}
		seen[e] = true
	}
	if len(t.Names) == 0 && len(t.Regex) == 0 && !t.AllLinear {
		return Targets{}, fmt.Errorf("target_modules: no targets")
	}
	return t, nil
}

// Entries are the targets as given (names, "re:" expressions, all-linear).
func (t Targets) Entries() []string {
	out := append([]string(nil), t.Names...)
	out = append(out, t.regexSrc...)
	if t.AllLinear {
		out = append(out, AllLinear)
	}
	return out
}

// nameMatches is PEFT's list rule: equal, or a dotted suffix.
func nameMatches(key, target string) bool {
	return key == target || strings.HasSuffix(key, "."+target)
}

// needsNames reports whether matching can depend on an expert index, so
// that a module pattern with "{E}" must be spelled out per expert: any
// regular expression, or a name with a numeric segment.
func (t Targets) needsNames() bool {
	if len(t.Regex) > 0 {
		return true
	}
	for _, n := range t.Names {
		for _, seg := range strings.Split(n, ".") {
			if seg != "" && strings.Trim(seg, "0123456789") == "" {
				return true
			}
		}
	}
	return false
}
