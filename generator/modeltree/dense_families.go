package modeltree

// Dense decoder families described by a decoderSpec (decoder.go). Shapes
// follow transformers' modeling_<family>.py; each Check is a real
// config.json in testdata/ and the total the Hub or the model card
// publishes for it.

func qwen2Family() Family {
	return denseFamily("qwen2", []string{"qwen2"}, Layout{Sliding: SlidingOptIn},
		decoderSpec{norms: llamaNorms, qkvBias: flag{def: true}, tie: flag{key: "tie_word_embeddings"}},
		Check{Config: "qwen2/Qwen__Qwen2-7B-Instruct.config.json", Repo: "Qwen/Qwen2-7B-Instruct",
			Published: "7.62B", Params: 7_620_000_000, Tolerance: 5_000_000, Source: "https://huggingface.co/Qwen/Qwen2-7B-Instruct (Hub safetensors: 7.62B params)"})
}

func qwen3Family() Family {
	return denseFamily("qwen3", []string{"qwen3"}, Layout{Sliding: SlidingOptIn},
		decoderSpec{norms: llamaNorms, qkvBias: flag{key: "attention_bias"}, oBias: flag{key: "attention_bias"}, qkNorm: qkPerHead, tie: flag{key: "tie_word_embeddings"}},
		Check{Config: "qwen3/Qwen__Qwen3-8B.config.json", Repo: "Qwen/Qwen3-8B",
			Published: "8.2B (non-embedding 6.95B)", Params: 8_190_735_360, Tolerance: 50_000_000, Source: "https://huggingface.co/Qwen/Qwen3-8B (model card: Number of Parameters 8.2B; Hub safetensors 8.19B)"})
}
