package arch

import (
	"fmt"
	"strings"
)

// layerTypes maps the per-layer type names configs use to a kind.
// transformers' layer_types (Qwen3-Next, Gemma 3, GLM-5, LFM2,
// GraniteMoeHybrid), layers_block_type (Jamba, Bamba, Zamba) and the like.
var layerTypes = map[string]LayerKind{
	"full_attention": Full, "attention": Full, "global_attention": Full,
	// DeepSeek sparse attention (GLM-5, DeepSeek-V3.2): MLA whose indexer
	// picks the keys; the whole cache is kept.
	"deepseek_sparse_attention": Full,
	"sliding_attention":         Sliding, "chunked_attention": Sliding, "local_attention": Sliding,
	"linear_attention": Linear, "deltanet": Linear,
	"mamba": SSM, "mamba2": SSM,
	"conv": Conv, "short_conv": Conv,
	// Nemotron-H's layers_block_type names the layers without a mixer.
	"mlp": FFN, "moe": FFN,
}

// patternKinds maps the letters of Nemotron-H's hybrid_override_pattern:
// M a Mamba-2 mixer, * attention, - an MLP, E a mixture-of-experts MLP.
var patternKinds = map[rune]LayerKind{'M': SSM, '*': Full, '-': FFN, 'E': FFN}

// listedLayout fills kinds from a per-layer field of config.json and
// returns the layout's source; "" when the config lists no layer kinds,
// "-" when it lists them but they cannot be sized (Missing says why) or
// are not valid (p.err says why).
func (p *parser) listedLayout(text obj, prefix string, kinds []LayerKind) string {
	a, n := p.a, len(kinds)
	bad := func(format string, args ...any) string {
		p.keep(fmt.Errorf(format, args...))
		return "-"
	}
	unknown := func(field, value string) string {
		a.Missing["layer_kinds"] = fmt.Sprintf("field %s%s: layer type %q is not one dossier can size (known: attention, sliding, linear attention, mamba, conv)", prefix, field, value)
		return "-"
	}
	for _, key := range []string{"layer_types", "layers_block_type"} {
		if !text.Has(key) {
			continue
		}
		types, err := text.Strs(prefix, key)
		if err != nil {
			p.keep(err)
			return "-"
		}
		if len(types) != n {
			return bad("field %s%s: %d entries for %d layers", prefix, key, len(types), n)
		}
		var moe []int
		ffn := false
		for i, t := range types {
			k, ok := layerTypes[strings.ToLower(t)]
			if !ok {
				return unknown(fmt.Sprintf("%s[%d]", key, i), t)
			}
			kinds[i] = k
			switch strings.ToLower(t) {
			case "moe":
				moe = append(moe, i)
				ffn = true
			case "mlp":
				ffn = true
			}
		}
		if ffn {
			// The list names which layers route: they are the MoE layers.
			p.patternMoE, p.patternMoESet = moe, true
		}
		return key
	}
	if text.Has("hybrid_override_pattern") {
		pat, err := text.Str(prefix, "hybrid_override_pattern")
		if err != nil {
			p.keep(err)
			return "-"
		}
		rs := []rune(pat)
		if len(rs) != n {
			return bad("field %shybrid_override_pattern: %d letters for %d layers", prefix, len(rs), n)
		}
		for i, r := range rs {
			k, ok := patternKinds[r]
			if !ok {
				return unknown(fmt.Sprintf("hybrid_override_pattern[%d]", i), string(r))
			}
			kinds[i] = k
			if r == 'E' {
				p.patternMoE = append(p.patternMoE, i)
			}
		}
		p.patternMoESet = true
		return "hybrid_override_pattern (M Mamba-2, * attention, - MLP, E MoE)"
	}
	// Lists of the attention layers (0-based); every other layer is a
	// state-space mixer (Bamba) or a short convolution (LFM2).
	for _, f := range []struct {
		key  string
		rest LayerKind
	}{{"attn_layer_indices", SSM}, {"full_attn_idxs", Conv}} {
		if !text.Has(f.key) {
			continue
		}
		idx, err := text.Ints(prefix, f.key)
		if err != nil {
			p.keep(err)
			return "-"
		}
		for i := range kinds {
			kinds[i] = f.rest
		}
		for _, l := range idx {
			if l >= int64(n) {
				return bad("field %s%s: layer %d outside 0..%d (the list is 0-based)", prefix, f.key, l, n-1)
			}
			kinds[l] = Full
		}
		return f.key + " (0-based attention layers; the others " + string(f.rest) + ")"
	}
	if text.IsList("hybrid_layer_pattern") {
		// MiMo-V2-Flash: 0 global attention, 1 sliding-window attention.
		flags, err := text.Ints(prefix, "hybrid_layer_pattern")
		if err != nil {
			p.keep(err)
			return "-"
		}
		if len(flags) != n {
			return bad("field %shybrid_layer_pattern: %d entries for %d layers", prefix, len(flags), n)
		}
		for i, f := range flags {
			switch f {
			case 0:
				kinds[i] = Full
			case 1:
				kinds[i] = Sliding
			default:
				return unknown(fmt.Sprintf("hybrid_layer_pattern[%d]", i), fmt.Sprint(f))
			}
		}
		p.swaShapes(text, prefix)
		return "hybrid_layer_pattern (0 global, 1 sliding-window attention)"
	}
	if text.Has("block_configs") {
		return p.blockConfigs(text, prefix, kinds)
	}
	// Jamba: attention on layer i when i % attn_layer_period ==
	// attn_layer_offset, Mamba on the others.
	if text.Has("attn_layer_period") {
		period, _, err := text.Positive(prefix, "attn_layer_period")
		p.keep(err)
		offset, _, err2 := text.Int(prefix, "attn_layer_offset")
		p.keep(err2)
		if err != nil || err2 != nil {
			return "-"
		}
		for i := range kinds {
			kinds[i] = SSM
			if int64(i)%period == offset {
				kinds[i] = Full
			}
		}
		return fmt.Sprintf("attn_layer_period %d, attn_layer_offset %d (attention where layer %% period = offset, Mamba elsewhere)", period, offset)
	}
	return ""
}

// ssm reads the state-space mixer's dimensions under the names Mamba-2
// (mamba2), Nemotron-H, Bamba, GraniteMoeHybrid, FalconH1 and Jamba use.
func (p *parser) ssm(text obj, prefix string) {
	a := p.a
	a.SSMStateSize = p.need(text, prefix, "ssm_state_size", "ssm_state_size", "mamba_d_state", "state_size")
	a.SSMHeads = p.int(text, prefix, "mamba_num_heads", "mamba_n_heads")
	a.SSMHeadDim = p.int(text, prefix, "mamba_head_dim", "mamba_d_head")
	if a.SSMHeads == 0 && a.Family == "mamba2" {
		// Mamba2Config names them num_heads / head_dim: no attention to clash with.
		a.SSMHeads = p.int(text, prefix, "num_heads")
		a.SSMHeadDim = p.int(text, prefix, "head_dim")
	}
	a.SSMGroups = p.int(text, prefix, "n_groups", "mamba_n_groups", "mamba_num_groups")
	if a.SSMGroups == 0 {
		a.SSMGroups = 1
	}
	a.SSMConvKernel = p.need(text, prefix, "conv_kernel", "conv_kernel", "mamba_d_conv", "mamba_conv_kernel")
	expand := p.int(text, prefix, "mamba_expand", "expand")
	switch {
	case a.SSMHeads > 0 && a.SSMHeadDim > 0:
		a.SSMInner, a.SSMInnerSrc = a.SSMHeads*a.SSMHeadDim, "mamba_num_heads × mamba_head_dim"
	case expand > 0 && a.Hidden > 0:
		a.SSMInner, a.SSMInnerSrc = expand*a.Hidden, "expand × hidden_size"
	default:
		a.Missing["ssm_inner"] = "config lacks mamba_num_heads × mamba_head_dim and expand"
	}
	dt, err := text.Str(prefix, "mamba_ssm_cache_dtype")
	p.keep(err)
	a.SSMStateDType = dt
}

// blockConfigs reads nemotron-nas (DeciLM) per-layer blocks: a layer whose
// attention is a no-op (or a plain linear map) keeps no cache; the others
// are GQA with num_attention_heads / n_heads_in_group KV heads.
func (p *parser) blockConfigs(text obj, prefix string, kinds []LayerKind) string {
	a := p.a
	blocks, err := text.Objects(prefix, "block_configs")
	if err != nil {
		p.keep(err)
		return "-"
	}
	if len(blocks) != len(kinds) {
		p.keep(fmt.Errorf("field %sblock_configs: %d blocks for %d layers", prefix, len(blocks), len(kinds)))
		return "-"
	}
	var kv int64
	kvSame := true
	for i, b := range blocks {
		bp := fmt.Sprintf("%sblock_configs[%d].", prefix, i)
		att, err := b.Sub(bp, "attention")
		if err != nil || att == nil {
			p.keep(err)
			if err == nil {
				p.keep(fmt.Errorf("field %sattention: missing", bp))
			}
			return "-"
		}
		ap := bp + "attention."
		noop, err := att.Bool(ap, "no_op")
		p.keep(err)
		linear, err := att.Bool(ap, "replace_with_linear")
		p.keep(err)
		if noop || linear {
			kinds[i] = FFN
			continue
		}
		group, _, err := att.Positive(ap, "n_heads_in_group")
		p.keep(err)
		if err != nil {
			return "-"
		}
		if group == 0 || a.Heads == 0 || a.Heads%group != 0 {
			a.Missing["num_key_value_heads"] = fmt.Sprintf("field %sn_heads_in_group: %d does not divide the %d attention heads", ap, group, a.Heads)
			kvSame = false
			continue
		}
		if kv != 0 && kv != a.Heads/group {
			kvSame = false
		}
		kv = a.Heads / group
	}
	switch {
	case kvSame && kv > 0:
		a.KVHeads = kv
		delete(a.Missing, "num_key_value_heads")
	case !kvSame && a.Missing["num_key_value_heads"] == "":
		a.KVHeads = 0
		a.Missing["num_key_value_heads"] = "block_configs give the attention layers different KV head counts: not supported"
	}
	return "block_configs (per-layer blocks; a no-op or linear attention keeps no cache)"
}

// swaShapes reads the sliding layers' own attention shape (MiMo's swa_
// keys: transformers' MiMoV2 attention builds its sliding layers from
// them, each defaulting to the global layers' value).
func (p *parser) swaShapes(text obj, prefix string) {
	a := p.a
	kv := p.int(text, prefix, "swa_num_key_value_heads")
	hd := p.int(text, prefix, "swa_head_dim")
	vd := p.int(text, prefix, "swa_v_head_dim")
	def := a.KVShapeOf(Sliding)
	sl := def
	if kv > 0 {
		sl.Heads = kv
	}
	if hd > 0 {
		sl.KDim = hd
	}
	if vd > 0 {
		sl.VDim = vd
	}
	if sl != def {
		sl.Src = fmt.Sprintf("%sswa_num_key_value_heads, %sswa_head_dim, %sswa_v_head_dim", prefix, prefix, prefix)
		if a.KindKV == nil {
			a.KindKV = map[LayerKind]KVShape{}
		}
		a.KindKV[Sliding] = sl
	}
}
