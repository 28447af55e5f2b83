package mlx

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"dossier/generator/safetensors"
)

// Count is what one storage kind holds: logical parameters (a packed
// 4-bit word counts its eight values) and the bytes they take, scales
// and biases apart.
type Count struct {
	Params int64 `json:"params"`
	Bytes  int64 `json:"bytes"`
}

// Sizes is an MLX checkpoint as its headers give it.
type Sizes struct {
	// TensorBytes is every tensor's bytes; ScaleBytes the part in the
	// quantization's scales and biases.
	TensorBytes, ScaleBytes int64
	// Params counts logical parameters: unpacked values of quantized
	// weights, elements of the rest; scales and biases are not counted.
	Params int64
	// Census is by storage kind: "affine-4bit-g64", "mxfp4-g32", or the
	// dtype of an unquantized tensor ("BF16").
	Census map[string]Count
	// LayerBytes are the bytes of each decoder layer (…layers.N.…),
	// ExpertBytes those of the routed experts (switch_mlp), OtherBytes
	// everything outside the layers (embedding, head, norms, vision).
	LayerBytes              []int64
	ExpertBytes, OtherBytes int64
	EmbeddingBytes          int64 // the token embedding, part of OtherBytes
	ExpertParams            int64 // logical parameters of the routed experts
	Quantized               int   // modules stored quantized
}

// BitsPerWeight is every tensor byte (scales and biases included) over
// the logical parameters.
func (s Sizes) BitsPerWeight() float64 {
	if s.Params == 0 {
		return 0
	}
	return float64(s.TensorBytes) * 8 / float64(s.Params)
}

// Kinds are the census keys, most parameters first.
func (s Sizes) Kinds() []string {
	ks := make([]string, 0, len(s.Census))
	for k := range s.Census {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		a, b := s.Census[ks[i]], s.Census[ks[j]]
		if a.Params != b.Params {
			return a.Params > b.Params
		}
		return ks[i] < ks[j]
	})
	return ks
}

var layerRe = regexp.MustCompile(`(?:^|\.)layers\.([0-9]+)\.`)

// maxLayers bounds the layer index a tensor name may carry.
const maxLayers = 1 << 12

// Size reads the checkpoint's tensors (every shard's) against its
// quantization block. A quantized module is a .weight stored packed in
// U32 words beside a .scales (and in affine mode a .biases); its input
// width is the scales' last dimension × the group size, and its bits,
// the packed width × 32 over that, must be the block's for the module.
func Size(q *Quantization, tensors []safetensors.TensorInfo) (Sizes, error) {
	by := make(map[string]*safetensors.TensorInfo, len(tensors))
	for i := range tensors {
		t := &tensors[i]
		if by[t.Name] != nil {
			return Sizes{}, fmt.Errorf("tensor %s: in two shards", t.Name)
		}
		by[t.Name] = t
	}
	s := Sizes{Census: map[string]Count{}}
	addLayer := func(name string, b int64) error {
		m := layerRe.FindStringSubmatch(name)
		if m == nil {
			s.OtherBytes += b
			if strings.HasSuffix(name, "embed_tokens.weight") || strings.HasSuffix(name, "embed_tokens.scales") || strings.HasSuffix(name, "embed_tokens.biases") {
				s.EmbeddingBytes += b
			}
			return nil
		}
		l, err := strconv.Atoi(m[1])
		if err != nil || l >= maxLayers {
			return fmt.Errorf("tensor %s: layer index beyond %d", name, maxLayers)
		}
		for len(s.LayerBytes) <= l {
			s.LayerBytes = append(s.LayerBytes, 0)
		}
		s.LayerBytes[l] += b
		if expert(name) {
			s.ExpertBytes += b
		}
		return nil
	}
	done := map[string]bool{}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := by[n]
		if done[n] {
			continue
		}
		elems, ok := t.Elements()
		if !ok {
			return Sizes{}, fmt.Errorf("tensor %s: shape overflows", n)
		}
		if _, ok := bytesOf(t); !ok {
			return Sizes{}, fmt.Errorf("tensor %s: dtype %s or size out of range", n, t.DType)
		}
		module, isWeight := strings.CutSuffix(n, ".weight")
		scales := by[module+".scales"]
		if !isWeight || scales == nil {
			if strings.HasSuffix(n, ".scales") || strings.HasSuffix(n, ".biases") {
				if by[strings.TrimSuffix(strings.TrimSuffix(n, ".scales"), ".biases")+".weight"] == nil {
					return Sizes{}, fmt.Errorf("tensor %s: scales or biases with no %s.weight", n, strings.TrimSuffix(strings.TrimSuffix(n, ".scales"), ".biases"))
				}
				continue // counted with their weight
			}
			if _, quantized := q.Modules[module]; quantized && isWeight {
				return Sizes{}, fmt.Errorf("tensor %s: quantization.%s gives its bits, but the checkpoint has no %s.scales", n, module, module)
			}
			b, _ := bytesOf(t)
			c := s.Census[t.DType]
			c.Params += elems
			c.Bytes += b
			s.Census[t.DType] = c
			s.Params += elems
			s.TensorBytes += b
			if expert(n) {
				s.ExpertParams += elems
			}
			if err := addLayer(n, b); err != nil {
				return Sizes{}, err
			}
			continue
		}
		p, ok := q.For(module)
		if !ok {
			return Sizes{}, fmt.Errorf("tensor %s: the quantization block leaves %s unquantized, but it has scales", n, module)
		}
		logical, kind, err := packed(n, t, scales, by[module+".biases"], p)
		if err != nil {
			return Sizes{}, err
		}
		wb, _ := bytesOf(t)
		sb, ok := bytesOf(scales)
		if !ok {
			return Sizes{}, fmt.Errorf("tensor %s.scales: dtype %s or size out of range", module, scales.DType)
		}
		if bi := by[module+".biases"]; bi != nil {
			bb, ok := bytesOf(bi)
			if !ok {
				return Sizes{}, fmt.Errorf("tensor %s.biases: dtype %s or size out of range", module, bi.DType)
			}
			sb += bb
			done[module+".biases"] = true
		}
		b := wb + sb
		done[module+".scales"] = true
		c := s.Census[kind]
		c.Params += logical
		c.Bytes += b
		s.Census[kind] = c
		s.Params += logical
		s.TensorBytes += b
		s.ScaleBytes += sb
		s.Quantized++
		if expert(n) {
			s.ExpertParams += logical
		}
		if err := addLayer(n, b); err != nil {
			return Sizes{}, err
		}
	}
	return s, nil
}

// packed checks one quantized module's tensors against its Params and
// returns its logical parameter count and census kind.
func packed(name string, w, scales, biases *safetensors.TensorInfo, p Params) (int64, string, error) {
	if w.DType != "U32" {
		return 0, "", fmt.Errorf("tensor %s: quantized weights are packed in U32 words, found %s", name, w.DType)
	}
	if len(w.Shape) == 0 || len(scales.Shape) != len(w.Shape) {
		return 0, "", fmt.Errorf("tensor %s: shape %v against scales %v", name, w.Shape, scales.Shape)
	}
	for i := 0; i < len(w.Shape)-1; i++ {
		if w.Shape[i] != scales.Shape[i] {
			return 0, "", fmt.Errorf("tensor %s: shape %v against scales %v", name, w.Shape, scales.Shape)
		}
	}
	last := len(w.Shape) - 1
	in := scales.Shape[last] * int64(p.GroupSize)
	if in <= 0 || in > 1<<40 || w.Shape[last]*32 != in*int64(p.Bits) {
		return 0, "", fmt.Errorf("tensor %s: %d words a row hold %d values at %d bits, but its scales cover %d × group %d = %d", name,
			w.Shape[last], w.Shape[last]*32/int64(p.Bits), p.Bits, scales.Shape[last], p.GroupSize, in)
	}
	switch {
	case p.HasBias() && biases == nil:
		return 0, "", fmt.Errorf("tensor %s: affine quantization needs %s.biases", name, strings.TrimSuffix(name, ".weight"))
	case !p.HasBias() && biases != nil:
		return 0, "", fmt.Errorf("tensor %s: %s quantization has no biases, but the checkpoint has some", name, p.Mode)
	case biases != nil && !sameShape(biases.Shape, scales.Shape):
		return 0, "", fmt.Errorf("tensor %s: biases %v against scales %v", name, biases.Shape, scales.Shape)
	}
	rows, _ := scales.Elements()
	rows /= max(scales.Shape[last], 1)
	kind := fmt.Sprintf("%s-%dbit-g%d", p.Mode, p.Bits, p.GroupSize)
	return rows * in, kind, nil
}

// bytesOf is what a tensor's shape and dtype take, whatever offsets a
// header gives (Size is handed shapes, not always laid-out headers).
func bytesOf(t *safetensors.TensorInfo) (int64, bool) {
	n, ok := t.Elements()
	bs, known := safetensors.BitSize(t.DType)
	if !ok || !known || n > (1<<62)/int64(bs) {
		return 0, false
	}
	return (n*int64(bs) + 7) / 8, true
}

func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// expert reports a routed expert's tensor: mlx-lm stacks them in a
// SwitchGLU (switch_mlp), or some models keep per-expert modules.
func expert(name string) bool {
	return strings.Contains(name, ".switch_mlp.") || strings.Contains(name, ".experts.")
}
