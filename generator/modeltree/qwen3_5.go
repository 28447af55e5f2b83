package modeltree

import "fmt"

// Qwen3.5 (qwen3_5, qwen3_5_moe), after transformers' modeling_qwen3_5 and
// modeling_qwen3_5_moe: Qwen3-Next's text model (gated attention every
// full_attention_interval-th layer, Gated DeltaNet elsewhere; a dense
// SwiGLU MLP or Qwen's MoE with a gated shared expert) under
// model.language_model, mtp_num_hidden_layers MTP layers under mtp.*, and
// Qwen3-VL's vision tower under model.visual (no deepstack mergers).
// Qwen's "Number of Parameters" is the language model's: MTP and vision
// are counted apart (Check.TextOnly).
func qwen3_5Family() Family {
	return Family{Name: "qwen3_5", ModelTypes: []string{"qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text"},
		Build: buildQwen3_5,
		Checks: []Check{
			{Config: "qwen3_5/Qwen__Qwen3.5-35B-A3B.config.json", Repo: "Qwen/Qwen3.5-35B-A3B", TextOnly: true,
				Published: "35B", Params: 35_000_000_000, Tolerance: 500_000_000,
				Source: "Qwen3.5/3.6-35B-A3B model card, Language Model: \"Number of Parameters: 35B in total and 3B activated\" (as quoted at https://mera.a-ai.ru/en/industrial/submits/181 for Qwen3.6-35B-A3B, which transformers loads with the same classes and shape; retrieved 2026-12-04)"},
		}}
}

func buildQwen3_5(mt string, top *reader, hfq []byte) (*Inventory, error) {
	b, tc, vc, err := qwenVLDecoder(top, hfq)
	if err != nil {
		return nil, err
	}
	if vc != nil {
		if err := qwen3VLVision(b, vc); err != nil {
			return nil, fmt.Errorf("%s: %w", mt, err)
		}
	}
	mtp := tc.intOpt("mtp_num_hidden_layers", 0)
	moe, err := qwenNextText(b, top, tc, "model.language_model.", mtp, mt == "qwen3_5")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", mt, err)
	}
	conv := "dense: every text parameter is active; ActiveParams(false) drops the input embedding"
	if mt == "qwen3_5_moe" {
		conv = "Qwen's \"A3B\" ≈ ActiveParams(true): language-model non-expert params incl. embedding and lm_head + routed experts × k/E; MTP and vision excluded"
	}
	return finish(b, mt, moe, conv), nil
}
