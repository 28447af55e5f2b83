package facts

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Display formats a value by its unit, following the house rules: bytes as
// decimal GB with GiB beside them, parameters with three significant
// figures, ratios and shares with one decimal.
func Display(unit string, v any) string {
	if v == nil {
		return "unknown"
	}
	switch x := v.(type) {
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case string:
		return x
	}
	f, ok := toFloat(v)
	if !ok {
		return fmt.Sprint(v)
	}
	switch unit {
	case UnitBytes:
		return Bytes(f)
	case UnitParams:
		return Params(f)
	case UnitRatio:
		return Ratio(f)
	case UnitShare:
		return Percent(f)
	case UnitSeconds:
		return Duration(f)
	case UnitUSDHour:
		return USD(f) + "/h"
	case UnitBytesPerSecond:
		return Fixed(f/1e6, 1) + " MB/s"
	case UnitUSD:
		return USD(f)
	case UnitBits:
		return strconv.FormatFloat(f, 'f', 2, 64) + " bits/parameter"
	case UnitTokensPerSec:
		return strconv.FormatFloat(RoundSig(f, 3), 'f', -1, 64) + " tokens/s"
	case UnitCount, UnitTokens:
		if f == math.Trunc(f) {
			return Int(int64(f))
		}
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// Int writes n with thousands separators: 1,560,936,091,448.
func Int(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	pre := len(s) % 3
	if pre == 0 {
		pre = 3
	}
	b.WriteString(s[:pre])
	for i := pre; i < len(s); i += 3 {
		b.WriteByte(',')
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// Fixed writes f with d decimals and thousands separators: 1,560.9.
func Fixed(f float64, d int) string {
	s := strconv.FormatFloat(math.Abs(f), 'f', d, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	n, _ := strconv.ParseInt(intPart, 10, 64)
	out := Int(n)
	if frac != "" {
		out += "." + frac
	}
	if f < 0 && strings.Trim(s, "0.") != "" {
		out = "-" + out
	}
	return out
}

// byteScale is one rung of the byte units: a decimal unit and the binary
// unit printed beside it.
type byteScale struct {
	from, dec, bin   float64 // from: the smallest size printed in this unit
	decName, binName string
}

// byteScales run from large to small. Terabytes start at 10 TB: a
// four-digit gigabyte figure (1,560.9 GB) reads as the sources print it.
var byteScales = []byteScale{
	{1e13, 1e12, 1 << 40, "TB", "TiB"},
	{1e9, 1e9, 1 << 30, "GB", "GiB"},
	{1e6, 1e6, 1 << 20, "MB", "MiB"},
	{1e3, 1e3, 1 << 10, "KB", "KiB"},
}

func scaleOf(b float64) (byteScale, bool) {
	a := math.Abs(b)
	for _, s := range byteScales {
		if a >= s.from {
			return s, true
		}
	}
	return byteScale{}, false
}

// Bytes shows a size in the decimal unit that fits its magnitude with the
// binary unit beside it: "1,560.9 GB (1,453.7 GiB)", "4.7 MB (4.5 MiB)",
// "27.6 KB (27.0 KiB)". Below a kilobyte it prints exact bytes.
func Bytes(b float64) string {
	s, ok := scaleOf(b)
	if !ok {
		return Fixed(b, 0) + " B"
	}
	return Fixed(b/s.dec, 1) + " " + s.decName + " (" + Fixed(b/s.bin, 1) + " " + s.binName + ")"
}

// GB is the short form used inside sentences and table cells: the decimal
// part of Bytes, "1,560.9 GB", and "4.7 MB" for a small model, never
// "0.0 GB".
func GB(b float64) string {
	s, ok := scaleOf(b)
	if !ok {
		return Fixed(b, 0) + " B"
	}
	return Fixed(b/s.dec, 1) + " " + s.decName
}

// BytesIn writes b in the decimal unit that fits ref (the largest value of
// a chart's axis), so every tick of one axis shares its unit; one decimal
// when ref is below ten of that unit.
func BytesIn(b, ref float64) string {
	s, ok := scaleOf(ref)
	if !ok {
		return Fixed(b, 0) + " B"
	}
	if b == 0 {
		return "0 " + s.decName
	}
	digits := 0
	if math.Abs(ref)/s.dec < 10 {
		digits = 1
	}
	return Fixed(b/s.dec, digits) + " " + s.decName
}

// Params shows a parameter count with three significant figures and a
// T/B/M suffix: 2.78 T, 104 B, 401 M.
func Params(n float64) string {
	units := []struct {
		div    float64
		suffix string
	}{{1e12, " T"}, {1e9, " B"}, {1e6, " M"}, {1e3, " K"}}
	a := math.Abs(n)
	for i, u := range units {
		if a < u.div && i < len(units)-1 {
			continue
		}
		if a < u.div {
			break
		}
		r := sig3(n / u.div)
		// 999.6 M rounds to 1000 M: print it as 1.00 B instead.
		if i > 0 && strings.TrimLeft(r, "-") == "1000" {
			return strconv.FormatFloat(math.Copysign(1, n), 'f', 2, 64) + units[i-1].suffix
		}
		return r + u.suffix
	}
	return Fixed(n, 0)
}

// sig3 rounds to three significant figures without switching to exponents.
func sig3(x float64) string {
	if x == 0 {
		return "0"
	}
	digits := int(math.Floor(math.Log10(math.Abs(x)))) + 1
	dec := max(3-digits, 0)
	return strconv.FormatFloat(x, 'f', dec, 64)
}

// Ratio shows x:1 with one decimal, never integer division: 2.9:1.
func Ratio(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) + ":1" }

// Percent shows a fraction as a percentage with one decimal: 97.9%.
func Percent(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) + "%" }

// USD shows dollars with two decimals: $47.84.
func USD(f float64) string {
	switch {
	case f < 0:
		return "-$" + Fixed(-f, 2)
	case f > 0 && f < 0.005:
		// A price that rounds to nothing is still not free.
		return "<$0.01"
	}
	return "$" + Fixed(f, 2)
}

// Duration shows seconds as hours when long: "12,359 s (3.4 h)".
func Duration(s float64) string {
	switch {
	case s >= 3600:
		return Fixed(s, 0) + " s (" + strconv.FormatFloat(s/3600, 'f', 1, 64) + " h)"
	case s >= 60:
		return Fixed(s, 0) + " s (" + strconv.FormatFloat(s/60, 'f', 1, 64) + " min)"
	case s > 0 && s < 0.1:
		// A download of a few megabytes takes milliseconds, not "0.0 s".
		return strconv.FormatFloat(math.Max(s*1000, 0.1), 'g', 2, 64) + " ms"
	}
	return strconv.FormatFloat(s, 'f', 1, 64) + " s"
}

// RoundSig rounds x to n significant figures: 2,779,931,837,184 → 2.8e12,
// the way a headline prints a count. Large magnitudes divide by a power of
// ten instead of multiplying by its inverse, which is not exact.
func RoundSig(x float64, n int) float64 {
	if x == 0 {
		return 0
	}
	k := float64(n) - math.Ceil(math.Log10(math.Abs(x)))
	if k < 0 {
		p := math.Pow(10, -k)
		return math.Round(x/p) * p
	}
	p := math.Pow(10, k)
	return math.Round(x*p) / p
}

// Count is n and a noun, plural unless n is 1: "1 part", "29 parts".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
