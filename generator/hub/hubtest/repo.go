package hubtest

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"dossier/generator/safetensors"
)

// Tensor is one tensor of a generated safetensors file.
type Tensor struct {
	Name  string
	DType string
	Shape []int64
}

// File is one file of a fake repository: plain bytes, or a safetensors
// file generated from Tensors whose data is never materialized (the
// header is real, the data reads as zeros).
type File struct {
	Path    string
	Content []byte

	Tensors  []Tensor
	Metadata map[string]string
	// HeaderLen pads the generated header JSON with spaces to exactly this
	// many bytes (0: the writer's padding to a multiple of 8).
	HeaderLen int64
	// Raw replaces the generated start of the file (prefix and header)
	// with these bytes, for malformed input; the file is Size bytes long,
	// zeros after Raw (Size 0 means len(Raw)).
	Raw  []byte
	Size int64
	// ListedSize, when set, is the size the tree listing reports instead
	// of the real one.
	ListedSize int64
	// LFS makes resolve redirect to the CDN; safetensors files and files
	// over 10 MB always do, as on the Hub.
	LFS bool
}

// Repo is a fake model repository at one commit.
type Repo struct {
	ID  string // org/name
	SHA string // 40 hex digits; derived from ID when empty
	// Revisions maps branch and tag names to SHA; "main" always resolves.
	Revisions map[string]string
	Gated     bool     // downloads need a token listed in Approved
	Private   bool     // everything needs a token listed in Approved
	Approved  []string // tokens with access
	// Census is model info's safetensors.parameters; nil leaves the
	// field out of the answer.
	Census map[string]int64
	Files  []File
	// Index adds model.safetensors.index.json generated from the
	// safetensors files.
	Index bool
	// HideSiblings leaves siblings out of model info, as an answer
	// limited by expand= would.
	HideSiblings bool
	// CreatedAt and LastModified are the Hub's ISO-8601 dates
	// ("2026-07-27T00:00:00.000Z"), in model info and the model listing;
	// both default to DefaultDate. The listing sorts by them.
	CreatedAt    string
	LastModified string
	// HeaderBytes, when set, pads the generated safetensors headers with
	// spaces after their JSON (the format allows it, and writers pad to a
	// multiple of 8 the same way) so that 8 + N summed over the files
	// generated from Tensors is exactly this many bytes. Files with their
	// own HeaderLen keep it; the rest share the padding in multiples of 8.
	// Building the repository fails when the JSON alone is longer.
	HeaderBytes int64
}

// SHAFor makes a stable fake commit sha from any string.
func SHAFor(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// built is a file ready to serve.
type built struct {
	path   string
	prefix []byte // bytes served from offset 0; zeros after
	size   int64
	listed int64
	lfs    bool
	header *safetensors.Header
	oid    string
}

// builtRepo is a Repo ready to serve. It keeps no reference to the
// Repo's tensor lists, only flat bytes: a K3-scale fake would otherwise
// keep half a million small objects live for the garbage collector to
// mark on every cycle of the benchmark it serves.
type builtRepo struct {
	Repo
	files  map[string]*built
	sorted []string
}

const lfsThreshold = 10 << 20

// DefaultDate is a Repo's CreatedAt and LastModified when not set.
const DefaultDate = "2026-07-27T00:00:00.000Z"

func build(r *Repo) (*builtRepo, error) {
	if r.SHA == "" {
		r.SHA = SHAFor(r.ID)
	}
	if r.CreatedAt == "" {
		r.CreatedAt = DefaultDate
	}
	if r.LastModified == "" {
		r.LastModified = DefaultDate
	}
	br := &builtRepo{Repo: *r, files: map[string]*built{}}
	br.Files = nil
	add := func(b *built) {
		if b.listed == 0 {
			b.listed = b.size
		}
		sum := sha256.Sum256([]byte(r.SHA + b.path))
		b.oid = hex.EncodeToString(sum[:])
		br.files[b.path] = b
		br.sorted = append(br.sorted, b.path)
	}
	var index []*built
	var padded []*built // generated headers HeaderBytes may pad
	for i := range r.Files {
		f := &r.Files[i]
		b := &built{path: f.Path, listed: f.ListedSize, lfs: f.LFS}
		switch {
		case f.Raw != nil:
			b.prefix, b.size = f.Raw, max(f.Size, int64(len(f.Raw)))
			b.lfs = true
		case f.Tensors != nil:
			ts := make([]safetensors.TensorInfo, len(f.Tensors))
			for j, t := range f.Tensors {
				ts[j] = safetensors.TensorInfo{Name: t.Name, DType: t.DType, Shape: t.Shape}
			}
			h, err := safetensors.Build(ts, f.Metadata)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", r.ID, f.Path, err)
			}
			if f.HeaderLen > 0 {
				h.Len = f.HeaderLen
			} else {
				padded = append(padded, b)
			}
			b.header, b.lfs = h, true
			index = append(index, b)
		default:
			b.prefix, b.size = f.Content, int64(len(f.Content))
			b.lfs = b.lfs || b.size > lfsThreshold
		}
		add(b)
	}
	if r.HeaderBytes > 0 {
		if err := padHeaders(r.HeaderBytes, index, padded); err != nil {
			return nil, fmt.Errorf("%s: %w", r.ID, err)
		}
	}
	for _, b := range index {
		var err error
		if b.prefix, err = b.header.Encode(); err != nil {
			return nil, fmt.Errorf("%s %s: %w", r.ID, b.path, err)
		}
		b.size = b.header.FileLen()
		if b.listed == 0 {
			b.listed = b.size
		}
	}
	if r.Index {
		content := indexJSON(index)
		add(&built{path: "model.safetensors.index.json", prefix: content, size: int64(len(content)), lfs: len(content) > lfsThreshold})
	}
	for _, b := range index {
		b.header = nil
	}
	sort.Strings(br.sorted)
	return br, nil
}

// padHeaders raises the Len of the padded headers so that 8 + Len summed
// over all generated headers is total: the shortfall is dealt out in
// multiples of 8, any remainder below 8 going to the last header.
func padHeaders(total int64, all, padded []*built) error {
	var have int64
	for _, b := range all {
		have += safetensors.PrefixLen + b.header.Len
	}
	short := total - have
	switch {
	case short < 0:
		return fmt.Errorf("HeaderBytes %d: the generated headers already take %d bytes (%d too many)", total, have, -short)
	case short > 0 && len(padded) == 0:
		return fmt.Errorf("HeaderBytes %d: the headers take %d bytes and every file fixes its HeaderLen", total, have)
	case short == 0:
		return nil
	}
	units, rest := short/8, short%8
	n := int64(len(padded))
	for i, b := range padded {
		b.header.Len += 8 * (units / n)
		if int64(i) < units%n {
			b.header.Len += 8
		}
	}
	padded[len(padded)-1].header.Len += rest
	return nil
}

// indexJSON writes model.safetensors.index.json for the generated shards.
func indexJSON(shards []*built) []byte {
	var total int64
	for _, s := range shards {
		total += s.header.DataLen()
	}
	b := []byte(`{"metadata":{"total_size":` + strconv.FormatInt(total, 10) + `},"weight_map":{`)
	first := true
	for _, s := range shards {
		file := safetensors.AppendQuoted(nil, s.path)
		for _, t := range s.header.Tensors {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = safetensors.AppendQuoted(b, t.Name)
			b = append(b, ':')
			b = append(b, file...)
		}
	}
	return append(b, "}}\n"...)
}

// resolve maps a revision name to the commit, "" when unknown.
func (r *builtRepo) resolve(rev string) string {
	switch {
	case rev == r.SHA || rev == "main" || rev == "HEAD":
		return r.SHA
	case r.Revisions[rev] != "":
		return r.Revisions[rev]
	case len(rev) >= 7 && strings.HasPrefix(r.SHA, rev):
		return r.SHA
	}
	return ""
}

func (r *builtRepo) approved(token string) bool {
	for _, t := range r.Approved {
		if token != "" && t == token {
			return true
		}
	}
	return false
}

// ShardFiles names parts the way transformers does:
// model-00001-of-00003.safetensors; digits sets the width of the index
// and of the total (K3 uses 5 and 6).
func ShardFiles(parts [][]Tensor, digits, totalDigits int) []File {
	files := make([]File, len(parts))
	for i, p := range parts {
		files[i] = File{Path: fmt.Sprintf("model-%0*d-of-%0*d.safetensors", digits, i+1, totalDigits, len(parts)), Tensors: p}
	}
	return files
}

// Split deals tensors into n parts of nearly equal count, in order.
func Split(ts []Tensor, n int) [][]Tensor {
	parts := make([][]Tensor, n)
	for i := range n {
		lo, hi := len(ts)*i/n, len(ts)*(i+1)/n
		parts[i] = ts[lo:hi]
	}
	return parts
}

// StoredCensus is the element count per dtype of the files' tensors:
// what the headers will sum to.
func StoredCensus(files []File) map[string]int64 {
	m := map[string]int64{}
	for _, f := range files {
		for _, t := range f.Tensors {
			n := int64(1)
			for _, d := range t.Shape {
				n *= d
			}
			m[t.DType] += n
		}
	}
	return m
}
