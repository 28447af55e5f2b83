package gguf

import (
	"fmt"
	"strings"
)

// Type is a ggml tensor type id as stored in a GGUF tensor info.
type Type uint32

// typeInfo is one row of ggml's type table: the elements in one block and
// the bytes that block takes on disk.
type typeInfo struct {
	name       string
	blockSize  int64
	blockBytes int64
}

// types is ggml's type table. Ids are enum ggml_type in
// ggml/include/ggml.h (ggml-org/llama.cpp 004eaba8; 40 and 41 from
// ggml/src/ggml-common.h 01243c58), block sizes are blck_size in
// ggml/src/ggml.c type_traits (1f08e2d6) and bytes per block sizeof the
// block_* structs in ggml/src/ggml-common.h (01243c58), cross-checked
// against GGML_QUANT_SIZES in gguf-py/gguf/constants.py. See
// testdata/SOURCES. Ids 4, 5, 31-33 and 36-38 were removed from ggml and
// are refused like any id missing here.
var types = map[Type]typeInfo{
	0:  {"F32", 1, 4},
	1:  {"F16", 1, 2},
	2:  {"Q4_0", 32, 18},
	3:  {"Q4_1", 32, 20},
	6:  {"Q5_0", 32, 22},
	7:  {"Q5_1", 32, 24},
	8:  {"Q8_0", 32, 34},
	9:  {"Q8_1", 32, 36},
	10: {"Q2_K", 256, 84},
	11: {"Q3_K", 256, 110},
	12: {"Q4_K", 256, 144},
	13: {"Q5_K", 256, 176},
	14: {"Q6_K", 256, 210},
	15: {"Q8_K", 256, 292},
	16: {"IQ2_XXS", 256, 66},
	17: {"IQ2_XS", 256, 74},
	18: {"IQ3_XXS", 256, 98},
	19: {"IQ1_S", 256, 50},
	20: {"IQ4_NL", 32, 18},
	21: {"IQ3_S", 256, 110},
	22: {"IQ2_S", 256, 82},
	23: {"IQ4_XS", 256, 136},
	24: {"I8", 1, 1},
	25: {"I16", 1, 2},
	26: {"I32", 1, 4},
	27: {"I64", 1, 8},
	28: {"F64", 1, 8},
	29: {"IQ1_M", 256, 56},
	30: {"BF16", 1, 2},
	34: {"TQ1_0", 256, 54},
	35: {"TQ2_0", 256, 66},
	39: {"MXFP4", 32, 17},
	40: {"NVFP4", 64, 36},
	41: {"Q1_0", 128, 18},
}

// Known reports whether ggml defines t.
func (t Type) Known() bool { _, ok := types[t]; return ok }

// String is ggml's name for the type in upper case (Q4_K, IQ2_XXS), or
// type(N) for an id ggml does not define.
func (t Type) String() string {
	if ti, ok := types[t]; ok {
		return ti.name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// BlockSize is the number of elements in one block (1 for plain types).
func (t Type) BlockSize() int64 { return types[t].blockSize }

// BlockBytes is the size of one block on disk.
func (t Type) BlockBytes() int64 { return types[t].blockBytes }

// TypeByName returns the type ggml calls name (case-insensitive).
func TypeByName(name string) (Type, bool) {
	for id, ti := range types {
		if strings.EqualFold(ti.name, name) {
			return id, true
		}
	}
	return 0, false
}
