package hub

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"dossier/generator/snapshot"
)

// Synced lists the models that have a snapshot under dataDir, for
// `dossier sync --all`.
func Synced(dataDir string) ([]string, error) {
	root := filepath.Join(dataDir, "hub")
	orgs, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", root, err)
	}
	var models []string
	for _, org := range orgs {
		if !org.IsDir() {
			continue
		}
		names, err := os.ReadDir(filepath.Join(root, org.Name()))
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", filepath.Join(root, org.Name()), err)
		}
		for _, n := range names {
			id := org.Name() + "/" + n.Name()
			if !n.IsDir() || !snapshot.ValidModel(id) {
				continue
			}
			if _, err := os.Stat(snapshot.Path(dataDir, id)); err == nil {
				models = append(models, id)
			}
		}
	}
	sort.Strings(models)
	return models, nil
}
