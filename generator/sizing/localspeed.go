package sizing

import (
	"fmt"
	"slices"

	"dossier/generator/catalog"
)

// RegimeError is the cross-validated error of a speed figure's regime for
// a caller outside the package (the local plans, which time their steps
// with OffloadDecodeSeconds): the percentiles when the regime has enough
// pairs, the text printed beside the figure, and Why when it has too few.
type RegimeError struct {
	Regime     string
	Pairs      int
	Calibrated bool // at least catalog.MinRegimePairs pairs
	P50, P90   float64
	Text       string // "typically within ±9 %, n = 8" or "uncalibrated: n = 2 < 5"
	Borrowed   string // the classes its pairs ran on, when the part's is not one
	Why        string
	// Hosts are the hosts the regime's offload pairs read their weights
	// from (CPU, memory, bandwidth), each once: the host efficiency a
	// figure on another host borrows was fitted on these.
	Hosts []string
}

// RegimeErrorFor is the error bar of a figure in the named regime on a
// part of the given class, from cat's speed fit (the same bar the
// layouts' speeds print).
func RegimeErrorFor(cat *catalog.Catalog, regime, class string) RegimeError {
	var fit *catalog.SpeedFit
	var pairs []*catalog.CalibrationPair
	if cat != nil && cat.Speed != nil {
		fit, pairs = cat.Speed.Fit, cat.Speed.Pairs
	}
	e := speedModel{fit: fit}.errorBarFor(regime, class)
	r := RegimeError{Regime: regime, Calibrated: e.ok, P50: e.p50, P90: e.p90, Text: e.text, Borrowed: e.borrowed, Why: e.why}
	if e.re == nil {
		return r
	}
	r.Pairs = e.re.Pairs
	for _, p := range pairs {
		if p.Offload == nil || !slices.Contains(e.re.IDs, p.ID) {
			continue
		}
		h := p.Offload.Host
		how := "stated"
		if h.Measured {
			how = "measured"
		}
		s := fmt.Sprintf("%s, %s, %s %s", h.CPU, h.Memory, rate(h.Bandwidth, "B/s"), how)
		if !slices.Contains(r.Hosts, s) {
			r.Hosts = append(r.Hosts, s)
		}
	}
	return r
}

// LocalRegime is the regime of one sequence's decode on a machine a
// person owns: Apple unified memory, weights in the host's RAM (or no
// GPU at all: class cpu), or everything on the GPU.
func LocalRegime(gpuClass string, hostBytes float64) string {
	if hostBytes > 0 && gpuClass != "unified" {
		return "cpu-offload"
	}
	return regimeOf(gpuClass, 1, 1, false)
}
