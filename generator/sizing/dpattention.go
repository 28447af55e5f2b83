package sizing

import (
	"fmt"

	"dossier/generator/catalog"
	"dossier/generator/deploy"
)

// Data-parallel attention (SGLang --enable-dp-attention with --dp-size
// equal to --tp-size; vLLM --data-parallel-size with
// --enable-expert-parallel): each rank runs attention whole on its own
// sequences, so a sequence's cache lives on one rank with every KV head,
// not split (or, past the KV-head count, copied) across tensor-parallel
// ranks. Before each MoE layer the ranks gather the batch's hidden states,
// every rank runs its own routed experts on all the batch's tokens, and
// the outputs are scattered back (dp_gather / dp_scatter in SGLang's
// python/sglang/srt/layers/dp_attention.py at 00161092).
const srcDPAttention = "https://github.com/sgl-project/sglang/blob/00161092eb7c5cd13b74ae3a9ff1800a6e63ec80/python/sglang/srt/layers/dp_attention.py"

// speedOfDPAttention predicts decode and prefill for a deployment whose
// layout is data-parallel attention: the memory accounting of deploy's
// OnGPU (weights, and the cache one rank holds per sequence), the step of
// dpaWork.
func (c *calc) speedOfDPAttention(cfg string, acc *catalog.Accelerator, l deploy.Layout, w weights) {
	if !l.DPAttention || l.DP <= 1 || l.PP > 1 {
		return
	}
	primary, _, _ := c.kvDTypes()
	g, err := memory{c, w}.OnGPU(acc, l, primary)
	if err != nil || g.Usable() <= 0 {
		return
	}
	cache, missing := c.cacheOn(placement{n: 1, tp: 1, pp: 1}, primary)
	if missing != "" {
		return
	}
	ctx, _ := c.servingContext()
	conc := int64(0)
	if per := cache.at(ctx); per > 0 {
		conc = g.Usable() / per * l.DP
	}
	c.speed(speedIn{cfg: cfg, acc: acc, p: placement{n: l.GPUs, tp: 1, pp: 1}, weightsGPU: g.Weights, cache: cache, maxConc: conc, dp: l.DP, ep: max(l.EP, 1)})
}

// dpaWork is one decode step of b sequences on the busiest rank of a
// data-parallel attention layout: ⌈b ÷ DP⌉ sequences run attention there
// over the weights outside the routed experts (whole on every rank) and
// their own caches (every KV head); the experts on the rank (1/EP of them)
// run on all b tokens, reading the share of the distinct experts the batch
// hits that falls on it (uniform routing: no rank busier than another).
func (c *calc) dpaWork(in speedIn, b int64, denseGPU, expertGPU, denseActive, expertActive, attnFLOPs float64, ctx int64) stepWork {
	a := c.in.Arch
	ep := float64(max(in.ep, 1))
	seqs := float64(ceilDiv(b, in.dp))
	bb := float64(b)
	frac := 1.0
	if expertGPU > 0 && a.RoutedExperts > 0 {
		frac = DistinctExperts(float64(a.RoutedExperts), float64(a.ActiveExperts), bb) / float64(a.RoutedExperts)
	}
	moe := float64(len(a.MoELayers))
	return stepWork{
		groups: []opGroup{
			{name: "dense weights and head", bytes: denseGPU, flops: 2 * denseActive * seqs},
			{name: "routed experts", bytes: expertGPU * frac, flops: 2 * expertActive * bb / ep},
			{name: "attention", bytes: seqs * float64(in.cache.at(ctx)), flops: seqs * attnFLOPs},
		},
		layers: float64(a.Layers),
		stages: 1,
		// a gather and a scatter per MoE layer
		collectives: 2 * moe,
		commBytes:   c.dpaCommBytes(in, b),
		// the fit's rule: tokens beyond the first on the rank, at the 16-bit peak
		extraFLOPs: (seqs-1)*2*denseActive + (bb-1)*2*expertActive/ep,
	}
}

// dpaCommBytes is what one step's gathers and scatters move per GPU: per
// MoE layer an all-gather of the batch's hidden states before the experts
// and a reduce-scatter after, (DP−1)/DP of the batch's bytes each.
func (c *calc) dpaCommBytes(in speedIn, b int64) float64 {
	a := c.in.Arch
	if in.dp <= 1 || in.acc.Interconnect == nil || a.Hidden == 0 {
		return 0
	}
	hidden := float64(b) * float64(a.Hidden) * 2 // BF16 activations
	return float64(len(a.MoELayers)) * 2 * hidden * float64(in.dp-1) / float64(in.dp)
}

func (c *calc) dpaCommHow(in speedIn) string {
	if in.acc.Interconnect == nil {
		return "the catalog gives no interconnect bandwidth: communication left out"
	}
	return fmt.Sprintf("data-parallel attention, batch 1: %d MoE layers × (an all-gather of the batch's hidden states before the experts + a reduce-scatter after) × hidden %d × 2 B × (DP−1)/DP, DP %d (%s) ÷ (%s × %.2f); the bandwidth term only, each collective's latency is in fixed_seconds_per_step",
		len(c.in.Arch.MoELayers), c.in.Arch.Hidden, in.dp, srcDPAttention, rate(in.acc.Interconnect.Value, "B/s"), c.in.Sizing.Speed.InterconnectEfficiency)
}

// dpaExpertsText says how a data-parallel attention step reads the
// routed experts and the caches.
func dpaExpertsText(routed, perToken int64, in speedIn) string {
	return fmt.Sprintf("data-parallel attention over %d ranks (%s): each rank runs attention whole on ⌈B ÷ %d⌉ of the B sequences, with every KV head of their caches and the weights outside the routed experts whole; the %d routed experts split whole over EP %d ranks run on all B tokens gathered from every rank (%d per token, distinct experts for B tokens = E·(1 − (1 − k/E)^B) under uniform routing, read in equal shares: no rank is assumed busier than another, so a skewed router makes the real busiest rank slower)",
		in.dp, srcDPAttention, in.dp, routed, in.ep, perToken)
}
