package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The price-date check reads each version of a list only up to its
// bound: a committed blob or a working file past it is not compared.
func TestPriceListReadsAreBounded(t *testing.T) {
	root := t.TempDir()
	list := filepath.Join(root, "list.yaml")
	body := "as_of: \"2026-08-06\"\n" + strings.Repeat("# padding\n", 100)
	if err := os.WriteFile(list, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	commitAll(t, root, "2026-08-06", "list")
	n := int64(len(body))
	if b, ok := gitBlob(root, "HEAD:list.yaml", n); !ok || string(b) != body {
		t.Errorf("a blob of exactly the bound: ok %v, %d bytes", ok, len(b))
	}
	if _, ok := gitBlob(root, "HEAD:list.yaml", n-1); ok {
		t.Error("a blob past the bound was read")
	}
	if _, ok := gitBlob(root, "HEAD:absent.yaml", n); ok {
		t.Error("an absent blob was read")
	}
}
