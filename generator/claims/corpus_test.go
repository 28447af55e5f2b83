package claims

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"dossier/generator/content"
)

// corpusMeasurements are the K3 page's published figures with intervals,
// which tell 5 needs to know.
var corpusMeasurements = map[string]*content.Measurement{
	"lmarena-text": lmarenaText,
	"epoch-gap-nov": {ID: "epoch-gap-nov", Metric: "open-weight lag behind closed models", Value: 7, Unit: "ECI points", By: "Epoch AI",
		Interval: &content.Interval{Low: 0, High: 14, Level: "90% CI"}},
	"epoch-gap-may": {ID: "epoch-gap-may", Metric: "open-weight lag behind closed models", Value: 8, Unit: "ECI points", By: "Epoch AI",
		Interval: &content.Interval{Low: 7, High: 11, Level: "90% CI"}},
	"lmarena-frontend": {ID: "lmarena-frontend", Metric: "Frontend Code Arena score", Value: 1679, Unit: "points", By: "LMArena",
		Rank: &content.Rank{Position: 1}},
}

type corpusLine struct {
	line     int
	want     []int
	origin   string
	sentence string
}

func readCorpus(t *testing.T) []corpusLine {
	t.Helper()
	f, err := os.Open("testdata/tells.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusLine
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		cols := strings.Split(l, "\t")
		if len(cols) != 3 {
			t.Fatalf("tells.tsv:%d: want 3 tab-separated columns, found %d", n, len(cols))
		}
		c := corpusLine{line: n, origin: cols[1], sentence: cols[2]}
		if cols[0] != "-" {
			for _, s := range strings.Split(cols[0], ",") {
				tell, err := strconv.Atoi(s)
				if err != nil || TellNames[tell] == "" {
					t.Fatalf("tells.tsv:%d: bad tell %q", n, s)
				}
				c.want = append(c.want, tell)
			}
		}
		out = append(out, c)
	}
	return out
}

// TestTellsCorpus measures the linter against the labelled corpus: for
// every tell, precision (raised where it should be) and recall (raised
// everywhere it should be) must both reach 0.9, with enough positives and
// negatives to mean something.
func TestTellsCorpus(t *testing.T) {
	corpus := readCorpus(t)
	if len(corpus) < 80 {
		t.Fatalf("corpus has %d sentences, want at least 80", len(corpus))
	}
	var evidence []string
	for id := range corpusMeasurements {
		evidence = append(evidence, "measurement:"+id)
	}
	ctx := k3Context()
	type score struct{ tp, fp, fn, pos, neg int }
	scores := map[int]*score{}
	for tell := range TellNames {
		scores[tell] = &score{}
	}
	for _, c := range corpus {
		got := map[int]bool{}
		for _, f := range ctx.Lint(c.sentence, corpusMeasurements, evidence) {
			got[f.Tell] = true
		}
		for tell, s := range scores {
			want := slices.Contains(c.want, tell)
			if want {
				s.pos++
			} else {
				s.neg++
			}
			switch {
			case want && got[tell]:
				s.tp++
			case want:
				s.fn++
				t.Logf("tells.tsv:%d: tell %d missed: %q", c.line, tell, c.sentence)
			case got[tell]:
				s.fp++
				t.Logf("tells.tsv:%d: tell %d raised wrongly: %q", c.line, tell, c.sentence)
			}
		}
	}
	for tell := 1; tell <= len(TellNames); tell++ {
		s := scores[tell]
		if s.pos < 8 || s.neg < 5 {
			t.Errorf("tell %d: %d positives and %d labelled negatives; the corpus needs at least 8 and 5", tell, s.pos, s.neg)
			continue
		}
		precision := float64(s.tp) / float64(max(s.tp+s.fp, 1))
		recall := float64(s.tp) / float64(s.pos)
		t.Logf("tell %d (%s): precision %.2f, recall %.2f (%d positives)", tell, TellNames[tell], precision, recall, s.pos)
		if precision < 0.9 || recall < 0.9 {
			t.Errorf("tell %d (%s): precision %.2f, recall %.2f; want both ≥ 0.9", tell, TellNames[tell], precision, recall)
		}
	}
}
