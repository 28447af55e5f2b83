package modeltree

import (
	"fmt"

	"dossier/generator/internal/hfconfig"
)

// FromConfig enumerates the tensors of the checkpoint described by a
// config.json and, for NVIDIA ModelOpt exports whose config.json carries no
// quantization_config, its hf_quant_config.json (nil when absent).
//
// An unknown model_type yields an error wrapping ErrUnsupportedFamily; a
// malformed config or a missing required field an error naming the field.
func FromConfig(config, hfQuantConfig []byte) (*Inventory, error) {
	m, err := hfconfig.Decode(config, "config.json")
	if err != nil {
		return nil, err
	}
	top := newReader(m, "")
	mt := top.str("model_type")
	if err := top.Err(); err != nil {
		return nil, err
	}
	if mt == "" {
		return nil, fmt.Errorf("config: missing required field model_type")
	}
	fam, ok := Lookup(mt)
	if !ok || fam.Build == nil {
		return nil, fmt.Errorf("%w %q", ErrUnsupportedFamily, mt)
	}
	inv, err := fam.Build(mt, top, hfQuantConfig)
	if err != nil {
		return nil, err
	}
	if inv.ExpertsPerToken > inv.RoutedExperts {
		return nil, fmt.Errorf("%s: %d experts per token exceed the %d routed experts", mt, inv.ExpertsPerToken, inv.RoutedExperts)
	}
	return inv, nil
}

// finish wraps up a built inventory.
func finish(b *builder, fam string, moe moeInfo, convention string) *Inventory {
	inv := &Inventory{Family: fam, Groups: b.gs, Linears: b.linears, Convention: convention}
	if b.q != nil {
		inv.Quantization = b.q.label
	}
	if moe.experts > 0 {
		inv.RoutedExperts, inv.ExpertsPerToken = int(moe.experts), int(moe.perToken)
	}
	return inv
}

func missing(r *reader, key string) error {
	if err := r.Err(); err != nil {
		return err
	}
	return fmt.Errorf("config: missing required field %s", r.field(key))
}

// checkWork refuses configs whose tensor list would be absurdly long before
// any loop runs (a fuzzed num_experts of 10^9 must not spin).
func checkWork(layers, experts int64) error {
	if layers > 4096 {
		return fmt.Errorf("%d layers: implausible", layers)
	}
	if (layers+1)*(experts+1) > 1<<21 {
		return fmt.Errorf("%d layers × %d experts: too many tensors to enumerate", layers, experts)
	}
	return nil
}

// capHint estimates the group count so the slice is allocated once: a few
// dozen groups per layer, experts included (they are groups of E).
func capHint(t *reader) int {
	peek := func(key string) int64 {
		if v, _, err := t.o.Int("", key); err == nil {
			return v
		}
		return 0
	}
	layers := peek("num_hidden_layers") + peek("num_nextn_predict_layers")
	return int(min(layers*64+1024, 1<<16))
}
