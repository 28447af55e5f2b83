package deploy

import (
	"fmt"
	"slices"
)

// layoutsFor lists, in order of preference, the layouts the engines of
// the accelerator's class could launch on in.GPUs of it:
//
//   - Apple machines: MLX on one machine; CPU hosts: llama.cpp on one host.
//   - consumer cards: llama.cpp, layers split across the cards of one host.
//   - workstation and datacenter GPUs: vLLM (and SGLang for data-parallel
//     attention with expert parallelism): pure tensor parallelism, then
//     tensor with expert parallelism, then data-parallel attention with
//     expert parallelism, then replicas (TP × DP, largest TP first), then
//     pipeline stages (TP × PP, largest TP first).
//
// Replicas come before pipeline stages: when one replica holds the model,
// two serve twice the sequences at the speed of one.
func layoutsFor(in Input) []Candidate {
	acc, n := in.Acc, in.GPUs
	base := Layout{Accelerator: acc.ID, GPUs: n, TP: 1, PP: 1, DP: 1}
	h := acc.Host
	if h == nil {
		return []Candidate{{Engine: engineOf(acc.Class), Layout: base, Violations: []Violation{{"host", "data/hardware.yaml states no host (GPUs per host, scale-up domain, fabric) for " + acc.ID}}}}
	}
	hosts := (n + int64(h.GPUs) - 1) / int64(h.GPUs)
	base.Hosts = hosts
	switch acc.Class {
	case "unified", "cpu":
		c := Candidate{Engine: engineOf(acc.Class), Layout: base}
		if n > 1 {
			tool := "exo or llama.cpp RPC"
			if acc.Class == "cpu" {
				tool = "llama.cpp RPC"
			}
			c.Layout.PP = n
			c.Experimental = fmt.Sprintf("%d %s hosts joined over the network: experimental (%s), never chosen", n, acc.ID, tool)
		}
		return []Candidate{c}
	case "consumer":
		c := Candidate{Engine: LlamaCpp, Layout: base}
		c.Layout.PP = n // llama.cpp's default --split-mode layer
		if hosts > 1 {
			c.Experimental = fmt.Sprintf("%d consumer cards need %d hosts and consumer cards have no scale-out fabric: experimental (llama.cpp RPC), never chosen", n, hosts)
		}
		return []Candidate{c}
	}
	var out []Candidate
	add := func(e Engine, l Layout) { out = append(out, Candidate{Engine: e, Layout: l}) }
	moe := in.Arch.IsMoE()
	pure := base
	pure.TP = n
	add(VLLM, pure)
	if moe {
		ep := pure
		ep.EP = n
		add(VLLM, ep)
		dpa := base
		dpa.TP, dpa.DP, dpa.EP, dpa.DPAttention = n, n, n, true
		add(SGLang, dpa)
	}
	sizes := slices.Clone(in.TPSizes)
	slices.Sort(sizes)
	slices.Reverse(sizes)
	for _, t := range sizes {
		if t >= n || n%t != 0 {
			continue
		}
		l := base
		l.TP, l.DP = t, n/t
		add(VLLM, l)
	}
	for _, t := range sizes {
		if t >= n || n%t != 0 {
			continue
		}
		l := base
		l.TP, l.PP = t, n/t
		add(VLLM, l)
	}
	return out
}

func engineOf(class string) Engine {
	switch class {
	case "unified":
		return MLX
	case "cpu", "consumer":
		return LlamaCpp
	}
	return VLLM
}
