package localrun

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"dossier/generator/gguf"
	"dossier/generator/internal/jsonstore"
	"dossier/generator/internal/safefile"
	"dossier/generator/snapshot"
)

// StoreFile is the file sync writes for a GGUF repository beside where a
// model's snapshot would be: data/hub/<org>/<name>/gguf.json.
const StoreFile = "gguf.json"

// storeLimit bounds a stored file: a quant is a few kilobytes of
// per-layer figures.
var storeLimit = safefile.Limit{Bytes: 16 << 20, What: "a GGUF store"}

// Store is what sync keeps of a GGUF repository at one commit: per quant
// the figures the plans need, read from its headers.
type Store struct {
	Repo     string        `json:"repo"`
	Revision string        `json:"revision"`
	Quants   []StoredQuant `json:"quants"`
}

// StoredQuant is one quant's plan inputs.
type StoredQuant struct {
	Label string `json:"label"`
	// Architecture is general.architecture; absent in stores written
	// before it was kept (the plans then leave llama.cpp's support
	// unknown).
	Architecture     string                    `json:"architecture,omitempty"`
	Files            []gguf.Listed             `json:"files"`
	TensorBytes      int64                     `json:"tensor_bytes"`
	Params           int64                     `json:"params"`
	Census           map[string]gguf.TypeCount `json:"census"`
	ExpertBytes      int64                     `json:"expert_bytes"`
	ExpertParams     int64                     `json:"expert_params"`
	EmbeddingBytes   int64                     `json:"embedding_bytes"`
	EmbeddingParams  int64                     `json:"embedding_params"`
	OtherBytes       int64                     `json:"other_bytes"`
	LayerBytes       []int64                   `json:"layer_bytes"`
	LayerExpertBytes []int64                   `json:"layer_expert_bytes"`
	Experts          int64                     `json:"experts"`
	ExpertsUsed      int64                     `json:"experts_used"`
	LayerValues      []int64                   `json:"cache_layer_values"`
	Sliding          []bool                    `json:"cache_sliding"`
	LayerState       []int64                   `json:"cache_layer_state,omitempty"`
	StateKnown       bool                      `json:"cache_state_known"`
	Window           int64                     `json:"cache_window"`
	RecurrentLayers  int                       `json:"cache_recurrent_layers"`
	ContextLength    int64                     `json:"context_length"`
	CacheDerivation  string                    `json:"cache_derivation"`
}

// StorePath is the store's path for repo under dataDir.
func StorePath(dataDir, repo string) string {
	return filepath.Join(filepath.Dir(snapshot.Path(dataDir, repo)), StoreFile)
}

// NewStore keeps quants of repo at revision.
func NewStore(repo, revision string, quants []Quant) *Store {
	s := &Store{Repo: repo, Revision: revision}
	for _, q := range quants {
		files := make([]gguf.Listed, 0, q.Files)
		files = append(files, q.FileList...)
		z, c := q.Sizes, q.Cache
		s.Quants = append(s.Quants, StoredQuant{
			Label: q.Label, Architecture: q.Arch, Files: files, TensorBytes: z.TensorBytes, Params: z.Params, Census: z.Census,
			ExpertBytes: z.ExpertBytes, ExpertParams: z.ExpertParams, EmbeddingBytes: z.EmbeddingBytes, EmbeddingParams: z.EmbeddingParams,
			OtherBytes: z.OtherBytes, LayerBytes: z.LayerBytes, LayerExpertBytes: z.LayerExpertBytes,
			Experts: q.Experts, ExpertsUsed: q.ExpertsUsed, LayerValues: c.LayerValues, Sliding: c.Sliding, Window: c.Window,
			LayerState: c.LayerState, StateKnown: c.StateKnown,
			RecurrentLayers: c.RecurrentLayers, ContextLength: c.ContextLength, CacheDerivation: c.Derivation,
		})
	}
	return s
}

var shaRe = regexp.MustCompile(`^[0-9a-f]{40}$`)

// DecodeStore reads a store strictly: unknown fields, a trailing value,
// negative or inconsistent figures are errors naming the field.
func DecodeStore(b []byte) (*Store, error) {
	var s Store
	if err := jsonstore.Decode(b, storeLimit, &s); err != nil {
		return nil, err
	}
	if !snapshot.ValidModel(s.Repo) {
		return nil, fmt.Errorf("field repo: %q is not org/name", s.Repo)
	}
	if !shaRe.MatchString(s.Revision) {
		return nil, fmt.Errorf("field revision: %q is not a 40-hex-digit commit", s.Revision)
	}
	seen := map[string]bool{}
	for i, q := range s.Quants {
		if err := q.validate(); err != nil {
			return nil, fmt.Errorf("field quants[%d] (%s): %w", i, q.Label, err)
		}
		if seen[q.Label] {
			return nil, fmt.Errorf("field quants[%d].label: %q appears twice", i, q.Label)
		}
		seen[q.Label] = true
	}
	return &s, nil
}

func (q StoredQuant) validate() error {
	n := len(q.LayerBytes)
	switch {
	case q.Label == "" || strings.ContainsAny(q.Label, " ./@"):
		return fmt.Errorf("field label: %q is not a quant label", q.Label)
	case len(q.Architecture) > 64 || strings.ContainsFunc(q.Architecture, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return fmt.Errorf("field architecture: %q is not an architecture name", q.Architecture)
	case len(q.Files) == 0:
		return errors.New("field files: empty")
	case n == 0 || n > 1<<12:
		return fmt.Errorf("field layer_bytes: %d layers, expected 1 to 4096", n)
	case len(q.LayerExpertBytes) != n || len(q.LayerValues) != n || len(q.Sliding) != n:
		return fmt.Errorf("fields layer_expert_bytes, cache_layer_values, cache_sliding: expected %d entries each", n)
	case q.ExpertsUsed < 0 || q.Experts < q.ExpertsUsed || (q.ExpertBytes > 0 && q.ExpertsUsed == 0):
		return fmt.Errorf("fields experts, experts_used: %d of %d", q.ExpertsUsed, q.Experts)
	case len(q.LayerState) != 0 && len(q.LayerState) != n:
		return fmt.Errorf("field cache_layer_state: expected %d entries or none", n)
	case q.Window < 0 || q.ContextLength < 0 || q.RecurrentLayers < 0 || q.RecurrentLayers > n:
		return errors.New("fields cache_window, context_length, cache_recurrent_layers: out of range")
	}
	for _, f := range q.Files {
		if f.Path == "" || f.Size < 0 {
			return fmt.Errorf("field files: %q of %d bytes", f.Path, f.Size)
		}
	}
	var layers, experts, params, bytes int64
	for l, v := range q.LayerState {
		if v < 0 || v > 1<<32 {
			return fmt.Errorf("field cache_layer_state[%d]: %d state values", l, v)
		}
	}
	for l := range n {
		if q.LayerBytes[l] < 0 || q.LayerExpertBytes[l] < 0 || q.LayerExpertBytes[l] > q.LayerBytes[l] || q.LayerValues[l] < 0 || q.LayerBytes[l] > 1<<50 || q.LayerValues[l] > 1<<30 {
			return fmt.Errorf("field layer_bytes[%d]: %d bytes of which %d experts, %d cache values", l, q.LayerBytes[l], q.LayerExpertBytes[l], q.LayerValues[l])
		}
		layers += q.LayerBytes[l]
		experts += q.LayerExpertBytes[l]
	}
	for t, c := range q.Census {
		if _, ok := gguf.TypeByName(t); !ok || c.Params < 0 || c.Bytes < 0 || c.Params > 1<<50 || c.Bytes > 1<<50 {
			return fmt.Errorf("field census.%s: not a ggml type, or out of range", t)
		}
		params += c.Params
		bytes += c.Bytes
	}
	switch {
	case q.OtherBytes < 0 || q.EmbeddingBytes < 0 || q.EmbeddingBytes > q.OtherBytes || layers+q.OtherBytes != q.TensorBytes:
		return fmt.Errorf("field tensor_bytes: %d is not the layers' %d plus other_bytes %d", q.TensorBytes, layers, q.OtherBytes)
	case experts != q.ExpertBytes:
		return fmt.Errorf("field expert_bytes: %d is not the layers' %d", q.ExpertBytes, experts)
	case params != q.Params || bytes != q.TensorBytes:
		return fmt.Errorf("field census: sums to %d parameters and %d bytes, not %d and %d", params, bytes, q.Params, q.TensorBytes)
	case q.ExpertParams < 0 || q.EmbeddingParams < 0 || q.ExpertParams+q.EmbeddingParams > q.Params:
		return errors.New("fields expert_params, embedding_params: more than params")
	}
	return nil
}

// Quant turns a stored quant back into plan inputs.
func (q StoredQuant) Quant() Quant {
	var size int64
	for _, f := range q.Files {
		size += f.Size
	}
	return Quant{
		Label: q.Label, File: q.Files[0].Path, Arch: q.Architecture, Files: len(q.Files), FileList: q.Files,
		Sizes: gguf.Sizes{Bytes: size, TensorBytes: q.TensorBytes, Params: q.Params, Census: q.Census,
			ExpertBytes: q.ExpertBytes, ExpertParams: q.ExpertParams, LayerBytes: q.LayerBytes, LayerExpertBytes: q.LayerExpertBytes,
			OtherBytes: q.OtherBytes, EmbeddingBytes: q.EmbeddingBytes, EmbeddingParams: q.EmbeddingParams},
		Cache: gguf.Cache{Layers: len(q.LayerValues), LayerValues: q.LayerValues, Sliding: q.Sliding, Window: q.Window,
			LayerState: q.LayerState, StateKnown: q.StateKnown,
			RecurrentLayers: q.RecurrentLayers, ContextLength: q.ContextLength, Derivation: q.CacheDerivation},
		Experts: q.Experts, ExpertsUsed: q.ExpertsUsed,
	}
}

// LoadStore reads the store at path; a missing file is fs.ErrNotExist.
func LoadStore(path string) (*Store, error) { return jsonstore.Load(path, storeLimit, DecodeStore) }

// WriteStore writes s as dataDir's store for its repository, atomically.
func WriteStore(dataDir string, s *Store) (string, error) {
	path := StorePath(dataDir, s.Repo)
	return path, WriteStoreFile(path, s)
}

// WriteStoreFile writes s to path atomically, after checking that it
// decodes as written.
func WriteStoreFile(path string, s *Store) error {
	if err := jsonstore.Write(path, s, DecodeStore); err != nil {
		return fmt.Errorf("store for %s: %w", s.Repo, err)
	}
	return nil
}
