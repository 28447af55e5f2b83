package sizing

import (
	"fmt"

	"dossier/generator/config"
	"dossier/generator/facts"
)

// variants sizes other published forms of the model (GGUF quants, NVFP4
// conversions) from their file sizes: download time at the stated
// throughput and, per configured hardware entry, whether the files fit in
// memory at rest and by how much. A 2-bit conversion that fits is not the
// released model; the page says which is which.
//
// A variant is known only by its file sizes, so its margin is memory −
// file bytes. For the released checkpoint to sit beside it on the same
// basis, fit.<hw>.file_margin_bytes is memory − checkpoint file bytes
// (safetensors headers included); fit.<hw>.margin_bytes stays the weight
// verdict's figure, memory − tensor bytes.
func (c *calc) variants() {
	if c.in.Catalog == nil || len(c.in.Variants) == 0 {
		return
	}
	if ck, ok := c.s.Get("bytes.checkpoint").Int(); ok {
		for _, hw := range c.in.Hardware {
			n, id, _ := config.ParseHardware(hw)
			acc := c.in.Catalog.Accelerators[id]
			if acc == nil {
				continue
			}
			total := int64(n) * acc.MemoryBytes
			c.add("fit."+hw+".file_margin_bytes", total-ck, facts.UnitBytes,
				fmt.Sprintf("%d × %s − the checkpoint's files (weights at rest, on the basis of the variants' margins)", n, facts.GB(float64(acc.MemoryBytes))),
				c.src("tree"), "catalog:hardware.yaml#"+id).Display = marginDisplay(total - ck)
		}
	}
	rate := c.in.Sizing.DownloadBytesPerSec
	for _, v := range c.in.Variants {
		k := "variant." + v.Name
		c.add(k+".bytes", v.Bytes, facts.UnitBytes, "size of the variant's files", v.Source).Display = facts.GB(float64(v.Bytes))
		if rate > 0 {
			c.add(k+".download_seconds", float64(v.Bytes)/rate, facts.UnitSeconds,
				fmt.Sprintf("%s ÷ %s MB/s", facts.GB(float64(v.Bytes)), facts.Fixed(rate/1e6, 1)), v.Source, "site:hugo-like.yaml sizing.downloadBytesPerSecond")
		}
		for _, hw := range c.in.Hardware {
			n, id, _ := config.ParseHardware(hw)
			acc := c.in.Catalog.Accelerators[id]
			if acc == nil {
				continue
			}
			total := int64(n) * acc.MemoryBytes
			c.add(k+".fit."+hw+".margin_bytes", total-v.Bytes, facts.UnitBytes,
				fmt.Sprintf("%d × %s − the variant's files (weights at rest)", n, facts.GB(float64(acc.MemoryBytes))),
				v.Source, "catalog:hardware.yaml#"+id).Display = marginDisplay(total - v.Bytes)
		}
	}
}
