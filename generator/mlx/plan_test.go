package mlx_test

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/facts"
	"dossier/generator/localrun"
	"dossier/generator/mlx"
)

// m4max128 is the M4 Max of data/hardware.yaml as of 2026-12-02, copied
// in: 128 GiB, 546 GB/s, the GPU's default wired share 84 %.
func m4max128() localrun.Machine {
	return localrun.Machine{ID: "M4Max128", Host: &localrun.Host{ID: "M4Max128", Kind: "mac", MemoryBytes: 137438953472,
		Bandwidth: catalog.Spec{Value: 5.46e11, Source: "fixture"}, GPUWiredShare: 0.84}}
}

// fit is speed_fit.yaml's unified class and apple regime as of 2026-12-04.
var fit = &catalog.SpeedFit{MemoryEfficiency: 0.68,
	Classes: []catalog.ClassFit{{Class: "consumer", MemoryEfficiency: 0.83}, {Class: "unified", MemoryEfficiency: 0.5}},
	Regimes: []catalog.RegimeErrors{{Regime: "apple", Pairs: 12, ErrorP50: 0.2218, ErrorP90: 0.4533}}}

// A 48-layer GQA MoE, 4 KV heads of 128: 48 × 4 × 256 = 49,152 values,
// 98,304 bytes a token; 128 experts, 8 read.
var big = mlx.Model{FullValues: 49152, Context: 40960, Experts: 128, ExpertsUsed: 8}

// By hand on a 128 GiB M4 Max: usable 137,438,953,472 − 8 GiB − 1 GiB =
// 127,775,277,056 bytes. 100 GB of weights and a 32,768-token cache of
// 3,221,225,472 bytes fit; wired with the margin, 104,294,967,296 bytes,
// stay under the default 84 % (115,448,720,916): no sysctl. The longest
// context is the model's 40,960 (282,545 would fit). A token reads 9 GB
// of dense weights, 8/128 of 90 GB of experts and the cache:
// 17,846,225,472 bytes at 546 GB/s × 0.5.
func TestMacPlanByHand(t *testing.T) {
	s := mlx.Sizes{TensorBytes: 100e9, ExpertBytes: 90e9, EmbeddingBytes: 1e9}
	p, err := mlx.MakeMac("mlx-community/Toy-4bit", s, big, m4max128(), fit, 32768)
	if err != nil {
		t.Fatal(err)
	}
	if p.Fits != "vram" || p.WiredLimitMB != 0 || p.MaxContext != 40960 || p.Budget != 127_775_277_056 {
		t.Fatalf("%+v", p)
	}
	want := 5.46e11 * 0.5 / 17_846_225_472
	if d := p.DecodeTPS/want - 1; d > 1e-12 || d < -1e-12 || p.ErrorP90 != 0.4533 || !strings.Contains(p.ErrorBorrowed, "borrowed") {
		t.Errorf("decode %v, want %v; error %v (%s)", p.DecodeTPS, want, p.ErrorP90, p.ErrorBorrowed)
	}
	if p.Command != "mlx_lm.server --model mlx-community/Toy-4bit --prompt-cache-bytes 3221225472" {
		t.Errorf("command %q", p.Command)
	}
	// 112 GB: past the default share once wired, within the memory.
	s.TensorBytes = 112e9
	p, _ = mlx.MakeMac("mlx-community/Toy-4bit", s, big, m4max128(), fit, 32768)
	wired := int64(112e9) + 3_221_225_472 + 1<<30
	if p.Fits != "vram" || p.WiredLimitMB != (wired+1<<20-1)>>20 {
		t.Errorf("fits %s, wired limit %d MiB, want %d", p.Fits, p.WiredLimitMB, (wired+1<<20-1)>>20)
	}
	// 130 GB: more than the Mac can wire.
	s.TensorBytes = 130e9
	if p, _ = mlx.MakeMac("mlx-community/Toy-4bit", s, big, m4max128(), fit, 32768); p.Fits != "no" || p.DecodeTPS != 0 || p.Command != "" {
		t.Errorf("%+v", p)
	}
	// Not a Mac.
	pc := localrun.Machine{ID: "Desktop64", Host: &localrun.Host{Kind: "desktop", MemoryBytes: 1 << 36}}
	if _, err := mlx.MakeMac("x/y", s, big, pc, fit, 4096); err == nil {
		t.Error("planned mlx_lm on a desktop")
	}
}

// The toy conversion's config gives the cache: two full-attention layers
// of 2 KV heads × (64 + 64), 512 values a token.
func TestModelOfConfig(t *testing.T) {
	a, err := arch.Parse(toy.Config(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := mlx.ModelOf(a)
	if m.CacheReason != "" || m.FullValues != 512 || m.Experts != 4 || m.ExpertsUsed != 2 || m.Context != 32768 {
		t.Errorf("%+v", m)
	}
}

// Every flag the command uses is one mlx_lm/server.py declares at the
// pinned commit.
func TestCommandUsesDeclaredFlags(t *testing.T) {
	f, err := os.Open("testdata/mlx-lm-server-flags.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			flags[l] = true
		}
	}
	md := big
	md.RemoteCode = true
	p, err := mlx.MakeMac("mlx-community/Toy-4bit", mlx.Sizes{TensorBytes: 10e9}, md, m4max128(), fit, 8192)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range strings.Fields(p.Command) {
		if strings.HasPrefix(tok, "-") && !flags[tok] {
			t.Errorf("%s is not an mlx_lm.server flag at %s", tok, mlx.ServerCommit)
		}
	}
	if !strings.Contains(p.Command, "--trust-remote-code") {
		t.Errorf("command %q", p.Command)
	}
}

func TestFacts(t *testing.T) {
	q, _ := mlx.ParseConfig(toy.Config())
	s, err := mlx.Size(q, toy.Tensors())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := arch.Parse(toy.Config(), nil)
	p, err := mlx.MakeMac("mlx-community/Toy-4bit", s, mlx.ModelOf(a), m4max128(), fit, 32768)
	if err != nil {
		t.Fatal(err)
	}
	set := facts.NewSet()
	label := mlx.Label(q)
	src := mlx.Sources{Tree: "hub:tree@abc1234", Config: "hub:config@abc1234", Headers: "hub:safetensors@abc1234"}
	mlx.AddSizeFacts(set, label, 970_000, 2, s, src)
	mlx.AddPlanFacts(set, label, p, src)
	if label != "4bit-g64" {
		t.Errorf("label %q", label)
	}
	for k, want := range map[string]int64{
		"mlx.4bit-g64.bytes": 970_000, "mlx.4bit-g64.tensor_bytes": 963_712, "mlx.4bit-g64.params": 1_707_520,
		"mlx.4bit-g64.census.affine-8bit-g64": 2048, "mlx.4bit-g64.scale_bytes": 106_624,
		"mlx.4bit-g64.M4Max128.max_context": 32768,
	} {
		if v, ok := set.Get(k).Int(); !ok || v != want {
			t.Errorf("%s = %+v, want %d", k, set.Get(k), want)
		}
	}
	if f := set.Get("mlx.4bit-g64.M4Max128.decode_tokens_per_second"); !f.Known() || f.ErrorP90 != 0.4533 {
		t.Errorf("MLX decode fact %+v: want the apple regime's p90 (0.4533) for claims to compare within", f)
	}
	if f := set.Get("mlx.4bit-g64.M4Max128.decode_tokens_per_second"); !f.Known() || !strings.Contains(f.Display, "borrowed from llama.cpp Metal") {
		t.Errorf("decode %+v", f)
	}
	if f := set.Get("mlx.4bit-g64.M4Max128.fits"); f.Value != "vram" {
		t.Errorf("fits %+v", f)
	}
	if set.Get("mlx.4bit-g64.M4Max128.wired_limit_mb") != nil {
		t.Error("a 1 MB model asks for a wired limit")
	}
}
