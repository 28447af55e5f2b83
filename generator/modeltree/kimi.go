package modeltree

import (
	"cmp"
	"fmt"
)

// Kimi Linear (kimi_linear) and the models that wrap it or DeepSeek-V3 text:
// Kimi K3 (kimi_k3) and Kimi K2.5 (kimi_k25).
//
// Shapes of kimi_linear follow the public modeling_kimi.py of
// moonshotai/Kimi-Linear-48B-A3B-Instruct and vLLM's kimi_linear.py / kda.py:
// KDA layers carry q/k/v_proj [H·d, hidden], depthwise q/k/v_conv1d
// [H·d, 1, kernel], f_a/f_b and g_a/g_b low-rank gates (rank d), b_proj
// [H, hidden], A_log, dt_bias [H·d], o_norm [d] and o_proj; MLA layers have
// DeepSeek MLA shapes (rope slots included though no RoPE is applied); MoE
// layers are block_sparse_moe with experts w1/w2/w3, a router weight +
// e_score_correction_bias and shared_experts of width moe_intermediate_size
// × num_shared_experts. The Kimi-Linear-48B count is exact: 49,122,681,728.
//
// Kimi K3 adds, after its remote code (modeling_kimi_linear.py of
// moonshotai/Kimi-K3 as quoted in public write-ups) and a public K3 loader
// that validates header names and shapes: q-LoRA MLA with a sigmoid output
// gate g_proj [heads·v_head, hidden] (mla_use_output_gate); a full-rank KDA
// output gate g_proj [H·d, hidden] (use_full_rank_gate); AttnRes with
// self_attention_res_norm/_proj and mlp_res_norm/_proj ([hidden] and
// [1, hidden]) per layer plus output_attn_res_norm/_proj on the model; and
// LatentMoE, whose routed experts run at routed_expert_hidden_size between
// routed_expert_down_proj [latent, hidden] and routed_expert_up_proj
// [hidden, latent], with routed_expert_norm [latent]. The census pins it:
// BF16 57,179,884,544 = text 56,732,525,568 + vision/projector 447,358,976,
// and 497,220 tensors, both to the unit.

// kimiLayout is what the two released kimi_linear-style checkpoints store
// differently; nothing in config.json tells them apart, the artifacts do.
type kimiLayout struct {
	convDType       string // KDA q/k/v_conv1d weights
	oNormDType      string // KDA o_norm weight
	routerBiasDType string // block_sparse_moe.gate.e_score_correction_bias
	aLogHeadDim     bool   // A_log stored as [head_dim] instead of [1, 1, heads, 1]
}

// Kimi-Linear-48B-A3B: the tensor report gives F32 = 82,560 = 20 KDA layers ×
// (A_log 32 + dt_bias 4,096); conv, o_norm and router bias are BF16.
var kimiLinearLayout = kimiLayout{}

// Kimi K3: the Hub census gives F32 = 11,122,432 = 69 KDA layers ×
// (3 convs × 12,288×4 + A_log 128 + dt_bias 12,288 + o_norm 128) + 92 MoE
// layers × router bias 896. A_log ships with head_dim (128) entries for 96
// heads, as a public K3 loader that checks header shapes also records.
var kimiK3Layout = kimiLayout{convDType: "F32", oNormDType: "F32", routerBiasDType: "F32", aLogHeadDim: true}

type moeInfo struct{ experts, perToken int64 }

// kimiLinearText adds a kimi_linear text model under prefix ("" or
// "language_model.").
func kimiLinearText(t *reader, b *builder, prefix string, lay kimiLayout) (moeInfo, error) {
	H := t.size("hidden_size")
	V := t.size("vocab_size")
	L := t.size("num_hidden_layers")
	heads := t.size("num_attention_heads")
	qLora := t.intOpt("q_lora_rank", 0)
	kvLora := t.size("kv_lora_rank")
	nope := t.size("qk_nope_head_dim")
	rope := t.intOpt("qk_rope_head_dim", 0)
	vHead := t.size("v_head_dim")
	denseI := t.size("intermediate_size")
	E := t.intOpt("num_experts", 0)
	var k, moeI, shared, latent int64
	if E > 0 {
		k = t.size("num_experts_per_token")
		moeI = t.size("moe_intermediate_size")
		shared = t.intOpt("num_shared_experts", 0)
		latent = t.intOpt("routed_expert_hidden_size", 0)
	}
	firstDense := t.intOpt("first_k_dense_replace", 0)
	freq := t.sizeOpt("moe_layer_freq", 1)
	latentNorm := t.boolOpt("latent_moe_use_norm", false)
	outGate := t.boolOpt("mla_use_output_gate", false)
	attnRes := t.intOpt("attn_res_block_size", 0) > 0
	tie := t.boolOpt("tie_word_embeddings", false)
	mtp := t.intOpt("num_nextn_predict_layers", 0)

	kda := map[int64]bool{}
	var nh, hd, kernel int64
	fullRankGate := false
	if la := t.sub("linear_attn_config"); la != nil {
		for _, l := range la.ints("kda_layers") {
			kda[l-1] = true // the config's layer lists are 1-based
		}
		if len(kda) > 0 {
			nh = la.size("num_heads")
			hd = la.size("head_dim")
			kernel = la.size("short_conv_kernel_size")
		}
		fullRankGate = la.boolOpt("use_full_rank_gate", false)
	}
	if err := t.Err(); err != nil {
		return moeInfo{}, err
	}
	if mtp > 0 {
		return moeInfo{}, fmt.Errorf("%s: multi-token prediction layers are not supported for kimi_linear", t.field("num_nextn_predict_layers"))
	}
	if err := checkWork(L, E); err != nil {
		return moeInfo{}, err
	}

	m := prefix + "model."
	b.param(m+"embed_tokens.weight", embedFlags(tie), V, H)
	b.param(m+"norm.weight", 0, H)
	if attnRes {
		// AttnRes mixes the block summaries once more before the final norm.
		b.param(m+"output_attn_res_norm.weight", 0, H)
		b.keep(m+"output_attn_res_proj", 0, 1, H)
	}
	if !tie {
		b.linear(prefix+"lm_head", fHead, V, H)
	}
	W := nh * hd
	for i, lp := range indexed(m+"layers.", L) {
		i := int64(i)
		b.param(lp+"input_layernorm.weight", 0, H)
		b.param(lp+"post_attention_layernorm.weight", 0, H)
		if attnRes {
			// Per layer: RMSNorm + a 1-wide scoring projection before the
			// attention and before the MLP. The projections are nn.Linear,
			// but the release keeps them BF16 although no ignore entry names
			// them: the census U8 is exactly the routed experts.
			b.param(lp+"self_attention_res_norm.weight", 0, H)
			b.keep(lp+"self_attention_res_proj", 0, 1, H)
			b.param(lp+"mlp_res_norm.weight", 0, H)
			b.keep(lp+"mlp_res_proj", 0, 1, H)
		}
		a := lp + "self_attn."
		if kda[i] {
			b.linear(a+"q_proj", 0, W, H)
			b.linear(a+"k_proj", 0, W, H)
			b.linear(a+"v_proj", 0, W, H)
			for _, c := range []string{"q_conv1d", "k_conv1d", "v_conv1d"} {
				b.paramT(a+c+".weight", cmp.Or(lay.convDType, b.dtype), 0, W, 1, kernel)
			}
			if lay.aLogHeadDim {
				b.paramT(a+"A_log", "F32", 0, hd)
			} else {
				b.paramT(a+"A_log", "F32", 0, 1, 1, nh, 1)
			}
			b.paramT(a+"dt_bias", "F32", 0, W)
			b.linear(a+"f_a_proj", 0, hd, H)
			b.linear(a+"f_b_proj", 0, W, hd)
			b.linear(a+"b_proj", 0, nh, H)
			if fullRankGate {
				b.linear(a+"g_proj", 0, W, H)
			} else {
				b.linear(a+"g_a_proj", 0, hd, H)
				b.linear(a+"g_b_proj", 0, W, hd)
			}
			b.paramT(a+"o_norm.weight", cmp.Or(lay.oNormDType, b.dtype), 0, hd)
			b.linear(a+"o_proj", 0, H, W)
		} else {
			mla(b, a, H, heads, qLora, kvLora, nope, rope, vHead)
			if outGate {
				b.linear(a+"g_proj", 0, heads*vHead, H)
			}
		}
		if E > 0 && i >= firstDense && i%freq == 0 {
			moe := lp + "block_sparse_moe."
			b.param(moe+"gate.weight", 0, E, H) // KimiMoEGate: a parameter, not nn.Linear
			b.paramT(moe+"gate.e_score_correction_bias", cmp.Or(lay.routerBiasDType, b.dtype), 0, E)
			eh := H
			if latent > 0 {
				// LatentMoE: routed experts run at width `latent`. Like the
				// AttnRes projections these nn.Linear stay BF16 in the release.
				eh = latent
				b.keep(moe+"routed_expert_down_proj", 0, latent, H)
				b.keep(moe+"routed_expert_up_proj", 0, H, latent)
				if latentNorm {
					b.param(moe+"routed_expert_norm.weight", 0, latent)
				}
			}
			b.experts(moe+"experts.", E, func(x string) {
				b.linear(x+"w1", fExpert, moeI, eh)
				b.linear(x+"w2", fExpert, eh, moeI)
				b.linear(x+"w3", fExpert, moeI, eh)
			})
			if shared > 0 {
				swiGLU(b, moe+"shared_experts.", H, moeI*shared, 0)
			}
		} else {
			swiGLU(b, lp+"mlp.", H, denseI, 0)
		}
	}
	return moeInfo{experts: E, perToken: k}, b.err
}

// mla adds DeepSeek multi-head latent attention projections under a.
func mla(b *builder, a string, H, heads, qLora, kvLora, nope, rope, vHead int64) {
	if qLora > 0 {
		b.linear(a+"q_a_proj", 0, qLora, H)
		b.param(a+"q_a_layernorm.weight", 0, qLora)
		b.linear(a+"q_b_proj", 0, heads*(nope+rope), qLora)
	} else {
		b.linear(a+"q_proj", 0, heads*(nope+rope), H)
	}
	b.linear(a+"kv_a_proj_with_mqa", 0, kvLora+rope, H)
	b.param(a+"kv_a_layernorm.weight", 0, kvLora)
	b.linear(a+"kv_b_proj", 0, heads*(nope+vHead), kvLora)
	b.linear(a+"o_proj", 0, H, heads*vHead)
}

// swiGLU adds gate_proj/up_proj/down_proj of width I under p.
func swiGLU(b *builder, p string, H, I int64, f tflag) {
	b.linear(p+"gate_proj", f, I, H)
	b.linear(p+"up_proj", f, I, H)
	b.linear(p+"down_proj", f, H, I)
}

// buildKimiLinear: a bare kimi_linear checkpoint (model.*, lm_head).
func buildKimiLinear(top *reader, hfq []byte) (*Inventory, error) {
	b := newBuilder(storageDType(top), capHint(top))
	q, err := parseQuant(top.sub("quantization_config"), hfq, allScopes(""))
	if err != nil {
		return nil, err
	}
	b.setQuant(q)
	b.component(CompText)
	moe, err := kimiLinearText(top, b, "", kimiLinearLayout)
	if err != nil {
		return nil, fmt.Errorf("kimi_linear: %w", err)
	}
	return finish(b, "kimi_linear", moe,
		"card \"A3B\" ≈ ActiveParams(true): non-expert text params incl. embedding and lm_head + routed experts × k/E"), nil
}

// buildKimiK3: kimi_linear text under language_model. plus a MoonViT-V2
// vision tower and a patchmergerv2 projector.
func buildKimiK3(top *reader, hfq []byte) (*Inventory, error) {
	tc := top.sub("text_config")
	if tc == nil {
		return nil, missing(top, "text_config")
	}
	b := newBuilder(storageDType(top), capHint(tc))
	q, err := wrappedQuant(top, tc, hfq)
	if err != nil {
		return nil, err
	}
	b.setQuant(q)
	b.component(CompText)
	moe, err := kimiLinearText(tc, b, "language_model.", kimiK3Layout)
	if err != nil {
		return nil, fmt.Errorf("kimi_k3: %w", err)
	}
	if vc := top.sub("vision_config"); vc != nil {
		if err := moonViT(vc, b, tc); err != nil {
			return nil, fmt.Errorf("kimi_k3: %w", err)
		}
	}
	if err := top.Err(); err != nil {
		return nil, err
	}
	return finish(b, "kimi_k3", moe,
		"card \"104 B activated\" = ActiveParams(false): text non-expert params incl. lm_head, excl. input embedding and the vision tower + projector, + routed experts × 16/896"), nil
}

// buildKimiK25: DeepSeek-V3 (kimi_k2) text under language_model. plus a
// MoonViT vision tower and a patchmerger projector.
func buildKimiK25(top *reader, hfq []byte) (*Inventory, error) {
	tc := top.sub("text_config")
	if tc == nil {
		return nil, missing(top, "text_config")
	}
	b := newBuilder(storageDType(top), capHint(tc))
	q, err := wrappedQuant(top, tc, hfq)
	if err != nil {
		return nil, err
	}
	b.setQuant(q)
	moe, err := deepseekText(tc, b, "language_model.")
	if err != nil {
		return nil, fmt.Errorf("kimi_k25: %w", err)
	}
	if vc := top.sub("vision_config"); vc != nil {
		if err := moonViT(vc, b, tc); err != nil {
			return nil, fmt.Errorf("kimi_k25: %w", err)
		}
	}
	if err := top.Err(); err != nil {
		return nil, err
	}
	return finish(b, "kimi_k25", moe,
		"Kimi K2 convention (\"32B activated\") ≈ ActiveParams(true): text non-expert params incl. embedding and lm_head + routed experts × k/E; vision excluded"), nil
}

// wrappedQuant reads the quantization of a model whose text backbone sits
// under text_config. A config nested there quantizes the language model
// only and names modules relative to it (K2.5's ignore entry "lm_head"
// means language_model.lm_head, and its vision tower, not listed, stays
// BF16); a top-level one applies to the whole model.
func wrappedQuant(top, tc *reader, hfq []byte) (*quant, error) {
	if qc := tc.sub("quantization_config"); qc != nil {
		return parseQuant(qc, nil, []scope{{CompText, "language_model."}, {CompMTP, "language_model."}})
	}
	return parseQuant(top.sub("quantization_config"), hfq, allScopes(""))
}

func allScopes(strip string) []scope {
	return []scope{{CompText, strip}, {CompMTP, strip}, {CompVision, strip}, {CompProjector, strip}}
}
