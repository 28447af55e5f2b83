package sizing

import (
	"fmt"

	"dossier/generator/arch"
	"dossier/generator/catalog"
)

// dequantText says, for weights the engine dequantizes to 16 bits inside
// its GEMMs on acc because the part has no matrix units for their format,
// what a figure at batch > 1 leaves out; "" when the part multiplies the
// format natively or the weights are not weight-only quantized. At batch 1
// a step is bound by the packed bytes and the dequantization hides under
// them; at many sequences the kernels (vLLM's Marlin path for FP4 and int4
// weights on NVIDIA parts, the Triton MoE kernels that upcast MXFP4 on AMD
// parts) spend ALU work per weight per tile of tokens beside the 16-bit
// tensor work, which no calibration pair measures: it is stated, not
// charged.
func dequantText(q arch.Quantization, acc *catalog.Accelerator) string {
	var format string
	switch {
	case q.Type == "float" && q.Bits == 8 && acc.PeakFP8 == nil:
		format = "FP8 weights (no FP8 units)"
	case q.Type == "float" && q.Bits == 4 && acc.PeakFP4 == nil:
		format = "FP4 weights (" + quantName(q) + "; no FP4 units)"
	case q.Type == "int" && q.Bits > 0 && q.Bits <= 4:
		format = fmt.Sprintf("%d-bit integer weights (weight-only: no %d-bit GEMM)", q.Bits, q.Bits)
	default:
		return ""
	}
	return fmt.Sprintf("%s on %s are dequantized to 16 bits inside each GEMM: the GEMMs are timed at the 16-bit peak and the bytes at the packed size, and the dequantization's own cost is not charged — no calibration pair measures it (an outside check found gpt-oss-120b MXFP4 on MI300X at 256 sequences predicted 2.29× faster than measured, a figure without its full configuration) — so at many sequences this is an upper bound", format, acc.ID)
}

// quantName names a 4-bit float format for a derivation.
func quantName(q arch.Quantization) string {
	switch {
	case q.Method == "mxfp4":
		return "MXFP4"
	case q.Format != "":
		return q.Format
	}
	return q.Method
}
