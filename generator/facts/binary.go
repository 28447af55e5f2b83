package facts

import (
	"encoding/binary"
	"fmt"
	"slices"

	"dossier/generator/internal/binenc"
)

// The binary encoding keeps a set between builds (a page's model-side
// facts, see sizing.ModelSide): read back, it is the set that was written,
// value types included, which facts.json cannot promise (an integral
// float64 is written as an integer there). Units, sources, displays,
// derivations and reasons repeat across a set's facts (a derivation per
// layout of the matrix, say) and are written once: a third less to write. The encoding has no header or
// checksum of its own: it is a part of one (binenc.Seal).

// Value tags of the binary encoding.
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
)

// AppendBinary appends the set in the binary encoding. It fails on a value
// of a type other than a Fact's five.
func (s *Set) AppendBinary(dst []byte) ([]byte, error) {
	keys, fs := s.sorted()
	// The table of repeated strings, in order of first use.
	index := make(map[string]uint64, len(fs))
	var table []string
	size := 0 // about what the encoding takes: grown once, not by doubling
	intern := func(v string) {
		if _, ok := index[v]; !ok {
			index[v] = uint64(len(table))
			table = append(table, v)
			size += len(v) + 2
		}
	}
	for i, f := range fs {
		intern(f.Unit)
		for _, src := range f.Sources {
			intern(src)
		}
		intern(f.Display)
		intern(f.Derivation)
		intern(f.Reason)
		size += len(keys[i]) + 2*len(f.Sources) + 24
	}
	dst = slices.Grow(dst, size)
	dst = binary.AppendUvarint(dst, uint64(len(table)))
	for _, v := range table {
		dst = binenc.AppendString(dst, v)
	}
	dst = binary.AppendUvarint(dst, uint64(len(fs)))
	for i, f := range fs {
		dst = binenc.AppendString(dst, keys[i])
		switch v := f.Value.(type) {
		case nil:
			dst = append(dst, tagNil)
		case bool:
			if v {
				dst = append(dst, tagTrue)
			} else {
				dst = append(dst, tagFalse)
			}
		case int64:
			dst = binary.AppendVarint(append(dst, tagInt), v)
		case float64:
			dst = binenc.AppendFloat(append(dst, tagFloat), v)
		case string:
			dst = binenc.AppendString(append(dst, tagString), v)
		default:
			return nil, fmt.Errorf("fact %s: value of type %T", keys[i], v)
		}
		dst = binary.AppendUvarint(dst, index[f.Unit])
		dst = binary.AppendUvarint(dst, index[f.Display])
		// A nil and an empty source list differ to reflect.DeepEqual;
		// keep which one it was.
		if f.Sources == nil {
			dst = append(dst, 0)
		} else {
			dst = binary.AppendUvarint(dst, uint64(len(f.Sources))+1)
			for _, src := range f.Sources {
				dst = binary.AppendUvarint(dst, index[src])
			}
		}
		dst = binary.AppendUvarint(dst, index[f.Derivation])
		dst = binary.AppendUvarint(dst, index[f.Reason])
	}
	return dst, nil
}

// ReadBinary reads a set AppendBinary wrote. On damage it returns nil and
// r holds the error.
func ReadBinary(r *binenc.Reader) *Set {
	n := r.Count()
	table := make([]string, 0, n)
	for range n {
		table = append(table, r.String())
	}
	str := func(i uint64) string {
		if i >= uint64(len(table)) {
			r.Fail("string index out of range")
			return ""
		}
		return table[i]
	}
	n = r.Count()
	set := &Set{m: make(map[string]*Fact, n), keys: &keyList{keys: make([]string, 0, n), facts: make([]*Fact, 0, n)}}
	all := make([]Fact, n)
	for i := range all {
		f := &all[i]
		f.Key = r.String()
		if i > 0 && f.Key <= set.keys.keys[i-1] {
			r.Fail("fact keys out of order")
		}
		switch tag := r.Byte(); tag {
		case tagNil:
		case tagFalse:
			f.Value = false
		case tagTrue:
			f.Value = true
		case tagInt:
			f.Value = r.Varint()
		case tagFloat:
			f.Value = r.Float()
		case tagString:
			f.Value = r.String()
		default:
			r.Fail("unknown value tag")
		}
		f.Unit = str(r.Uvarint())
		f.Display = str(r.Uvarint())
		if k := r.Count(); k > 0 {
			f.Sources = make([]string, k-1)
			for j := range f.Sources {
				f.Sources[j] = str(r.Uvarint())
			}
		}
		f.Derivation = str(r.Uvarint())
		f.Reason = str(r.Uvarint())
		if r.Err() != nil {
			return nil
		}
		set.m[f.Key] = f
		set.keys.keys = append(set.keys.keys, f.Key)
		set.keys.facts = append(set.keys.facts, f)
	}
	set.keys.sortedN = n // in strict key order, checked above
	return set
}
