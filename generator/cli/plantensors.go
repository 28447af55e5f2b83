package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"dossier/generator/arch"
	"dossier/generator/safetensors"
)

// maxShards bounds the headers plan reads from a local directory.
const maxShards = 4096

// localTensors reads the safetensors headers of the shards beside a
// config.json in dir (only the headers: each file's 8-byte prefix and
// JSON table, never the weights): the tensors arch infers an unknown
// family's layout from. No shards is not an error.
func localTensors(dir string) ([]arch.TensorShape, int, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	if err != nil {
		return nil, 0, err
	}
	if len(paths) > maxShards {
		return nil, 0, fmt.Errorf("%s: %d .safetensors files: more than %d", dir, len(paths), maxShards)
	}
	sort.Strings(paths)
	var ts []arch.TensorShape
	for _, p := range paths {
		h, err := readHeader(p)
		if err != nil {
			return nil, 0, err
		}
		for _, t := range h.Tensors {
			ts = append(ts, arch.TensorShape{Name: t.Name, Shape: t.Shape})
		}
	}
	return ts, len(paths), nil
}

func readHeader(path string) (*safetensors.Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := safetensors.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}
