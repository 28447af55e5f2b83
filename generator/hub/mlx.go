package hub

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"dossier/generator/safetensors"
)

// MLXRepo is an MLX checkpoint as its config and safetensors headers give
// it, pinned to the commit the Hub answered.
type MLXRepo struct {
	Model, Revision string
	Config          []byte
	// Files are the .safetensors files with their listed sizes, in name
	// order; Tensors every tensor of them.
	Files   []TreeEntry
	Tensors []safetensors.TensorInfo
}

// maxMLXConfig bounds config.json: MLX configs carry one quantization
// entry per overridden module, a few hundred kilobytes at most.
const maxMLXConfig = 8 << 20

// ReadMLX lists an MLX repository at revision, reads its config.json and
// every top-level .safetensors header by Range (at most two requests a
// file), all pinned to the commit the Hub answered.
func ReadMLX(ctx context.Context, c *Client, model, revision string) (*MLXRepo, error) {
	if revision == "" {
		revision = "main"
	}
	info, err := resolve(ctx, c, model, revision)
	if err != nil {
		return nil, fmt.Errorf("%s@%s: %w", model, revision, err)
	}
	sha := info.SHA
	fail := func(err error) (*MLXRepo, error) { return nil, fmt.Errorf("%s@%s: %w", model, sha, err) }
	tree, err := c.ListTree(ctx, model, sha)
	if err != nil {
		return fail(err)
	}
	repo := &MLXRepo{Model: model, Revision: sha}
	for _, e := range tree {
		if e.Type == "file" && strings.HasSuffix(e.Path, ".safetensors") && path.Dir(e.Path) == "." {
			repo.Files = append(repo.Files, e)
		}
	}
	if len(repo.Files) == 0 {
		return fail(fmt.Errorf("no .safetensors files at the top of the repository"))
	}
	sort.Slice(repo.Files, func(i, j int) bool { return repo.Files[i].Path < repo.Files[j].Path })
	cfg, meta, err := c.ReadFile(ctx, model, sha, "config.json", maxMLXConfig)
	if err != nil {
		return fail(err)
	}
	if meta.Commit != "" && meta.Commit != sha {
		return fail(fmt.Errorf("config.json: the Hub answered from commit %s, not %s", meta.Commit, sha))
	}
	repo.Config = cfg
	for _, f := range repo.Files {
		h, meta, err := c.SafetensorsHeader(ctx, model, sha, f.Path)
		if err != nil {
			return fail(err)
		}
		if meta.Commit != "" && meta.Commit != sha {
			return fail(fmt.Errorf("%s: the Hub answered from commit %s, not %s", f.Path, meta.Commit, sha))
		}
		repo.Tensors = append(repo.Tensors, h.Tensors...)
	}
	return repo, nil
}
