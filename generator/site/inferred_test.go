package site

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/internal/sitetest"
	"dossier/generator/modeltree"
	"dossier/generator/snapshot"
)

// TestUnknownFamilySizedFromKeptShapes: a page whose model_type the
// registry does not know is sized from the tensor shapes its snapshot
// kept, and the facts say so. The model is Llama 3.1 8B's config under
// another model_type, its shapes Llama's module tree: the inferred layout
// and cache equal what the llama page derives from config.json, and by
// hand 32 layers × K and V × 8 KV heads × 128 × 2 bytes (BF16) = 131,072
// bytes a token. Without the shapes the same page leaves them unknown.
func TestUnknownFamilySizedFromKeptShapes(t *testing.T) {
	const llamaPage = "content/models/llama-3-1-8b.md"
	root := sitetest.Fixture(t, func(rel string) bool { return rel == llamaPage })
	dataDir := filepath.Join(root, "data")
	llama, err := snapshot.Load(snapshot.Path(dataDir, "meta-llama/Llama-3.1-8B"))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := modeltree.FromConfig(llama.Config, nil)
	if err != nil {
		t.Fatal(err)
	}
	fork := *llama
	fork.Model = "acme/llama-fork"
	var conf map[string]any
	if err := json.Unmarshal(llama.Config, &conf); err != nil || conf["model_type"] != "llama" {
		t.Fatalf("the llama config: %v, model_type %v", err, conf["model_type"])
	}
	conf["model_type"] = "acme_fork"
	if fork.Config, err = json.Marshal(conf); err != nil {
		t.Fatal(err)
	}
	fork.ConfigSource = "test: Llama 3.1 8B's config.json under an unregistered model_type"
	// A synced snapshot has the Hub's census: the parameter count an
	// unknown family's page starts from.
	fork.Census, fork.CensusSource = inv.Census(), "test: Llama 3.1 8B's module tree"
	// and one shard's header figures, as a sync reads them (the header
	// length is the test's own: nothing below depends on it).
	const headerBytes = 8 + 24576
	shardBytes := headerBytes + inv.TensorBytes()
	fork.Files = []snapshot.File{{Path: "config.json"}, {Path: "model.safetensors", Size: &shardBytes}}
	fork.Shards = snapshot.Shards{Count: 1, Bytes: shardBytes, Source: "test"}
	fork.Header = &snapshot.Header{Bytes: headerBytes, Tensors: inv.Count(), Elems: inv.StoredElements(), TBytes: inv.Bytes(), Source: "test"}
	writePage := func(shapes bool) {
		t.Helper()
		fork.Tensors, fork.TensorsSource = nil, ""
		if shapes {
			fork.Tensors, fork.TensorsSource = map[string]string{}, "test: Llama 3.1 8B's module tree"
			for x := range inv.All() {
				fork.Tensors[x.Name] = snapshot.FormatShape(x.Shape)
			}
		}
		if _, err := snapshot.Write(dataDir, &fork); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(llamaPage)))
		if err != nil {
			t.Fatal(err)
		}
		front, _, _ := strings.Cut(strings.TrimPrefix(string(b), "---\n"), "\n---\n")
		lines := []string{"---"}
		for _, l := range strings.Split(front, "\n") {
			switch {
			case strings.HasPrefix(l, "model:"):
				l = "model: acme/llama-fork"
			case strings.HasPrefix(l, "title:"):
				l = `title: "Acme Llama fork"`
			case strings.HasPrefix(l, "published:"):
				lines = append(lines, "---", "A model of a family the registry does not know.", "")
				if err := os.WriteFile(filepath.Join(root, "content", "models", "acme-llama-fork.md"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			lines = append(lines, l)
		}
		t.Fatal("the llama page has no published: list to stop at")
	}

	writePage(true)
	dest := filepath.Join(t.TempDir(), "public")
	if _, err := build(t, root, dest); err != nil {
		t.Fatal(err)
	}
	fork1 := readFacts(t, filepath.Join(dest, "models", "acme-llama-fork", "facts.json")).Facts
	own := readFacts(t, filepath.Join(dest, "models", "llama-3-1-8b", "facts.json")).Facts
	layers := fork1.Get("arch.layers_full_attention")
	if n, ok := layers.Int(); !ok || n != 32 || !strings.HasPrefix(layers.Derivation, arch.InferredSource) || !slices.Contains(layers.Sources, "hub:headers") {
		t.Fatalf("arch.layers_full_attention %+v: want 32, derived %q from hub:headers", layers, arch.InferredSource)
	}
	for _, key := range []string{"arch.layers", "arch.layers_full_attention", "kv.bytes_per_token", "kv.bytes_at_context.131072"} {
		got, ok := fork1.Get(key).Int()
		want, wok := own.Get(key).Int()
		if !ok || !wok || got != want {
			t.Errorf("%s: inferred %v (%v), the llama page's %v (%v)", key, got, ok, want, wok)
		}
	}
	if kv := fork1.Get("kv.bytes_per_token"); !slices.Contains(kv.Sources, "hub:headers") {
		t.Errorf("kv.bytes_per_token cites %q, not the headers its layout came from", kv.Sources)
	} else if n, _ := kv.Int(); n != 32*2*8*128*2 {
		t.Errorf("kv.bytes_per_token %d, by hand %d", n, 32*2*8*128*2)
	}

	writePage(false)
	dest = filepath.Join(t.TempDir(), "public")
	if _, err := build(t, root, dest); err != nil {
		t.Fatal(err)
	}
	bare := readFacts(t, filepath.Join(dest, "models", "acme-llama-fork", "facts.json")).Facts
	if f := bare.Get("kv.bytes_per_token"); f.Known() {
		t.Errorf("without shapes kv.bytes_per_token is %v", f.Value)
	}
}
