package localrun

import (
	"fmt"
	"strings"
)

// OverrideTensor is the -ot value equivalent to --n-cpu-moe n: the
// routed-expert tensors of layers 0..n-1 in the CPU buffer, as
// llama.cpp's own flag builds them one layer at a time
// (blk\.N\.ffn_(up|down|gate)_exps, common/arg.cpp at 145b628), with the
// layers as one numeric range.
func OverrideTensor(n int) string {
	if n <= 0 {
		return ""
	}
	return `blk\.(` + numberRange(n-1) + `)\.ffn_(up|down|gate)_exps=CPU`
}

// numberRange is a regular expression alternation matching the decimal
// numbers 0..max exactly (no leading zeros).
func numberRange(maxN int) string {
	var parts []string
	digits := len(fmt.Sprint(maxN))
	for d := 1; d <= digits; d++ {
		lo := 0
		if d > 1 {
			lo = pow10(d - 1)
		}
		hi := min(maxN, pow10(d)-1)
		parts = append(parts, spans(fmt.Sprint(lo), fmt.Sprint(hi))...)
	}
	return strings.Join(parts, "|")
}

// spans matches the numbers lo..hi of one length, digit by digit.
func spans(lo, hi string) []string {
	if lo == hi {
		return []string{lo}
	}
	if len(lo) == 1 {
		return []string{class(lo[0], hi[0])}
	}
	if lo[0] == hi[0] {
		var out []string
		for _, s := range spans(lo[1:], hi[1:]) {
			out = append(out, lo[:1]+s)
		}
		return out
	}
	rest := strings.Repeat("[0-9]", len(lo)-1)
	var out []string
	// lo's first digit with its own tail up to 9…9, unless the tail is
	// 0…0 and the digit joins the whole decades.
	a, b := lo[0], hi[0]-1
	if strings.Trim(lo[1:], "0") != "" {
		for _, s := range spans(lo[1:], strings.Repeat("9", len(lo)-1)) {
			out = append(out, lo[:1]+s)
		}
		a++
	}
	// Whole decades, then hi's first digit up to hi.
	if strings.Trim(hi[1:], "9") == "" {
		b = hi[0]
	}
	if a <= b {
		out = append(out, class(a, b)+rest)
	}
	if b < hi[0] {
		for _, s := range spans(strings.Repeat("0", len(hi)-1), hi[1:]) {
			out = append(out, hi[:1]+s)
		}
	}
	return out
}

func class(a, b byte) string {
	if a == b {
		return string(a)
	}
	return "[" + string(a) + "-" + string(b) + "]"
}

func pow10(n int) int {
	p := 1
	for range n {
		p *= 10
	}
	return p
}
