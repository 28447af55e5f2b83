package claims

import (
	"regexp"
	"testing"
)

// tellPatterns are the patterns lintSentence runs only on sentences that
// hold one of their words, with a sentence for each of their alternatives.
var tellPatterns = []struct {
	name    string
	re      *regexp.Regexp
	words   []string
	samples []string
}{
	{"label", patterns().labelRe, labelWords, []string{
		"stored at 4-bit", "in four bits", "twelve 16 bit", "eight-bit weights", "sixteen bits", "half a byte per weight",
		"FP8 weights", "an FP4 payload", "INT4 experts", "INT8", "MXFP4 blocks", "NVFP4", "NF4", "BF16 attention", "FP16 scales",
	}},
	{"novelty", patterns().noveltyRe, noveltyWords, []string{
		"a novel design", "a breakthrough", "they invented it", "introduces a router", "pioneering work", "its debut",
		"a new attention", "a new kind of residual", "the world's first", "industry's first", "the very first", "a first-ever model",
		"the first open model to run",
	}},
	{"performance", patterns().perfRe, perfWords, []string{
		"2.5× faster", "3x speed", "10 x throughput", "1,200 tokens/s", "40 tok/s", "30 tokens per second", "12 ms",
		"0.5 s/token", "2 s per token", "9 tokens/sec", "30% faster", "20 % less", "time to first token of 2", "TTFT 300", "latency: 5",
	}},
	{"runs on", patterns().runsOnRe, runsOnWords, []string{"runs on a laptop", "run K3 on one card", "running in a browser", "RUNS ON"}},
	{"relative", patterns().relativeRe, relativeWords, []string{
		"later this month", "earlier this year", "this quarter", "next week", "next week's release", "soon", "shortly",
		"tomorrow", "tonight", "in the coming weeks", "coming weeks", "the upcoming model", "imminently",
		"by the end of the year", "by the end of the quarter", "next quarter", "within days", "within the month", "in a few days", "in 3 months", "in two years",
	}},
}

// TestTellWordsCoverPatterns: a sentence a pattern matches holds one of
// its words, on every alternative of the pattern and the tells corpus, so
// skipping the sentences without one changes no finding.
func TestTellWordsCoverPatterns(t *testing.T) {
	var corpus []string
	for _, l := range readCorpus(t) {
		corpus = append(corpus, l.sentence)
	}
	for _, p := range tellPatterns {
		for _, s := range p.samples {
			if !p.re.MatchString(s) {
				t.Errorf("%s: the sample %q does not match", p.name, s)
			}
		}
		matched := 0
		for _, s := range append(append([]string{}, p.samples...), corpus...) {
			if p.re.MatchString(s) {
				matched++
				if !lowered(s).has(p.words) {
					t.Errorf("%s matches %q, which holds none of %v", p.name, s, p.words)
				}
			}
		}
		if matched < len(p.samples) {
			t.Errorf("%s: %d sentences matched", p.name, matched)
		}
	}
	// Case folding that reaches ASCII from elsewhere runs every pattern.
	if l := lowered("\u212abit"); !l.has([]string{"nothing"}) {
		t.Error("a Kelvin sign did not disable the word test")
	}
}

func FuzzTellWords(f *testing.F) {
	for _, p := range tellPatterns {
		for _, s := range p.samples {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range tellPatterns {
			if p.re.MatchString(s) && !lowered(s).has(p.words) {
				t.Errorf("%s matches %q, which holds none of %v", p.name, s, p.words)
			}
		}
	})
}
