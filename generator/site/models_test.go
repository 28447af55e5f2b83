package site

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/facts"
)

// shipped builds the fixture site (frozen copies of the shipped models)
// into a temporary directory and returns
// the publish directory.
func shipped(t *testing.T) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, copySite(t), dest); err != nil {
		t.Fatal(err)
	}
	return dest
}

type modelCheck struct {
	slug, model string
	exact       map[string]int64
	near        map[string][2]float64 // value, tolerance
	bools       map[string]bool
	unknown     map[string]string // key → a phrase its reason must hold
	absent      []string
}

// TestShippedModels checks, for every model shipped beside K3, the figures
// that could be wrong: the artifact's numbers where the snapshot has them,
// the reconcile deltas the artifacts pin to zero, the published figures as
// published.<key> facts, and unknowns with their reasons.
func TestShippedModels(t *testing.T) {
	const gib = 1 << 30
	dest := shipped(t)
	for _, mc := range []modelCheck{
		{
			slug: "deepseek-v3", model: "deepseek-ai/DeepSeek-V3",
			exact: map[string]int64{
				"bytes.checkpoint":             688586727753, // third-party listing, 163 shards
				"shards.count":                 163,
				"bytes.tensors":                688574839360, // module tree: no index captured
				"bytes.headers":                688586727753 - 688574839360,
				"kv.bytes_per_token":           70272, // (512 + 64) × 2 B × 61 MLA layers
				"kv.bytes_per_token_per_layer": 1152,
				"bytes.quant_scales":           166161984, // F32 per 128 × 128 block
				"params.main":                  671026419200,
				"params.mtp":                   13463426304,
				"params.total":                 684489845504,
				"published.params.main":        671e9,
				"published.params.mtp":         14e9,
				"published.params.total":       685e9,
				"published.params.active":      37e9,
				"arch.layers":                  61,
				"moe.layers":                   58,
			},
			near: map[string][2]float64{
				"params.active":                     {37e9, 1e9},
				"reconcile.header_bytes_per_tensor": {150, 50}, // ~129 B of JSON per tensor
			},
			bools:   map[string]bool{"arch.hybrid": false, "analytic.supported": true},
			unknown: map[string]string{},
			absent:  []string{"reconcile.census_delta.BF16", "reconcile.tensor_bytes_delta"},
		},
		{
			slug: "kimi-linear-48b-a3b-instruct", model: "moonshotai/Kimi-Linear-48B-A3B-Instruct",
			exact: map[string]int64{
				"params.total":                         49122681728,
				"params.census.F32":                    82560,
				"reconcile.census_delta.F32":           0,
				"reconcile.census_delta.BF16":          0,
				"arch.layers_full_attention":           7,
				"arch.layers_linear_attention":         20,
				"kv.bytes_per_token":                   8064,
				"state.bytes_per_sequence":             43417600,
				"published.params.total":               48e9,
				"published.params.active_no_embedding": 3e9,
			},
			near:  map[string][2]float64{"params.active_no_embedding": {3.1e9, 0.05e9}},
			bools: map[string]bool{"arch.hybrid": true},
			unknown: map[string]string{
				"bytes.checkpoint": "20 shards and 91.50 GiB",
				"download.seconds": "checkpoint size unknown",
			},
		},
		{
			slug: "gpt-oss-20b", model: "openai/gpt-oss-20b",
			exact: map[string]int64{
				"params.total":                         20914757184,
				"params.census.U8":                     19110297600,
				"reconcile.census_delta.U8":            0,
				"reconcile.census_delta.BF16":          0,
				"params.active_no_embedding":           3608307264,
				"bytes.quant_scales":                   597196800,
				"bytes.unquantized":                    2 * 1804459584,
				"kv.bytes_per_token":                   12 * 2048,
				"kv.sliding_bytes_per_token":           12 * 2048,
				"kv.bytes_at_context.131072":           12*2048*131072 + 12*2048*128,
				"published.bytes.checkpoint":           13743895347,
				"published.params.active_no_embedding": 3610000000,
			},
			near: map[string][2]float64{
				"bytes.tensors":          {12.8 * gib, 0.05 * gib}, // the model card's 12.8 GiB
				"published.params.total": {20.91e9, 1},
			},
			bools: map[string]bool{"arch.hybrid": false},
			unknown: map[string]string{
				"bytes.checkpoint":            "3 shards numbered from 00000",
				"kv.bytes_at_context.1048576": "exceed the model's context of 131,072 tokens",
			},
		},
		{
			slug: "mixtral-8x7b-v0-1", model: "mistralai/Mixtral-8x7B-v0.1",
			exact: map[string]int64{
				"params.total":                  46702792704,
				"bytes.tensors":                 93405585408, // index total_size
				"reconcile.tensor_bytes_delta":  0,
				"bytes.checkpoint":              93405713504,
				"bytes.headers":                 93405713504 - 93405585408,
				"shards.count":                  19,
				"arch.layers_sliding_attention": 0,
				"kv.bytes_per_token":            131072,
			},
			near: map[string][2]float64{
				"params.active":           {12.9e9, 0.05e9},
				"published.params.active": {12.9e9, 1},
				"published.params.total":  {46.7e9, 1},
			},
			bools:   map[string]bool{"arch.hybrid": false},
			unknown: map[string]string{"kv.bytes_at_context.131072": "32,768 tokens"},
		},
		{
			slug: "llama-3-1-8b", model: "meta-llama/Llama-3.1-8B",
			exact: map[string]int64{
				"params.total":               8030261248,
				"params.census.BF16":         8030261248,
				"bytes.tensors":              16060522496,
				"published.bytes.tensors":    16060522496, // the index figure, quoted
				"published.params.total":     8e9,
				"params.active":              8030261248,
				"params.active_no_embedding": 8030261248 - 128256*4096,
				"arch.layers_full_attention": 32,
				"moe.experts_routed":         0,
			},
			bools: map[string]bool{"arch.hybrid": false},
			unknown: map[string]string{
				"bytes.checkpoint": "4 shards",
				"shards.count":     "not captured",
			},
		},
		{
			slug: "qwen3-30b-a3b", model: "Qwen/Qwen3-30B-A3B",
			exact: map[string]int64{
				"params.total":       30532122624,
				"bytes.tensors":      61064245248,
				"bytes.checkpoint":   61066575648, // one listing, possibly of -Base
				"bytes.headers":      61066575648 - 61064245248,
				"kv.bytes_per_token": 98304,
			},
			near: map[string][2]float64{
				"params.active":                     {3.3e9, 0.1e9},
				"published.params.active":           {3.3e9, 1},
				"published.params.total":            {30.5e9, 1},
				"reconcile.header_bytes_per_tensor": {150, 50},
			},
			bools:   map[string]bool{"arch.hybrid": false},
			unknown: map[string]string{"shards.count": "not the shard names"},
		},
		{
			slug: "qwen3-next-80b-a3b-thinking", model: "Qwen/Qwen3-Next-80B-A3B-Thinking",
			exact: map[string]int64{
				"params.total":                 79674391296,
				"bytes.tensors":                159348782592,
				"arch.layers_full_attention":   12,
				"arch.layers_linear_attention": 36,
				"kv.bytes_per_token":           24576,
				"state.bytes_per_sequence":     36 * 2146304,
				"published.params.total":       80e9,
				"published.params.active":      3e9,
			},
			bools:   map[string]bool{"arch.hybrid": true},
			unknown: map[string]string{"bytes.checkpoint": "file listing not captured"},
			absent:  []string{"reconcile.census_delta.BF16", "params.mtp"},
		},
		{
			slug: "kimi-k2-5", model: "moonshotai/Kimi-K2.5",
			exact: map[string]int64{
				"params.total":                1026879376368,
				"params.census.I32":           1014686023680,
				"reconcile.census_delta.I32":  0,
				"reconcile.census_delta.BF16": 0,
				"reconcile.census_delta.F32":  0,
				"kv.bytes_per_token":          61 * 1152,
			},
			bools:   map[string]bool{"arch.hybrid": false},
			unknown: map[string]string{"bytes.checkpoint": "file listing not captured"},
		},
	} {
		t.Run(mc.slug, func(t *testing.T) {
			ff := readFacts(t, filepath.Join(dest, "models", mc.slug, "facts.json"))
			if ff.Model != mc.model {
				t.Errorf("model %q, want %q", ff.Model, mc.model)
			}
			// No full commit sha was recorded for these snapshots: the
			// revision stays empty rather than made up.
			if ff.Revision != "" {
				t.Errorf("revision %q, want empty (unknown)", ff.Revision)
			}
			checkFacts(t, &ff.Facts, mc)
		})
	}
}

func checkFacts(t *testing.T, s *facts.Set, mc modelCheck) {
	t.Helper()
	for key, want := range mc.exact {
		got, ok := s.Get(key).Int()
		if !ok || got != want {
			t.Errorf("%s = %v (known %v), want %s", key, got, ok, facts.Int(want))
		}
	}
	for key, w := range mc.near {
		got, ok := s.Get(key).Float()
		if !ok || math.Abs(got-w[0]) > w[1] {
			t.Errorf("%s = %v (known %v), want %v ± %v", key, got, ok, w[0], w[1])
		}
	}
	for key, want := range mc.bools {
		if got, ok := s.Get(key).Bool(); !ok || got != want {
			t.Errorf("%s = %v (known %v), want %v", key, got, ok, want)
		}
	}
	for key, phrase := range mc.unknown {
		f := s.Get(key)
		switch {
		case f == nil:
			t.Errorf("%s missing, want unknown", key)
		case f.Known():
			t.Errorf("%s = %v, want unknown", key, f.Value)
		case !strings.Contains(f.Reason, phrase):
			t.Errorf("%s reason %q does not mention %q", key, f.Reason, phrase)
		}
	}
	for _, key := range mc.absent {
		if s.Get(key) != nil {
			t.Errorf("%s present, want absent", key)
		}
	}
	for _, k := range s.Keys() {
		f := s.Get(k)
		if f.Known() && len(f.Sources) == 0 {
			t.Errorf("fact %s has a value but no source", k)
		}
		if !f.Known() && f.Reason == "" {
			t.Errorf("unknown fact %s has no reason", k)
		}
		for _, src := range f.Sources {
			if strings.HasSuffix(src, "@") {
				t.Errorf("fact %s source %q names an empty revision", k, src)
			}
		}
		// A published figure is a fact of its own beside the derived one.
		if strings.HasPrefix(k, "published.") {
			if s.Get(strings.TrimPrefix(k, "published.")) == nil {
				t.Errorf("%s has no derived fact to stand beside", k)
			}
		}
	}
}

// TestEveryShippedPageListed: the index lists every model page.
func TestEveryShippedPageListed(t *testing.T) {
	idx, err := os.ReadFile(filepath.Join(shipped(t), "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"DeepSeek-V3", "gpt-oss-20b", "Kimi K2.5", "Kimi K3", "Kimi Linear 48B A3B Instruct",
		"Llama 3.1 8B", "Mixtral 8x7B v0.1", "Qwen3-30B-A3B", "Qwen3-Next-80B-A3B-Thinking"} {
		if !bytes.Contains(idx, []byte("| "+title+" |")) {
			t.Errorf("index.md does not list %s", title)
		}
	}
}

// TestUnknownRevisionNeedsANote: a snapshot may leave its revision empty
// only when revision_note says why; the build names the field otherwise.
func TestUnknownRevisionNeedsANote(t *testing.T) {
	root := copySite(t)
	path := filepath.Join(root, "data", "hub", "openai", "gpt-oss-20b", "snapshot.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(`"revision_note": "`))
	j := bytes.Index(b, []byte(`"fetched"`))
	if i < 0 || j < i {
		t.Fatal("gpt-oss-20b snapshot has no revision_note before fetched")
	}
	for _, tc := range []struct {
		name string
		edit []byte
		want []string
	}{
		{"no note", append(append([]byte{}, b[:i]...), b[j:]...), []string{"snapshot.json", "field revision", "revision_note"}},
		{"short sha", bytes.Replace(b, []byte(`"revision": ""`), []byte(`"revision": "bbf0930"`), 1), []string{"snapshot.json", "field revision", "40-hex-digit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(path, tc.edit, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := build(t, root, filepath.Join(root, "public"))
			if err == nil {
				t.Fatal("build accepted the snapshot")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
