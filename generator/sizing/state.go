package sizing

import (
	"fmt"
	"strings"

	"dossier/generator/arch"
	"dossier/generator/facts"
)

// stateFacts names the per-layer state fact of each state-holding kind.
var stateFacts = map[arch.LayerKind]string{
	arch.Linear: "state.bytes_per_sequence_per_layer",
	arch.SSM:    "state.bytes_per_sequence_per_ssm_layer",
	arch.Conv:   "state.bytes_per_sequence_per_conv_layer",
}

// stateKindName is how a derivation names the layers of a kind.
var stateKindName = map[arch.LayerKind]string{
	arch.Linear: "linear-attention", arch.SSM: "state-space (Mamba)", arch.Conv: "short-convolution",
}

// statePerLayerOf is the fixed state one layer of kind k holds per
// sequence on one of tp ranks, with its derivation, or the reason it is
// unknown.
func (c *calc) statePerLayerOf(k arch.LayerKind, tp int64) (int64, string, string) {
	switch k {
	case arch.Linear:
		return c.statePerLayerRank(tp)
	case arch.SSM:
		return c.ssmStatePerLayer(tp)
	case arch.Conv:
		return c.convStatePerLayer(tp)
	}
	return 0, "", fmt.Sprintf("layer kind %s holds no state", k)
}

// ssmStateBytes is the SSM state's width: the dtype config.json declares
// for it (mamba_ssm_cache_dtype, as vLLM serves it), else the site's.
func (c *calc) ssmStateBytes() (int64, string) {
	switch strings.TrimPrefix(c.in.Arch.SSMStateDType, "torch.") {
	case "float32":
		return 4, "mamba_ssm_cache_dtype float32"
	case "bfloat16", "float16":
		return 2, "mamba_ssm_cache_dtype " + c.in.Arch.SSMStateDType
	}
	return c.in.Sizing.StateDTypeBytes, "sizing.stateDtypeBytes"
}

// ssmStatePerLayer: a Mamba-2 mixer keeps, per sequence, its SSM state
// (heads × head_dim × ssm_state_size) and the conv state of its depthwise
// convolution over x, B and C ((conv_kernel − 1) × (inner + 2 · n_groups ·
// ssm_state_size)); a Mamba-1 mixer (no heads) keeps inner × ssm_state_size
// and (conv_kernel − 1) × inner. Heads and groups split across tp ranks,
// down to one per rank.
func (c *calc) ssmStatePerLayer(tp int64) (int64, string, string) {
	a := c.in.Arch
	if a.SSMStateSize == 0 || a.SSMInner == 0 || a.SSMConvKernel == 0 {
		return 0, "", reasonOr(a.Missing["ssm_state_size"], reasonOr(a.Missing["ssm_inner"], reasonOr(a.Missing["conv_kernel"], "config lacks the state-space mixer's dimensions")))
	}
	sb, sbWhy := c.ssmStateBytes()
	cb := c.in.Sizing.KVDTypeBytes
	N := a.SSMStateSize
	var rec, convCh int64
	var recHow string
	var ok bool
	if a.SSMHeads > 0 {
		heads := max(ceilDiv(a.SSMHeads, tp), 1)
		groups := max(ceilDiv(a.SSMGroups, tp), 1)
		inner := heads * a.SSMHeadDim
		if rec, ok = c.product("SSM state per layer", term{"SSM heads per rank", heads}, term{"mamba_head_dim", a.SSMHeadDim}, term{"ssm_state_size", N}, term{sbWhy, sb}); !ok {
			return 0, "", "overflow"
		}
		convCh = inner + 2*groups*N
		recHow = fmt.Sprintf("Mamba-2: %d heads × head_dim %d × ssm_state_size %d × %d B (%s) + conv (kernel %d − 1) × (%d inner + 2 × %d groups × %d) channels × %d B",
			heads, a.SSMHeadDim, N, sb, sbWhy, a.SSMConvKernel, inner, groups, N, cb)
	} else {
		inner := max(ceilDiv(a.SSMInner, tp), 1)
		if rec, ok = c.product("SSM state per layer", term{"inner channels per rank", inner}, term{"ssm_state_size", N}, term{sbWhy, sb}); !ok {
			return 0, "", "overflow"
		}
		convCh = inner
		recHow = fmt.Sprintf("Mamba: %d inner channels (%s) × ssm_state_size %d × %d B (%s) + conv (kernel %d − 1) × %d channels × %d B",
			inner, a.SSMInnerSrc, N, sb, sbWhy, a.SSMConvKernel, inner, cb)
	}
	conv, ok := c.product("SSM conv state per layer", term{"conv_kernel − 1", a.SSMConvKernel - 1}, term{"conv channels", convCh}, term{"sizing.kvDtypeBytes", cb})
	if !ok {
		return 0, "", "overflow"
	}
	if tp > 1 {
		recHow += fmt.Sprintf(" (heads split across TP %d)", tp)
	}
	return rec + conv, recHow, ""
}

// convStatePerLayer: an LFM2 short-convolution layer keeps the last
// conv_L_cache − 1 inputs of its hidden_size channels, split across ranks.
func (c *calc) convStatePerLayer(tp int64) (int64, string, string) {
	a := c.in.Arch
	if a.ConvCache == 0 || a.ConvChannels == 0 {
		return 0, "", reasonOr(a.Missing["conv_L_cache"], "config lacks conv_L_cache or hidden_size")
	}
	if a.ConvCache < 2 {
		return 0, fmt.Sprintf("conv_L_cache %d keeps no past input", a.ConvCache), ""
	}
	cb := c.in.Sizing.KVDTypeBytes
	ch := max(ceilDiv(a.ConvChannels, tp), 1)
	per, ok := c.product("short-convolution state per layer", term{"conv_L_cache − 1", a.ConvCache - 1}, term{"channels per rank", ch}, term{"sizing.kvDtypeBytes", cb})
	if !ok {
		return 0, "", "overflow"
	}
	how := fmt.Sprintf("short convolution: (conv_L_cache %d − 1) × %d hidden channels × %d B", a.ConvCache, ch, cb)
	if tp > 1 {
		how += fmt.Sprintf(" (channels split across TP %d)", tp)
	}
	return per, how, ""
}

// stateLayers is the state one sequence holds in the state-holding layers
// on one GPU of placement (tp, pp): per kind, layers ÷ pp × the per-layer
// state on one of tp ranks. perLayer reports each kind's per-layer state
// (nil to skip).
func (c *calc) stateLayers(tp, pp int64, perLayer func(k arch.LayerKind, per int64, how string)) (total int64, how string, why string) {
	a := c.in.Arch
	var parts []string
	for _, k := range arch.StateKinds {
		n := ceilDiv(int64(a.Count(k)), pp)
		if n == 0 {
			continue
		}
		per, kh, kwhy := c.statePerLayerOf(k, tp)
		if kwhy != "" {
			return 0, "", kwhy
		}
		if perLayer != nil {
			perLayer(k, per, kh)
		}
		t, ok := c.product("state per sequence", term{stateKindName[k] + " layers", n}, term{"bytes per layer", per})
		if !ok {
			return 0, "", "overflow"
		}
		if total, ok = c.sum("state per sequence", term{"state so far", total}, term{stateKindName[k] + " state", t}); !ok {
			return 0, "", "overflow"
		}
		parts = append(parts, fmt.Sprintf("%d %s layers × %s", n, stateKindName[k], facts.Int(per)))
	}
	return total, strings.Join(parts, " + "), ""
}
