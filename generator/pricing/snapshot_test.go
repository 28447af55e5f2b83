package pricing

import (
	"os"
	"strings"
	"testing"
)

// A snapshot that decodes encodes to bytes that decode to the same
// prices; nothing panics, and every error names the file.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"../../data/pricing/runpod.json", "../../data/pricing/azure.json"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"provider": "runpod", "prices": [{"offers": {"count": 1}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode("data/pricing/runpod.json", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "data/pricing/runpod.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		enc, err := s.Encode()
		if err != nil {
			t.Fatal(err)
		}
		again, err := Decode("data/pricing/runpod.json", enc)
		if err != nil {
			t.Fatalf("re-encoded snapshot fails: %v", err)
		}
		if !SamePrices(s, again) {
			t.Fatal("prices changed in a round trip")
		}
	})
}
