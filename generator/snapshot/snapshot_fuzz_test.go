package snapshot

import (
	"os"
	"path/filepath"
	"testing"
)

func FuzzDecode(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "data", "hub", "moonshotai", "Kimi-K3", FileName)); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"schema":1,"census":{"U8":"x"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b)
		if err != nil {
			return
		}
		// What decodes must validate and survive a round trip.
		out, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(out); err != nil {
			t.Fatalf("re-decoding an encoded snapshot: %v", err)
		}
	})
}
