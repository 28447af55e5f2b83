package localrun

import (
	"fmt"
	"regexp"
	"testing"
)

// The range matches exactly 0..max, for every max up to 1,200.
func TestNumberRange(t *testing.T) {
	for maxN := 0; maxN <= 1200; maxN++ {
		re := regexp.MustCompile(`^(?:` + numberRange(maxN) + `)$`)
		for n := 0; n <= maxN+20; n++ {
			if got := re.MatchString(fmt.Sprint(n)); got != (n <= maxN) {
				t.Fatalf("numberRange(%d) = %q matches %d: %t", maxN, numberRange(maxN), n, got)
			}
		}
		if re.MatchString("01") {
			t.Fatalf("numberRange(%d) matches a leading zero", maxN)
		}
	}
}

// The -ot value keeps exactly the experts of the first n layers on the
// CPU, searched as llama.cpp searches (unanchored).
func TestOverrideTensor(t *testing.T) {
	ot := OverrideTensor(88)
	pattern := ot[:len(ot)-len("=CPU")]
	re := regexp.MustCompile(pattern)
	for l := 0; l < 93; l++ {
		for _, w := range []string{"gate", "up", "down"} {
			name := fmt.Sprintf("blk.%d.ffn_%s_exps.weight", l, w)
			if re.MatchString(name) != (l < 88) {
				t.Errorf("%s: match %t", name, re.MatchString(name))
			}
		}
		if re.MatchString(fmt.Sprintf("blk.%d.ffn_up_shexp.weight", l)) || re.MatchString(fmt.Sprintf("blk.%d.attn_kv_b.weight", l)) {
			t.Errorf("layer %d: matches a tensor that is not a routed expert", l)
		}
	}
	if OverrideTensor(0) != "" || OverrideTensor(88) != `blk\.([0-9]|[1-7][0-9]|8[0-7])\.ffn_(up|down|gate)_exps=CPU` {
		t.Errorf("%q", OverrideTensor(88))
	}
}
