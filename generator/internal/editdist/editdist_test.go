package editdist

import "testing"

func TestLevenshtein(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0},
		{"", "q_proj", 6},
		{"q_proj", "", 6},
		{"q_proj", "q_proj", 0},
		{"q_proj", "k_proj", 1},     // one substitution
		{"qkv_proj", "q_proj", 2},   // two deletions
		{"kitten", "sitting", 3},    // the textbook case
		{"kimi-k3", "Kimi-K3", 2},   // bytes, so case counts
		{"gate_proj", "up_proj", 4}, // g→u, a→p, delete t, e
		{"flaw", "lawn", 2},         // delete f, insert n
	} {
		if got := Levenshtein(c.a, c.b); got != c.d {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := Levenshtein(c.b, c.a); got != c.d {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.d)
		}
	}
}
