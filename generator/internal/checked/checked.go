// Package checked is integer arithmetic that reports overflow instead of
// wrapping, and the ranges the generator accepts for the numbers a site
// configures. A wrapped size would publish a wrong verdict; these helpers
// turn it into an error that names the input.
package checked

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
	"time"
)

// Ranges of configurable numbers. They are far beyond any real value and
// small enough that the products sizing forms from them (GPU count × bytes
// per GPU, price × GPUs) stay within int64 and exact float64.
const (
	MaxGPUs        = 65536 // GPUs in one configuration, tensor-parallel size, GPUs per node
	MaxBytesPerGPU = 1e13  // memory or reserve of one accelerator: 10 TB
	MaxDTypeBytes  = 8     // bytes per cached value
	MaxContext     = 1 << 32
	MaxConcurrency = 1 << 20
	MaxUSDPerHour  = 1e7 // a rental price, per GPU or per configuration
)

// Add returns a+b, or ok false when the sum leaves int64.
func Add(a, b int64) (int64, bool) {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return 0, false
	}
	return s, true
}

// Mul returns a×b, or ok false when the product leaves int64.
func Mul(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(abs(a), abs(b))
	if hi != 0 || (!neg && lo > math.MaxInt64) || (neg && lo > 1<<63) {
		return 0, false
	}
	if neg {
		return int64(-lo), true
	}
	return int64(lo), true
}

func abs(a int64) uint64 {
	if a < 0 {
		return uint64(-a) // also right for MinInt64, as an unsigned value
	}
	return uint64(a)
}

// Product multiplies every factor, or ok false on overflow.
func Product(factors ...int64) (int64, bool) {
	p := int64(1)
	for _, f := range factors {
		var ok bool
		if p, ok = Mul(p, f); !ok {
			return 0, false
		}
	}
	return p, true
}

// Sum adds every term, or ok false on overflow.
func Sum(terms ...int64) (int64, bool) {
	var s int64
	for _, t := range terms {
		var ok bool
		if s, ok = Add(s, t); !ok {
			return 0, false
		}
	}
	return s, true
}

// Int converts a float64 to int64 when it is a whole number in range.
func Int(f float64) (int64, bool) {
	if math.IsNaN(f) || f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// Error says that an arithmetic result left the int64 range, and which
// inputs it was formed from.
type Error struct {
	What   string   // what was being computed
	Inputs []string // the inputs, "name value" each
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s overflows a 64-bit integer: %s; one of these inputs is out of range", e.What, strings.Join(e.Inputs, " × "))
}

// Range is the message for a number outside [lo, hi]; unit may be empty.
func Range(lo, hi any, unit string, found any) string {
	if unit != "" {
		unit = " " + unit
	}
	return fmt.Sprintf("expected from %v to %v%s, found %v", lo, hi, unit, found)
}

// Date parses a calendar date YYYY-MM-DD: 2026-02-30 and 2026-13-45 have
// the shape of a date but are none.
func Date(s string) (time.Time, bool) {
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}
