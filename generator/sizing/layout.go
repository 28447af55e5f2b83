package sizing

import (
	"fmt"
	"strings"

	"dossier/generator/arch"
	"dossier/generator/facts"
)

func (c *calc) layout() {
	a := c.in.Arch
	c.archBasics()
	if a.Layers <= 0 {
		c.s.Unknown("arch.layers", facts.UnitCount, reasonOr(a.Missing["num_hidden_layers"], "config lacks num_hidden_layers"))
		return
	}
	c.add("arch.layers", a.Layers, facts.UnitCount, "num_hidden_layers", srcConfig)
	if len(a.LayerKinds) == 0 {
		// The layer count is known, what each layer does is not.
		why := reasonOr(a.Missing["layer_kinds"], "config.json does not say which layers attend")
		for _, k := range []string{"arch.layers_full_attention", "arch.layers_linear_attention", "arch.layers_sliding_attention", "arch.layers_state_space", "arch.layers_convolution", "arch.full_attention_cadence"} {
			c.s.Unknown(k, facts.UnitCount, why)
		}
		c.s.Unknown("arch.hybrid", facts.UnitBool, why)
		c.s.Unknown("arch.layer_kinds", facts.UnitText, why)
		c.s.Unknown("arch.linear_to_full_ratio", facts.UnitRatio, why)
		return
	}
	n := int64(len(a.LayerKinds))
	src := layoutSources(a)
	full, lin, sl := int64(a.Count(arch.Full)), int64(a.Count(arch.Linear)), int64(a.Count(arch.Sliding))
	c.add("arch.layers_full_attention", full, facts.UnitCount, a.LayoutSource, src...).Display =
		fmt.Sprintf("%d (%s)", full, facts.Percent(float64(full)/float64(n)))
	c.add("arch.layers_linear_attention", lin, facts.UnitCount, a.LayoutSource, src...).Display =
		fmt.Sprintf("%d (%s)", lin, facts.Percent(float64(lin)/float64(n)))
	c.add("arch.layers_sliding_attention", sl, facts.UnitCount, a.LayoutSource, src...)
	ssm, conv := int64(a.Count(arch.SSM)), int64(a.Count(arch.Conv))
	c.add("arch.layers_state_space", ssm, facts.UnitCount, a.LayoutSource, src...)
	c.add("arch.layers_convolution", conv, facts.UnitCount, a.LayoutSource, src...)
	c.add("arch.hybrid", a.Hybrid(), facts.UnitBool, "layers holding a per-sequence state (linear attention, state-space, convolution) beside attention layers", src...)
	c.add("arch.layer_kinds", kindString(a.LayerKinds), facts.UnitText, "one letter per layer: F full, L linear, S sliding, M state-space (Mamba), C convolution, - no token mixer", src...)
	if cad, ok := a.Cadence(); ok {
		c.add("arch.full_attention_cadence", int64(cad), facts.UnitCount, "mode of the gaps between full-attention layers (not the minimum)", src...).Display =
			fmt.Sprintf("every %s layer", ordinal(cad))
	} else {
		c.s.Unknown("arch.full_attention_cadence", facts.UnitCount, "no repeating full-attention pattern: every layer is of one kind")
	}
	// The ratio counts every state-holding layer against full attention:
	// a Mamba or convolution layer plays the part a linear layer does.
	if st := int64(a.StateLayers()); full > 0 && st > 0 {
		how := fmt.Sprintf("%d linear ÷ %d full (float division)", lin, full)
		if st != lin {
			how = fmt.Sprintf("%d state-holding layers (%d linear, %d state-space, %d convolution) ÷ %d full (float division)", st, lin, ssm, conv, full)
		}
		c.add("arch.linear_to_full_ratio", float64(st)/float64(full), facts.UnitRatio, how, srcConfig)
	} else {
		c.s.Unknown("arch.linear_to_full_ratio", facts.UnitRatio, "no linear-attention, state-space or convolution layers")
	}
}

// archBasics records what config.json states whatever the layout: family,
// attention kind, widths and context.
func (c *calc) archBasics() {
	a := c.in.Arch
	if a.Family != "" {
		c.add("arch.family", a.Family, facts.UnitText, "model_type of the text backbone", srcConfig)
	} else {
		c.s.Unknown("arch.family", facts.UnitText, "config lacks model_type")
	}
	if a.Attention == arch.MLA || a.Heads > 0 {
		c.add("arch.attention", string(a.Attention), facts.UnitText, "kv_lora_rank present → MLA, else grouped-query attention", srcConfig)
	} else {
		c.s.Unknown("arch.attention", facts.UnitText, reasonOr(a.Missing["num_attention_heads"], "config lacks num_attention_heads"))
	}
	if a.Hidden > 0 {
		c.add("arch.hidden_size", a.Hidden, facts.UnitCount, "hidden_size", srcConfig)
	}
	if a.Vocab > 0 {
		c.add("arch.vocab_size", a.Vocab, facts.UnitCount, "vocab_size", srcConfig)
	}
	if a.Context > 0 {
		c.add("arch.context", a.Context, facts.UnitTokens, reasonOr(a.ContextSrc, "max_position_embeddings"), srcConfig)
	}
}

func reasonOr(r, def string) string {
	if r != "" {
		return r
	}
	return def
}

func kindString(ks []arch.LayerKind) string {
	var b strings.Builder
	for _, k := range ks {
		switch k {
		case arch.Full:
			b.WriteByte('F')
		case arch.Linear:
			b.WriteByte('L')
		case arch.Sliding:
			b.WriteByte('S')
		case arch.SSM:
			b.WriteByte('M')
		case arch.Conv:
			b.WriteByte('C')
		case arch.FFN:
			b.WriteByte('-')
		}
	}
	return b.String()
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

func (c *calc) moe() {
	a := c.in.Arch
	defer c.mtp()
	if !a.IsMoE() {
		if !a.FamilyKnown && c.in.Analytic == nil {
			c.s.Unknown("moe.experts_routed", facts.UnitCount, fmt.Sprintf("unsupported family %s: config.json has none of n_routed_experts / num_experts / num_local_experts, which does not prove the model dense", a.Family))
			return
		}
		c.add("moe.experts_routed", int64(0), facts.UnitCount, "no routed experts in config (dense)", srcConfig)
		if an := c.in.Analytic; an != nil {
			const conv = "dense: a token passes through every text-model tensor, output head included; vision tower, projector and multi-token-prediction modules excluded"
			c.add("params.active", an.Active, facts.UnitParams, conv+"; input embedding included", srcAnalytic)
			c.add("params.active_no_embedding", an.ActiveNoEmbed, facts.UnitParams, conv+noEmbedding(a.TiedEmbed), srcAnalytic)
		}
		return
	}
	c.add("moe.experts_routed", a.RoutedExperts, facts.UnitCount, "n_routed_experts / num_experts / num_local_experts", srcConfig)
	c.add("moe.experts_shared", a.SharedExperts, facts.UnitCount, "n_shared_experts / num_shared_experts", srcConfig)
	c.add("moe.layers", int64(len(a.MoELayers)), facts.UnitCount, "layers with routed experts (first_k_dense_replace, moe_layer_freq, mlp_only_layers)", srcConfig)
	if a.ActiveExperts == 0 {
		c.s.Unknown("moe.experts_active", facts.UnitCount, a.Missing["num_experts_per_tok"])
		return
	}
	c.add("moe.experts_active", a.ActiveExperts, facts.UnitCount, "num_experts_per_tok / num_experts_per_token", srcConfig)
	c.add("sparsity.expert_count", float64(a.ActiveExperts)/float64(a.RoutedExperts), facts.UnitShare,
		"routed experts active per token ÷ routed experts (expert-count sparsity)", srcConfig).Display =
		fmt.Sprintf("%d / %d = %s", a.ActiveExperts, a.RoutedExperts, facts.Percent(float64(a.ActiveExperts)/float64(a.RoutedExperts)))

	total, _ := c.s.Get("params.total").Int()
	experts, esrc, deriv := c.expertParams()
	if experts > 0 {
		c.add("params.experts", experts, facts.UnitParams, deriv, esrc)
		if total > 0 {
			c.add("share.experts", float64(experts)/float64(total), facts.UnitShare, "routed-expert parameters ÷ total parameters", esrc)
		}
	}
	if an := c.in.Analytic; an != nil {
		const conv = "text-model parameters a token passes through: non-expert tensors and the output head, plus routed experts × %d/%d; vision tower, projector and multi-token-prediction modules excluded"
		c.add("params.active", an.Active, facts.UnitParams, fmt.Sprintf(conv, a.ActiveExperts, a.RoutedExperts)+"; input embedding included", srcAnalytic)
		c.add("params.active_no_embedding", an.ActiveNoEmbed, facts.UnitParams, fmt.Sprintf(conv, a.ActiveExperts, a.RoutedExperts)+noEmbedding(a.TiedEmbed), srcAnalytic)
		if total > 0 {
			c.add("sparsity.param_activation", float64(an.ActiveNoEmbed)/float64(total), facts.UnitShare,
				"activated parameters (without input embedding) ÷ total parameters (parameter-activation fraction)", srcAnalytic)
		}
		return
	}
	if total > 0 && experts > 0 {
		inactive := experts / a.RoutedExperts * (a.RoutedExperts - a.ActiveExperts)
		act := total - inactive
		c.add("params.active", act, facts.UnitParams,
			fmt.Sprintf("total − routed experts × (%d − %d) ÷ %d: counts embedding, head and any vision tower", a.RoutedExperts, a.ActiveExperts, a.RoutedExperts), esrc)
		switch {
		case a.TiedEmbed:
			// The embedding matrix is also the output head, which a token
			// passes through: the figure without the input embedding keeps it.
			c.add("params.active_no_embedding", act, facts.UnitParams, "params.active: with tie_word_embeddings the embedding matrix is the output head and counts once, as the head; still counts any vision tower", esrc, srcConfig)
			c.add("sparsity.param_activation", float64(act)/float64(total), facts.UnitShare,
				"activated parameters (without input embedding) ÷ total parameters (parameter-activation fraction)", esrc)
		case a.Vocab > 0 && a.Hidden > 0:
			ne := act - a.Vocab*a.Hidden
			c.add("params.active_no_embedding", ne, facts.UnitParams, "params.active − vocab_size × hidden_size (input embedding); still counts any vision tower", esrc, srcConfig)
			c.add("sparsity.param_activation", float64(ne)/float64(total), facts.UnitShare,
				"activated parameters (without input embedding) ÷ total parameters (parameter-activation fraction)", esrc)
		}
	}
}

// expertParams counts routed-expert parameters: from the module tree when
// there is one, else gate, up and down projections per expert per MoE layer.
func (c *calc) expertParams() (int64, string, string) {
	a := c.in.Arch
	if an := c.in.Analytic; an != nil && an.Experts > 0 {
		return an.Experts, srcAnalytic, "routed-expert tensors in the module tree"
	}
	if a.MoEIntermediate == 0 || a.ExpertHidden == 0 || len(a.MoELayers) == 0 {
		return 0, "", ""
	}
	per := 3 * a.ExpertHidden * a.MoEIntermediate
	return per * a.RoutedExperts * int64(len(a.MoELayers)), srcConfig,
		fmt.Sprintf("%d MoE layers × %d experts × 3 × %d × %d (gate, up, down)", len(a.MoELayers), a.RoutedExperts, a.ExpertHidden, a.MoEIntermediate)
}

// noEmbedding ends the derivation of params.active_no_embedding: a tied
// embedding is the output head and stays, counted once.
func noEmbedding(tied bool) string {
	if tied {
		return "; input embedding excluded, but with tie_word_embeddings the same matrix is the output head and counts once, as the head"
	}
	return "; input embedding excluded"
}

// layoutSources cites what the layer kinds came from: config.json, and the
// safetensors headers too when they were inferred from the tensors.
func layoutSources(a *arch.Architecture) []string {
	if strings.HasPrefix(a.LayoutSource, arch.InferredSource) {
		return []string{srcConfig, "hub:headers"}
	}
	return []string{srcConfig}
}
