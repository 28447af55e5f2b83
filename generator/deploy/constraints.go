package deploy

import (
	"fmt"
	"slices"
	"strings"

	"dossier/generator/arch"
)

// check lists the engine constraints layout l of engine e breaks for the
// model. The rules and the code they come from are listed in
// testdata/SOURCES.md.
func check(in Input, e Engine, l Layout) []Violation {
	var out []Violation
	bad := func(constraint, format string, args ...any) {
		out = append(out, Violation{constraint, fmt.Sprintf(format, args...)})
	}
	acc, a := in.Acc, in.Arch
	if v, ok := supportViolation(in, e); ok {
		out = append(out, v)
	}
	if v, ok := gpuViolation(in, e); ok {
		out = append(out, v)
	}
	if e == MLX || e == LlamaCpp {
		if l.PP > a.Layers && a.Layers > 0 {
			bad("layers ÷ devices", "%d layers cannot be split across %d devices", a.Layers, l.PP)
		}
		return out
	}
	h := acc.Host
	if h == nil {
		return out // layoutsFor named the missing host
	}
	domain := int64(h.Domain())
	if !l.DPAttention && l.TP > domain {
		bad("TP within one scale-up domain", "TP %d spans more than the %d GPUs one %s domain joins (%s); across it use PP, DP or EP", l.TP, domain, acc.ID, domainKind(acc.InterconnectKind, h.ScaleUp))
	}
	if l.GPUs > domain && !h.HasFabric() {
		bad("scale-out fabric", "%d GPUs span %d hosts but %s is sold with no scale-out fabric (hardware.yaml host.fabric: %s)", l.GPUs, l.Hosts, acc.ID, h.Fabric)
	}
	if l.DPAttention && !slices.Contains(dpAttentionFamilies, a.Family) {
		bad("engine support", "SGLang's --enable-dp-attention supports the DeepSeek-V2/V3 and Qwen 2/3 MoE families, not %s", a.Family)
	}
	ta := l.AttentionTP()
	if a.Heads > 0 && a.Heads%ta != 0 {
		bad("attention heads ÷ TP", "num_attention_heads %d is not divisible by TP %d (vLLM: \"Total number of attention heads (%d) must be divisible by tensor parallel size (%d)\")", a.Heads, ta, a.Heads, ta)
	}
	if a.Attention == arch.GQA && a.KVHeads > 0 {
		switch {
		case ta >= a.KVHeads && ta%a.KVHeads != 0:
			bad("KV heads ÷ TP", "TP %d is not a multiple of the %d KV heads, which are replicated when fewer than the ranks", ta, a.KVHeads)
		case ta < a.KVHeads && a.KVHeads%ta != 0:
			bad("KV heads ÷ TP", "num_key_value_heads %d is not divisible by TP %d", a.KVHeads, ta)
		}
	}
	for _, lh := range []struct {
		name string
		n    int64
	}{{"linear-attention key heads", a.LinearKHeads}, {"linear-attention value heads", a.LinearVHeads}} {
		if lh.n > 0 && lh.n%ta != 0 {
			bad("linear-attention heads ÷ TP", "%s %d are not divisible by TP %d", lh.name, lh.n, ta)
		}
	}
	if a.Layers > 0 && l.PP > a.Layers {
		bad("layers ÷ PP", "%d layers cannot fill %d pipeline stages", a.Layers, l.PP)
	}
	if l.EP > 1 {
		switch {
		case a.RoutedExperts == 0:
			bad("experts ÷ EP", "the model has no routed experts to split over EP %d", l.EP)
		case a.RoutedExperts%l.EP != 0:
			bad("experts ÷ EP", "%d routed experts are not divisible by EP %d", a.RoutedExperts, l.EP)
		}
	}
	for _, d := range sharded(a, l) {
		if d.tp <= 1 {
			continue
		}
		if d.size%d.tp != 0 {
			bad("sharded dimension ÷ TP", "%s %d is not divisible by TP %d", d.name, d.size, d.tp)
			continue
		}
		part := d.size / d.tp
		q := a.Quant
		if len(q.BlockSize) == 2 && !ignored(q, d.module) {
			block := q.BlockSize[0]
			if d.rowParallel {
				block = q.BlockSize[1]
			}
			if block > 0 && part%block != 0 {
				bad("quantization block ÷ sharded dimension", "%s %d ÷ TP %d = %d is not a multiple of the %s block %d (weight_block_size %v)", d.name, d.size, d.tp, part, strings.ToUpper(methodName(q)), block, q.BlockSize)
			}
		}
		if q.Type == "int" && q.GroupSize > 0 && d.rowParallel && !ignored(q, d.module) && part%q.GroupSize != 0 {
			bad("quantization group ÷ sharded dimension", "%s %d ÷ TP %d = %d is not a multiple of group_size %d", d.name, d.size, d.tp, part, q.GroupSize)
		}
	}
	return out
}

// dpAttentionFamilies are the model types SGLang documents data-parallel
// attention for ("Currently DeepSeek-V2 and Qwen 2/3 MoE models are
// supported", server_arguments.md, see testdata/flags/sglang.txt).
var dpAttentionFamilies = []string{"deepseek_v2", "deepseek_v3", "qwen2_moe", "qwen3_moe"}

// dim is one weight dimension tensor parallelism splits.
type dim struct {
	name        string
	module      string // what quantization ignore lists name it by
	size, tp    int64
	rowParallel bool // the input dimension of a row-parallel matrix (o_proj, down_proj)
}

// sharded lists the dimensions layout l splits: attention projections
// over the attention TP, dense MLPs and shared experts over TP, routed
// experts over TP unless they sit whole on EP ranks.
func sharded(a *arch.Architecture, l Layout) []dim {
	var out []dim
	ta := l.AttentionTP()
	switch a.Attention {
	case arch.GQA:
		if a.Heads > 0 && a.HeadDim > 0 {
			w := a.Heads * a.HeadDim
			out = append(out, dim{"query width (heads × head_dim)", "self_attn", w, ta, false}, dim{"o_proj input (heads × head_dim)", "self_attn", w, ta, true})
		}
	case arch.MLA:
		if a.Heads > 0 && a.VHeadDim > 0 {
			out = append(out, dim{"o_proj input (heads × v_head_dim)", "self_attn", a.Heads * a.VHeadDim, ta, true})
		}
	}
	dense := a.Intermediate > 0 && (!a.IsMoE() || int64(len(a.MoELayers)) < a.Layers)
	if dense && !l.DPAttention {
		out = append(out, dim{"intermediate_size", "mlp.", a.Intermediate, l.TP, false}, dim{"intermediate_size (down_proj input)", "mlp.", a.Intermediate, l.TP, true})
	}
	if a.IsMoE() && a.MoEIntermediate > 0 {
		if et := l.ExpertTP(); et > 1 {
			out = append(out, dim{"moe_intermediate_size", "experts", a.MoEIntermediate, et, false}, dim{"moe_intermediate_size (down_proj input)", "experts", a.MoEIntermediate, et, true})
		}
		shared := a.SharedIntermediate
		if shared == 0 {
			shared = a.SharedExperts * a.MoEIntermediate
		}
		if shared > 0 && !l.DPAttention && l.TP > 1 {
			out = append(out, dim{"shared-expert intermediate width", "shared_expert", shared, l.TP, false})
		}
	}
	return out
}

// ignored reports whether the quantization leaves module unquantized (an
// ignore or modules_to_not_convert entry naming it; a router ".gate" entry
// names the router, not the MLP).
func ignored(q arch.Quantization, module string) bool {
	for _, ig := range q.Ignore {
		if strings.Contains(ig, module) && !strings.HasSuffix(ig, ".gate") {
			return true
		}
	}
	return false
}

func methodName(q arch.Quantization) string {
	if q.Format != "" {
		return q.Format
	}
	if q.Method != "" {
		return q.Method
	}
	return "quantization"
}

func domainKind(kind string, scaleUp int) string {
	if scaleUp > 0 {
		return kind
	}
	return "PCIe only: one host"
}

// notes are what a reader needs beside a layout the engines accept.
func notes(in Input, e Engine, l Layout) []string {
	var out []string
	a, h := in.Arch, in.Acc.Host
	switch e {
	case LlamaCpp:
		out = append(out, "llama.cpp reads GGUF: convert the checkpoint (convert_hf_to_gguf.py) or use a published GGUF of it")
		if l.PP > 1 {
			out = append(out, fmt.Sprintf("layers split across the %d cards (--split-mode layer): one card computes at a time", l.PP))
		}
		if a.LinearKind != "" {
			out = append(out, "llama.cpp support for "+a.LinearKind+" linear attention not checked here")
		}
		return out
	case MLX:
		out = append(out, "MLX runs its own conversion (mlx_lm.convert) or a published MLX build")
		return out
	}
	if h == nil {
		return out
	}
	if n := unlistedNote(in, e); n != "" {
		out = append(out, n)
	}
	if ta := l.AttentionTP(); a.Attention == arch.GQA && a.KVHeads > 0 && ta > a.KVHeads {
		out = append(out, fmt.Sprintf("%d KV heads on %d ranks: each KV head replicated on %d ranks", a.KVHeads, ta, ta/a.KVHeads))
	}
	if h.ScaleUp == 0 && l.TP > 2 && !l.DPAttention {
		out = append(out, fmt.Sprintf("more than two PCIe-only GPUs: vLLM turns its custom all-reduce off (NCCL instead) for TP %d", l.TP))
	}
	if l.PP > 1 && a.Layers > 0 && a.Layers%l.PP != 0 {
		out = append(out, fmt.Sprintf("%d layers over %d stages: the stages hold unequal layer counts", a.Layers, l.PP))
	}
	if int64(h.Domain()) < l.GPUs {
		out = append(out, fmt.Sprintf("%d hosts over %s", l.Hosts, h.Fabric))
		switch e {
		case VLLM:
			out = append(out, "start a Ray cluster across the hosts first; vllm serve runs on its head node")
		case SGLang:
			out = append(out, "run the command on every host, adding --node-rank (0 to hosts − 1) and --dist-init-addr (the first host's address and a port)")
		}
	}
	if a.LinearKind != "" {
		out = append(out, "hybrid linear attention ("+a.LinearKind+"): needs an engine release that supports it")
	}
	return out
}
