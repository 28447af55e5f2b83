package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestNoRealConfigIsBadInput runs every real config.json under testdata —
// the captured configs, the ones once rejected (configs/lenient) and every
// family's test input — through plan --config. A config the Hub serves
// and transformers loads is never bad input: each sizes (exit 0) or, for a
// shape dossier cannot size, exits 3 naming what is missing.
func TestNoRealConfigIsBadInput(t *testing.T) {
	var paths []string
	for _, pat := range []string{
		filepath.Join(configDir, "*.json"),
		filepath.Join(configDir, "lenient", "*.json"),
		filepath.Join("..", "modeltree", "testdata", "*", "*.config.json"),
	} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) < 45 {
		t.Fatalf("found %d real configs", len(paths))
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			code, doc, stderr := plan(t, path)
			switch code {
			case 0:
			case 3:
				// The verdict names what could not be derived and why.
				if !strings.Contains(stderr, "no parameter count derived") && !strings.Contains(stderr, "unknown") {
					t.Errorf("exit 3 without naming what is missing: %s", stderr)
				}
				if doc == nil || len(doc.Facts.Keys()) == 0 {
					t.Error("exit 3 without a report")
				}
			default:
				t.Fatalf("exit %d: %s", code, stderr)
			}
		})
	}
}
