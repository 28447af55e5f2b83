// Package mlx sizes an MLX checkpoint (mlx-community's conversions) from
// its config.json "quantization" block and its safetensors headers, the
// way the released checkpoint is sized: bytes, parameters, bits per
// weight with the scales and biases counted, and a census by storage
// kind; and plans it on a Mac with mlx_lm.server.
package mlx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Params are one module's quantization: bits per value, values per
// group sharing a scale (and, in affine mode, a bias), and the mode.
type Params struct {
	Bits      int    `json:"bits"`
	GroupSize int    `json:"group_size"`
	Mode      string `json:"mode"` // "affine" (scales and biases), "mxfp4", "mxfp8", "nvfp4" (scales only)
}

// Quantization is config.json's quantization block as mlx-lm writes it
// (mlx_lm/utils.py quantize_model): the default Params, and per module
// path an override, or Skip for a module a predicate left unquantized.
type Quantization struct {
	Default Params
	Modules map[string]Params
	Skip    map[string]bool
}

// Modes mlx supports, with whether a group carries a bias beside its
// scale.
var modes = map[string]bool{"affine": true, "mxfp4": false, "mxfp8": false, "nvfp4": false}

// maxModules bounds the per-module overrides: a model with more than a
// million quantized modules is not a checkpoint a Mac runs.
const maxModules = 1 << 20

// ParseConfig reads the quantization block of config.json: nil when the
// checkpoint is not quantized. Errors name the field.
func ParseConfig(config []byte) (*Quantization, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(config, &top); err != nil {
		return nil, fmt.Errorf("config.json: %w", err)
	}
	raw, key := top["quantization"], "quantization"
	if raw == nil {
		// mlx-lm writes both; a conversion edited by hand may keep one.
		raw, key = top["quantization_config"], "quantization_config"
	}
	if raw == nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil
	}
	var block map[string]json.RawMessage
	if err := json.Unmarshal(raw, &block); err != nil {
		return nil, fmt.Errorf("field %s: expected an object: %w", key, err)
	}
	if _, ok := block["bits"]; !ok {
		// quantization_config of another method (compressed-tensors, …)
		// is not mlx's.
		if _, qm := block["quant_method"]; qm {
			return nil, nil
		}
	}
	q := &Quantization{Modules: map[string]Params{}, Skip: map[string]bool{}}
	if err := params(block, key, &q.Default); err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(block))
	for k := range block {
		if k != "bits" && k != "group_size" && k != "mode" {
			paths = append(paths, k)
		}
	}
	if len(paths) > maxModules {
		return nil, fmt.Errorf("field %s: %d module overrides, more than %d", key, len(paths), maxModules)
	}
	sort.Strings(paths)
	for _, p := range paths {
		field := key + "." + p
		if p == "" || strings.TrimSpace(p) != p {
			return nil, fmt.Errorf("field %s: empty or padded module path %q", key, p)
		}
		v := bytes.TrimSpace(block[p])
		switch {
		case bytes.Equal(v, []byte("false")):
			q.Skip[p] = true
		case bytes.Equal(v, []byte("true")):
			q.Modules[p] = q.Default
		default:
			var m map[string]json.RawMessage
			if err := json.Unmarshal(v, &m); err != nil {
				return nil, fmt.Errorf("field %s: expected an object of bits and group_size, or true/false", field)
			}
			pp := Params{Mode: q.Default.Mode}
			if err := params(m, field, &pp); err != nil {
				return nil, err
			}
			q.Modules[p] = pp
		}
	}
	return q, nil
}

// params reads bits, group_size and mode from m into p, with the mode
// defaulting to p's (affine at the top).
func params(m map[string]json.RawMessage, field string, p *Params) error {
	if err := intField(m, "bits", field, &p.Bits); err != nil {
		return err
	}
	if err := intField(m, "group_size", field, &p.GroupSize); err != nil {
		return err
	}
	if r, ok := m["mode"]; ok {
		if err := json.Unmarshal(r, &p.Mode); err != nil {
			return fmt.Errorf("field %s.mode: expected a string", field)
		}
	}
	if p.Mode == "" {
		p.Mode = "affine"
	}
	if _, ok := modes[p.Mode]; !ok {
		return fmt.Errorf("field %s.mode: expected affine, mxfp4, mxfp8 or nvfp4, found %q", field, p.Mode)
	}
	switch {
	case p.Bits < 1 || p.Bits > 8:
		return fmt.Errorf("field %s.bits: expected 1 to 8, found %d", field, p.Bits)
	case p.GroupSize < 2 || p.GroupSize > 1<<16 || p.GroupSize&(p.GroupSize-1) != 0:
		return fmt.Errorf("field %s.group_size: expected a power of two from 2 to 65536, found %d", field, p.GroupSize)
	}
	return nil
}

func intField(m map[string]json.RawMessage, name, field string, dst *int) error {
	r, ok := m[name]
	if !ok {
		return fmt.Errorf("field %s.%s: missing", field, name)
	}
	var f float64
	if err := json.Unmarshal(r, &f); err != nil || f != float64(int(f)) {
		return fmt.Errorf("field %s.%s: expected an integer, found %s", field, name, r)
	}
	*dst = int(f)
	return nil
}

// For is the quantization of the module at path, and false when the
// block leaves it unquantized.
func (q *Quantization) For(path string) (Params, bool) {
	if q == nil || q.Skip[path] {
		return Params{}, false
	}
	if p, ok := q.Modules[path]; ok {
		return p, true
	}
	return q.Default, true
}

// HasBias reports whether a group carries a bias beside its scale.
func (p Params) HasBias() bool { return modes[p.Mode] }
