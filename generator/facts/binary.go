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
// float64 is written as an integer there). Units, sources, derivations and
// reasons repeat across a set's facts (a derivation per layout of the
// matrix, say) and are written once: a third less to write. The encoding
// has no header or checksum of its own: it is a part of one (binenc.Seal).

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
	// The table of repeated strings, in order of first use ("" first);
	// each fact's indices into it are taken in the same pass (one map
	// lookup per string: the lookups are most of the encoding's time).
	// Displays are written in place: two in three are unique.
	index := make(map[string]uint64, len(fs))
	table := []string{""}
	size := 0 // about what the encoding takes: grown once, not by doubling
	intern := func(v string) uint64 {
		if v == "" {
			return 0
		}
		i, ok := index[v]
		if !ok {
			i = uint64(len(table))
			index[v] = i
			table = append(table, v)
			size += len(v) + 2
		}
		return i
	}
	type refs struct{ unit, derivation, reason uint64 }
	refOf := make([]refs, len(fs))
	var sources []uint64 // every fact's, in order
	for i, f := range fs {
		refOf[i] = refs{intern(f.Unit), intern(f.Derivation), intern(f.Reason)}
		for _, src := range f.Sources {
			sources = append(sources, intern(src))
		}
		size += len(keys[i]) + len(f.Display) + 2*len(f.Sources) + 24
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
		r := refOf[i]
		dst = binary.AppendUvarint(dst, r.unit)
		dst = binenc.AppendString(dst, f.Display)
		// A nil and an empty source list differ to reflect.DeepEqual;
		// keep which one it was.
		if f.Sources == nil {
			dst = append(dst, 0)
		} else {
			dst = binary.AppendUvarint(dst, uint64(len(f.Sources))+1)
			for _, src := range sources[:len(f.Sources)] {
				dst = binary.AppendUvarint(dst, src)
			}
			sources = sources[len(f.Sources):]
		}
		dst = binary.AppendUvarint(dst, r.derivation)
		dst = binary.AppendUvarint(dst, r.reason)
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
	if r.Err() != nil {
		return nil
	}
	str := func(i uint64) string {
		if i >= uint64(len(table)) {
			r.Fail("string index out of range")
			return ""
		}
		return table[i]
	}
	// A fact takes 7 bytes at least: a damaged count cannot ask for more
	// facts than that.
	if n = r.Count(); n > r.Rest()/7 {
		r.Fail("more facts than bytes for them")
	}
	if r.Err() != nil {
		return nil
	}
	set := &Set{m: make(map[string]*Fact, n), keys: &keyList{keys: make([]string, 0, n), facts: make([]*Fact, 0, n)}}
	all := make([]Fact, n)
	var sources []string
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
		f.Display = r.String()
		switch k := r.Count(); {
		case k == 1:
			f.Sources = []string{} // empty, not absent
		case k > 1:
			// The facts' sources share a few backing arrays instead of one
			// allocation each; capped, so an append to one copies it.
			if k--; k > cap(sources)-len(sources) {
				sources = make([]string, 0, max(k, 2*n))
			}
			start := len(sources)
			for range k {
				sources = append(sources, str(r.Uvarint()))
			}
			f.Sources = sources[start:len(sources):len(sources)]
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
