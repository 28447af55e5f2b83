package localrun

import (
	"fmt"
	"slices"
	"strings"

	"dossier/generator/facts"
	"dossier/generator/gguf"
)

// Fields of the facts AddQuantFacts, AddPublishedFacts and AddPlanFacts
// add under gguf.<QUANT>. and local.<QUANT>.<MACHINE>. (census.<TYPE>
// apart).
var (
	QuantFields = []string{"bytes", "tensor_bytes", "params", "bits_per_weight", "kv_bytes_per_token", "state_bytes_per_sequence",
		"expert_bytes", "expert_share", "published_bytes", "published_agrees"}
	PlanFields = []string{"fits", "memory_headroom", "n_gpu_layers", "n_cpu_moe", "max_context", "max_context_q8_0", "max_context_q4_0",
		"decode_tokens_per_second", "prompt_tokens_per_second", "command", "override_tensor", "wired_limit_mb"}
	bestFields = []string{"smallest_vram", "best_offload", "smallest_mmap"}
)

// Ref is what a gguf.* or local.* fact key names: a quant, a machine, or
// both, and the field.
type Ref struct {
	Key, Quant, Machine, Field string
}

// ParseRef reads a key a claim may check. ok is false for a key outside
// gguf. and local.; err names what is wrong with one inside them that no
// plan would ever add (a typo must not pass for a quant not yet synced).
func ParseRef(key string) (r Ref, ok bool, err error) {
	r.Key = key
	parts := strings.Split(key, ".")
	switch parts[0] {
	case "gguf":
		switch {
		case len(parts) == 3 && slices.Contains(QuantFields, parts[2]):
			r.Quant, r.Field = parts[1], parts[2]
		case len(parts) == 4 && parts[2] == "census":
			if _, known := gguf.TypeByName(parts[3]); !known {
				return r, true, fmt.Errorf("fact %s: %q is not a ggml type", key, parts[3])
			}
			r.Quant, r.Field = parts[1], "census."+parts[3]
		default:
			return r, true, fmt.Errorf("fact %s: expected gguf.QUANT.FIELD with FIELD one of %s or census.TYPE", key, strings.Join(QuantFields, ", "))
		}
	case "local":
		switch {
		case len(parts) == 2 && parts[1] == "repository":
			r.Field = "repository"
		case len(parts) == 3 && slices.Contains(bestFields, parts[1]):
			r.Field, r.Machine = parts[1], parts[2]
		case len(parts) == 4 && slices.Contains(PlanFields, parts[3]):
			r.Quant, r.Machine, r.Field = parts[1], parts[2], parts[3]
		default:
			return r, true, fmt.Errorf("fact %s: expected local.QUANT.MACHINE.FIELD with FIELD one of %s", key, strings.Join(PlanFields, ", "))
		}
	default:
		return r, false, nil
	}
	if (r.Quant == "" && r.Field != "repository" && r.Machine == "") || strings.TrimSpace(r.Quant) != r.Quant || strings.TrimSpace(r.Machine) != r.Machine {
		return r, true, fmt.Errorf("fact %s: empty or padded quant or machine", key)
	}
	return r, true, nil
}

// Unit is the unit of the fact the key names.
func (r Ref) Unit() string {
	switch {
	case strings.HasPrefix(r.Field, "census."), r.Field == "params":
		return facts.UnitParams
	case strings.HasPrefix(r.Field, "max_context"):
		return facts.UnitTokens
	}
	switch r.Field {
	case "bytes", "tensor_bytes", "kv_bytes_per_token", "state_bytes_per_sequence", "expert_bytes", "published_bytes", "memory_headroom":
		return facts.UnitBytes
	case "bits_per_weight":
		return facts.UnitBits
	case "expert_share":
		return facts.UnitShare
	case "published_agrees":
		return facts.UnitBool
	case "decode_tokens_per_second", "prompt_tokens_per_second":
		return facts.UnitTokensPerSec
	case "n_gpu_layers", "n_cpu_moe", "wired_limit_mb":
		return facts.UnitCount
	}
	return facts.UnitText
}
