// Package arch reads a Hugging Face config.json of any family into one
// normalized Architecture: layer kinds, attention and cache layout, mixture
// of experts, linear-attention state and quantization. A field the config
// does not state stays zero and is listed in Missing with the reason; it is
// never filled from the model's name or a guess.
package arch

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"dossier/generator/internal/hfconfig"
	"dossier/generator/modeltree"
)

// LayerKind is how a decoder layer attends.
type LayerKind string

const (
	Full    LayerKind = "full"    // full (global) attention: a KV cache that grows with context
	Sliding LayerKind = "sliding" // sliding-window attention: cache capped at the window
	Linear  LayerKind = "linear"  // linear attention (KDA, Gated DeltaNet): a fixed state per sequence
	SSM     LayerKind = "ssm"     // state-space mixer (Mamba, Mamba-2): conv + SSM state per sequence
	Conv    LayerKind = "conv"    // gated short convolution (LFM2): a conv state per sequence
	FFN     LayerKind = "ffn"     // a layer with no token mixer (Nemotron-H's MLP and MoE layers): no cache, no state
)

// StateKinds are the layer kinds that hold a fixed state per sequence
// instead of a cache growing with the context.
var StateKinds = []LayerKind{Linear, SSM, Conv}

// Attends reports whether a layer of kind k keeps a per-token KV cache.
func (k LayerKind) Attends() bool { return k == Full || k == Sliding }

// Attention is the attention mechanism of the full layers.
type Attention string

const (
	GQA Attention = "gqa" // multi-head / grouped-query attention with a K and V per KV head
	MLA Attention = "mla" // multi-head latent attention: one compressed latent per token
)

// Architecture is the normalized view of one config.json.
type Architecture struct {
	ModelType  string // top-level model_type
	Family     string // model_type of the text backbone (after unwrapping text_config)
	Wrapped    bool   // the text backbone sits under text_config
	HasVision  bool
	TorchDType string
	// RemoteCode: config.json maps the model to code it ships (auto_map),
	// which the engines load only with --trust-remote-code.
	RemoteCode bool
	// Architectures is config.json's architectures: the model classes
	// the engines look their support up by (deploy). Nil when absent or
	// not a list of strings: no size depends on it, so support is then
	// unchecked rather than the config refused.
	Architectures []string

	// FamilyKnown is set when this package knows how the family lays out
	// its layers when config.json does not list them. For any other family
	// the layout is read only from explicit per-layer fields; without them
	// LayerKinds stays nil and Missing["layer_kinds"] says why.
	FamilyKnown bool

	Hidden       int64
	Vocab        int64
	Context      int64  // max_position_embeddings
	ContextSrc   string // the config field Context came from
	Layers       int64
	TiedEmbed    bool
	Intermediate int64

	// LayerKinds has one entry per decoder layer, 0-based; nil when the
	// layout is unknown (see FamilyKnown).
	LayerKinds    []LayerKind
	LayoutSource  string // the config field the layout came from
	SlidingWindow int64

	Attention  Attention
	Heads      int64
	KVHeads    int64
	HeadDim    int64
	HeadDimSrc string // "head_dim" or "hidden_size / num_attention_heads"

	// KindKV is the cache shape of a layer kind whose layers cache another
	// shape than num_key_value_heads × head_dim (Gemma 4's global layers,
	// MiMo-V2-Flash's sliding layers); KVShapeOf reads it.
	KindKV map[LayerKind]KVShape
	// Compressed is DeepSeek-V4's window + compressed-row cache, nil for
	// any other model; its layers have no LayerKind (Missing says why).
	Compressed *CompressedKV

	KVLoraRank int64
	QLoraRank  int64
	QKRopeDim  int64
	QKNopeDim  int64
	VHeadDim   int64
	// DeepSeek-V3.2's lightning indexer: per layer it caches one key of
	// index_head_dim values per token beside the MLA latent.
	IndexHeadDim int64
	IndexHeads   int64

	// Linear attention (KDA, Gated DeltaNet).
	LinearKind       string // "kda", "gated_deltanet"
	LinearKHeads     int64
	LinearVHeads     int64
	LinearKHeadDim   int64
	LinearVHeadDim   int64
	LinearConvKernel int64

	// State-space layers (Mamba-2 when SSMHeads > 0, else Mamba-1 with one
	// state per inner channel).
	SSMStateSize  int64  // ssm_state_size: N
	SSMHeads      int64  // mamba_num_heads
	SSMHeadDim    int64  // mamba_head_dim
	SSMGroups     int64  // n_groups: B and C are shared within a group
	SSMConvKernel int64  // conv_kernel
	SSMInner      int64  // the mixer's inner width: heads × head_dim, else expand × hidden
	SSMInnerSrc   string // how SSMInner was read
	SSMStateDType string // mamba_ssm_cache_dtype when the config states one

	// Short-convolution layers (LFM2): conv_L_cache − 1 positions of
	// ConvChannels values each.
	ConvCache    int64 // conv_L_cache
	ConvChannels int64 // hidden_size for LFM2

	// Mixture of experts.
	RoutedExperts      int64
	ActiveExperts      int64
	SharedExperts      int64
	MoEIntermediate    int64
	SharedIntermediate int64 // shared_expert_intermediate_size when stated
	ExpertHidden       int64 // width the routed experts work in (LatentMoE), else Hidden
	MoELayers          []int // 0-based indices of MoE layers
	MTPLayers          int64

	Quant Quantization

	// Missing maps a field this package could not read to the reason.
	Missing map[string]string
}

// KVShape is what one GQA layer caches per token: a key of KDim and a
// value of VDim values for each of Heads KV heads.
type KVShape struct {
	Heads int64
	KDim  int64
	VDim  int64
	Src   string // the config fields the shape is read from
}

// Values is the values one token adds to the cache of a layer of shape s.
func (s KVShape) Values() int64 { return s.Heads * (s.KDim + s.VDim) }

// KVShapeOf is the cache shape of a GQA layer of kind k: the kind's own
// when config.json gives it one, else num_key_value_heads × (K head_dim +
// V v_head_dim, or head_dim when there is none).
func (a *Architecture) KVShapeOf(k LayerKind) KVShape {
	if s, ok := a.KindKV[k]; ok {
		return s
	}
	v := a.HeadDim
	if a.VHeadDim > 0 {
		v = a.VHeadDim
	}
	return KVShape{Heads: a.KVHeads, KDim: a.HeadDim, VDim: v, Src: "num_key_value_heads, " + a.HeadDimSrc}
}

// Quantization is what quantization_config (or hf_quant_config.json) says.
type Quantization struct {
	Method     string // "compressed-tensors", "fp8", "mxfp4", "modelopt", "" for none
	Format     string // compressed-tensors format, e.g. "mxfp4-pack-quantized"; for modelopt the quant_algo lowercased ("fp8", "nvfp4")
	Bits       int64
	GroupSize  int64
	ScaleDType string // e.g. "uint8", "bfloat16", "float32"
	Type       string // "int" or "float"
	Ignore     []string
	BlockSize  []int64
	Source     string // "config.json quantization_config", "text_config.quantization_config", "hf_quant_config.json"
	// KVCacheBits is the KV-cache width a checkpoint declares
	// (compressed-tensors kv_cache_scheme.num_bits, ModelOpt
	// kv_cache_quant_algo FP8), 0 when it declares none; KVCacheSrc names
	// the field.
	KVCacheBits int64
	KVCacheSrc  string
}

// Ignores reports whether the quantization leaves some modules unquantized.
func (q Quantization) Ignores() bool { return len(q.Ignore) > 0 }

// Count returns how many layers are of kind k.
func (a *Architecture) Count(k LayerKind) int {
	n := 0
	for _, l := range a.LayerKinds {
		if l == k {
			n++
		}
	}
	return n
}

// IsMoE reports whether the model routes tokens to experts.
func (a *Architecture) IsMoE() bool { return a.RoutedExperts > 0 }

// StateLayers counts the layers that hold a fixed state per sequence
// (linear attention, state-space, convolution).
func (a *Architecture) StateLayers() int {
	n := 0
	for _, k := range StateKinds {
		n += a.Count(k)
	}
	return n
}

// AttentionLayers counts the layers that keep a KV cache.
func (a *Architecture) AttentionLayers() int { return a.Count(Full) + a.Count(Sliding) }

// Hybrid reports whether the model mixes state-holding layers (linear
// attention, state-space, convolution) with attention layers. A model
// without a layer list is not hybrid.
func (a *Architecture) Hybrid() bool {
	return a.StateLayers() > 0 && a.AttentionLayers() > 0
}

// FullLayers1 returns the 1-based numbers of the full-attention layers.
func (a *Architecture) FullLayers1() []int {
	var out []int
	for i, k := range a.LayerKinds {
		if k == Full {
			out = append(out, i+1)
		}
	}
	return out
}

// Cadence is the mode of the gaps between consecutive full-attention
// layers (counting the gap from the start), not the minimum: K3's
// [4, 8, …, 92, 93] has a cadence of 4 despite one gap of 1. Ties go to
// the larger gap. ok is false when fewer than two full layers exist or
// every layer is full.
func (a *Architecture) Cadence() (int, bool) { return a.CadenceOf(Full) }

// CadenceOf is Cadence for the layers of kind k: the mode of the gaps
// between consecutive layers of that kind, counted in layers of any kind.
func (a *Architecture) CadenceOf(k LayerKind) (int, bool) {
	var at []int
	for i, l := range a.LayerKinds {
		if l == k {
			at = append(at, i+1)
		}
	}
	if len(at) < 2 || len(at) == len(a.LayerKinds) {
		return 0, false
	}
	counts := map[int]int{}
	prev := 0
	for _, l := range at {
		counts[l-prev]++
		prev = l
	}
	best, bestN := 0, 0
	for gap, n := range counts {
		if n > bestN || (n == bestN && gap > best) {
			best, bestN = gap, n
		}
	}
	return best, true
}

// obj is a config object: the shared reader's.
type obj = hfconfig.Object

// Parse reads a config.json. hfQuant is a sibling hf_quant_config.json or nil.
func Parse(config, hfQuant []byte) (*Architecture, error) {
	return ParseWithTensors(config, hfQuant, nil)
}

// ParseWithTensors is Parse with the checkpoint's tensors (names and
// shapes from its safetensors headers; nil when not at hand). For a family
// whose layout neither config.json nor the registry gives, the layer kinds
// are then inferred from the tensors (Infer) and say so in LayoutSource;
// the cache the tensors show is checked against the config's head counts.
func ParseWithTensors(config, hfQuant []byte, ts []TensorShape) (*Architecture, error) {
	top, err := hfconfig.Decode(config, "config.json")
	if err != nil {
		return nil, err
	}
	p := &parser{a: &Architecture{Missing: map[string]string{}}}
	if len(ts) > 0 {
		if in, err := Infer(ts); err == nil {
			p.inferred = in
		} else {
			p.a.Missing["inferred"] = "tensor shapes: " + err.Error()
		}
	}
	if err := p.parse(top, hfQuant); err != nil {
		return nil, err
	}
	return p.a, nil
}

type parser struct {
	a          *Architecture
	prefix     string           // "text_config." when the backbone is wrapped
	layoutRule modeltree.Layout // the family's layout defaults (registry)
	// patternMoE are the MoE layers a hybrid_override_pattern marks (E),
	// patternMoESet whether a pattern was read at all.
	patternMoE    []int
	patternMoESet bool
	inferred      *Inferred // from the checkpoint's tensors, nil without them
	err           error
}

// keep records the first error so the field reads below stay linear. A
// size stated per layer with differing values is valid in the family's
// own code: it makes what depends on it unknown, not the config bad.
func (p *parser) keep(err error) {
	var pl *hfconfig.PerLayerError
	if errors.As(err, &pl) {
		p.a.Missing[strings.TrimPrefix(pl.Field, p.prefix)] = pl.Error()
		return
	}
	if p.err == nil && err != nil {
		p.err = err
	}
}

func (p *parser) int(o obj, prefix string, keys ...string) int64 {
	v, _, err := o.Int(prefix, keys...)
	p.keep(err)
	return v
}

// need reads a size the sizing needs and whose zero is meaningless: a
// stated value must be positive, an absent one is recorded in Missing.
func (p *parser) need(o obj, prefix, name string, keys ...string) int64 {
	v, _, err := o.Positive(prefix, keys...)
	p.keep(err)
	if v == 0 && p.err == nil {
		p.a.Missing[name] = "config lacks " + strings.Join(keys, " / ")
	}
	return v
}

func (p *parser) parse(top obj, hfQuant []byte) error {
	a := p.a
	var err error
	a.ModelType, err = top.Str("", "model_type")
	p.keep(err)
	text, prefix := top, ""
	if tc, err := top.Sub("", "text_config"); err != nil {
		p.keep(err)
	} else if tc != nil {
		text, prefix, a.Wrapped = tc, "text_config.", true
	}
	p.prefix = prefix
	a.HasVision = top.Has("vision_config")
	a.RemoteCode = top.Has("auto_map")
	if archs, err := top.Strs("", "architectures"); err == nil {
		a.Architectures = archs
	}
	a.Family, err = text.Str(prefix, "model_type")
	p.keep(err)
	if a.Family == "" {
		a.Family = a.ModelType
	}
	if a.Family == "" {
		a.Missing["family"] = "config lacks model_type"
	}
	if f, ok := modeltree.Lookup(a.Family); ok {
		a.FamilyKnown, p.layoutRule = true, f.Layout
		// The family's config-class defaults stand for keys the release
		// omits (Gemma 3 4B's text_config states no head counts).
		for k, v := range f.Defaults {
			if !text.Has(k) {
				if text == nil {
					text = obj{}
				}
				text[k] = json.RawMessage(strconv.FormatInt(v, 10))
			}
		}
	}
	for _, src := range []struct {
		o      obj
		prefix string
	}{{text, prefix}, {top, ""}} {
		for _, k := range []string{"torch_dtype", "dtype"} {
			if a.TorchDType == "" {
				v, err := src.o.Str(src.prefix, k)
				p.keep(err)
				a.TorchDType = v
			}
		}
	}

	a.Hidden = p.need(text, prefix, "hidden_size", "hidden_size", "d_model", "n_embd")
	a.Vocab = p.need(text, prefix, "vocab_size", "vocab_size")
	ctx, ctxKey, err := text.Positive(prefix, "max_position_embeddings", "max_seq_len", "n_positions", "model_max_length")
	p.keep(err)
	a.Context, a.ContextSrc = ctx, ctxKey
	if ctx == 0 && p.err == nil {
		a.Missing["max_position_embeddings"] = "config lacks max_position_embeddings / max_seq_len / n_positions / model_max_length"
	}
	a.Layers = p.need(text, prefix, "num_hidden_layers", "num_hidden_layers", "num_layers", "n_layer")
	if a.Layers == 0 && p.err == nil {
		// Nemotron-H's config class derives the layer count from its
		// per-layer list when num_hidden_layers is not stated.
		if n := perLayerLen(text); n > 0 {
			a.Layers = n
			delete(a.Missing, "num_hidden_layers")
		}
	}
	a.Intermediate = p.int(text, prefix, "intermediate_size")
	tied, err := text.Bool(prefix, "tie_word_embeddings")
	p.keep(err)
	if !text.Has("tie_word_embeddings") {
		tied, err = top.Bool("", "tie_word_embeddings")
		p.keep(err)
	}
	a.TiedEmbed = tied

	p.attention(text, prefix)
	p.layout(text, prefix)
	if p.err != nil {
		return p.err
	}
	p.moe(text, prefix)
	p.checkInferred()
	p.quant(top, text, prefix, hfQuant)
	return p.err
}

func (p *parser) attention(text obj, prefix string) {
	a := p.a
	a.Heads = p.need(text, prefix, "num_attention_heads", "num_attention_heads", "n_head")
	a.KVLoraRank = p.int(text, prefix, "kv_lora_rank")
	a.QLoraRank = p.int(text, prefix, "q_lora_rank")
	a.QKRopeDim = p.int(text, prefix, "qk_rope_head_dim")
	a.QKNopeDim = p.int(text, prefix, "qk_nope_head_dim")
	a.VHeadDim = p.int(text, prefix, "v_head_dim")
	a.IndexHeadDim = p.int(text, prefix, "index_head_dim")
	a.IndexHeads = p.int(text, prefix, "index_n_heads")
	if a.KVLoraRank > 0 {
		// MLA caches one latent per token; num_key_value_heads and head_dim
		// do not size it, so they are not read for the cache.
		a.Attention = MLA
		if a.QKRopeDim == 0 {
			a.Missing["qk_rope_head_dim"] = "MLA config lacks qk_rope_head_dim"
		}
		return
	}
	a.Attention = GQA
	kv, key, err := text.Positive(prefix, "num_key_value_heads", "num_kv_heads", "multi_query_group_num")
	p.keep(err)
	if key == "" && a.Heads > 0 {
		kv = a.Heads // transformers' default: no key/value grouping
	}
	a.KVHeads = kv
	if a.Heads > 0 && kv > 0 && (kv > a.Heads || a.Heads%kv != 0) {
		p.keep(fmt.Errorf("field %s%s: expected a divisor of the %d attention heads (num_attention_heads), found %d", prefix, key, a.Heads, kv))
	}
	hd, key, err := text.Positive(prefix, "head_dim", "kv_channels", "attention_head_dim")
	p.keep(err)
	switch {
	case key != "" && hd > 0:
		a.HeadDim, a.HeadDimSrc = hd, key
	case a.Heads > 0 && a.Hidden > 0 && a.Hidden%a.Heads == 0:
		a.HeadDim, a.HeadDimSrc = a.Hidden/a.Heads, "hidden_size / num_attention_heads"
	default:
		a.Missing["head_dim"] = "config lacks head_dim and hidden_size / num_attention_heads is not whole"
	}
	if a.KVHeads == 0 {
		a.Missing["num_key_value_heads"] = "config lacks num_key_value_heads"
	}
	p.kvShapeKeys(text, prefix)
}

// kvShapeKeys reads Gemma 4's global layers' own cache shape
// (transformers' Gemma4TextAttention): a non-sliding layer attends with
// global_head_dim when set, and with attention_k_eq_v it has no v_proj and
// num_global_key_value_heads KV heads. K and V still differ (K goes through
// k_norm and RoPE, V through v_norm) and both are cached, so K=V saves
// weights, not cache. Layers reusing another layer's cache
// (num_kv_shared_layers) are not modelled: the cache is unknown.
func (p *parser) kvShapeKeys(text obj, prefix string) {
	a := p.a
	if n := p.int(text, prefix, "num_kv_shared_layers"); n > 0 {
		a.Missing["kv_shape"] = fmt.Sprintf("field %snum_kv_shared_layers: the last %d layers reuse earlier layers' cache; that sharing is not modelled", prefix, n)
	}
	gh := p.int(text, prefix, "global_head_dim")
	keq, err := text.Bool(prefix, "attention_k_eq_v")
	p.keep(err)
	if gh == 0 && !keq {
		return
	}
	def := a.KVShapeOf(Full)
	full := KVShape{Heads: a.KVHeads, KDim: a.HeadDim, VDim: a.HeadDim, Src: "num_key_value_heads, " + a.HeadDimSrc}
	if gh > 0 {
		full.KDim, full.VDim, full.Src = gh, gh, "num_key_value_heads, "+prefix+"global_head_dim"
	}
	if keq {
		gk := p.int(text, prefix, "num_global_key_value_heads")
		if gk == 0 {
			a.Missing["kv_shape"] = fmt.Sprintf("field %sattention_k_eq_v: the global layers take num_global_key_value_heads KV heads, which config.json does not state", prefix)
			return
		}
		full.Heads = gk
		full.Src = strings.Replace(full.Src, "num_key_value_heads", prefix+"num_global_key_value_heads ("+prefix+"attention_k_eq_v)", 1)
	}
	if full.Heads != def.Heads || full.KDim != def.KDim || full.VDim != def.VDim {
		if a.KindKV == nil {
			a.KindKV = map[LayerKind]KVShape{}
		}
		a.KindKV[Full] = full
	}
}

func (p *parser) layout(text obj, prefix string) {
	a := p.a
	n := int(a.Layers)
	if n <= 0 || n > 1<<16 {
		if n > 1<<16 {
			p.keep(fmt.Errorf("field %snum_hidden_layers: %d is not a plausible layer count", prefix, n))
		}
		return
	}
	kinds := make([]LayerKind, n)
	for i := range kinds {
		kinds[i] = Full
	}
	if p.compressed(text, prefix, n) {
		return
	}
	a.LayoutSource = "every layer is full attention (no layer-kind field in config)"
	window, _, err := text.Limit(prefix, "sliding_window")
	p.keep(err)
	if window == 0 && p.layoutRule.WindowKey != "" {
		window, _, err = text.Limit(prefix, p.layoutRule.WindowKey)
		p.keep(err)
	}
	// Qwen configs apply sliding_window only with use_sliding_window
	// (default false in transformers); Mistral applies it when set.
	useSliding := p.layoutRule.Sliding == modeltree.SlidingAll
	if text.Has("use_sliding_window") {
		useSliding, err = text.Bool(prefix, "use_sliding_window")
		p.keep(err)
	}
	maxWindow, mwKey, err := text.Int(prefix, "max_window_layers")
	p.keep(err)

	lac, err := text.Sub(prefix, "linear_attn_config")
	p.keep(err)
	listed := ""
	if lac == nil {
		listed = p.listedLayout(text, prefix, kinds)
	}
	interval := p.int(text, prefix, "full_attention_interval")

	switch {
	case lac != nil:
		lp := prefix + "linear_attn_config."
		full, err := lac.Ints(lp, "full_attn_layers")
		p.keep(err)
		for i := range kinds {
			kinds[i] = Linear
		}
		for _, l := range full {
			if l < 1 || l > int64(n) {
				p.keep(fmt.Errorf("field %sfull_attn_layers: layer %d outside 1..%d (the list is 1-based)", lp, l, n))
				return
			}
			kinds[l-1] = Full
		}
		a.LayoutSource = "linear_attn_config.full_attn_layers (1-based)"
		a.LinearKind = "kda"
		a.LinearKHeads = p.int(lac, lp, "num_heads")
		a.LinearVHeads = a.LinearKHeads
		a.LinearKHeadDim = p.int(lac, lp, "head_dim")
		a.LinearVHeadDim = a.LinearKHeadDim
		a.LinearConvKernel = p.int(lac, lp, "short_conv_kernel_size")
	case listed != "":
		if listed == "-" { // read, but not sizable or not valid: Missing or p.err says why
			return
		}
		a.LayoutSource = listed
	case p.layoutRule.AllLayers != "":
		for i := range kinds {
			kinds[i] = LayerKind(p.layoutRule.AllLayers)
		}
		a.LayoutSource = fmt.Sprintf("every %s layer is %s (the family has one kind of mixer)", a.Family, p.layoutRule.AllLayers)
	case interval > 0:
		for i := range kinds {
			if (i+1)%int(interval) != 0 {
				kinds[i] = Linear
			}
		}
		a.LayoutSource = fmt.Sprintf("full_attention_interval = %d", interval)
	case p.layoutRule.FullInterval > 0:
		// e.g. transformers' Qwen3NextConfig defaults full_attention_interval to 4.
		n := p.layoutRule.FullInterval
		for i := range kinds {
			if (i+1)%n != 0 {
				kinds[i] = Linear
			}
		}
		a.LayoutSource = fmt.Sprintf("full_attention_interval absent: %s default %d", a.Family, n)
	case p.layoutRule.SlidingPattern > 0 && window > 0:
		// Gemma: every n-th layer global, the others sliding.
		var n int64
		if key := p.layoutRule.SlidingPatternKey; key != "" {
			n = p.int(text, prefix, key)
		}
		src := fmt.Sprintf("%s = %d", p.layoutRule.SlidingPatternKey, n)
		if n <= 0 {
			n = int64(p.layoutRule.SlidingPattern)
			src = fmt.Sprintf("the %s default", a.Family)
		}
		for i := range kinds {
			if int64(i+1)%n != 0 {
				kinds[i] = Sliding
			}
		}
		a.LayoutSource = fmt.Sprintf("a %d-token local window on every layer but each %d-th, which is global (%s)", window, n, src)
	case !a.FamilyKnown && p.inferred != nil && len(p.inferred.LayerKinds) == n && window == 0 && !windowed(text, prefix):
		// The tensors show each layer's mixer; without a sliding_window
		// the attending layers are full attention.
		copy(kinds, p.inferred.LayerKinds)
		a.LayoutSource = fmt.Sprintf("%s (%sN.*)", InferredSource, p.inferred.Prefix)
	case !a.FamilyKnown:
		// An unknown family may mix attention, sliding windows and state-space
		// layers by its own convention: do not guess "all full attention".
		a.SlidingWindow = window
		if p.inferred != nil {
			a.Missing["inferred"] = fmt.Sprintf("tensor shapes show %d layers (config: %d) under %s; they do not tell which layers attend within a window (sliding_window %d, %s)", len(p.inferred.LayerKinds), n, p.inferred.Prefix, window, strings.Join(windowKeys, ", "))
		}
		a.LayoutSource = ""
		a.Missing["layer_kinds"] = fmt.Sprintf("unsupported family %s: config.json lists no layer kinds (layer_types, linear_attn_config, full_attention_interval) and the family's default layout is not known", familyName(a.Family))
		return
	case window > 0 && a.Context > 0 && window >= a.Context && !text.Has("layer_types"):
		// A window as long as the context never bites (PhiMoE states
		// 131,072 for a 131,072-token model): every layer is full.
		a.LayoutSource = fmt.Sprintf("every layer full attention: sliding_window %d ≥ the %d-token context", window, a.Context)
	case window > 0 && useSliding && p.layoutRule.Sliding != modeltree.SlidingIgnore:
		// A window with no per-layer list applies to every layer, or with
		// Qwen's max_window_layers to the layers from that index on.
		from := 0
		if mwKey != "" && maxWindow > 0 {
			from = int(min(maxWindow, int64(n)))
		}
		for i := from; i < n; i++ {
			kinds[i] = Sliding
		}
		a.LayoutSource = "sliding_window on every layer"
		if from > 0 {
			a.LayoutSource = fmt.Sprintf("sliding_window on layers from max_window_layers = %d", maxWindow)
		}
	}
	if window > 0 {
		a.SlidingWindow = window
	}
	if containsKind(kinds, SSM) {
		p.ssm(text, prefix)
	}
	if containsKind(kinds, Conv) {
		a.ConvCache = p.int(text, prefix, "conv_L_cache")
		a.ConvChannels = a.Hidden
		if a.ConvCache == 0 {
			a.Missing["conv_L_cache"] = "config lacks conv_L_cache, the short convolution's length"
		}
	}
	if a.LinearKind == "" && containsKind(kinds, Linear) {
		a.LinearKind = "gated_deltanet"
		a.LinearKHeads = p.int(text, prefix, "linear_num_key_heads")
		a.LinearVHeads = p.int(text, prefix, "linear_num_value_heads")
		a.LinearKHeadDim = p.int(text, prefix, "linear_key_head_dim")
		a.LinearVHeadDim = p.int(text, prefix, "linear_value_head_dim")
		a.LinearConvKernel = p.int(text, prefix, "linear_conv_kernel_dim")
	}
	a.LayerKinds = kinds
}

// windowKeys name local-attention windows families state under other
// names than sliding_window (Llama 4's chunks, MiMo's sliding_window_size).
var windowKeys = []string{"attention_chunk_size", "sliding_window_size", "local_window_size"}

// windowed reports whether the config states a local-attention window
// under one of windowKeys: tensors alone then cannot tell which layers
// attend locally.
func windowed(text obj, prefix string) bool {
	for _, k := range windowKeys {
		if v, _, err := text.Limit(prefix, k); err == nil && v > 0 {
			return true
		}
	}
	return false
}

// perLayerLen is the length of a per-layer list that fixes the layer
// count (layers_block_type, hybrid_override_pattern), 0 when none does.
func perLayerLen(text obj) int64 {
	if ts, err := text.Strs("", "layers_block_type"); err == nil && len(ts) > 0 {
		return int64(len(ts))
	}
	if pat, err := text.Str("", "hybrid_override_pattern"); err == nil && pat != "" {
		return int64(len([]rune(pat)))
	}
	return 0
}

func familyName(f string) string {
	if f == "" {
		return "(no model_type)"
	}
	return f
}

func containsKind(ks []LayerKind, k LayerKind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

func (p *parser) moe(text obj, prefix string) {
	a := p.a
	routed, routedKey, err := text.Positive(prefix, "n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts")
	p.keep(err)
	a.RoutedExperts = routed
	if a.RoutedExperts == 0 {
		return
	}
	active, activeKey, err := text.Positive(prefix, "num_experts_per_tok", "num_experts_per_token", "experts_per_token", "moe_topk", "moe_k", "top_k_experts")
	p.keep(err)
	if err == nil && active > routed {
		p.keep(fmt.Errorf("field %s%s: %d experts per token exceed the %d routed experts of %s%s", prefix, activeKey, active, routed, prefix, routedKey))
		return
	}
	a.ActiveExperts = active
	if a.ActiveExperts == 0 {
		a.Missing["num_experts_per_tok"] = "MoE config lacks num_experts_per_tok"
	}
	a.SharedExperts = p.int(text, prefix, "n_shared_experts", "num_shared_experts", "num_shared_expert", "moe_num_shared_experts")
	a.SharedIntermediate = p.int(text, prefix, "shared_expert_intermediate_size", "moe_shared_expert_intermediate_size")
	if a.SharedExperts == 0 && a.SharedIntermediate > 0 {
		a.SharedExperts = 1
	}
	a.MoEIntermediate = p.int(text, prefix, "moe_intermediate_size")
	if a.MoEIntermediate == 0 {
		a.MoEIntermediate = a.Intermediate // Mixtral and gpt-oss size experts with intermediate_size
	}
	a.ExpertHidden = p.int(text, prefix, "routed_expert_hidden_size")
	if a.ExpertHidden == 0 {
		a.ExpertHidden = a.Hidden
	}
	a.MTPLayers = p.int(text, prefix, "num_nextn_predict_layers")
	if p.patternMoESet {
		a.MoELayers = p.patternMoE
		return
	}
	if text.Has("mlp_layer_types") {
		// GLM-5: "dense" or "sparse" per layer.
		types, err := text.Strs(prefix, "mlp_layer_types")
		p.keep(err)
		if err == nil && len(types) != int(a.Layers) {
			p.keep(fmt.Errorf("field %smlp_layer_types: %d entries for %d layers", prefix, len(types), a.Layers))
		}
		for i, t := range types {
			if t == "sparse" || t == "moe" {
				a.MoELayers = append(a.MoELayers, i)
			}
		}
		return
	}
	if text.Has("expert_layer_period") {
		// Jamba: experts on layer i when i % expert_layer_period == expert_layer_offset.
		period, _, err := text.Positive(prefix, "expert_layer_period")
		p.keep(err)
		offset := p.int(text, prefix, "expert_layer_offset")
		for i := int64(0); period > 0 && i < a.Layers; i++ {
			if i%period == offset {
				a.MoELayers = append(a.MoELayers, int(i))
			}
		}
		return
	}
	firstDense := p.int(text, prefix, "first_k_dense_replace", "moe_layer_start_index")
	if text.IsList("moe_layer_freq") {
		// MiMo-V2-Flash, MiniMax-M3: one 0/1 flag per layer.
		flags, err := text.Ints(prefix, "moe_layer_freq")
		p.keep(err)
		if err == nil && len(flags) != int(a.Layers) {
			p.keep(fmt.Errorf("field %smoe_layer_freq: %d per-layer flags for %d layers", prefix, len(flags), a.Layers))
			return
		}
		for i, f := range flags {
			if f != 0 && int64(i) >= firstDense {
				a.MoELayers = append(a.MoELayers, i)
			}
		}
		return
	}
	freq, freqKey, err := text.Int(prefix, "moe_layer_freq", "decoder_sparse_step")
	p.keep(err)
	if freq <= 0 {
		freq = 1
	}
	mlpOnly, err := text.Ints(prefix, "mlp_only_layers")
	p.keep(err)
	dense := map[int64]bool{}
	for _, l := range mlpOnly {
		dense[l] = true
	}
	for i := int64(0); i < a.Layers; i++ {
		if i < firstDense || dense[i] {
			continue
		}
		// DeepSeek (moe_layer_freq): layers past first_k_dense_replace with
		// i % freq == 0; Qwen (decoder_sparse_step): (i+1) % step == 0.
		// Both are every layer at 1.
		if freq > 1 && freqKey == "moe_layer_freq" && i%freq != 0 {
			continue
		}
		if freq > 1 && freqKey != "moe_layer_freq" && (i+1)%freq != 0 {
			continue
		}
		a.MoELayers = append(a.MoELayers, int(i))
	}
}

func (p *parser) quant(top, text obj, prefix string, hfQuant []byte) {
	a := p.a
	qc, src := obj(nil), ""
	if q, err := top.Sub("", "quantization_config"); err != nil {
		p.keep(err)
	} else if q != nil {
		qc, src = q, "quantization_config"
	}
	if qc == nil && prefix != "" {
		if q, err := text.Sub(prefix, "quantization_config"); err != nil {
			p.keep(err)
		} else if q != nil {
			qc, src = q, prefix+"quantization_config"
		}
	}
	if qc == nil && len(hfQuant) > 0 {
		p.modelopt(hfQuant)
		return
	}
	if qc == nil {
		return
	}
	q := &a.Quant
	q.Source = "config.json " + src
	pre := src + "."
	var err error
	q.Method, err = qc.Str(pre, "quant_method")
	p.keep(err)
	q.Format, err = qc.Str(pre, "format")
	p.keep(err)
	ign, err := qc.Strs(pre, "ignore")
	p.keep(err)
	mnc, err := qc.Strs(pre, "modules_to_not_convert")
	p.keep(err)
	q.Ignore = append(ign, mnc...)
	q.BlockSize, err = qc.Ints(pre, "weight_block_size")
	p.keep(err)
	if q.Method == "" && qc.Has("quant_algo") {
		q.Method = "modelopt" // a ModelOpt export that omits quant_method (modeltree reads it so too)
	}
	if q.Method == "modelopt" {
		// A ModelOpt export may carry its hf_quant_config.json section in
		// config.json: nested under "quantization" or flat.
		sec, err := qc.Sub(pre, "quantization")
		p.keep(err)
		if sec != nil {
			p.modeloptSection(sec, pre+"quantization.")
		} else {
			p.modeloptSection(qc, pre)
		}
		if q.KVCacheBits == 0 {
			p.kvScheme(qc, pre)
		}
		return
	}
	switch q.Method {
	case "fp8":
		q.Bits, q.Type, q.ScaleDType = 8, "float", "float32"
	case "mxfp4":
		q.Bits, q.Type, q.GroupSize, q.ScaleDType = 4, "float", 32, "uint8"
	}
	p.kvScheme(qc, pre)
	groups, err := qc.Sub(pre, "config_groups")
	p.keep(err)
	names := make([]string, 0, len(groups))
	for k := range groups {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) > 0 {
		gp := pre + "config_groups." + names[0] + "."
		g, err := groups.Sub(pre+"config_groups.", names[0])
		p.keep(err)
		w, err := g.Sub(gp, "weights")
		p.keep(err)
		if w != nil {
			q.Bits = p.int(w, gp+"weights.", "num_bits")
			q.GroupSize = p.int(w, gp+"weights.", "group_size")
			sd, err := w.Str(gp+"weights.", "scale_dtype")
			p.keep(err)
			q.ScaleDType = strings.TrimPrefix(sd, "torch.")
			q.Type, err = w.Str(gp+"weights.", "type")
			p.keep(err)
		}
		if f, err := g.Str(gp, "format"); err == nil && f != "" && q.Format == "" {
			q.Format = f
		}
	}
	if q.Method == "compressed-tensors" && q.ScaleDType == "" {
		switch {
		case strings.HasPrefix(q.Format, "mxfp4"):
			q.ScaleDType = "uint8"
		case strings.HasPrefix(q.Format, "nvfp4"):
			q.ScaleDType = "float8_e4m3fn"
		default:
			// compressed-tensors stores scales in the model's dtype by default.
			q.ScaleDType = a.TorchDType
		}
	}
}

// kvScheme reads a compressed-tensors kv_cache_scheme: an object with
// num_bits, or a scheme name, which transformers also takes.
func (p *parser) kvScheme(qc obj, pre string) {
	a, q := p.a, &p.a.Quant
	if hfconfig.Kind(qc["kv_cache_scheme"]) == "a string" {
		// transformers' compressed-tensors config also takes a scheme name.
		name, err := qc.Str(pre, "kv_cache_scheme")
		p.keep(err)
		if bits := kvSchemeBits(name); bits > 0 {
			q.KVCacheBits, q.KVCacheSrc = bits, fmt.Sprintf("%s KV cache (%skv_cache_scheme)", name, pre)
		} else {
			a.Missing["kv_cache_scheme"] = fmt.Sprintf("field %skv_cache_scheme: scheme %q is not one dossier knows the width of", pre, name)
		}
	} else if kv, err := qc.Sub(pre, "kv_cache_scheme"); err != nil {
		p.keep(err)
	} else if kv != nil {
		if bits := p.int(kv, pre+"kv_cache_scheme.", "num_bits"); bits > 0 {
			q.KVCacheBits, q.KVCacheSrc = bits, fmt.Sprintf("%d-bit KV cache (%skv_cache_scheme)", bits, pre)
		}
	}
}

// kvSchemeBits is the width of a KV-cache scheme named by a string; 0 when
// not known.
func kvSchemeBits(name string) int64 {
	switch strings.ToUpper(name) {
	case "FP8", "FP8_E4M3", "FP8_E5M2", "INT8":
		return 8
	}
	return 0
}

// modelopt reads a sibling hf_quant_config.json: NVIDIA ModelOpt's
// "quantization" section.
func (p *parser) modelopt(b []byte) {
	top, err := hfconfig.Decode(b, "hf_quant_config.json")
	if err != nil {
		p.keep(err)
		return
	}
	q := &p.a.Quant
	q.Method, q.Source = "modelopt", "hf_quant_config.json"
	before := p.err
	if sec, err := top.Sub("", "quantization"); err != nil {
		p.keep(err)
	} else if sec != nil {
		p.modeloptSection(sec, "quantization.")
	}
	if before == nil && p.err != nil {
		p.err = fmt.Errorf("hf_quant_config.json: %w", p.err)
	}
}

// modeloptSection reads quant_algo, group_size and exclude_modules of a
// ModelOpt section and fills in how the algorithm stores weights, as
// modeltree lays the tensors out: FP8 is one F8_E4M3 value per weight with
// FP32 per-tensor scales; NVFP4 packs two FP4 values per U8 byte with one
// F8_E4M3 scale per 16 values (group_size) and FP32 global scales. Any
// other algorithm leaves Bits zero: its storage is not known here.
func (p *parser) modeloptSection(sec obj, pre string) {
	q := &p.a.Quant
	q.Method = "modelopt"
	algo, err := sec.Str(pre, "quant_algo")
	p.keep(err)
	q.Format = strings.ToLower(algo)
	q.GroupSize = p.int(sec, pre, "group_size")
	q.Ignore, err = sec.Strs(pre, "exclude_modules")
	p.keep(err)
	if kv, err := sec.Str(pre, "kv_cache_quant_algo"); err != nil {
		p.keep(err)
	} else if strings.EqualFold(kv, "FP8") {
		q.KVCacheBits, q.KVCacheSrc = 8, "FP8 KV cache ("+pre+"kv_cache_quant_algo)"
	}
	switch q.Format {
	case "fp8":
		q.Bits, q.Type, q.ScaleDType, q.GroupSize = 8, "float", "float32", 0
	case "nvfp4":
		q.Bits, q.Type, q.ScaleDType = 4, "float", "float8_e4m3fn"
		if q.GroupSize == 0 {
			q.GroupSize = 16 // ModelOpt's NVFP4 block size
		}
	}
}
