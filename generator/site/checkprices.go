package site

import (
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"dossier/generator/catalog"
	"dossier/generator/internal/safefile"
	"dossier/generator/pricing"
	"dossier/generator/yamlx"
)

// priceDates warns on every price in a snapshot (data/pricing/*.json)
// whose value differs from the file's previous committed version while
// the date it carries (the entry's as_of, else the list's fetched) stayed:
// a page would then date a new price by the day the old one was read.
// The previous version is HEAD's when the working tree changed the file,
// else the one before the last commit that did (a pull request has
// committed its edit). Outside a git repository there is nothing to
// compare, and nothing is reported.
func priceDates(s *Site, rel func(string) string) []Diagnostic {
	top, err := gitOut(s.Config.Root, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil
	}
	top = strings.TrimSpace(top)
	var ds []Diagnostic
	for _, pl := range s.Catalog.PriceLists {
		abs, err := filepath.Abs(pl.File)
		if err != nil {
			continue
		}
		path, err := filepath.Rel(top, abs)
		if err != nil || strings.HasPrefix(path, "..") {
			continue
		}
		prev, ok := previousVersion(top, filepath.ToSlash(path))
		if !ok {
			continue
		}
		cur, err := safefile.Read(pl.File, filepath.Dir(pl.File), safefile.Catalog)
		if err != nil {
			continue // Load reported it, or the list is too large to compare
		}
		old, err1 := datedPrices(path, prev)
		now, err2 := datedPrices(path, cur)
		if err1 != nil || err2 != nil {
			continue // an old version that no longer parses dates nothing; Load reports the current one
		}
		for _, k := range keptPriceDates(old, now, pl.Provider) {
			field := "usd_per_hour"
			if now[k.Index].USDPerGPUHr > 0 {
				field = "usd_per_gpu_hour"
			}
			ds = append(ds, Diagnostic{rel(pl.File), lineIn(pl.File, fmt.Sprintf("prices[%d].%s", k.Index, field)), "warning", k.Msg})
		}
	}
	return ds
}

// datedPrice is one price of a list with the date it carries.
type datedPrice struct {
	Key         string // what identifies it across versions: SKU, region, GPUs, accelerator
	What        string // how a message names it
	USDPerHour  float64
	USDPerGPUHr float64
	Date        string // the entry's as_of, else the list's
	DateField   string // where that date is written
}

// datedPrices reads a snapshot (*.json) or a hand-written list (*.yaml).
func datedPrices(path string, b []byte) ([]datedPrice, error) {
	var out []datedPrice
	if filepath.Ext(path) == ".json" {
		s, err := pricing.Decode(path, b)
		if err != nil {
			return nil, err
		}
		for _, p := range s.Prices {
			d := datedPrice{Key: fmt.Sprintf("%s|%s|%s|%d", p.SKU, p.Region, p.Accelerator, p.GPUs), What: p.SKU, USDPerHour: p.USDPerHour, USDPerGPUHr: p.USDPerGPU, Date: s.AsOf(), DateField: "fetched"}
			if p.AsOf != "" {
				d.Date, d.DateField = p.AsOf, "its as_of"
			}
			out = append(out, d)
		}
		return out, nil
	}
	var pl catalog.PriceList
	if err := yamlx.Decode(path, b, &pl); err != nil {
		return nil, err
	}
	for _, p := range pl.Prices {
		what := p.Accelerator
		if p.GPUs > 0 {
			what = fmt.Sprintf("%dx%s", p.GPUs, p.Accelerator)
		}
		out = append(out, datedPrice{Key: fmt.Sprintf("|||%s|%d", p.Accelerator, p.GPUs), What: what, USDPerHour: p.USDPerHour, USDPerGPUHr: p.USDPerGPUHr, Date: pl.AsOf, DateField: "as_of"})
	}
	return out, nil
}

// keptPrice is a price whose value changed while its date stayed: Index
// is its position in the current list.
type keptPrice struct {
	Index int
	Msg   string
}

// keptPriceDates compares two versions of a price list: each price of cur
// that also is in old (by Key) with another value but the same date.
func keptPriceDates(old, cur []datedPrice, provider string) []keptPrice {
	before := map[string]datedPrice{}
	for _, p := range old {
		before[p.Key] = p
	}
	var out []keptPrice
	for i, p := range cur {
		o, ok := before[p.Key]
		if !ok || (o.USDPerHour == p.USDPerHour && o.USDPerGPUHr == p.USDPerGPUHr) || o.Date != p.Date {
			continue
		}
		out = append(out, keptPrice{i, fmt.Sprintf("price of %s (%s) changed from %s to %s but its date stayed %s: set %s to the day the new price was read",
			p.What, provider, usdShown(o), usdShown(p), p.Date, p.DateField)})
	}
	return out
}

func usdShown(p datedPrice) string {
	if p.USDPerGPUHr > 0 {
		return fmt.Sprintf("$%g per GPU-hour", p.USDPerGPUHr)
	}
	return fmt.Sprintf("$%g/h", p.USDPerHour)
}

// previousVersion is the committed version of path (relative to the
// repository root top) that the working tree's version replaced, bounded
// as Load bounds the working copy: a committed file of any size must not
// be read whole into memory.
func previousVersion(top, path string) ([]byte, bool) {
	if err := exec.Command("git", "-C", top, "diff", "--quiet", "HEAD", "--", path).Run(); err != nil {
		return gitBlob(top, "HEAD:"+path, safefile.Catalog.Bytes)
	}
	last, err := gitOut(top, "log", "-n1", "--format=%H", "HEAD", "--", path)
	if err != nil || strings.TrimSpace(last) == "" {
		return nil, false
	}
	return gitBlob(top, strings.TrimSpace(last)+"^:"+path, safefile.Catalog.Bytes)
}

// gitBlob reads the blob rev:path names, and false when there is none or
// it is larger than limit.
func gitBlob(top, spec string, limit int64) ([]byte, bool) {
	cmd := exec.Command("git", "-C", top, "cat-file", "blob", spec)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false
	}
	if err := cmd.Start(); err != nil {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(out, limit+1))
	if err != nil || int64(len(b)) > limit {
		_ = cmd.Process.Kill() // the rest is not wanted; Wait reaps it
		_ = cmd.Wait()
		return nil, false
	}
	return b, cmd.Wait() == nil
}

func gitOut(dir string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	return string(out), err
}
