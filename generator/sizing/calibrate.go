package sizing

import (
	"fmt"
	"regexp"
	"strings"

	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/facts"
)

// calibrate sets every speed measurement beside the prediction for the
// layout it ran on: calibration.<ID>.ratio is predicted ÷ measured, or
// unknown with the reason the two cannot be compared.
func (c *calc) calibrate() {
	c.apiPrice()
	for _, m := range c.in.Measured {
		measured, ok := tokensPerSecond(m.Value, m.Unit)
		if !ok {
			continue // not a decode speed
		}
		key := "calibration." + m.ID + ".ratio"
		if m.Kind == "hosted-api" {
			c.s.Unknown(key, facts.UnitRatio, "not comparable: a hosted API under production load, whose hardware, batch and load are not stated")
			continue
		}
		if m.Layout == "" {
			c.s.Unknown(key, facts.UnitRatio, "not comparable: the measurement does not state how many GPUs of which kind ran it (no layout)")
			continue
		}
		n, id, ok := config.ParseHardware(m.Layout)
		var acc *catalog.Accelerator
		if ok && c.in.Catalog != nil {
			acc = c.in.Catalog.Accelerators[id]
		}
		if acc == nil || n < 1 {
			c.s.Unknown(key, facts.UnitRatio, "not comparable: layout "+m.Layout+" is not in the hardware catalog")
			continue
		}
		if streamedRe.MatchString(m.Setting) {
			c.calibrateStreamed(m.ID, measured, key)
			continue
		}
		if c.s.Get("speed."+m.Layout+".decode_tokens_per_second") == nil {
			if tb, tsrc, ok := c.tensorBytes(); ok {
				c.serveOne(m.Layout, acc, int64(n), tb, c.weightSplit(tb, tsrc), true)
			}
		}
		pkey := "speed." + m.Layout + ".decode_tokens_per_second"
		batch := "one sequence"
		if m.Batch != "" && !batchOneRe.MatchString(m.Batch) {
			pkey, batch = pkey+"_at_max_concurrency", "max concurrency"
		}
		pf := c.s.Get(pkey)
		pred, ok := pf.Float()
		if !ok {
			why := "no prediction"
			if pf != nil && pf.Reason != "" {
				why = pf.Reason
			}
			c.s.Unknown(key, facts.UnitRatio, "not comparable: "+why+" ("+pkey+")")
			continue
		}
		c.add("calibration."+m.ID+".predicted", pred, facts.UnitTokensPerSec, pkey+" ("+batch+")", pkey)
		f := c.add(key, pred/measured, facts.UnitCount,
			fmt.Sprintf("predicted %s tokens/s ÷ measured %s tokens/s on %s", facts.Fixed(pred, 1), facts.Fixed(measured, 1), m.Layout), pkey, "measurement:"+m.ID)
		f.Display = facts.Fixed(pred/measured, 2) + "×"
	}
}

// apiPrice records a vendor's published price per million output tokens
// (a measurement in that unit) as cost.api.usd_per_million_output_tokens,
// beside the self-hosted $/M-token predictions.
func (c *calc) apiPrice() {
	for _, m := range c.in.Measured {
		if strings.EqualFold(strings.TrimSpace(m.Unit), "USD per million output tokens") && m.Value > 0 {
			c.add("cost.api.usd_per_million_output_tokens", m.Value, facts.UnitUSD,
				"the vendor's API list price per million output tokens (measurement "+m.ID+")", "measurement:"+m.ID)
			return
		}
	}
}

// streamedRe recognises a run that streamed the weights from disk
// (AirLLM-style) rather than holding them in memory.
var streamedRe = regexp.MustCompile(`(?i)\bstream`)

// calibrateStreamed sets a streamed run beside stream.seconds_per_token.
func (c *calc) calibrateStreamed(id string, measured float64, key string) {
	pf := c.s.Get("stream.seconds_per_token")
	secs, ok := pf.Float()
	if !ok || secs <= 0 {
		c.s.Unknown(key, facts.UnitRatio, "not comparable: no streaming prediction (stream.seconds_per_token) for this model")
		return
	}
	pred := 1 / secs
	c.add("calibration."+id+".predicted", pred, facts.UnitTokensPerSec, "1 ÷ stream.seconds_per_token (layers and active experts streamed from disk)", "stream.seconds_per_token")
	f := c.add(key, pred/measured, facts.UnitCount,
		fmt.Sprintf("predicted %s tokens/s ÷ measured %s tokens/s, streamed from disk", sig(pred), sig(measured)), "stream.seconds_per_token", "measurement:"+id)
	f.Display = facts.Fixed(pred/measured, 2) + "×"
	// The prediction is bytes ÷ an assumed disk rate, so what the run
	// implies about its disk is the one comparison that explains the ratio.
	if read, ok := c.s.Get("stream.bytes_read_per_token").Float(); ok && read > 0 {
		disk := c.in.Sizing.Speed.DiskBytesPerSecond
		c.add("calibration."+id+".assumed_disk_bytes_per_second", disk, facts.UnitBytesPerSecond,
			"the disk read rate stream.seconds_per_token assumes: "+c.in.Sizing.Speed.DiskSource, "site:hugo-like.yaml sizing.speed.diskBytesPerSecond").Display = facts.Fixed(disk/1e6, 0) + " MB/s"
		rate := read * measured
		c.add("calibration."+id+".implied_disk_bytes_per_second", rate, facts.UnitBytesPerSecond,
			fmt.Sprintf("stream.bytes_read_per_token %s × measured %s tokens/s: the read rate the run achieved if it was disk-bound, beside the %s MB/s the prediction assumes (%s)",
				facts.GB(read), sig(measured), facts.Fixed(c.in.Sizing.Speed.DiskBytesPerSecond/1e6, 0), c.in.Sizing.Speed.DiskSource),
			"stream.bytes_read_per_token", "measurement:"+id).Display = facts.Fixed(rate/1e6, 0) + " MB/s"
	}
}

// batchOneRe recognises a configuration that ran one sequence at a time.
var batchOneRe = regexp.MustCompile(`(?i)\bbatch(?: size)?\s*(?:of\s*)?1\b|\bconcurrency\s*(?:of\s*|=\s*)?1\b|\bsingle\b|\bone (?:sequence|request|user)\b|\bbs\s*=?\s*1\b`)

// tokensPerSecond reads a measurement as a decode rate.
func tokensPerSecond(v float64, unit string) (float64, bool) {
	switch strings.ToLower(strings.TrimSpace(unit)) {
	case "tokens/s", "tokens per second", "tok/s":
		return v, v > 0
	case "s/token", "seconds per token":
		if v > 0 {
			return 1 / v, true
		}
	}
	return 0, false
}
