package safetensors

import (
	"fmt"
	"math/bits"
	"strings"
)

// Role is what a tensor is for in a quantized checkpoint; it decides how
// its bytes are accounted (payload, scales, bookkeeping, plain weights).
type Role string

const (
	RolePayload Role = "payload" // packed quantized weights
	RoleScale   Role = "scale"   // quantization scales
	RoleAux     Role = "aux"     // shapes, zero points, group indices
	RoleOther   Role = "other"   // everything else: unquantized weights
)

// Roles lists the roles in report order.
func Roles() []Role { return []Role{RolePayload, RoleScale, RoleAux, RoleOther} }

// Suffixes by role, matched against the end of the tensor name. The
// scale list also covers NVFP4's weight_scale_2 and input scales.
var (
	payloadSuffixes = []string{".weight_packed", "_blocks"}
	scaleSuffixes   = []string{"weight_scale", "weight_scale_inv", "weight_scale_2", "_scales", "weight_global_scale", "input_scale", "input_global_scale"}
	auxSuffixes     = []string{"weight_shape", "weight_zero_point", "input_zero_point", "zero_point", "qzeros", "g_idx"}
)

// RoleOf classifies a tensor by its name and dtype. F8_E8M0 is always a
// scale: it is the OCP MX shared-exponent type and holds nothing else.
func RoleOf(name, dtype string) Role {
	switch {
	case hasAnySuffix(name, payloadSuffixes):
		return RolePayload
	case dtype == "F8_E8M0" || hasAnySuffix(name, scaleSuffixes):
		return RoleScale
	case hasAnySuffix(name, auxSuffixes):
		return RoleAux
	}
	return RoleOther
}

func hasAnySuffix(s string, suffixes []string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// Totals is a tensor count with its stored elements and bytes.
type Totals struct {
	Tensors int
	Elems   int64
	Bytes   int64
}

// Census sums headers. Elements are stored elements, the product of the
// shape: a U8 tensor of packed 4-bit values counts one element per byte,
// which is what the file holds, not the parameters it encodes. The zero
// value is ready to use.
type Census struct {
	Files       int
	Tensors     int
	HeaderBytes int64            // sum of 8+N over files
	Elems       map[string]int64 // stored elements per dtype
	Bytes       map[string]int64 // tensor bytes per dtype
	Roles       map[Role]Totals
}

// Add counts one file's header. It fails only when a sum would overflow
// int64, which no real checkpoint reaches.
func (c *Census) Add(h *Header) error {
	if c.Elems == nil {
		c.Elems = map[string]int64{}
		c.Bytes = map[string]int64{}
		c.Roles = map[Role]Totals{}
	}
	next := Census{Files: c.Files + 1, Tensors: c.Tensors + len(h.Tensors)}
	var ok bool
	if next.HeaderBytes, ok = add(c.HeaderBytes, PrefixLen+h.Len); !ok {
		return fmt.Errorf("census: header bytes overflow int64")
	}
	// Check every sum before changing anything, so a failed Add leaves c as it was.
	elems := map[string]int64{}
	byts := map[string]int64{}
	roles := map[Role]Totals{}
	for _, t := range h.Tensors {
		n, _ := t.Elements()
		role := RoleOf(t.Name, t.DType)
		r := roles[role]
		r.Tensors++
		if elems[t.DType], ok = add(elems[t.DType], n); !ok {
			return overflow(t.Name)
		}
		if byts[t.DType], ok = add(byts[t.DType], t.Bytes()); !ok {
			return overflow(t.Name)
		}
		if r.Elems, ok = add(r.Elems, n); !ok {
			return overflow(t.Name)
		}
		if r.Bytes, ok = add(r.Bytes, t.Bytes()); !ok {
			return overflow(t.Name)
		}
		roles[role] = r
	}
	for k, v := range elems {
		if elems[k], ok = add(c.Elems[k], v); !ok {
			return overflow(k)
		}
		if byts[k], ok = add(c.Bytes[k], byts[k]); !ok {
			return overflow(k)
		}
	}
	for k, v := range roles {
		old := c.Roles[k]
		v.Tensors += old.Tensors
		if v.Elems, ok = add(old.Elems, v.Elems); !ok {
			return overflow(string(k))
		}
		if v.Bytes, ok = add(old.Bytes, v.Bytes); !ok {
			return overflow(string(k))
		}
		roles[k] = v
	}
	c.Files, c.Tensors, c.HeaderBytes = next.Files, next.Tensors, next.HeaderBytes
	for k := range elems {
		c.Elems[k], c.Bytes[k] = elems[k], byts[k]
	}
	for k, v := range roles {
		c.Roles[k] = v
	}
	return nil
}

func overflow(what string) error {
	return fmt.Errorf("census: sum overflows int64 at %q", what)
}

func add(a, b int64) (int64, bool) {
	s, carry := bits.Add64(uint64(a), uint64(b), 0)
	if carry != 0 || s > 1<<63-1 {
		return 0, false
	}
	return int64(s), true
}

// TotalElems is the stored element count over all dtypes.
func (c *Census) TotalElems() int64 {
	var n int64
	for _, v := range c.Elems {
		n += v
	}
	return n
}

// TotalBytes is the tensor byte count over all dtypes.
func (c *Census) TotalBytes() int64 {
	var n int64
	for _, v := range c.Bytes {
		n += v
	}
	return n
}
