package sizing

import (
	"fmt"
	"math"

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
	// Disk-bound: a streamed token waits for its bytes, and the GPU work is
	// small beside that.
	if disk := c.in.Sizing.Speed.DiskBytesPerSecond; disk > 0 {
		src := "site:hugo-like.yaml sizing.speed.diskBytesPerSecond"
		if d := c.in.Sizing.Speed.DiskSource; d != "" {
			src += " (" + d + ")"
		}
		secs := float64(read) / disk
		c.add("stream.seconds_per_token", secs, facts.UnitSeconds,
			fmt.Sprintf("stream.bytes_read_per_token %s ÷ %s MB/s disk read: disk-bound, GPU time and CPU-side expansion left out", facts.GB(float64(read)), facts.Fixed(disk/1e6, 0)),
			"stream.bytes_read_per_token", src)
	}
}

// Bytes per parameter the training rules assume (stated on the page):
// mixed-precision Adam keeps BF16 weights and gradients plus FP32 master
// weights, first and second moments.
const fullFTBytesPerParam = 2 + 2 + 4 + 4 + 4

// nf4DoubleQuantBits is what QLoRA stores per quantized value: a 4-bit NF4
// code, an 8-bit absmax per block of 64 values, and an FP32 constant per
// 256 of those absmaxes (double quantization, arXiv 2305.14314 §3):
// 4 + 8/64 + 32/(64·256) ≈ 4.127 bits.
const nf4DoubleQuantBits = 4 + 8.0/64 + 32.0/(64*256)

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
	c.qlora(total, src)
}

// qlora is the frozen base of a QLoRA fine-tune: every Linear weight as NF4
// with double quantization; the input embedding and the output head, which
// bitsandbytes leaves alone (they are not Linear layers it converts, and
// transformers skips lm_head), stay at BF16. Norms and biases, a few
// million parameters, are counted with the Linear weights.
func (c *calc) qlora(total int64, src []string) {
	a := c.in.Arch
	if a == nil || a.Vocab <= 0 || a.Hidden <= 0 {
		c.s.Unknown("train.qlora_frozen_bytes", facts.UnitBytes, "config lacks vocab_size or hidden_size, so the BF16 embedding and head cannot be set apart")
		return
	}
	kept, tables := a.Vocab*a.Hidden*2, "embedding and output head"
	if a.TiedEmbed {
		kept, tables = a.Vocab*a.Hidden, "tied embedding"
	}
	if kept >= total {
		c.s.Unknown("train.qlora_frozen_bytes", facts.UnitBytes, "the embedding tables are as large as the whole census: the parameter count is not the model's")
		return
	}
	frozen := float64(total-kept)*nf4DoubleQuantBits/8 + float64(kept)*2
	c.add("train.qlora_frozen_bytes", int64(math.Round(frozen)), facts.UnitBytes,
		fmt.Sprintf("QLoRA: %s parameters at NF4 with double quantization (%.3f bits each: 4-bit codes, an 8-bit absmax per 64, an FP32 constant per 256 absmaxes) + the %s (%s parameters) at BF16; adapters, their optimizer states and activations come on top",
			facts.Int(total-kept), nf4DoubleQuantBits, tables, facts.Int(kept)), append(src, srcConfig)...)
}
