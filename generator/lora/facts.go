package lora

import (
	"fmt"
	"sort"
	"strings"

	"dossier/generator/facts"
)

// Fact sources.
const (
	srcConfig = "config.json"
	// srcPEFT is the matching rule's source: PEFT's tuners_utils.py.
	srcPEFT = "github:huggingface/peft@005fdd53c63ed5a27177fd200295a00f93a57b55:src/peft/tuners/tuners_utils.py"
	// srcV5 says transformers v5 stopped keeping MoE experts as a
	// ModuleList of Linear layers.
	srcV5 = "github:huggingface/transformers@e416b2c7c64ec19e62335aa4ddb74fea6137c28c:MIGRATION_GUIDE_V5.md (PEFT + MoE)"
	// srcActivations is the activation rule's source.
	srcActivations = "arXiv:2205.05198"
)

// Frozen is the base-weight memory a run keeps frozen, from sizing
// (train.lora_frozen_bytes, train.qlora_frozen_bytes); nil when unknown.
type Frozen struct {
	LoRA, QLoRA *facts.Fact
}

// AddFacts writes the resolution (and, when m is not nil, the training
// memory) into s under lora.
func AddFacts(s *facts.Set, r *Resolution, adapterBytes int64, m *Memory, fz Frozen) {
	if adapterBytes <= 0 {
		adapterBytes = 4
	}
	entries := r.Targets.Entries()
	s.Add(facts.Fact{Key: "lora.targets", Value: strings.Join(entries, ","), Unit: facts.UnitText,
		Display: strings.Join(entries, ", "), Derivation: "target_modules as given"})
	s.Add(facts.Fact{Key: "lora.rank", Value: r.Rank, Unit: facts.UnitCount, Derivation: "the LoRA rank r as given"})
	var total int64
	for _, n := range r.Available {
		total += n
	}
	s.Add(facts.Fact{Key: "lora.modules_matched", Value: r.Modules, Unit: facts.UnitCount, Sources: []string{srcConfig, srcPEFT},
		Derivation: fmt.Sprintf("nn.Linear modules of the module tree (%s of them) whose name equals a target or ends with \".\"+target, or full-matches a re: target (PEFT check_target_module_exists)", facts.Int(total))})
	kinds := make([]string, 0, len(r.Available))
	for k := range r.Available {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		d := fmt.Sprintf("matched modules of kind %s, of the model's %s %s Linear modules (attention kinds from the layer layout)", k, facts.Int(r.Available[Kind(k)]), k)
		src := []string{srcConfig, srcPEFT}
		if Kind(k) == MoEExperts {
			// The tree is the checkpoint's: modelling code that fuses the
			// experts when it loads them leaves target_modules nothing to match.
			d += "; counted on the checkpoint's per-expert Linear modules, which a runtime that fuses experts on load (transformers v5 moved MoE models off nn.ModuleList experts) turns into parameters no target_modules entry reaches"
			src = append(src, srcV5)
		}
		s.Add(facts.Fact{Key: "lora.modules_matched." + k, Value: r.ByKind[Kind(k)], Unit: facts.UnitCount, Sources: src, Derivation: d})
	}
	var un, disp []string
	for _, u := range r.Unmatched {
		un = append(un, u.Target)
		d := u.Target
		if len(u.Closest) > 0 {
			d += " (closest: " + strings.Join(u.Closest, ", ") + ")"
		}
		disp = append(disp, d)
	}
	unDisplay := "none"
	if len(disp) > 0 {
		unDisplay = strings.Join(disp, "; ")
	}
	s.Add(facts.Fact{Key: "lora.targets_unmatched", Value: strings.Join(un, ","), Unit: facts.UnitText, Display: unDisplay,
		Sources: []string{srcConfig, srcPEFT}, Derivation: "targets that match no nn.Linear module, with the nearest Linear module names by edit distance"})
	var io int64
	for _, mt := range r.Matches {
		io += mt.Count * (mt.In + mt.Out)
	}
	s.Add(facts.Fact{Key: "lora.adapter_params", Value: r.AdapterParams, Unit: facts.UnitParams, Sources: []string{srcConfig},
		Derivation: fmt.Sprintf("r × Σ(in + out) over the %s matched modules = %d × %s (lora_A [r, in] + lora_B [out, r]); lora_alpha only scales the update and adds no parameter", facts.Int(r.Modules), r.Rank, facts.Int(io))})
	s.Add(facts.Fact{Key: "lora.adapter_bytes", Value: r.AdapterParams * adapterBytes, Unit: facts.UnitBytes, Sources: []string{srcConfig},
		Derivation: fmt.Sprintf("lora.adapter_params × %d B (FP32: PEFT's autocast_adapter_dtype, on by default, upcasts BF16/FP16 adapters)", adapterBytes)})
	if r.FusedExperts != "" {
		s.Add(facts.Fact{Key: "lora.fused_expert_params", Value: r.FusedExpertParams, Unit: facts.UnitParams, Sources: []string{srcConfig},
			Derivation: fmt.Sprintf("routed experts stored fused as 3-D parameters (e.g. %s): not nn.Linear, so no target_modules entry reaches them; PEFT's target_parameters adapts such parameters", r.FusedExperts)})
	}
	if m == nil {
		return
	}
	for _, t := range []Term{m.Adapter, m.Gradients, m.Optimizer} {
		s.Add(facts.Fact{Key: "lora.memory." + t.Key, Value: t.Bytes, Unit: facts.UnitBytes, Derivation: t.Derivation, Sources: []string{srcConfig}})
	}
	for _, t := range []Term{m.Activations, m.Checkpointed} {
		s.Add(facts.Fact{Key: "lora.memory." + t.Key, Value: t.Bytes, Unit: facts.UnitBytes, Derivation: t.Derivation, Sources: []string{srcConfig, srcActivations}})
	}
	total4 := func(key, what string, base *facts.Fact, baseKey string) {
		for _, ck := range []bool{false, true} {
			k := key
			if ck {
				k += "_checkpointed"
			}
			k += "_bytes"
			b, ok := base.Int()
			if !ok {
				reason := baseKey + " is unknown"
				if base != nil && base.Reason != "" {
					reason += ": " + base.Reason
				}
				s.Unknown(k, facts.UnitBytes, reason)
				continue
			}
			sum, names := b, []string{baseKey}
			for _, t := range m.Terms(ck) {
				sum += t.Bytes
				names = append(names, "lora.memory."+t.Key)
			}
			s.Add(facts.Fact{Key: k, Value: sum, Unit: facts.UnitBytes, Sources: []string{srcConfig},
				Derivation: what + ": " + strings.Join(names, " + ") + "; framework buffers, fragmentation and the CUDA context come on top"})
		}
	}
	total4("lora.memory.lora", "LoRA, base frozen as stored", fz.LoRA, "train.lora_frozen_bytes")
	total4("lora.memory.qlora", "QLoRA, base frozen at NF4", fz.QLoRA, "train.qlora_frozen_bytes")
}
