package hub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"dossier/generator/snapshot"
)

// changes lists what next changes against prev, one readable line each.
func changes(prev, next *snapshot.Snapshot) []string {
	if prev == nil {
		return []string{fmt.Sprintf("new snapshot at %s: %d files, %d shards, %d shard bytes",
			next.Revision, len(next.Files), next.Shards.Count, next.Shards.Bytes)}
	}
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	if prev.Revision != next.Revision {
		add("revision %s → %s", prev.Revision, next.Revision)
	}
	if prev.Endpoint != next.Endpoint {
		add("endpoint %q → %q", prev.Endpoint, next.Endpoint)
	}
	out = append(out, fileChanges(prev.Files, next.Files)...)
	if prev.Shards.Count != next.Shards.Count || prev.Shards.Bytes != next.Shards.Bytes {
		add("shards %d (%d bytes) → %d (%d bytes)", prev.Shards.Count, prev.Shards.Bytes, next.Shards.Count, next.Shards.Bytes)
	}
	out = append(out, countChanges("census", prev.Census, next.Census)...)
	switch pi, ni := prev.Index, next.Index; {
	case pi == nil && ni != nil:
		add("index added: total_size %d, %d tensors", ni.TotalSize, ni.Tensors)
	case pi != nil && ni == nil:
		add("index removed")
	case pi != nil && (pi.TotalSize != ni.TotalSize || pi.Tensors != ni.Tensors):
		add("index total_size %d → %d, tensors %d → %d", pi.TotalSize, ni.TotalSize, pi.Tensors, ni.Tensors)
	}
	switch ph, nh := prev.Header, next.Header; {
	case ph == nil && nh != nil:
		add("headers read: %d tensors, %d header bytes", nh.Tensors, nh.Bytes)
	case ph != nil && nh == nil:
		add("no safetensors headers any more")
	case ph != nil:
		if ph.Tensors != nh.Tensors || ph.Bytes != nh.Bytes {
			add("headers %d tensors (%d bytes) → %d tensors (%d bytes)", ph.Tensors, ph.Bytes, nh.Tensors, nh.Bytes)
		}
		out = append(out, countChanges("stored elements", ph.Elems, nh.Elems)...)
	}
	switch pt, nt := len(prev.Tensors), len(next.Tensors); {
	case pt == 0 && nt > 0:
		add("tensor shapes kept: %d (the family is not in the registry)", nt)
	case pt > 0 && nt == 0:
		add("tensor shapes no longer kept")
	case pt != nt:
		add("tensor shapes %d → %d", pt, nt)
	}
	if !sameJSON(prev.Config, next.Config) {
		add("config.json changed")
	}
	if !sameJSON(prev.HFQuantConfig, next.HFQuantConfig) {
		add("hf_quant_config.json changed")
	}
	return out
}

func fileChanges(prev, next []snapshot.File) []string {
	old := map[string]*int64{}
	for _, f := range prev {
		old[f.Path] = f.Size
	}
	var added, resized []string
	for _, f := range next {
		s, ok := old[f.Path]
		delete(old, f.Path)
		switch {
		case !ok:
			added = append(added, f.Path)
		case s != nil && f.Size != nil && *s != *f.Size:
			resized = append(resized, fmt.Sprintf("%s (%d → %d bytes)", f.Path, *s, *f.Size))
		}
	}
	removed := sortedKeys(old)
	var out []string
	for _, l := range []struct {
		what  string
		paths []string
	}{{"added", added}, {"removed", removed}, {"resized", resized}} {
		if len(l.paths) > 0 {
			out = append(out, fmt.Sprintf("files %s (%d): %s", l.what, len(l.paths), abbreviate(l.paths, 5)))
		}
	}
	return out
}

func abbreviate(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:n], ", ") + fmt.Sprintf(", … %d more", len(s)-n)
}

func countChanges(what string, prev, next map[string]int64) []string {
	var out []string
	keys := map[string]bool{}
	for k := range prev {
		keys[k] = true
	}
	for k := range next {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		p, pok := prev[k]
		n, nok := next[k]
		switch {
		case !pok:
			out = append(out, fmt.Sprintf("%s %s: new, %d", what, k, n))
		case !nok:
			out = append(out, fmt.Sprintf("%s %s: gone (was %d)", what, k, p))
		case p != n:
			out = append(out, fmt.Sprintf("%s %s: %d → %d", what, k, p, n))
		}
	}
	return out
}

func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
