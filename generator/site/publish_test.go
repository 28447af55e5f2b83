package site

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestSumsAgree holds the three ways a file's sum is taken to one value:
// bytes in memory (put), a stream (write) and a file on disk (intact,
// reuse). Were they to differ, a file a build would write unchanged would
// be found changed, or the reverse.
func TestSumsAgree(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("x"), bytes.Repeat([]byte("facts.json "), 100_000)} {
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fromFile, err := fileSum(p)
		if err != nil {
			t.Fatal(err)
		}
		fromStream, err := streamSum(func(w io.Writer) error { _, err := w.Write(b); return err })
		if err != nil {
			t.Fatal(err)
		}
		if got := sumOf(b); got != fromFile || got != fromStream || len(got) != 16 {
			t.Errorf("%d bytes: sumOf %q, fileSum %q, streamSum %q", len(b), got, fromFile, fromStream)
		}
	}
}

// TestSumSeesOneByte: a hand edit of one byte anywhere in a large file
// changes its sum, so intact refuses the file.
func TestSumSeesOneByte(t *testing.T) {
	b := bytes.Repeat([]byte("<td>1.5 GB</td>"), 30_000)
	want := sumOf(b)
	for _, at := range []int{0, len(b) / 3, len(b) - 1} {
		c := bytes.Clone(b)
		c[at] ^= 1
		if sumOf(c) == want {
			t.Errorf("flipping a bit at %d of %d bytes left the sum %s", at, len(b), want)
		}
	}
}
