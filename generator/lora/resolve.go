package lora

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"dossier/generator/arch"
	"dossier/generator/modeltree"
)

// Kind is where a Linear module sits, as the layout names it.
type Kind string

// Layer kinds of matched modules. Attention modules take the kind of their
// layer (arch.LayerKinds); attention is used when the layout is unknown.
const (
	FullAttention    Kind = "full_attention"
	SlidingAttention Kind = "sliding_attention"
	LinearAttention  Kind = "linear_attention"
	Attention        Kind = "attention"
	MoEExperts       Kind = "moe_experts"
	SharedExperts    Kind = "shared_experts"
	DenseMLP         Kind = "dense_mlp"
	Router           Kind = "router"
	Vision           Kind = "vision"
	MTP              Kind = "mtp"
	Head             Kind = "lm_head"
	Other            Kind = "other" // per-layer extras (AttnRes projections, latent MoE projections, ...)
)

// maxRank bounds the rank; far above any published LoRA.
const maxRank = 1 << 16

// Match is Count matched Linear modules that share a name pattern.
type Match struct {
	Pattern string `json:"pattern"` // module name; "{E}" stands for the expert index
	Count   int64  `json:"count"`
	Kind    Kind   `json:"kind"`
	In      int64  `json:"in_features"`
	Out     int64  `json:"out_features"`
}

// Unmatched is a target that resolves to no Linear module.
type Unmatched struct {
	Target  string
	Closest []string // the nearest Linear module names of the model
	// Note says what the target does match when that is not a Linear
	// module (a container, a norm, a stored parameter); "" otherwise.
	Note string
}

// Resolution is what a target_modules resolves to in one module tree.
type Resolution struct {
	Targets   Targets
	Rank      int64
	Modules   int64          // matched Linear modules
	ByKind    map[Kind]int64 // matched modules per kind
	Available map[Kind]int64 // the model's Linear modules per kind
	PerTarget map[string]int64
	Matches   []Match
	Unmatched []Unmatched
	// AdapterParams is Σ r·(in + out) over the matched modules: lora_A is
	// [r, in] and lora_B [out, r]. lora_alpha only scales B·A and adds no
	// parameter.
	AdapterParams int64
	// FusedExperts names a routed-expert weight the checkpoint stores as
	// one 3-D parameter per layer; "" when experts are Linear modules or
	// the model has none.
	FusedExperts string
	// FusedExpertParams is the parameters of such fused expert weights.
	FusedExpertParams int64
}

var layerIndex = regexp.MustCompile(`(?:^|\.)(?:layers|h|layer|blocks)\.(\d+)\.`)

// kindOf classifies a Linear module.
func kindOf(l *modeltree.Linear, a *arch.Architecture) Kind {
	switch {
	case l.Component == modeltree.CompVision || l.Component == modeltree.CompProjector:
		return Vision
	case l.Component == modeltree.CompMTP:
		return MTP
	case l.Head:
		return Head
	case l.Expert:
		return MoEExperts
	case strings.Contains(l.Pattern, "shared_expert"):
		return SharedExperts
	}
	m := layerIndex.FindStringSubmatchIndex(l.Pattern)
	if m == nil {
		return Other
	}
	i, err := strconv.Atoi(l.Pattern[m[2]:m[3]])
	if err != nil {
		return Other
	}
	rest := l.Pattern[m[1]:]
	seg, _, nested := strings.Cut(rest, ".")
	if !nested {
		return Other // a projection directly on the layer
	}
	if strings.Contains(seg, "attn") || strings.Contains(seg, "attention") || seg == "mixer" {
		if a == nil || i >= len(a.LayerKinds) {
			return Attention
		}
		switch a.LayerKinds[i] {
		case arch.Full:
			return FullAttention
		case arch.Sliding:
			return SlidingAttention
		case arch.Linear:
			return LinearAttention
		}
		return Attention
	}
	if a != nil && slices.Contains(a.MoELayers, i) {
		last := rest[strings.LastIndexByte(rest, '.')+1:]
		if strings.Count(rest, ".") == 1 && (last == "gate" || last == "router") {
			return Router
		}
		return Other
	}
	if strings.Contains(seg, "mlp") || strings.Contains(seg, "feed_forward") || seg == "ffn" {
		return DenseMLP
	}
	return Other
}

// Resolve matches t against the Linear modules of inv. a supplies the
// layer kinds (nil: attention modules are of kind attention).
func Resolve(inv *modeltree.Inventory, a *arch.Architecture, t Targets, rank int64) (*Resolution, error) {
	if rank <= 0 || rank > maxRank {
		return nil, fmt.Errorf("rank %d: want 1 to %d", rank, maxRank)
	}
	if len(inv.Linears) == 0 {
		return nil, fmt.Errorf("%s: the module tree lists no Linear modules", inv.Family)
	}
	r := &Resolution{Targets: t, Rank: rank, ByKind: map[Kind]int64{}, Available: map[Kind]int64{},
		PerTarget: map[string]int64{}}
	spell := t.needsNames()
	for i := range inv.Linears {
		l := &inv.Linears[i]
		k := kindOf(l, a)
		r.Available[k] += l.Count
		var n int64
		if spell && strings.Contains(l.Pattern, "{E}") {
			for e := range l.Count {
				if r.matchOne(strings.Replace(l.Pattern, "{E}", strconv.FormatInt(e, 10), 1), l, 1) {
					n++
				}
			}
		} else if r.matchOne(l.Pattern, l, l.Count) {
			n = l.Count
		}
		if n == 0 {
			continue
		}
		r.Modules += n
		r.ByKind[k] += n
		r.Matches = append(r.Matches, Match{Pattern: l.Pattern, Count: n, Kind: k, In: l.In, Out: l.Out})
		r.AdapterParams += n * rank * (l.In + l.Out)
	}
	r.fusedExperts(inv)
	r.unmatched(inv)
	return r, nil
}

// matchOne reports whether module name (standing for count modules of l)
// is a target, crediting every target that matches it.
func (r *Resolution) matchOne(name string, l *modeltree.Linear, count int64) bool {
	hit := false
	for _, n := range r.Targets.Names {
		if nameMatches(name, n) {
			r.PerTarget[n] += count
			hit = true
		}
	}
	for i, re := range r.Targets.Regex {
		if re.MatchString(name) {
			r.PerTarget[r.Targets.regexSrc[i]] += count
			hit = true
		}
	}
	if r.Targets.AllLinear && !l.Head {
		r.PerTarget[AllLinear] += count
		hit = true
	}
	return hit
}

// fusedExperts finds routed-expert weights stored as 3-D parameters.
func (r *Resolution) fusedExperts(inv *modeltree.Inventory) {
	for i := range inv.Groups {
		g := &inv.Groups[i]
		if !g.Expert || g.Params == 0 || len(g.Shape) < 3 || g.Role == modeltree.Scale {
			continue
		}
		if r.FusedExperts == "" {
			r.FusedExperts = g.Pattern
		}
		r.FusedExpertParams += g.Count * g.Params
	}
}

// unmatched lists the targets that matched no Linear module, with the
// nearest real names and what else they match.
func (r *Resolution) unmatched(inv *modeltree.Inventory) {
	var leaves []string
	seen := map[string]bool{}
	for i := range inv.Linears {
		p := inv.Linears[i].Pattern
		leaf := p[strings.LastIndexByte(p, '.')+1:]
		if !seen[leaf] {
			seen[leaf] = true
			leaves = append(leaves, leaf)
		}
	}
	for _, e := range r.Targets.Entries() {
		if r.PerTarget[e] > 0 {
			continue
		}
		u := Unmatched{Target: e, Note: otherMatch(inv, e)}
		if !strings.HasPrefix(e, regexPrefix) && e != AllLinear {
			last := e[strings.LastIndexByte(e, '.')+1:]
			u.Closest = closest(last, leaves, 3)
		}
		r.Unmatched = append(r.Unmatched, u)
	}
}

// otherMatch says what a name target matches that is not a Linear module:
// a module that holds no Linear weight of its own, or a stored parameter.
func otherMatch(inv *modeltree.Inventory, target string) string {
	if strings.HasPrefix(target, regexPrefix) || target == AllLinear {
		return ""
	}
	var module, param string
	for i := range inv.Groups {
		name := inv.Groups[i].Pattern
		mod := name[:max(strings.LastIndexByte(name, '.'), 0)]
		// MXFP4 stores a fused parameter P as P_blocks + P_scales.
		if p := strings.TrimSuffix(name, "_blocks"); param == "" && nameMatches(p, target) {
			param = p
		}
		for m := mod; m != "" && module == ""; {
			if nameMatches(m, target) {
				module = m
			}
			j := strings.LastIndexByte(m, '.')
			if j < 0 {
				break
			}
			m = m[:j]
		}
		if module != "" {
			break
		}
	}
	switch {
	case module != "":
		return fmt.Sprintf("matches %s, a module that is not nn.Linear: PEFT's LoRA raises on module types it does not support (it adapts Linear, Embedding, Conv and MultiheadAttention)", module)
	case param != "":
		return fmt.Sprintf("names the parameter %s, not a module: target_modules never matches a parameter (PEFT's target_parameters does)", param)
	}
	return ""
}

// closest returns up to n names nearest to s by edit distance, nearest
// first, leaving out names that share too little with s.
func closest(s string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, name := range names {
		d := editDistance(s, name)
		if d <= max(len(s), len(name))/2+1 {
			cs = append(cs, cand{name, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance over bytes (module names are
// ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
