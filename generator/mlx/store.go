package mlx

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"dossier/generator/internal/jsonstore"
	"dossier/generator/internal/safefile"
	"dossier/generator/snapshot"
)

// StoreFile is what sync keeps of an MLX repository beside where a
// model's snapshot would be: data/hub/<org>/<name>/mlx.json.
const StoreFile = "mlx.json"

// storeLimit bounds a store: sizes per layer and a census.
var storeLimit = safefile.Limit{Bytes: 16 << 20, What: "an MLX store"}

// Store is what sync keeps of an MLX repository at one commit: the
// checkpoint's sizes and what a Mac plan needs of its config.
type Store struct {
	Repo     string       `json:"repo"`
	Revision string       `json:"revision"`
	Label    string       `json:"label"`
	Files    []StoredFile `json:"files"`
	Sizes    StoredSizes  `json:"sizes"`
	Model    Model        `json:"model"`
}

// StoredFile is one .safetensors file of the listing.
type StoredFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// StoredSizes are Sizes as kept: the same fields, named in JSON.
type StoredSizes struct {
	TensorBytes    int64            `json:"tensor_bytes"`
	ScaleBytes     int64            `json:"scale_bytes"`
	Params         int64            `json:"params"`
	Census         map[string]Count `json:"census"`
	LayerBytes     []int64          `json:"layer_bytes"`
	ExpertBytes    int64            `json:"expert_bytes"`
	OtherBytes     int64            `json:"other_bytes"`
	EmbeddingBytes int64            `json:"embedding_bytes"`
	ExpertParams   int64            `json:"expert_params"`
	Quantized      int              `json:"quantized"`
}

// StorePath is the store's path for repo under dataDir.
func StorePath(dataDir, repo string) string {
	return filepath.Join(filepath.Dir(snapshot.Path(dataDir, repo)), StoreFile)
}

// NewStore keeps a checkpoint of repo at revision.
func NewStore(repo, revision, label string, files []StoredFile, s Sizes, m Model) *Store {
	return &Store{Repo: repo, Revision: revision, Label: label, Files: files, Model: m, Sizes: StoredSizes(s)}
}

// SizesOf turns the stored sizes back into Sizes.
func (st *Store) SizesOf() Sizes { return Sizes(st.Sizes) }

// FileBytes is the listing's sum over the files.
func (st *Store) FileBytes() int64 {
	var n int64
	for _, f := range st.Files {
		n += f.Size
	}
	return n
}

var (
	shaRe   = regexp.MustCompile(`^[0-9a-f]{40}$`)
	labelRe = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// limit bounds every stored figure: 10^15, past any checkpoint a Mac holds.
const limit = 1e15

// DecodeStore reads a store strictly: unknown fields, a trailing value,
// negative or inconsistent figures are errors naming the field.
func DecodeStore(b []byte) (*Store, error) {
	var s Store
	if err := jsonstore.Decode(b, storeLimit, &s); err != nil {
		return nil, err
	}
	z, m := s.Sizes, s.Model
	switch {
	case !snapshot.ValidModel(s.Repo):
		return nil, fmt.Errorf("field repo: %q is not org/name", s.Repo)
	case !shaRe.MatchString(s.Revision):
		return nil, fmt.Errorf("field revision: %q is not a 40-hex-digit commit", s.Revision)
	case !labelRe.MatchString(s.Label):
		return nil, fmt.Errorf("field label: %q is not a quantization label", s.Label)
	case len(s.Files) == 0:
		return nil, errors.New("field files: empty")
	case len(z.LayerBytes) > maxLayers:
		return nil, fmt.Errorf("field sizes.layer_bytes: %d layers, more than %d", len(z.LayerBytes), maxLayers)
	case m.FullValues < 0 || m.SlidingValues < 0 || m.Window < 0 || m.Context < 0 || m.FullValues > 1<<30 || m.SlidingValues > 1<<30:
		return nil, errors.New("fields model.full_values, sliding_values, window, context: out of range")
	case m.ExpertsUsed < 0 || m.Experts < m.ExpertsUsed:
		return nil, fmt.Errorf("fields model.experts, experts_used: %d of %d", m.ExpertsUsed, m.Experts)
	}
	for i, f := range s.Files {
		if f.Path == "" || strings.Contains(f.Path, "..") || f.Size < 0 || f.Size > limit {
			return nil, fmt.Errorf("field files[%d]: %q of %d bytes", i, f.Path, f.Size)
		}
	}
	var layers, params, bytes int64
	for i, b := range z.LayerBytes {
		if b < 0 || b > limit {
			return nil, fmt.Errorf("field sizes.layer_bytes[%d]: %d", i, b)
		}
		layers += b
	}
	for k, c := range z.Census {
		if k == "" || c.Params < 0 || c.Bytes < 0 || c.Params > limit || c.Bytes > limit {
			return nil, fmt.Errorf("field sizes.census.%s: out of range", k)
		}
		params += c.Params
		bytes += c.Bytes
	}
	for name, v := range map[string]int64{"scale_bytes": z.ScaleBytes, "expert_bytes": z.ExpertBytes, "other_bytes": z.OtherBytes, "embedding_bytes": z.EmbeddingBytes, "expert_params": z.ExpertParams, "quantized": int64(z.Quantized)} {
		if v < 0 || v > limit {
			return nil, fmt.Errorf("field sizes.%s: %d", name, v)
		}
	}
	switch {
	case layers+z.OtherBytes != z.TensorBytes:
		return nil, fmt.Errorf("field sizes.tensor_bytes: %d is not the layers' %d plus other_bytes %d", z.TensorBytes, layers, z.OtherBytes)
	case params != z.Params || bytes != z.TensorBytes:
		return nil, fmt.Errorf("field sizes.census: sums to %d parameters and %d bytes, not %d and %d", params, bytes, z.Params, z.TensorBytes)
	case z.ExpertBytes > layers || z.EmbeddingBytes > z.OtherBytes || z.ScaleBytes > z.TensorBytes || z.ExpertParams > z.Params:
		return nil, errors.New("fields sizes.expert_bytes, embedding_bytes, scale_bytes, expert_params: more than their whole")
	}
	return &s, nil
}

// LoadStore reads the store at path; a missing file is fs.ErrNotExist.
func LoadStore(path string) (*Store, error) { return jsonstore.Load(path, storeLimit, DecodeStore) }

// WriteStore writes s as dataDir's store for its repository, atomically,
// after checking that it decodes as written.
func WriteStore(dataDir string, s *Store) (string, error) {
	path := StorePath(dataDir, s.Repo)
	if err := jsonstore.Write(path, s, DecodeStore); err != nil {
		return "", fmt.Errorf("store for %s: %w", s.Repo, err)
	}
	return path, nil
}
