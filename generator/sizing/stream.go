package sizing

import (
	"fmt"

	"dossier/generator/facts"
)

// streaming derives what an offloading runtime (AirLLM-style, seed 002)
// moves when layers and only the routed experts a token needs stream from
// disk: the experts of one layer expanded to BF16, the share a token uses,
// and the stored bytes read per generated token. Measured figures, when a
// page has them, are printed beside these as measurements.
func (c *calc) streaming() {
	a, an := c.in.Arch, c.in.Analytic
	layers := int64(len(a.MoELayers))
	if !a.IsMoE() || a.ActiveExperts == 0 || layers == 0 || an == nil || an.Experts == 0 {
		return
	}
	perLayer := an.Experts / layers
	c.add("stream.experts_bf16_bytes_per_layer", perLayer*2, facts.UnitBytes,
		fmt.Sprintf("routed-expert parameters of one MoE layer (%s) expanded to BF16, 2 B each", facts.Int(perLayer)), srcAnalytic)
	c.add("stream.active_experts_bf16_bytes_per_layer", perLayer*a.ActiveExperts/a.RoutedExperts*2, facts.UnitBytes,
		fmt.Sprintf("the %d of %d routed experts a token uses in one layer, expanded to BF16", a.ActiveExperts, a.RoutedExperts), srcAnalytic)
	if p, ok := c.s.Get("params.quantized").Int(); ok && p > 0 {
		pay, ok1 := c.s.Get("bytes.payload").Int()
		sc, ok2 := c.s.Get("bytes.quant_scales").Int()
		if ok1 && ok2 && pay+sc > 0 {
			c.add("quant.params_per_byte", float64(p)/float64(pay+sc), facts.UnitCount,
				"quantized parameters ÷ (payload + scale bytes): how densely the quantized tensors pack", srcAnalytic).Display =
				facts.Fixed(float64(p)/float64(pay+sc), 2) + " parameters per byte"
		}
	}
	tb, tsrc, ok := c.tensorBytes()
	if !ok || an.ExpertBytes == 0 {
		return
	}
	idle := an.ExpertBytes / a.RoutedExperts * (a.RoutedExperts - a.ActiveExperts)
	read := tb - idle
	c.add("stream.bytes_read_per_token", read, facts.UnitBytes,
		fmt.Sprintf("tensor bytes − the stored bytes of the %d routed experts per layer a token skips: every other weight streams once per token", a.RoutedExperts-a.ActiveExperts), tsrc, srcAnalytic)
}

// Bytes per parameter the training rules assume (stated on the page):
// mixed-precision Adam keeps BF16 weights and gradients plus FP32 master
// weights, first and second moments.
const (
	fullFTBytesPerParam = 2 + 2 + 4 + 4 + 4
	qloraBitsPerParam   = 4
)

// training states the memory a fine-tune needs before activations, with the
// rule used: full fine-tuning at 16 bytes per parameter, LoRA with the
// weights frozen as stored, QLoRA with the weights at 4 bits (plus the
// adapters and activations, which depend on rank and batch and are left out).
func (c *calc) training() {
	total, ok := c.s.Get("params.total").Int()
	if !ok || total == 0 {
		return
	}
	src := c.s.Get("params.total").Sources
	c.add("train.full_bytes", total*fullFTBytesPerParam, facts.UnitBytes,
		"full fine-tune with mixed-precision Adam: 16 B per parameter (BF16 weights and gradients, FP32 master weights and two moments); activations excluded", src...)
	if tb, tsrc, ok := c.tensorBytes(); ok {
		c.add("train.lora_frozen_bytes", tb, facts.UnitBytes,
			"LoRA: the base weights frozen as stored (tensor bytes); adapters, their optimizer states and activations come on top", tsrc)
	}
	c.add("train.qlora_frozen_bytes", total*qloraBitsPerParam/8, facts.UnitBytes,
		"QLoRA: the base weights at 4 bits per parameter; adapters, their optimizer states and activations come on top", src...)
}
