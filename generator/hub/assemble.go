package hub

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"dossier/generator/snapshot"
)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// shardRe is huggingface.js's shard naming: prefix, index, total, with
// five or six digits each (K3 mixes them: model-00001-of-000096).
var shardRe = regexp.MustCompile(`^(.*?[_-])(\d{5,6})-of-(\d{5,6})\.safetensors$`)

func shardSummary(shards []TreeEntry) snapshot.Shards {
	s := snapshot.Shards{Count: len(shards), Source: "hub:tree"}
	for _, e := range shards {
		s.Bytes += e.Size
	}
	if len(shards) == 0 {
		return s
	}
	var prefix string
	var wi, wt int
	for i, e := range shards {
		m := shardRe.FindStringSubmatch(e.Path)
		if m == nil {
			return s
		}
		if i == 0 {
			prefix, wi, wt = m[1], len(m[2]), len(m[3])
		} else if m[1] != prefix || len(m[2]) != wi || len(m[3]) != wt {
			return s
		}
	}
	s.Numbered = strings.ReplaceAll(prefix, "%", "%%") + fmt.Sprintf("%%0%dd-of-%%0%dd.safetensors", wi, wt)
	return s
}

// numberingWarning spots a listing that lacks shards its names promise.
// Numbering may start at 1 (model-00001-of-00003) or at 0, as gpt-oss
// does (model-00000-of-00002 … model-00002-of-00002).
func numberingWarning(shards []TreeEntry) string {
	if len(shards) == 0 {
		return ""
	}
	var total int
	seen := map[int]bool{}
	lo := -1
	for _, e := range shards {
		m := shardRe.FindStringSubmatch(e.Path)
		if m == nil {
			return ""
		}
		i, _ := strconv.Atoi(m[2])
		t, _ := strconv.Atoi(m[3])
		if total != 0 && t != total {
			return fmt.Sprintf("shard names disagree on the total: %s", e.Path)
		}
		total = t
		seen[i] = true
		if lo < 0 || i < lo {
			lo = i
		}
	}
	var missing []string
	for i := lo; i <= total; i++ {
		if !seen[i] && (i > 0 || lo == 0) {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		if len(missing) > 10 {
			missing = append(missing[:10], "…")
		}
		return fmt.Sprintf("shards named as %d of %d; missing from the listing: %s", len(shards), total, strings.Join(missing, ", "))
	}
	return ""
}

// crossCheck compares what the headers say with the listing and the
// index. Differences are warnings: the snapshot records what is there.
func (f *fetch) crossCheck(snap *snapshot.Snapshot, shards []TreeEntry) {
	for i, e := range shards {
		if s := f.infos[i].size; s >= 0 && s != e.Size {
			f.warn("%s: the listing says %d bytes, the server %d", e.Path, e.Size, s)
		}
		if got := f.infos[i].fileLen; got != e.Size {
			f.warn("%s: the header describes %d bytes (prefix, header and data) but the file is %d bytes; the safetensors crate would refuse it", e.Path, got, e.Size)
		}
	}
	if snap.Index == nil {
		return
	}
	if tb := f.census.TotalBytes(); tb != snap.Index.TotalSize {
		f.warn("%s total_size is %d but the headers hold %d tensor bytes", indexFile, snap.Index.TotalSize, tb)
	}
	if snap.Index.Tensors != f.census.Tensors {
		f.warn("%s maps %d tensors but the headers list %d", indexFile, snap.Index.Tensors, f.census.Tensors)
	}
}
