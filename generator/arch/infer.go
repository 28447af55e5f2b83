package arch

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// InferredSource marks what Infer derives.
const InferredSource = "inferred from tensor shapes"

// TensorShape is one tensor of a checkpoint's safetensors headers.
type TensorShape struct {
	Name  string
	Shape []int64
}

// Inferred is what a checkpoint's tensor names and shapes show about its
// decoder, whatever its model_type: per-layer kinds, what each attending
// layer caches per token, the conv state of the recurrent layers, and the
// routed experts. It stands for config.json when the family is unknown.
// What shapes do not determine stays zero with the reason in Missing:
// sliding and full attention have the same tensors, and a Mamba-2 or
// Gated DeltaNet in_proj gives n_groups × ssm_state_size (or key heads ×
// key head dim) as one product.
type Inferred struct {
	Prefix     string      // the decoder's layer prefix, e.g. "model.layers."
	LayerKinds []LayerKind // Full stands for any attention (full or sliding)
	// KVValues is, per layer, the values one token adds to the cache:
	// K and V rows for GQA, the latent (+ indexer key) for MLA; 0 for a
	// layer that does not attend.
	KVValues  []int64
	Attention Attention // of the attending layers
	// ConvValues is, per layer, the conv state a sequence keeps:
	// (kernel − 1) × channels of its depthwise convolution(s); 0 for none.
	ConvValues    []int64
	HeadDim       int64 // from a per-head q/k norm; 0 when the shapes do not show it
	RoutedExperts int64
	MoELayers     []int
	Missing       map[string]string
}

var layerRe = regexp.MustCompile(`^(.*?\blayers\.)(\d+)\.(.+)$`)

// offDecoder are name parts of towers and modules that are not the text
// decoder's layers.
var offDecoder = []string{"vision", "visual", "vit.", "audio", "mtp", "mm_projector", "speech"}

// Infer reads the decoder out of a checkpoint's tensors.
func Infer(ts []TensorShape) (*Inferred, error) {
	type layerTensors map[string][]int64 // name below "layers.N." → shape
	byPrefix := map[string]map[int]layerTensors{}
	for _, t := range ts {
		m := layerRe.FindStringSubmatch(t.Name)
		if m == nil || offTower(m[1]) {
			continue
		}
		i, err := strconv.Atoi(m[2])
		if err != nil || i > 1<<16 {
			continue
		}
		if byPrefix[m[1]] == nil {
			byPrefix[m[1]] = map[int]layerTensors{}
		}
		if byPrefix[m[1]][i] == nil {
			byPrefix[m[1]][i] = layerTensors{}
		}
		byPrefix[m[1]][i][m[3]] = t.Shape
	}
	prefix, most := "", 0
	for p, ls := range byPrefix {
		if len(ls) > most || (len(ls) == most && p < prefix) {
			prefix, most = p, len(ls)
		}
	}
	if most == 0 {
		return nil, fmt.Errorf("no decoder layers (layers.N.*) among %d tensors", len(ts))
	}
	layers := byPrefix[prefix]
	// DeepSeek-style MTP layers follow the decoder under the same prefix:
	// they carry their own embedding projection (eh_proj).
	n := 0
	for n < len(layers)+1 {
		l, ok := layers[n]
		if !ok || hasPart(l, "eh_proj.") {
			break
		}
		n++
	}
	in := &Inferred{Prefix: prefix, LayerKinds: make([]LayerKind, n), KVValues: make([]int64, n), ConvValues: make([]int64, n), Missing: map[string]string{}}
	var heads []int64
	for i := range n {
		l := layers[i]
		if rowsOf(l, "wkv") > 0 && rowsOf(l, "wo_a") > 0 {
			// DeepSeek-V4: one K=V row (wkv) behind a window and, where a
			// compressor is, compressed rows: no layer kind sizes it
			// (CompressedKV needs compress_ratios and sliding_window).
			return nil, fmt.Errorf("layer %d has DeepSeek-V4 compressed attention (%s%d.attn.wkv, wo_a): its cache needs config.json's compress_ratios and sliding_window", i, prefix, i)
		}
		k, kv, conv, att := classify(l)
		in.LayerKinds[i], in.KVValues[i], in.ConvValues[i] = k, kv, conv
		if att != "" {
			if in.Attention != "" && in.Attention != att {
				in.Missing["attention"] = "layers mix MLA and grouped-query attention"
			}
			in.Attention = att
		}
		if hd := perHeadNorm(l); hd > 0 {
			heads = append(heads, hd)
		}
		if e := experts(l); e > 0 {
			if in.RoutedExperts != 0 && in.RoutedExperts != e {
				in.Missing["routed_experts"] = fmt.Sprintf("layers route over different expert counts (%d, %d)", in.RoutedExperts, e)
			}
			in.RoutedExperts = e
			in.MoELayers = append(in.MoELayers, i)
		}
	}
	if len(heads) > 0 {
		in.HeadDim = heads[0]
	} else {
		in.Missing["head_dim"] = "no per-head q/k norm: the shapes give heads × head_dim, not each"
	}
	if containsKind(in.LayerKinds, SSM) {
		in.Missing["ssm_state"] = "a Mamba-2 in_proj gives n_groups × ssm_state_size as one product: the SSM state needs the config"
	}
	if containsKind(in.LayerKinds, Linear) {
		in.Missing["linear_state"] = "a linear-attention layer's key head count and key head dim multiply in its shapes: the recurrent state needs the config"
	}
	if containsKind(in.LayerKinds, Full) {
		in.Missing["sliding"] = "sliding-window and full attention have the same tensors: which layers slide needs the config"
	}
	return in, nil
}

func offTower(prefix string) bool {
	p := strings.ToLower(prefix)
	for _, w := range offDecoder {
		if strings.Contains(p, w) {
			return true
		}
	}
	return false
}

func hasPart[V any](l map[string]V, part string) bool {
	for k := range l {
		if strings.Contains(k, part) {
			return true
		}
	}
	return false
}

// rowsOf is dim 0 of the first tensor of module mod (any of its weight
// spellings: weight, weight_packed, qweight is not read); 0 when absent.
// Quantized payloads pack along the input dim, so rows are the outputs.
func rowsOf(l map[string][]int64, mod string) int64 {
	for _, suf := range []string{".weight", ".weight_packed"} {
		for k, s := range l {
			if (strings.HasSuffix(k, "."+mod+suf) || k == mod+suf) && len(s) > 0 {
				return s[0]
			}
		}
	}
	return 0
}

func colsOf(l map[string][]int64, mod string) int64 {
	for k, s := range l {
		if (strings.HasSuffix(k, "."+mod+".weight") || k == mod+".weight") && len(s) == 2 {
			return s[1]
		}
	}
	return 0
}

// classify names a layer's kind from its tensors: A_log marks a recurrent
// mixer (Mamba when it has D and an in_proj, else linear attention), a
// depthwise conv without A_log a short convolution, K/V projections (or a
// K projection doubling as V) or an MLA latent projection attention,
// anything else no token mixer.
func classify(l map[string][]int64) (kind LayerKind, kv, conv int64, att Attention) {
	conv = convState(l)
	switch {
	case hasSuffix(l, "A_log"):
		if hasSuffix(l, ".D") && hasPart(l, ".in_proj.") {
			return SSM, 0, conv, ""
		}
		return Linear, 0, conv, ""
	case hasPart(l, "conv.conv.weight") || hasPart(l, "short_conv."):
		return Conv, 0, conv, ""
	}
	if r := rowsOf(l, "kv_a_proj_with_mqa"); r > 0 {
		return Full, r + rowsOf(l, "indexer.wk"), 0, MLA
	}
	if k, v := rowsOf(l, "k_proj"), rowsOf(l, "v_proj"); k > 0 && v > 0 {
		return Full, k + v, 0, GQA
	} else if k > 0 && rowsOf(l, "q_proj") > 0 {
		// No v_proj: V is taken from k_proj (Gemma 4's attention_k_eq_v),
		// and K and V, normed apart, are both cached.
		return Full, 2 * k, 0, GQA
	}
	if qkv, o := rowsOf(l, "qkv_proj"), colsOf(l, "o_proj"); qkv > 0 && o > 0 && qkv > o {
		return Full, qkv - o, 0, GQA // fused [q; k; v]: o_proj's input is q's width
	}
	return FFN, 0, 0, ""
}

func hasSuffix(l map[string][]int64, suf string) bool {
	for k := range l {
		if strings.HasSuffix(k, suf) {
			return true
		}
	}
	return false
}

// convState sums (kernel − 1) × channels over a layer's depthwise convs
// ([channels, 1, kernel]).
func convState(l map[string][]int64) int64 {
	var n int64
	for k, s := range l {
		if strings.Contains(k, "conv") && strings.HasSuffix(k, ".weight") && len(s) == 3 && s[1] == 1 && s[2] > 1 {
			n += (s[2] - 1) * s[0]
		}
	}
	return n
}

// perHeadNorm is the width of a per-head q or k norm (Qwen3's q_norm
// [head_dim]), 0 when the layer has none or its norm spans all heads.
func perHeadNorm(l map[string][]int64) int64 {
	q := rowsOf(l, "q_proj")
	for k, s := range l {
		if (strings.HasSuffix(k, "q_norm.weight") || strings.HasSuffix(k, "q_layernorm.weight") || strings.HasSuffix(k, "query_layernorm.weight")) && len(s) == 1 && q > 0 && s[0] < q && q%s[0] == 0 {
			return s[0]
		}
	}
	return 0
}

var expertRe = regexp.MustCompile(`\.experts\.(\d+)\.`)

// experts counts a layer's routed experts: distinct indices under
// experts.N., or the leading dim of fused expert tensors (experts.gate_up_proj
// [E, …]).
func experts(l map[string][]int64) int64 {
	idx := map[string]bool{}
	var fused int64
	for k, s := range l {
		if strings.Contains(k, "shared_expert") {
			continue
		}
		if m := expertRe.FindStringSubmatch("." + k); m != nil {
			idx[m[1]] = true
			continue
		}
		if strings.Contains(k, "experts.") && len(s) == 3 && fused == 0 {
			fused = s[0]
		}
	}
	if len(idx) > 0 {
		return int64(len(idx))
	}
	return fused
}

// KVValuesPerToken sums the cache values every attending layer adds per token.
func (in *Inferred) KVValuesPerToken() int64 {
	var n int64
	for _, v := range in.KVValues {
		n += v
	}
	return n
}

// checkInferred compares what the tensors show with what config.json
// states, once both are read: an attending layer's cache per token must be
// the config's K and V widths, and experts the tensors route over must be
// the config's. A disagreement leaves the dependent facts unknown with
// both figures named; the tensors are not taken over the config.
func (p *parser) checkInferred() {
	a, in := p.a, p.inferred
	if in == nil || a.LayoutSource == "" || !strings.HasPrefix(a.LayoutSource, InferredSource) {
		return
	}
	for i, v := range in.KVValues {
		if i >= len(a.LayerKinds) {
			break
		}
		want := a.KVShapeOf(a.LayerKinds[i]).Values()
		if a.Attention == MLA {
			want = a.KVLoraRank + a.QKRopeDim + a.IndexHeadDim
		}
		if v != 0 && v != want {
			a.Missing["kv_shape"] = fmt.Sprintf("layer %d caches %d values per token by its tensor shapes, %d by config.json's head counts", i, v, want)
			break
		}
	}
	if in.RoutedExperts > 0 && a.RoutedExperts == 0 {
		a.Missing["num_experts"] = fmt.Sprintf("the tensors route over %d experts on %d layers (%s); config.json names no expert count", in.RoutedExperts, len(in.MoELayers), InferredSource)
	}
}
