package modeltree

import "fmt"

// MoonViT vision towers and their patch-merger projectors (Kimi-VL, K2.5,
// K3). Kimi K2.5 uses the original MoonViT: LayerNorms and biases everywhere,
// qkv width = hidden. Kimi K3's MoonViT-V2 turns them off through
// norm_type "rmsnorm", attn_bias, linear_bias and patch_embed_proj_bias and
// widens attention to qkv_hidden_size.
//
// Stored tensors: patch_embed.proj (a Conv2d over 3×patch×patch pixels),
// patch_embed.pos_emb.weight [init_pos_emb_height, init_pos_emb_width, D]
// (the "divided_fixed" time embedding is a non-persistent sin-cos buffer),
// per block norm0, norm1, wqkv [3·Q, D], wo [D, Q], mlp.fc0 [I, D],
// mlp.fc1 [D, I], and encoder.final_layernorm. Checked by the numbers: K2.5's
// census BF16 minus its DeepSeek text model leaves 471,143,920 =
// 416,866,032 (tower) + 54,277,888 (patchmerger) exactly, and K3's leaves
// 447,358,976 = 401,214,464 ("401M-parameter MoonViT-V2") + 46,144,512.
func moonViT(vc *reader, b *builder, tc *reader) error {
	D := vc.size("vt_hidden_size")
	I := vc.size("vt_intermediate_size")
	N := vc.size("vt_num_hidden_layers")
	P := vc.size("patch_size")
	ph := vc.sizeOpt("init_pos_emb_height", 64)
	pw := vc.sizeOpt("init_pos_emb_width", 64)
	Q := vc.sizeOpt("qkv_hidden_size", D)
	rms := vc.str("norm_type") == "rmsnorm"
	attnBias := vc.boolOpt("attn_bias", true)
	linBias := vc.boolOpt("linear_bias", true)
	patchBias := vc.boolOpt("patch_embed_proj_bias", true)
	if mt := vc.str("mlp_type"); mt != "" && mt != "mlp2" {
		vc.fail("config field %s: unsupported %q", vc.field("mlp_type"), mt)
	}
	if pt := vc.str("pos_emb_type"); pt != "" && pt != "divided_fixed" {
		vc.fail("config field %s: unsupported %q", vc.field("pos_emb_type"), pt)
	}
	mm := vc.sizeOpt("mm_hidden_size", D)
	T := vc.sizeOpt("text_hidden_size", 0)
	if T == 0 {
		T = tc.size("hidden_size")
	}
	kh, kw := int64(2), int64(2)
	if mk := vc.ints("merge_kernel_size"); len(mk) == 2 {
		kh, kw = mk[0], mk[1]
	}
	ptype := vc.str("mm_projector_type")
	if err := vc.Err(); err != nil {
		return err
	}
	if N > 4096 || kh <= 0 || kw <= 0 || kh*kw > 1024 {
		return fmt.Errorf("%s: implausible vision tower size", vc.path)
	}

	norm := func(name string, n int64) {
		b.param(name+".weight", 0, n)
		if !rms {
			b.param(name+".bias", 0, n)
		}
	}
	b.component(CompVision)
	v := "vision_tower."
	b.param(v+"patch_embed.proj.weight", 0, D, 3, P, P)
	if patchBias {
		b.param(v+"patch_embed.proj.bias", 0, D)
	}
	b.param(v+"patch_embed.pos_emb.weight", 0, ph, pw, D)
	for _, bp := range indexed(v+"encoder.blocks.", N) {
		norm(bp+"norm0", D)
		norm(bp+"norm1", D)
		b.linearBias(bp+"wqkv", 0, 3*Q, D, attnBias)
		b.linearBias(bp+"wo", 0, D, Q, attnBias)
		b.linearBias(bp+"mlp.fc0", 0, I, D, linBias)
		b.linearBias(bp+"mlp.fc1", 0, D, I, linBias)
	}
	norm(v+"encoder.final_layernorm", D)

	b.component(CompProjector)
	M := mm * kh * kw
	p := "mm_projector."
	switch ptype {
	case "", "patchmerger":
		// LayerNorm over one patch, then Linear(M→M), GELU, Linear(M→T).
		b.param(p+"pre_norm.weight", 0, mm)
		b.param(p+"pre_norm.bias", 0, mm)
		b.linearBias(p+"proj.0", 0, M, M, true)
		b.linearBias(p+"proj.2", 0, T, M, true)
	case "patchmergerv2":
		// Bias-free Linear(M→M), GELU, Linear(M→T), then RMSNorm(T).
		b.linear(p+"proj.0", 0, M, M)
		b.linear(p+"proj.2", 0, T, M)
		b.param(p+"post_norm.weight", 0, T)
	default:
		return fmt.Errorf("%s: unsupported mm_projector_type %q", vc.field("mm_projector_type"), ptype)
	}
	b.component(CompText)
	return b.err
}
