package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// A bad reference anywhere in the list stops sync before any model is
// synced: nothing is fetched and nothing is written.
func TestSyncChecksEveryRefFirst(t *testing.T) {
	root := newSite(t)
	t.Setenv("HF_ENDPOINT", "http://127.0.0.1:9") // nothing listens: any request would fail
	snap := filepath.Join(root, "data/hub/meta-llama/Llama-3.1-8B/snapshot.json")
	before, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := run("--source", root, "sync", "meta-llama/Llama-3.1-8B", "not a ref")
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", code, out, errs)
	}
	after, _ := os.ReadFile(snap)
	if string(after) != string(before) {
		t.Error("a snapshot changed although a later reference was bad")
	}
}
