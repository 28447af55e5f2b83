package catalog

import (
	"fmt"
	"math"

	"dossier/generator/internal/checked"
	"dossier/generator/yamlx"
)

type calendarDate struct{}

func (calendarDate) MatchString(s string) bool {
	_, ok := checked.Date(s)
	return ok
}

// at names a field of a catalog file with the line it sits on, so that
// `dossier check` and the build point at the entry, not the file.
func at(path string, b []byte, field string) string {
	if l := yamlx.Line(b, field); l > 0 {
		return fmt.Sprintf("%s:%d: field %s", path, l, field)
	}
	return fmt.Sprintf("%s: field %s", path, field)
}

// checkAccelerators keeps every accelerator figure in the range sizing's
// arithmetic is checked for (checked.MaxBytesPerGPU, checked.MaxGPUs).
func checkAccelerators(path string, b []byte, accs []*Accelerator) error {
	for i, a := range accs {
		field := func(f string) string { return fmt.Sprintf("accelerators[%d].%s", i, f) }
		switch {
		case a == nil:
			return fmt.Errorf("%s: empty entry", at(path, b, fmt.Sprintf("accelerators[%d]", i)))
		case a.MemoryBytes < 1 || a.MemoryBytes > checked.MaxBytesPerGPU:
			return fmt.Errorf("%s: %s", at(path, b, field("memory_bytes")), checked.Range(1, int64(checked.MaxBytesPerGPU), "bytes", a.MemoryBytes))
		case a.GPUsPerNode < 1 || a.GPUsPerNode > checked.MaxGPUs:
			return fmt.Errorf("%s: %s", at(path, b, field("gpus_per_node")), checked.Range(1, checked.MaxGPUs, "GPUs", a.GPUsPerNode))
		case !dateRe.MatchString(a.AsOf):
			return fmt.Errorf("%s: expected a calendar date YYYY-MM-DD, found %q", at(path, b, field("as_of")), a.AsOf)
		}
	}
	return nil
}

// checkPrices keeps prices finite and in range: a price of 1e300 would
// be shown as something else than its value.
func checkPrices(path string, b []byte, pl *PriceList) error {
	if !dateRe.MatchString(pl.AsOf) {
		return fmt.Errorf("%s: expected a calendar date YYYY-MM-DD, found %q", at(path, b, "as_of"), pl.AsOf)
	}
	for i, p := range pl.Prices {
		field := func(f string) string { return fmt.Sprintf("prices[%d].%s", i, f) }
		for _, v := range []struct {
			name string
			usd  float64
		}{{"usd_per_gpu_hour", p.USDPerGPUHr}, {"usd_per_hour", p.USDPerHour}} {
			if math.IsNaN(v.usd) || v.usd < 0 || v.usd > checked.MaxUSDPerHour {
				return fmt.Errorf("%s: expected a price from 0 to %v US dollars per hour, found %v", at(path, b, field(v.name)), float64(checked.MaxUSDPerHour), v.usd)
			}
		}
		if p.GPUs < 0 || p.GPUs > checked.MaxGPUs {
			return fmt.Errorf("%s: %s", at(path, b, field("gpus")), checked.Range(0, checked.MaxGPUs, "GPUs", p.GPUs))
		}
	}
	return nil
}
