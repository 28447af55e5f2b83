package sizing

import (
	"dossier/generator/internal/checked"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"dossier/generator/catalog"
	"dossier/generator/deploy"
	"dossier/generator/facts"
)

// Deployments (package deploy) decide how n GPUs hold the model: the
// serving verdicts, speeds and costs below are of the layout an engine
// would launch, not of the largest tensor-parallel size that fits a node.

// srcDeploy cites the engine constraints and flag lists the deployment
// verdicts rest on.
const srcDeploy = "deploy:generator/deploy/testdata/SOURCES.md"

// answerContexts are the contexts a deployment states its concurrency at
// (the model's own maximum is added): a chat, a long document, a 128k
// session.
func answerContexts() []int64 { return []int64{8192, 32768, 131072} }

// MinContext is the sequence a deployable layout holds at least once.
const MinContext = 8192

// planner memoizes the deployment candidates of (accelerator, GPUs).
type planner struct {
	w    weights
	memo map[quoteKey][]deploy.Candidate
}

// memory answers deploy's per-GPU questions with the serving accounting
// (perGPU, cacheOn, gpuBudget).
type memory struct {
	c *calc
	w weights
}

func (m memory) OnGPU(acc *catalog.Accelerator, l deploy.Layout, b int64) (deploy.GPU, error) {
	c := m.c
	g := deploy.GPU{Budget: c.gpuBudget(acc), Sequences: 1}
	var cache gpuCache
	var missing string
	if l.DPAttention {
		// Every rank holds the attention and dense weights whole and 1/EP of
		// the routed experts, and caches its own sequences with every KV head.
		an := c.in.Analytic
		if an == nil || an.ExpertBytes <= 0 || an.ExpertBytes > m.w.total-m.w.mtp {
			return g, errors.New("routed-expert bytes unknown (no module tree): data-parallel attention cannot be placed")
		}
		rest := m.w.total - m.w.mtp - an.ExpertBytes
		g.Weights = ceilDiv(rest+ceilDiv(an.ExpertBytes, l.EP), l.PP)
		cache, missing = c.cacheOn(placement{n: 1, tp: 1, pp: l.PP}, b)
		g.Sequences = l.DP
	} else {
		p := placement{n: l.TP * l.PP, tp: l.TP, pp: l.PP}
		g.Weights, _ = c.perGPU(m.w, p)
		cache, missing = c.cacheOn(p, b)
	}
	if missing != "" {
		return g, errors.New(missing)
	}
	g.Seq = cache.at
	g.MaxContext = cache.maxContext
	return g, nil
}

// plan is the deployment candidates of n GPUs of acc, in deploy's order of
// preference.
func (c *calc) plan(acc *catalog.Accelerator, n int64) []deploy.Candidate {
	if c.plans == nil {
		return nil
	}
	k := quoteKey{acc.ID, int(n)}
	if cs, ok := c.plans.memo[k]; ok {
		return cs
	}
	primary, other, _ := c.kvDTypes()
	sz := c.in.Sizing
	cs := deploy.Plan(deploy.Input{
		Model: c.launchRef(), Arch: c.in.Arch, Acc: acc, GPUs: n,
		Mem:     memory{c, c.plans.w},
		KVBytes: []int64{primary, other}, Contexts: answerContexts(), MinContext: MinContext,
		Utilization: sz.GPUMemoryUtilization, RemoteCode: c.remoteCode(), TPSizes: sz.TensorParallelSizes,
	})
	c.plans.memo[k] = cs
	return cs
}

// chosen is the layout a deployment names for n GPUs of acc: the first
// deployable candidate the serving accounting can follow (tensor,
// expert and pipeline parallelism), else the first deployable one, else
// none.
func (c *calc) chosen(acc *catalog.Accelerator, n int64) (deploy.Candidate, bool) {
	cs := c.plan(acc, n)
	for _, cd := range cs {
		if cd.Deployable() && sizable(cd.Layout) {
			return cd, true
		}
	}
	return deploy.Best(cs)
}

// sizable reports whether a layout is one placement (TP × PP, experts
// split like the rest) describes.
func sizable(l deploy.Layout) bool { return !l.DPAttention && l.DP <= 1 }

// placementOf is how the serving accounting places n GPUs of acc: the
// chosen deployment's TP × PP; when none is deployable, the first
// candidate whose shape the engines accept (the model may not fit it, or
// the engine may not support its architecture); when none is, the largest
// tensor-parallel size within a node.
func (c *calc) placementOf(acc *catalog.Accelerator, n int64) placement {
	if cd, ok := c.chosen(acc, n); ok && sizable(cd.Layout) {
		return placement{n: n, tp: cd.Layout.TP, pp: cd.Layout.PP}
	}
	for _, cd := range c.plan(acc, n) {
		if cd.ShapeAccepted() && sizable(cd.Layout) {
			return placement{n: n, tp: cd.Layout.TP, pp: cd.Layout.PP}
		}
	}
	return placementFor(n, c.in.Sizing.TensorParallelSizes, int64(acc.GPUsPerNode))
}

// launchRef is what a launch command names the model by: its Hub id, or
// for a config.json sized alone the directory that holds it.
func (c *calc) launchRef() string {
	if c.in.Snapshot != nil && c.in.Snapshot.Model != "" {
		return c.in.Snapshot.Model
	}
	if strings.HasSuffix(c.in.Model, ".json") {
		return filepath.Dir(c.in.Model)
	}
	return c.in.Model
}

// remoteCode reports whether config.json maps the model to its own code
// (auto_map), which the engines load only with --trust-remote-code.
func (c *calc) remoteCode() bool { return c.in.Arch != nil && c.in.Arch.RemoteCode }

// deployCounts are the GPU counts tried for acc: the tensor-parallel
// sizes within its scale-up domain (or PCIe host), the whole domain, then
// whole domains, up to maxNodes of them.
func deployCounts(acc *catalog.Accelerator, tpSizes []int64) []int64 {
	domain := int64(acc.GPUsPerNode)
	if acc.Host != nil {
		domain = int64(acc.Host.Domain())
	}
	out := layouts(tpSizes, domain)
	for k := int64(2); k <= maxNodes; k++ {
		out = append(out, k*domain)
	}
	return out
}

// deployments records, per accelerator, its smallest deployable layout and
// the deployment of every configured entry, predicts their speed, and
// names the frontier: fastest, smallest, best single host and best local
// machine here, cheapest per token in the cost stage.
func (c *calc) deployments(ids []string, w weights) {
	sz := c.in.Sizing
	ctx, _ := c.servingContext()
	c.add("deploy.answer_context", ctx, facts.UnitTokens, "sizing.servingContext, capped at the model's own context: the sequence length the answer states concurrency and $ per million output tokens at", "site:hugo-like.yaml", srcConfig)
	type entry struct {
		label string
		acc   *catalog.Accelerator
		n     int64
		cd    deploy.Candidate
	}
	var front []entry
	seen := map[string]bool{}
	consider := func(label string, acc *catalog.Accelerator, n int64) {
		if seen[label] {
			return
		}
		seen[label] = true
		cd, ok := c.chosen(acc, n)
		c.deployFacts(label, acc, n, cd, ok)
		if ok {
			front = append(front, entry{label, acc, n, cd})
		}
	}
	for _, hw := range c.in.Hardware {
		n, id, _ := parseLabel(hw)
		if acc := c.in.Catalog.Accelerators[id]; acc != nil && n >= 1 && n <= checked.MaxGPUs {
			consider(hw, acc, n)
		}
	}
	// Why the local machines that hold the weights are not deployable,
	// for the local answer when there is none.
	var localBlocked []string          // reasons, in order
	blockedOn := map[string][]string{} // reason → the layouts it stops
	for _, id := range ids {
		acc := c.in.Catalog.Accelerators[id]
		found := false
		// What stops the smallest count whose memory holds the weights
		// is the reason a reader needs: engine support, a head count
		// TP does not divide, the cache; counts below it only lack memory.
		why := fmt.Sprintf("no layout of up to %d %s domains holds the weights (%s)", maxNodes, id, facts.GB(float64(w.total)))
		blocked := false
		for _, n := range deployCounts(acc, sz.TensorParallelSizes) {
			if _, ok := c.chosen(acc, n); ok {
				consider(fmt.Sprintf("%dx%s", n, id), acc, n)
				found = true
				break
			}
			if cs := c.plan(acc, n); len(cs) > 0 && !blocked && n*acc.Capacity() >= w.total {
				why, blocked = fmt.Sprintf("none of up to %d %s domains is deployable; the smallest that holds the weights, %d × %s, is not: %s", maxNodes, id, n, id, briefly(cs)), true
				if cd := blocker(cs); localClass(acc) {
					r := firstLimit(cd)
					if blockedOn[r] == nil {
						localBlocked = append(localBlocked, r)
					}
					blockedOn[r] = append(blockedOn[r], fmt.Sprintf("%d × %s", n, id))
				}
			}
		}
		if !found {
			c.s.Unknown("deploy.smallest_of."+id, facts.UnitText, why)
			c.s.Unknown("deploy.min_gpus."+id, facts.UnitCount, "no deployable layout: deploy.smallest_of."+id+" says why")
		} else {
			last := front[len(front)-1]
			c.add("deploy.smallest_of."+id, last.label, facts.UnitText, "the fewest "+id+" an engine would launch the model on (deploy."+last.label+")", srcDeploy, catalog.HardwareSourcePrefix+id).Display = fmt.Sprintf("%d × %s, %s %s", last.n, id, last.cd.Engine, last.cd.Describe())
			c.add("deploy.min_gpus."+id, last.n, facts.UnitCount, "GPUs of deploy.smallest_of."+id, srcDeploy, catalog.HardwareSourcePrefix+id)
		}
	}
	// Speeds of the deployments whose serving facts did not predict one.
	for _, e := range front {
		if c.s.Get("speed." + e.label + ".decode_tokens_per_second").Known() {
			continue
		}
		if sizable(e.cd.Layout) {
			c.speedOfLayout(e.label, e.acc, e.n, w)
		} else {
			c.speedOfDPAttention(e.label, e.acc, e.cd.Layout, w)
		}
	}
	speed := func(e entry) (float64, bool) {
		return c.s.Get("speed." + e.label + ".decode_tokens_per_second").Float()
	}
	footprint := func(e entry) int64 { return e.n * e.acc.Capacity() }
	pick := func(key, what, none string, keep func(entry) bool, better func(a, b entry) bool) {
		var best *entry
		for i := range front {
			e := &front[i]
			if keep(*e) && (best == nil || better(*e, *best)) {
				best = e
			}
		}
		if best == nil {
			c.s.Unknown(key, facts.UnitText, none)
			return
		}
		f := c.add(key, best.label, facts.UnitText, what+" (deploy."+best.label+")", srcDeploy, catalog.HardwareSourcePrefix+best.acc.ID, "site:hugo-like.yaml")
		f.Display = fmt.Sprintf("%d × %s, %s %s", best.n, best.acc.ID, best.cd.Engine, best.cd.Describe())
	}
	all := func(entry) bool { return true }
	smaller := func(a, b entry) bool {
		return footprint(a) < footprint(b) || footprint(a) == footprint(b) && a.n < b.n
	}
	faster := func(a, b entry) bool {
		sa, oka := speed(a)
		sb, okb := speed(b)
		return oka && (!okb || sa > sb)
	}
	local := func(e entry) bool { return localClass(e.acc) }
	noLocal := "no consumer GPU rig, Apple machine or CPU host of the catalog holds the model with one " + facts.Int(MinContext) + "-token sequence"
	if len(localBlocked) > 0 {
		stops := make([]string, len(localBlocked))
		for i, r := range localBlocked {
			stops[i] = r + " (" + strings.Join(blockedOn[r], ", ") + ")"
		}
		noLocal = "no consumer GPU rig, Apple machine or CPU host of the catalog is deployable; those that hold the weights are stopped by " + strings.Join(stops, "; ")
	}
	pick("deploy.smallest.layout", "the deployable layout with the least memory in all (GPUs × capacity)",
		"no layout of the catalog is deployable", all, smaller)
	pick("deploy.fastest.layout", "the deployable layout with the fastest single stream (speed.<CFG>.decode_tokens_per_second, batch 1)",
		"no deployable layout has a speed prediction", func(e entry) bool { _, ok := speed(e); return ok }, faster)
	pick("deploy.single_host.layout", "the fastest single stream on one datacenter or workstation host",
		"no single datacenter or workstation host holds the model with a speed prediction", func(e entry) bool {
			_, ok := speed(e)
			return ok && e.cd.Layout.Hosts == 1 && !local(e)
		}, faster)
	pick("deploy.local.layout", "the smallest deployable consumer GPU, Apple or CPU machine", noLocal, local, smaller)
	var cands []candidate
	for _, e := range front {
		cands = append(cands, candidate{label: e.label, id: e.acc.ID, n: e.n})
	}
	c.record(costOp{kind: opDeployCheapest, cands: cands})
}

// localClass reports whether acc is a machine one person runs: a consumer
// GPU rig, an Apple machine or a CPU host.
func localClass(acc *catalog.Accelerator) bool {
	return acc.Class == "consumer" || acc.Class == "unified" || acc.Class == "cpu"
}

// parseLabel reads "8xH200".
func parseLabel(hw string) (int64, string, bool) {
	n, id, ok := strings.Cut(hw, "x")
	if !ok {
		return 0, "", false
	}
	v, err := strconv.ParseInt(n, 10, 64)
	return v, id, err == nil
}

// deployFacts records the deployment of n GPUs of acc under label.
func (c *calc) deployFacts(label string, acc *catalog.Accelerator, n int64, cd deploy.Candidate, ok bool) {
	key := func(k string) string { return "deploy." + label + "." + k }
	hsrc := catalog.HardwareSourcePrefix + acc.ID
	srcs := []string{srcDeploy, hsrc, srcConfig, "site:hugo-like.yaml"}
	if !ok {
		why := notDeployable(c.plan(acc, n))
		c.add(key("deployable"), false, facts.UnitBool, "no layout of "+label+" passes the engines' constraints and holds the model with one "+facts.Int(MinContext)+"-token sequence: "+why, srcs...).Display = "not deployable: " + why
		return
	}
	l := cd.Layout
	c.add(key("deployable"), true, facts.UnitBool, fmt.Sprintf("%s %s passes the engines' constraints (heads, KV heads and quantization blocks ÷ TP, experts ÷ EP, layers ÷ PP, TP within one scale-up domain, hosts over a fabric) and holds one %s-token sequence", cd.Engine, l, facts.Int(MinContext)), srcs...).Display = fmt.Sprintf("deployable: %s %s", cd.Engine, cd.Describe())
	c.add(key("engine"), string(cd.Engine), facts.UnitText, "the engine of this accelerator class (vLLM/SGLang for datacenter and workstation GPUs, llama.cpp for consumer cards and CPU hosts, MLX for Apple)", srcDeploy, hsrc)
	c.add(key("layout"), cd.Describe(), facts.UnitText, "the first layout in deploy's order of preference the engines accept and the memory holds", srcs...)
	for _, p := range []struct {
		k string
		v int64
	}{{"tp", l.TP}, {"pp", l.PP}, {"dp", max(l.DP, 1)}, {"ep", max(l.EP, 1)}} {
		c.add(key(p.k), p.v, facts.UnitCount, "of deploy."+label+".layout", srcDeploy)
	}
	c.add(key("command"), cd.Command, facts.UnitText, "the launch command with the flags that make the verdict true; flags checked against the engine's own argument definitions (generator/deploy/testdata/flags)", srcs...)
	if len(cd.Notes) > 0 {
		c.add(key("notes"), strings.Join(cd.Notes, "; "), facts.UnitText, "what the layout needs beside the command", srcDeploy, hsrc)
	}
	for i, f := range cd.Fits {
		suffix := ""
		if i > 0 {
			suffix = "_" + dtypeName(f.KVBytes)
		}
		dt := fmt.Sprintf("%s cache (%d B per value)", strings.ToUpper(dtypeName(f.KVBytes)), f.KVBytes)
		if i == 0 {
			c.add(key("kv_dtype"), dtypeName(f.KVBytes), facts.UnitText, "the cache width the verdict and the command assume", srcConfig, "site:hugo-like.yaml")
		}
		c.add(key("max_context"+suffix), f.MaxContext, facts.UnitTokens, fmt.Sprintf("the longest single sequence whose %s fits the %s left per GPU after the weights, capped at the model's context", dt, facts.GB(float64(f.Usable))), srcs...)
		for _, ctx := range deploy.Contexts(deploy.Input{Arch: c.in.Arch, Contexts: answerContexts()}) {
			conc, ok := f.Concurrency[ctx]
			k := key(fmt.Sprintf("max_concurrency%s.%d", suffix, ctx))
			if !ok {
				c.s.Unknown(k, facts.UnitCount, "the model holds no per-sequence cache: concurrency is not bounded by memory")
				continue
			}
			c.add(k, conc, facts.UnitCount, fmt.Sprintf("sequences of %s tokens whose %s fits beside the weights, × %d replica(s) or data-parallel attention ranks", facts.Int(ctx), dt, replicasOf(l)), srcs...)
		}
	}
}

func replicasOf(l deploy.Layout) int64 {
	if l.DPAttention {
		return l.DP
	}
	return l.Replicas()
}

// notDeployable says why no candidate is deployable: the memory verdict
// of the first candidate the engines accept, else the first candidate's
// violated constraints.
func notDeployable(cs []deploy.Candidate) string {
	if len(cs) == 0 {
		return "no candidate layout"
	}
	cd := blocker(cs)
	return fmt.Sprintf("%s %s: %s", cd.Engine, cd.Layout, cd.Reason())
}

// briefly is notDeployable with only the first limit the layout breaks
// and a count of the rest: an answer about an accelerator, where the full
// list (ten limits for TP 40 of K3) would bury the one that matters.
func briefly(cs []deploy.Candidate) string {
	if len(cs) == 0 {
		return "no candidate layout"
	}
	cd := blocker(cs)
	return fmt.Sprintf("%s %s: %s", cd.Engine, cd.Layout, firstLimit(cd))
}

// firstLimit is the first reason cd is not deployable, with how many
// other limits it breaks.
func firstLimit(cd deploy.Candidate) string {
	if n := len(cd.Violations); n > 1 {
		return fmt.Sprintf("%s; and %d other limit(s)", cd.Violations[0], n-1)
	}
	return cd.Reason()
}

// blocker is the candidate whose reason a layout that is not deployable
// gives: the first the engines accept (memory stops it), else the first.
func blocker(cs []deploy.Candidate) deploy.Candidate {
	for _, cd := range cs {
		if len(cd.Violations) == 0 {
			return cd
		}
	}
	return cs[0]
}

// deployCheapest names the deployable layout with the lowest $ per million
// output tokens at the load its speed was predicted at.
func (c *calc) deployCheapest(cands []candidate) {
	best, bestUSD := "", math.Inf(1)
	for _, cd := range cands {
		if v, ok := c.s.Get("cost." + cd.label + ".usd_per_million_output_tokens").Float(); ok && v < bestUSD {
			best, bestUSD = cd.label, v
		}
	}
	if best == "" {
		c.s.Unknown("deploy.cheapest.layout", facts.UnitText, "no deployable layout has a price and a predicted speed")
		c.s.Unknown("deploy.cheapest.usd_per_m_output_tokens", facts.UnitUSD, "no deployable layout has a price and a predicted speed")
		return
	}
	src := "cost." + best + ".usd_per_million_output_tokens"
	c.add("deploy.cheapest.layout", best, facts.UnitText, "the deployable layout with the fewest $ per million output tokens at its predicted load ("+src+")", src, srcDeploy)
	f := c.add("deploy.cheapest.usd_per_m_output_tokens", bestUSD, facts.UnitUSD, src+": $/h ÷ output tokens per hour at the concurrency its speed assumes", src)
	if c.approx[src] || strings.HasPrefix(c.s.Get(src).Display, "≈") {
		f.Display = "≈" + f.Display
	}
}
