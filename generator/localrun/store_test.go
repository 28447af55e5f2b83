package localrun_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"dossier/generator/localrun"
)

const storeSHA = "0123456789abcdef0123456789abcdef01234567"

func TestStoreRoundTrip(t *testing.T) {
	q := dense(t, 8_000_000)
	dir := t.TempDir()
	path, err := localrun.WriteStore(dir, localrun.NewStore("acme/Toy-GGUF", storeSHA, []localrun.Quant{q}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, "hub/acme/Toy-GGUF/gguf.json") {
		t.Errorf("path %s", path)
	}
	s, err := localrun.LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	back := s.Quants[0].Quant()
	m := machine(t, "1xRTX4090@Desktop64")
	p1, err1 := localrun.Make(q, m, localrun.Options{})
	p2, err2 := localrun.Make(back, m, localrun.Options{})
	if err1 != nil || err2 != nil || !reflect.DeepEqual(p1, p2) {
		t.Errorf("the stored quant plans differently:\n%+v\n%+v", p1, p2)
	}
}

func TestDecodeStoreRefuses(t *testing.T) {
	q := dense(t, 8_000_000)
	good, _ := json.Marshal(localrun.NewStore("acme/Toy-GGUF", storeSHA, []localrun.Quant{q}))
	for name, c := range map[string]struct{ from, to, want string }{
		"unknown field": {`"repo":`, `"extra":1,"repo":`, "unknown field"},
		"bad revision":  {storeSHA, "main", "field revision"},
		"layers":        {`"layer_bytes":[`, `"layer_bytes":[1,`, "expected 3 entries"},
		"census":        {`"F16":{"params":`, `"F16":{"params":1`, "field census"},
		"type":          {`"F16":{`, `"F99":{`, "census.F99"},
		"architecture":  {`"architecture":"llama"`, `"architecture":"llama\n"`, "field architecture"},
	} {
		b := strings.Replace(string(good), c.from, c.to, 1)
		if b == string(good) {
			t.Fatalf("%s: %q not in the store", name, c.from)
		}
		if _, err := localrun.DecodeStore([]byte(b)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

func FuzzDecodeStore(f *testing.F) {
	f.Add([]byte(`{"repo":"a/b","revision":"` + storeSHA + `","quants":[]}`))
	f.Add([]byte(`{"repo":"a/b-GGUF","revision":"` + storeSHA + `","quants":[{"label":"Q4_K_M","architecture":"gptoss","files":[{"path":"x.gguf","size":10}],"tensor_bytes":8,"params":16,"census":{"F16":{"params":4,"bytes":8}},"layer_bytes":[8],"layer_expert_bytes":[0],"cache_layer_values":[4],"cache_sliding":[false]}]}`))
	f.Add([]byte(`{"repo":"a/b-GGUF","revision":"` + storeSHA + `","quants":[{"label":"Q4_K_M","files":[{"path":"x.gguf","size":10}],"tensor_bytes":8,"params":16,"census":{"F16":{"params":4,"bytes":8}},"layer_bytes":[8],"layer_expert_bytes":[0],"cache_layer_values":[4],"cache_sliding":[false]}]}`))
	ms := []localrun.Machine{machine(f, "1xRTX4090@Desktop64"), machine(f, "M4Max128"), machine(f, "EPYC768")}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := localrun.DecodeStore(b)
		if err != nil {
			return
		}
		// Whatever decodes plans without panicking.
		for _, sq := range s.Quants {
			for _, m := range ms {
				if _, err := localrun.Make(sq.Quant(), m, localrun.Options{}); err != nil {
					t.Fatalf("a decoded store does not plan: %v", err)
				}
			}
		}
	})
}
