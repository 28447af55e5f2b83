package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Models lists the model ids that have a snapshot under dataDir
// (data/hub/<org>/<name>/snapshot.json, a regular file), sorted. A
// directory without a snapshot, or whose name is not a valid id, is not a
// model the site knows. No data/hub directory means no models.
func Models(dataDir string) ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(dataDir, "hub", "*", "*"))
	if err != nil {
		return nil, fmt.Errorf("list snapshots under %s: %w", dataDir, err)
	}
	var ids []string
	for _, d := range dirs {
		id := filepath.Base(filepath.Dir(d)) + "/" + filepath.Base(d)
		if !ValidModel(id) {
			continue
		}
		if st, err := os.Stat(filepath.Join(d, FileName)); err == nil && st.Mode().IsRegular() {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}
