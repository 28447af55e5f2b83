package sizing_test

import (
	"testing"

	"dossier/generator/catalog"
	"dossier/generator/sizing"
)

// A local plan's regime follows where its bytes are: a Mac's unified
// memory, weights in RAM or no GPU at all, else one GPU; its error bar
// is the layouts' (too few pairs: uncalibrated), and an offload regime
// names the hosts its pairs read from, each once.
func TestLocalRegimeAndError(t *testing.T) {
	for _, c := range []struct {
		class string
		host  float64
		want  string
	}{{"unified", 0, "apple"}, {"consumer", 1e9, "cpu-offload"}, {"cpu", 1e9, "cpu-offload"}, {"consumer", 0, "single-gpu"}, {"workstation", 0, "single-gpu"}} {
		if got := sizing.LocalRegime(c.class, c.host); got != c.want {
			t.Errorf("%s with %v host bytes: %s, want %s", c.class, c.host, got, c.want)
		}
	}
	host := catalog.PairHost{CPU: "i9-10900X", Memory: "DDR4, quad channel", Bandwidth: 1.02e11, Measured: true}
	cat := &catalog.Catalog{Speed: &catalog.SpeedModel{
		Pairs: []*catalog.CalibrationPair{{ID: "a", Offload: &catalog.PairOffload{Host: host}}, {ID: "b", Offload: &catalog.PairOffload{Host: host}}, {ID: "c"}},
		Fit: &catalog.SpeedFit{Regimes: []catalog.RegimeErrors{
			{Regime: "cpu-offload", Pairs: 8, ErrorP50: 0.09, ErrorP90: 0.18, Classes: []string{"consumer"}, IDs: []string{"a", "b"}},
			{Regime: "apple", Pairs: 3, ErrorP50: 0.2, ErrorP90: 0.4},
		}}}}
	e := sizing.RegimeErrorFor(cat, "cpu-offload", "cpu")
	if !e.Calibrated || e.P90 != 0.18 || e.Borrowed != "measured on consumer parts only, none cpu" || len(e.Hosts) != 1 || e.Hosts[0] != "i9-10900X, DDR4, quad channel, 102.0 GB/s measured" {
		t.Errorf("cpu-offload on a CPU: %+v", e)
	}
	if e := sizing.RegimeErrorFor(cat, "apple", "unified"); e.Calibrated || e.P90 != 0 || e.Text != "uncalibrated: n = 3 < 5" {
		t.Errorf("apple with 3 pairs: %+v", e)
	}
	if e := sizing.RegimeErrorFor(nil, "single-gpu", "consumer"); e.Calibrated || e.Why == "" {
		t.Errorf("no catalog: %+v", e)
	}
}
