package modeltree

import (
	"fmt"
	"slices"
)

// DeepSeek-V4 (deepseek_v4: V4-Flash, V4-Pro), after vLLM's deepseek_v4.py,
// deepseek_v4_attention.py and deepseek_compressor.py (testdata/SOURCES.md),
// stored under the original checkpoint's names (layers.N.attn.wq_a, ...):
//   - attention: q LoRA (wq_a, q_norm, wq_b to heads × head_dim), one
//     shared K=V row per token (wkv to head_dim, kv_norm), a grouped output
//     projection (wo_a: o_groups blocks of heads·head_dim/o_groups →
//     o_lora_rank, then wo_b) and a per-head attention sink;
//   - a compressor on every layer whose compress_ratios entry is > 0 (ape,
//     wkv, wgate, norm; ratio 4 overlaps two windows, so twice head_dim),
//     and on the ratio-4 layers a lightning indexer (wq_b, weights_proj and
//     its own compressor at index_head_dim);
//   - hyper-connections: hc_mult residual streams mixed before attention
//     and before the FFN (hc_*_fn [(2+hc)·hc, hc·hidden], base, scale) and
//     once before the head (hc_head_*);
//   - MoE on every layer: a gate (bias under noaux_tc, or a token → expert
//     table tid2eid on the first num_hash_layers), routed experts w1/w2/w3
//     and one block of shared experts;
//   - num_nextn_predict_layers MTP modules under mtp.N. (e_proj, h_proj,
//     norms, their own hc head and one decoder layer without compressor).
//
// The released checkpoint stores linears as FP8 E4M3 with one E8M0 scale
// per 128×128 block, and with expert_dtype "fp4" the routed experts as
// MXFP4: two E2M1 values per I8 byte and one E8M0 scale per 32 values.
// Compressor and indexer weights_proj projections are built without a
// quant_config in vLLM and stay BF16, as do the embedding and head.

type deepseekV4Dims struct {
	H, V, heads, headDim, qLora, oGroups, oLora int64
	E, k, moeI, shared, hashLayers, hc          int64
	idxHeads, idxDim                            int64
	noaux                                       bool
	ratios                                      []int64
}

// dsv4QuantKeys are the keys of the released checkpoint's quantization_config.
var dsv4QuantKeys = []string{"activation_scheme", "fmt", "quant_method", "scale_fmt", "weight_block_size"}

// dsv4Block is the FP8 block the released checkpoint scales by.
var dsv4Block = []int64{128, 128}

// dsv4MXFP4Group is the values one E8M0 exponent scales in an MXFP4 expert.
const dsv4MXFP4Group = 32

func deepseekV4Family() Family {
	return Family{Name: "deepseek_v4", ModelTypes: []string{"deepseek_v4"},
		Build: func(_ string, t *reader, h []byte) (*Inventory, error) { return buildDeepseekV4(t, h) },
		Checks: []Check{
			{Config: "deepseek_v4/deepseek-ai__DeepSeek-V4-Flash.config.json", Repo: "deepseek-ai/DeepSeek-V4-Flash", ExcludesMTP: true,
				Published: "284B", Params: 284_000_000_000, Tolerance: 500_000_000,
				Source: "DeepSeek-V4-Flash model card, model table: 284B total / 13B activated (quoted in antirez/ds4 MODEL_CARD.md)"},
			{Config: "deepseek_v4/deepseek-ai__DeepSeek-V4-Pro.config.json", Repo: "deepseek-ai/DeepSeek-V4-Pro", ExcludesMTP: true,
				Published: "1.6T", Params: 1_600_000_000_000, Tolerance: 50_000_000_000,
				Source: "DeepSeek-V4-Pro model card, model table: 1.6T total / 49B activated (quoted in antirez/ds4 MODEL_CARD.md)"},
		}}
}

func readDeepseekV4(t *reader) (deepseekV4Dims, int64, int64) {
	d := deepseekV4Dims{
		H:          t.size("hidden_size"),
		V:          t.size("vocab_size"),
		heads:      t.size("num_attention_heads"),
		headDim:    t.size("head_dim"),
		qLora:      t.size("q_lora_rank"),
		oGroups:    t.size("o_groups"),
		oLora:      t.size("o_lora_rank"),
		E:          t.size("n_routed_experts"),
		k:          t.size("num_experts_per_tok"),
		moeI:       t.size("moe_intermediate_size"),
		shared:     t.intOpt("n_shared_experts", 0),
		hashLayers: t.intOpt("num_hash_layers", 0),
		hc:         t.size("hc_mult"),
		idxHeads:   t.intOpt("index_n_heads", 0),
		idxDim:     t.intOpt("index_head_dim", 0),
		noaux:      t.str("topk_method") == "noaux_tc",
		ratios:     t.ints("compress_ratios"),
	}
	return d, t.size("num_hidden_layers"), t.intOpt("num_nextn_predict_layers", 0)
}

// checkDeepseekV4 refuses what this tree does not enumerate, naming the
// field: another checkpoint layout than FP8 blocks with MXFP4 experts, a
// compress ratio the compressor does not build, an uneven output grouping.
func checkDeepseekV4(t *reader, d deepseekV4Dims, L int64) error {
	qc := t.sub("quantization_config")
	if qc == nil {
		return fmt.Errorf("deepseek_v4: field %s: absent; only the FP8 release (FP8 blocks, MXFP4 experts) is enumerated", t.field("quantization_config"))
	}
	// An export that quantizes further (NVIDIA's NVFP4 experts state
	// quant_method fp8 beside moe_quant_algo and config_groups) stores
	// other tensors: any key the release does not state is declined.
	keys := qc.keys()
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(dsv4QuantKeys, k) {
			return fmt.Errorf("deepseek_v4: field %s: not a key of the FP8 release's quantization_config; this checkpoint layout is not enumerated", qc.field(k))
		}
	}
	if m := qc.str("quant_method"); m != "fp8" {
		return fmt.Errorf("deepseek_v4: field %s: %q; only the FP8 release (FP8 blocks, MXFP4 experts) is enumerated", qc.field("quant_method"), m)
	}
	if bs := qc.ints("weight_block_size"); !slices.Equal(bs, dsv4Block) {
		return fmt.Errorf("deepseek_v4: field %s: %v; only 128×128 FP8 blocks are enumerated", qc.field("weight_block_size"), bs)
	}
	if f := qc.str("scale_fmt"); f != "ue8m0" {
		return fmt.Errorf("deepseek_v4: field %s: %q; only E8M0 block scales (ue8m0) are enumerated", qc.field("scale_fmt"), f)
	}
	// vLLM defaults a missing expert_dtype to fp4, but an FP8 export that
	// omits it (sgl-project's) may hold FP8 experts: not guessed.
	if e := t.str("expert_dtype"); e != "fp4" {
		return fmt.Errorf("deepseek_v4: field %s: %q; only MXFP4 routed experts (\"fp4\") are enumerated", t.field("expert_dtype"), e)
	}
	if int64(len(d.ratios)) < L {
		return fmt.Errorf("deepseek_v4: field %s: %d entries for %d layers", t.field("compress_ratios"), len(d.ratios), L)
	}
	for i, r := range d.ratios[:L] {
		if r != 0 && r != 4 && r != 128 {
			return fmt.Errorf("deepseek_v4: field %s[%d]: compress ratio %d (the compressor is built for 0, 4 and 128)", t.field("compress_ratios"), i, r)
		}
		if r == 4 && (d.idxHeads == 0 || d.idxDim == 0) {
			return fmt.Errorf("deepseek_v4: field %s: a ratio-4 layer has an indexer, which index_n_heads and index_head_dim size", t.field("index_n_heads"))
		}
	}
	if d.oGroups > 0 && (d.heads*d.headDim)%d.oGroups != 0 {
		return fmt.Errorf("deepseek_v4: field %s: %d does not divide num_attention_heads × head_dim", t.field("o_groups"), d.oGroups)
	}
	return t.Err()
}

func buildDeepseekV4(t *reader, hfq []byte) (*Inventory, error) {
	d, L, mtp := readDeepseekV4(t)
	if err := t.Err(); err != nil {
		return nil, err
	}
	if len(hfq) > 0 {
		return nil, fmt.Errorf("deepseek_v4: hf_quant_config.json: a ModelOpt export (NVFP4 experts) stores other tensors than the FP8 release; not enumerated")
	}
	if err := checkDeepseekV4(t, d, L); err != nil {
		return nil, err
	}
	if err := checkWork(L+mtp, d.E); err != nil {
		return nil, fmt.Errorf("deepseek_v4: %w", err)
	}
	b := newBuilder(storageDType(t), capHint(t))
	b.quantized = true
	b.component(CompText)
	b.param("embed.weight", fEmbed, d.V, d.H)
	for i := range L {
		dsv4Layer(b, "layers."+itoa(i)+".", i, d.ratios[i], d)
	}
	b.param("norm.weight", 0, d.H)
	dsv4HCHead(b, "", d)
	b.keep("head", fHead, d.V, d.H)
	for j := range mtp {
		b.component(CompMTP)
		p := "mtp." + itoa(j) + "."
		dsv4FP8(b, p+"e_proj", 0, d.H, d.H)
		dsv4FP8(b, p+"h_proj", 0, d.H, d.H)
		b.param(p+"enorm.weight", 0, d.H)
		b.param(p+"hnorm.weight", 0, d.H)
		b.param(p+"norm.weight", 0, d.H)
		dsv4HCHead(b, p, d)
		// vLLM builds the MTP layer without a compressor (compress ratio 1).
		dsv4Layer(b, p, L+j, 0, d)
	}
	b.component(CompText)
	if b.err != nil {
		return nil, fmt.Errorf("deepseek_v4: %w", b.err)
	}
	inv := finish(b, "deepseek_v4", moeInfo{experts: d.E, perToken: d.k},
		"DeepSeek convention (\"13B activated\") ≈ ActiveParams(false): main-model non-expert params without the embedding + routed experts × k/E; MTP module excluded")
	inv.Quantization = "DeepSeek-V4 FP8 (E4M3, 128×128 E8M0 block scales), routed experts MXFP4 (E8M0 scale per 32)"
	return inv, nil
}

// dsv4FP8 adds an FP8 linear: E4M3 weight and one E8M0 scale per block.
func dsv4FP8(b *builder, module string, f tflag, out, in int64) {
	b.linearModule(module, f, out, in)
	b.add(module+".weight", "F8_E4M3", Payload, b.mul(out, in), f, out, in)
	b.add(module+".scale", "F8_E8M0", Scale, 0, f, ceilDiv(out, dsv4Block[0]), ceilDiv(in, dsv4Block[1]))
}

// dsv4MXFP4 adds an MXFP4 expert linear: two E2M1 values per I8 byte
// along the input and one E8M0 exponent per 32 values.
func dsv4MXFP4(b *builder, module string, out, in int64) {
	b.linearModule(module, fExpert, out, in)
	b.add(module+".weight", "I8", Payload, b.mul(out, in), fExpert, out, ceilDiv(in, 2))
	b.add(module+".scale", "F8_E8M0", Scale, 0, fExpert, out, ceilDiv(in, dsv4MXFP4Group))
}

// dsv4HC adds one hyper-connection mixer: (2 + hc)·hc mixing weights
// read from the hc streams, their bias and three scales, all F32.
func dsv4HC(b *builder, name string, d deepseekV4Dims) {
	mix := (2 + d.hc) * d.hc
	b.paramT(name+"_fn", "F32", 0, mix, d.hc*d.H)
	b.paramT(name+"_base", "F32", 0, mix)
	b.paramT(name+"_scale", "F32", 0, 3)
}

// dsv4HCHead adds the mixer that folds the hc streams into one before the
// final norm and head.
func dsv4HCHead(b *builder, p string, d deepseekV4Dims) {
	b.paramT(p+"hc_head_fn", "F32", 0, d.hc, d.hc*d.H)
	b.paramT(p+"hc_head_base", "F32", 0, d.hc)
	b.paramT(p+"hc_head_scale", "F32", 0, 1)
}

// dsv4Compressor adds the compressor that turns each ratio tokens into one
// cached row of dim values; ratio 4 overlaps two windows (twice the width).
func dsv4Compressor(b *builder, p string, ratio, dim, H int64) {
	coff := int64(1)
	if ratio == 4 {
		coff = 2
	}
	b.paramT(p+"ape", "F32", 0, ratio, coff*dim)
	b.keep(p+"wkv", 0, coff*dim, H)
	b.keep(p+"wgate", 0, coff*dim, H)
	b.param(p+"norm.weight", 0, dim)
}

func dsv4Layer(b *builder, lp string, i, ratio int64, d deepseekV4Dims) {
	a := lp + "attn."
	b.paramT(a+"attn_sink", "F32", 0, d.heads)
	dsv4FP8(b, a+"wq_a", 0, d.qLora, d.H)
	b.param(a+"q_norm.weight", 0, d.qLora)
	dsv4FP8(b, a+"wq_b", 0, d.heads*d.headDim, d.qLora)
	dsv4FP8(b, a+"wkv", 0, d.headDim, d.H)
	b.param(a+"kv_norm.weight", 0, d.headDim)
	dsv4FP8(b, a+"wo_a", 0, d.oGroups*d.oLora, d.heads*d.headDim/d.oGroups)
	dsv4FP8(b, a+"wo_b", 0, d.H, d.oGroups*d.oLora)
	if ratio > 0 {
		dsv4Compressor(b, a+"compressor.", ratio, d.headDim, d.H)
	}
	if ratio == 4 {
		x := a + "indexer."
		dsv4FP8(b, x+"wq_b", 0, d.idxHeads*d.idxDim, d.qLora)
		b.keep(x+"weights_proj", 0, d.idxHeads, d.H)
		dsv4Compressor(b, x+"compressor.", ratio, d.idxDim, d.H)
	}
	b.param(lp+"attn_norm.weight", 0, d.H)
	b.param(lp+"ffn_norm.weight", 0, d.H)
	dsv4HC(b, lp+"hc_attn", d)
	dsv4HC(b, lp+"hc_ffn", d)
	f := lp + "ffn."
	b.param(f+"gate.weight", 0, d.E, d.H)
	switch {
	case i < d.hashLayers:
		// Hash routing: a token → expert table, indices rather than weights.
		b.add(f+"gate.tid2eid", "I64", Aux, 0, 0, d.V, d.k)
	case d.noaux:
		b.paramT(f+"gate.bias", "F32", 0, d.E)
	}
	b.experts(f+"experts.", d.E, func(x string) {
		dsv4MXFP4(b, x+"w1", d.moeI, d.H)
		dsv4MXFP4(b, x+"w2", d.H, d.moeI)
		dsv4MXFP4(b, x+"w3", d.moeI, d.H)
	})
	if d.shared > 0 {
		s := f + "shared_experts."
		dsv4FP8(b, s+"w1", 0, d.shared*d.moeI, d.H)
		dsv4FP8(b, s+"w2", 0, d.H, d.shared*d.moeI)
		dsv4FP8(b, s+"w3", 0, d.shared*d.moeI, d.H)
	}
}
