package gguf

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Quant is one quant's files with their headers, combined: metadata from
// the first shard, tensors from all.
type Quant struct {
	Label   string
	Files   []Listed
	Headers []*Header
}

// Combine checks that headers are the shards of one split model, in
// order, and returns the quant. headers[i] belongs to g.Files[i].
func Combine(g Group, headers []*Header) (*Quant, error) {
	if len(headers) != len(g.Files) || len(headers) == 0 {
		return nil, fmt.Errorf("quant %s: %d headers for %d files", g.Label, len(headers), len(g.Files))
	}
	n := len(headers)
	total := 0
	seen := map[string]string{}
	for i, h := range headers {
		name := g.Files[i].Path
		if n > 1 {
			no, ok1 := intKey(h, "split.no")
			count, ok2 := intKey(h, "split.count")
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("%s: a split file without split.no and split.count", name)
			}
			if no != int64(i) || count != int64(n) {
				return nil, fmt.Errorf("%s: split.no %d of split.count %d, but the name says shard %d of %d", name, no, count, i+1, n)
			}
		}
		for _, t := range h.Tensors {
			if other, dup := seen[t.Name]; dup {
				return nil, fmt.Errorf("%s: tensor %q is also in %s", name, t.Name, other)
			}
			seen[t.Name] = name
		}
		total += len(h.Tensors)
	}
	if want, ok := intKey(headers[0], "split.tensors.count"); ok && n > 1 && want != int64(total) {
		return nil, fmt.Errorf("%s: split.tensors.count is %d but the %d files hold %d tensors", g.Files[0].Path, want, n, total)
	}
	return &Quant{Label: g.Label, Files: g.Files, Headers: headers}, nil
}

func intKey(h *Header, key string) (int64, bool) {
	v, ok := h.Lookup(key)
	if !ok || !v.Type.integer() || v.Type == Bool {
		return 0, false
	}
	return v.Int, true
}

// Tensors calls fn for every tensor of every shard.
func (q *Quant) Tensors(fn func(TensorInfo)) {
	for _, h := range q.Headers {
		for _, t := range h.Tensors {
			fn(t)
		}
	}
}

// TypeCount is the parameters and bytes of one ggml type.
type TypeCount struct {
	Params int64 `json:"params"`
	Bytes  int64 `json:"bytes"`
}

// blockRE reads the layer of a llama.cpp tensor name ("blk.12.ffn_up_exps.weight").
var blockRE = regexp.MustCompile(`^blk\.(\d+)\.`)

// Sizes is what a quant's tensor infos add up to.
type Sizes struct {
	Bytes       int64 // files on disk, headers and padding included
	TensorBytes int64
	Params      int64
	Census      map[string]TypeCount // by ggml type name
	// ExpertBytes are the routed experts (ffn_*_exps tensors), the part
	// llama.cpp's --n-cpu-moe moves to host memory; by layer in
	// LayerExpertBytes. LayerBytes is every tensor of a layer, experts
	// included; OtherBytes the tensors outside the layers (embeddings,
	// output head, final norm).
	ExpertBytes      int64
	ExpertParams     int64
	LayerBytes       []int64
	LayerExpertBytes []int64
	OtherBytes       int64
	// EmbeddingBytes is token_embd: a lookup table, one row read per
	// token, which llama.cpp keeps in host memory.
	EmbeddingBytes, EmbeddingParams int64
}

// BitsPerWeight is tensor bits over parameters.
func (s Sizes) BitsPerWeight() float64 {
	if s.Params == 0 {
		return 0
	}
	return float64(s.TensorBytes) * 8 / float64(s.Params)
}

// Types lists the census's types, most bytes first.
func (s Sizes) Types() []string {
	out := make([]string, 0, len(s.Census))
	for t := range s.Census {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := s.Census[out[i]], s.Census[out[j]]
		if a.Bytes != b.Bytes {
			return a.Bytes > b.Bytes
		}
		return out[i] < out[j]
	})
	return out
}

// Sizes sums the quant's tensor infos. A tensor of a layer past
// block_count is an error: the per-layer split would lose it.
func (q *Quant) Sizes() (Sizes, error) {
	s := Sizes{Census: map[string]TypeCount{}}
	for _, f := range q.Files {
		s.Bytes += f.Size
	}
	layers, _ := q.archInt("block_count")
	s.LayerBytes = make([]int64, layers)
	s.LayerExpertBytes = make([]int64, layers)
	var bad error
	q.Tensors(func(t TensorInfo) {
		b, n := t.Bytes(), t.Elements()
		s.TensorBytes += b
		s.Params += n
		c := s.Census[t.Type.String()]
		c.Params += n
		c.Bytes += b
		s.Census[t.Type.String()] = c
		expert := strings.Contains(t.Name, "_exps.")
		if expert {
			s.ExpertBytes += b
			s.ExpertParams += n
		}
		if strings.HasPrefix(t.Name, "token_embd.") {
			s.EmbeddingBytes += b
			s.EmbeddingParams += n
		}
		m := blockRE.FindStringSubmatch(t.Name)
		if m == nil {
			s.OtherBytes += b
			return
		}
		l, err := strconv.Atoi(m[1])
		if err != nil || int64(l) >= layers {
			if bad == nil {
				bad = fmt.Errorf("quant %s: tensor %q is past block_count %d", q.Label, t.Name, layers)
			}
			return
		}
		s.LayerBytes[l] += b
		if expert {
			s.LayerExpertBytes[l] += b
		}
	})
	return s, bad
}

// Experts is the routed expert count and how many a token uses
// (expert_count, expert_used_count); 0, 0 for a dense model.
func (q *Quant) Experts() (total, used int64) {
	total, _ = q.archInt("expert_count")
	used, _ = q.archInt("expert_used_count")
	return total, used
}

// Arch is general.architecture, the prefix of the model's keys.
func (q *Quant) Arch() string {
	v, _ := q.Headers[0].Lookup("general.architecture")
	return v.Str
}

func (q *Quant) archInt(key string) (int64, bool) {
	return intKey(q.Headers[0], q.Arch()+"."+key)
}
