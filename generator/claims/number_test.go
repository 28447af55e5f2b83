package claims

import (
	"regexp"
	"testing"
	"unicode/utf8"
)

// numberRe is what holdsNumber replaces: a regexp compiled per value.
func numberRe(n string) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^\d.,])` + regexp.QuoteMeta(n) + `(?:[^\d]|$)`)
}

var numberCases = [][2]string{
	{"a score of 1,234 on it", "1,234"},
	{"a score of 1,2345 on it", "1,234"},
	{"21,234", "1,234"},
	{"1.5 and 11.5", "1.5"},
	{"11.5 then 1.5", "1.5"},
	{"x1.5", "1.5"},
	{"(1.5)", "1.5"},
	{"1.5.", "1.5"},
	{",1.5", "1.5"},
	{"1.50", "1.5"},
	{"é1.5é", "1.5"},
	{"\xff1.5", "1.5"},
	{"15", "15"},
	{"", "1"},
	{"1 1", "1"},
	{"11 1", "1"},
	{"111", "1"},
	{"a.1", "1"},
	{"±2.0", "2.0"},
}

func TestHoldsNumberIsTheRegexp(t *testing.T) {
	found := 0
	for _, c := range numberCases {
		want := numberRe(c[1]).MatchString(c[0])
		if got := holdsNumber(c[0], c[1]); got != want {
			t.Errorf("holdsNumber(%q, %q) = %v, want %v", c[0], c[1], got, want)
		}
		if want {
			found++
		}
	}
	if found == 0 || found == len(numberCases) {
		t.Errorf("%d of %d cases hold their number: the cases test nothing", found, len(numberCases))
	}
}

func FuzzHoldsNumber(f *testing.F) {
	for _, c := range numberCases {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, s, n string) {
		if n == "" || !utf8.ValidString(n) {
			return // values are YAML strings; the regexp would not compile
		}
		if got, want := holdsNumber(s, n), numberRe(n).MatchString(s); got != want {
			t.Errorf("holdsNumber(%q, %q) = %v, want %v", s, n, got, want)
		}
	})
}
