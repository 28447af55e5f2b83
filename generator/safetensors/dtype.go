package safetensors

// bitsizes maps every dtype name the Rust crate accepts to its width in
// bits (safetensors/src/tensor.rs, Dtype::bitsize). Names outside this
// table are rejected: a file that uses them cannot be loaded by the
// reference implementation either.
var bitsizes = map[string]int{
	"BOOL":        8,
	"F4":          4, // OCP MXFP4 E2M1
	"F6_E2M3":     6,
	"F6_E3M2":     6,
	"U8":          8,
	"I8":          8,
	"F8_E5M2":     8,
	"F8_E4M3":     8,
	"F8_E8M0":     8, // OCP MX block scale
	"F8_E4M3FNUZ": 8,
	"F8_E5M2FNUZ": 8,
	"I16":         16,
	"U16":         16,
	"F16":         16,
	"BF16":        16,
	"I32":         32,
	"U32":         32,
	"F32":         32,
	"C64":         64,
	"F64":         64,
	"I64":         64,
	"U64":         64,
}

// BitSize returns the width of one element of dtype in bits, and false
// for a dtype the format does not define.
func BitSize(dtype string) (int, bool) {
	b, ok := bitsizes[dtype]
	return b, ok
}
