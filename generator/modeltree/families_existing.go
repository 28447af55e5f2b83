package modeltree

import "fmt"

// Registry entries of the families whose builders live in kimi.go,
// deepseek.go, llama.go, qwen.go and gpt_oss.go.

// fixed adapts a builder that needs no model_type.
func fixed(f func(*reader, []byte) (*Inventory, error)) func(string, *reader, []byte) (*Inventory, error) {
	return func(_ string, t *reader, h []byte) (*Inventory, error) { return f(t, h) }
}

func hubAPI(repo string) string {
	return "https://huggingface.co/api/models/" + repo + "?expand[]=safetensors"
}

func kimiK3Family() Family {
	return Family{Name: "kimi_k3", ModelTypes: []string{"kimi_k3"}, Build: fixed(buildKimiK3),
		Checks: []Check{{Config: "kimi_k3/moonshotai__Kimi-K3.config.json", Repo: "moonshotai/Kimi-K3",
			Published: "2,779,931,837,184", Params: 2_779_931_837_184, Source: hubAPI("moonshotai/Kimi-K3")}}}
}

func kimiK25Family() Family {
	return Family{Name: "kimi_k25", ModelTypes: []string{"kimi_k25"}, Build: fixed(buildKimiK25),
		Checks: []Check{{Config: "kimi_k25/moonshotai__Kimi-K2.5.config.json", Repo: "moonshotai/Kimi-K2.5",
			Published: "1,026,879,376,368", Params: 1_026_879_376_368, Source: hubAPI("moonshotai/Kimi-K2.5")}}}
}

func kimiLinearFamily() Family {
	return Family{Name: "kimi_linear", ModelTypes: []string{"kimi_linear"}, Build: fixed(buildKimiLinear),
		Checks: []Check{{Config: "kimi_linear/moonshotai__Kimi-Linear-48B-A3B-Instruct.config.json", Repo: "moonshotai/Kimi-Linear-48B-A3B-Instruct",
			Published: "49,122,681,728", Params: 49_122_681_728, Source: "tensor report on the released checkpoint (reference/configs/SIZES.md)"}}}
}

func deepseekV3Family() Family {
	return Family{Name: "deepseek_v3", ModelTypes: []string{"deepseek_v3", "kimi_k2"},
		Build: func(mt string, t *reader, h []byte) (*Inventory, error) { return buildDeepseek(mt)(t, h) },
		Checks: []Check{{Config: "deepseek_v3/deepseek-ai__DeepSeek-V3.config.json", Repo: "deepseek-ai/DeepSeek-V3",
			Published: "684,531,386,000", Params: 684_531_386_000, Source: hubAPI("deepseek-ai/DeepSeek-V3")}}}
}

func llamaFamily() Family {
	return denseFamily("llama", []string{"llama"}, Layout{},
		decoderSpec{norms: llamaNorms, qkvBias: flag{key: "attention_bias"}, oBias: flag{key: "attention_bias"}, mlpBias: flag{key: "mlp_bias"}, tie: flag{key: "tie_word_embeddings"}},
		Check{Config: "llama/meta-llama__Llama-3.1-8B.config.json", Repo: "meta-llama/Llama-3.1-8B",
			Published: "8,030,261,248", Params: 8_030_261_248, Source: "index metadata.total_size 16,060,522,496 ÷ 2 (all BF16), https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/model.safetensors.index.json"})
}

func mistralFamily() Family {
	return denseFamily("mistral", []string{"mistral"}, Layout{}, decoderSpec{norms: llamaNorms, tie: flag{key: "tie_word_embeddings"}},
		Check{Config: "mistral/mistralai__Mistral-7B-v0.3.config.json", Repo: "mistralai/Mistral-7B-v0.3",
			Published: "7.25B", Params: 7_250_000_000, Tolerance: 5_000_000, Source: "https://huggingface.co/mistralai/Mistral-7B-v0.3 (Hub safetensors: 7.25B params)"})
}

func mixtralFamily() Family {
	return Family{Name: "mixtral", ModelTypes: []string{"mixtral"}, Layout: Layout{Sliding: SlidingIgnore}, Build: fixed(buildMixtral),
		Checks: []Check{{Config: "mixtral/mistralai__Mixtral-8x7B-v0.1.config.json", Repo: "mistralai/Mixtral-8x7B-v0.1",
			Published: "46,702,792,704", Params: 46_702_792_704, Source: "index metadata.total_size 93,405,585,408 ÷ 2 (all BF16), https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/model.safetensors.index.json"}}}
}

func gptOssFamily() Family {
	return Family{Name: "gpt_oss", ModelTypes: []string{"gpt_oss"}, Build: fixed(buildGptOss),
		Checks: []Check{{Config: "gpt_oss/openai__gpt-oss-20b.config.json", Repo: "openai/gpt-oss-20b",
			Published: "20,914,757,184", Params: 20_914_757_184, Source: hubAPI("openai/gpt-oss-20b") + " (huggingface.js parse-safetensors-metadata.spec.ts @bbf0930)"}}}
}

func qwen3MoeFamily() Family {
	return Family{Name: "qwen3_moe", ModelTypes: []string{"qwen3_moe"}, Layout: Layout{Sliding: SlidingOptIn}, Build: fixed(buildQwen3Moe),
		Checks: []Check{{Config: "qwen3_moe/Qwen__Qwen3-30B-A3B.config.json", Repo: "Qwen/Qwen3-30B-A3B",
			Published: "30.5B", Params: 30_500_000_000, Tolerance: 50_000_000, Source: "https://huggingface.co/Qwen/Qwen3-30B-A3B (model card: Number of Parameters 30.5B)"}}}
}

func qwen3NextFamily() Family {
	return Family{Name: "qwen3_next", ModelTypes: []string{"qwen3_next"}, Layout: Layout{Sliding: SlidingOptIn, FullInterval: 4}, Build: fixed(buildQwen3Next),
		Checks: []Check{{Config: "qwen3_next/Qwen__Qwen3-Next-80B-A3B-Thinking.config.json", Repo: "Qwen/Qwen3-Next-80B-A3B-Thinking",
			Published: "81.3B", Params: 81_300_000_000, Tolerance: 50_000_000, Source: "https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Thinking (Hub safetensors: 81.3B params)"}}}
}

func deepseekV32Family() Family {
	return Family{Name: "deepseek_v32", ModelTypes: []string{"deepseek_v32"},
		Build: func(mt string, t *reader, h []byte) (*Inventory, error) { return buildDeepseek(mt)(t, h) },
		Checks: []Check{{Config: "deepseek_v32/deepseek-ai__DeepSeek-V3.2-Exp.config.json", Repo: "deepseek-ai/DeepSeek-V3.2-Exp",
			Published: "685B", Params: 685_000_000_000, Tolerance: 500_000_000, Source: "https://huggingface.co/deepseek-ai/DeepSeek-V3.2-Exp (Hub safetensors: 685B params)"}}}
}

// GLM-5 (glm_moe_dsa): DeepSeek-V3.2's layout — MLA with a lightning
// indexer caching its own key, dense first_k_dense_replace layers, routed
// plus one shared expert, one MTP layer — at GLM's sizes. A release whose
// indexers are shared across layers (indexer_types "shared": GLM-5.2)
// stores fewer indexer tensors, which this tree does not enumerate.
func glmMoeDsaFamily() Family {
	build := buildDeepseek("glm_moe_dsa")
	return Family{Name: "glm_moe_dsa", ModelTypes: []string{"glm_moe_dsa"},
		Build: func(_ string, t *reader, h []byte) (*Inventory, error) {
			for i, s := range t.strs("indexer_types") {
				if s != "full" {
					return nil, fmt.Errorf("glm_moe_dsa: field %s[%d]: indexer type %q (an indexer shared across layers) is not supported", t.field("indexer_types"), i, s)
				}
			}
			if err := t.Err(); err != nil {
				return nil, err
			}
			return build(t, h)
		},
		Checks: []Check{{Config: "glm_moe_dsa/zai-org__GLM-5.config.json", Repo: "zai-org/GLM-5", ExcludesMTP: true,
			Published: "744B", Params: 744_000_000_000, Tolerance: 500_000_000,
			Source: "GLM-5 technical report, arXiv:2602.15763, architecture table: 744B total parameters, 40B activated, 1 MTP layer (counted apart)"}}}
}

// Mamba-2 (mamba2): every layer is a Mamba-2 mixer (transformers'
// Mamba2Config has no attention and no per-layer list). Only the layout
// is registered: no complete released config.json was found to check a
// module tree against (testdata/SOURCES.md), so the tensors come from a
// snapshot's headers.
func mamba2Family() Family {
	return Family{Name: "mamba2", ModelTypes: []string{"mamba2"}, Layout: Layout{AllLayers: "ssm"}}
}
