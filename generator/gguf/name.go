package gguf

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// splitRE matches llama.cpp's split naming (llama_split_path:
// "%s-%05d-of-%05d.gguf").
var splitRE = regexp.MustCompile(`^(.*)-(\d{5})-of-(\d{5})\.gguf$`)

// quantRE matches one dash-separated token of a file name that names a
// quantization: llama-quantize's types (Q4_K_M, IQ2_XXS, Q8_0, TQ1_0),
// unsloth's dynamic suffixes (Q2_K_XL) and the float types.
var quantRE = regexp.MustCompile(`(?i)^(I?Q\d+(_[0-9A-Z]+)*|TQ\d_\d|BF16|F16|F32|MXFP4(_MOE)?|NVFP4)$`)

// Shard is a file name's split position: No 1..Count, Base the name
// without the suffix; Count 0 for a file that is not split.
type Shard struct {
	Base      string
	No, Count int
}

// ParseShard reads the -0000k-of-0000N suffix of a .gguf path.
func ParseShard(p string) Shard {
	m := splitRE.FindStringSubmatch(p)
	if m == nil {
		return Shard{Base: strings.TrimSuffix(p, ".gguf")}
	}
	no, _ := strconv.Atoi(m[2])
	n, _ := strconv.Atoi(m[3])
	return Shard{Base: m[1], No: no, Count: n}
}

// QuantLabel is the quantization a file name announces ("UD-Q2_K_XL",
// "Q4_K_M", "IQ2_XXS", "MXFP4_MOE"), upper case, or "" when none of its
// dash-separated tokens names one. The last such token wins (model names
// such as "Qwen3-30B-A3B" hold none); an "UD" token before it is kept.
func QuantLabel(p string) string {
	base := path.Base(ParseShard(p).Base)
	toks := strings.Split(base, "-")
	for i := len(toks) - 1; i >= 0; i-- {
		// "Kimi-K3.Q4_K_M": some quantizers join with a dot.
		t := toks[i]
		if j := strings.LastIndexByte(t, '.'); j >= 0 && quantRE.MatchString(t[j+1:]) {
			t = t[j+1:]
		}
		if !quantRE.MatchString(t) {
			continue
		}
		label := strings.ToUpper(t)
		if i > 0 && strings.EqualFold(toks[i-1], "UD") {
			label = "UD-" + label
		}
		return label
	}
	return ""
}

// Listed is a .gguf file of a repository listing.
type Listed struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// Group is one quant: its files in shard order.
type Group struct {
	Label string
	Files []Listed
}

// auxiliary reports files that are not a model's weights: vision
// projectors and importance matrices.
func auxiliary(p string) bool {
	b := strings.ToLower(path.Base(p))
	return strings.HasPrefix(b, "mmproj") || strings.Contains(b, "imatrix")
}

// GroupFiles sorts a listing's .gguf files into quants: split shards of
// one base together, each set complete. A shard missing from a set, two
// sets with one label, or a model file with no label is an error naming
// the file.
func GroupFiles(files []Listed) ([]Group, error) {
	type set struct {
		count  int
		shards map[int]Listed
	}
	sets := map[string]*set{}
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".gguf") || auxiliary(f.Path) {
			continue
		}
		s := ParseShard(f.Path)
		count := max(s.Count, 1)
		no := max(s.No, 1)
		if s.Count > 0 && (s.No < 1 || s.No > s.Count) {
			return nil, fmt.Errorf("%s: shard %d of %d is out of range", f.Path, s.No, s.Count)
		}
		st := sets[s.Base]
		if st == nil {
			st = &set{count: count, shards: map[int]Listed{}}
			sets[s.Base] = st
		}
		if st.count != count {
			return nil, fmt.Errorf("%s: split into %d files, but another file of %s says %d", f.Path, count, s.Base, st.count)
		}
		st.shards[no] = f
	}
	byLabel := map[string]string{}
	var out []Group
	bases := make([]string, 0, len(sets))
	for b := range sets {
		bases = append(bases, b)
	}
	sort.Strings(bases)
	for _, b := range bases {
		st := sets[b]
		g := Group{}
		for no := 1; no <= st.count; no++ {
			f, ok := st.shards[no]
			if !ok {
				return nil, fmt.Errorf("%s-%05d-of-%05d.gguf: shard %d of %d is missing from the listing", b, no, st.count, no, st.count)
			}
			g.Files = append(g.Files, f)
		}
		g.Label = QuantLabel(g.Files[0].Path)
		if g.Label == "" {
			return nil, fmt.Errorf("%s: no quantization in the file name (expected a token such as Q4_K_M or UD-Q2_K_XL)", g.Files[0].Path)
		}
		if other, dup := byLabel[g.Label]; dup {
			return nil, fmt.Errorf("%s and %s both name quant %s", other, g.Files[0].Path, g.Label)
		}
		byLabel[g.Label] = g.Files[0].Path
		out = append(out, g)
	}
	return out, nil
}
