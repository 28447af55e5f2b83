package hub_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	"dossier/generator/hub"
	"dossier/generator/hub/hubtest"
)

const testToken = "hf_TESTtokenSECRETvalue1234567890"

// sleeps records the waits between retries instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func newClient(t testing.TB, endpoint, token string) (*hub.Client, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	c, err := hub.New(hub.Config{
		Endpoint:  endpoint,
		Token:     hub.NewToken(token),
		UserAgent: "dossier/test",
		Timeout:   5 * time.Second,
		Sleep:     sl.sleep,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, sl
}

// smallRepo is a quantized MoE in miniature: packed U8 payloads with
// scales and shapes, BF16 and F32 weights, spread over shards, with an
// index, a config and files that are not weights.
func smallRepo(id string, shards int) *hubtest.Repo {
	var ts []hubtest.Tensor
	ts = append(ts, hubtest.Tensor{Name: "model.embed_tokens.weight", DType: "BF16", Shape: []int64{128, 64}})
	for l := 0; l < 2*shards; l++ {
		for e := 0; e < 4; e++ {
			base := fmt.Sprintf("model.layers.%d.mlp.experts.%d.down_proj.", l, e)
			ts = append(ts,
				hubtest.Tensor{Name: base + "weight_packed", DType: "U8", Shape: []int64{64, 64}},
				hubtest.Tensor{Name: base + "weight_scale", DType: "U8", Shape: []int64{64, 4}},
				hubtest.Tensor{Name: base + "weight_shape", DType: "I32", Shape: []int64{2}})
		}
		ts = append(ts, hubtest.Tensor{Name: fmt.Sprintf("model.layers.%d.mlp.gate.e_score_correction_bias", l), DType: "F32", Shape: []int64{4}})
	}
	files := hubtest.ShardFiles(hubtest.Split(ts, shards), 5, 5)
	files = append(files,
		hubtest.File{Path: "config.json", Content: []byte(`{"model_type": "toy", "num_hidden_layers": 4}`)},
		hubtest.File{Path: "README.md", Content: []byte("# toy\n")},
		hubtest.File{Path: "original/consolidated.safetensors", Content: []byte("not a shard")})
	// The Hub's census is quantization-aware: packed U8 counts twice and
	// scales are left out, so it differs from the stored elements.
	stored := hubtest.StoredCensus(files)
	census := map[string]int64{"BF16": stored["BF16"], "F32": stored["F32"], "U8": 2 * int64(2*shards*4*64*64)}
	return &hubtest.Repo{ID: id, Files: files, Index: true, Census: census}
}

// rawHeader is the start of a safetensors file with js as its header.
func rawHeader(js string) []byte {
	b := make([]byte, 8, 8+len(js))
	binary.LittleEndian.PutUint64(b, uint64(len(js)))
	return append(b, js...)
}
