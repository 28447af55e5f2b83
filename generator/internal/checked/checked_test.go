package checked

import (
	"math"
	"math/big"
	"testing"
)

func TestMulAndAddAgreeWithBigIntegers(t *testing.T) {
	vals := []int64{0, 1, -1, 2, -2, 3, 1 << 31, -(1 << 31), 1 << 32, 3037000499, 3037000500, -3037000500,
		math.MaxInt64, math.MinInt64, math.MaxInt64 / 2, math.MinInt64 / 2, 9e18, -9e18, 1e15, 1e9}
	lim := new(big.Int).SetInt64(math.MaxInt64)
	low := new(big.Int).SetInt64(math.MinInt64)
	in := func(z *big.Int) bool { return z.Cmp(lim) <= 0 && z.Cmp(low) >= 0 }
	for _, a := range vals {
		for _, b := range vals {
			want := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
			got, ok := Mul(a, b)
			if ok != in(want) || (ok && got != want.Int64()) {
				t.Errorf("Mul(%d, %d) = %d, %v; want %s", a, b, got, ok, want)
			}
			want = new(big.Int).Add(big.NewInt(a), big.NewInt(b))
			got, ok = Add(a, b)
			if ok != in(want) || (ok && got != want.Int64()) {
				t.Errorf("Add(%d, %d) = %d, %v; want %s", a, b, got, ok, want)
			}
		}
	}
}

func TestSumProductInt(t *testing.T) {
	if _, ok := Sum(9e18, 9e18); ok {
		t.Error("9e18 + 9e18 fits?")
	}
	if s, ok := Sum(1, 2, 3); !ok || s != 6 {
		t.Errorf("Sum(1,2,3) = %d, %v", s, ok)
	}
	if _, ok := Product(1<<20, 1<<20, 1<<24); ok {
		t.Error("2^64 fits?")
	}
	if p, ok := Product(2, 3, 7); !ok || p != 42 {
		t.Errorf("Product = %d, %v", p, ok)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), 1e300, 9.3e18, 0.5} {
		if _, ok := Int(f); ok {
			t.Errorf("Int(%v) ok", f)
		}
	}
	if n, ok := Int(-9e18); !ok || n != -9e18 {
		t.Errorf("Int(-9e18) = %d, %v", n, ok)
	}
}

func FuzzMul(f *testing.F) {
	f.Add(int64(3), int64(5))
	f.Add(int64(math.MinInt64), int64(-1))
	f.Fuzz(func(t *testing.T, a, b int64) {
		want := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
		got, ok := Mul(a, b)
		fits := want.IsInt64()
		if ok != fits || (ok && got != want.Int64()) {
			t.Fatalf("Mul(%d, %d) = %d, %v; want %s", a, b, got, ok, want)
		}
	})
}
