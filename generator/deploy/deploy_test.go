package deploy

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/catalog"
)

// fakeMemory places a model of total bytes (experts of them routed-expert
// weights) the way the sizing stage does, simplified: every weight split
// over TP × PP (or, with data-parallel attention, the non-expert weights
// whole and the experts over EP); GQA caches K and V per KV head, split
// over the attention TP down to one head per rank.
type fakeMemory struct {
	a              *arch.Architecture
	total, experts int64
}

func (m fakeMemory) OnGPU(acc *catalog.Accelerator, l Layout, b int64) (GPU, error) {
	w := ceil(m.total, l.TP*l.PP)
	if l.DPAttention {
		w = m.total - m.experts + ceil(m.experts, l.EP)
	}
	ta := l.AttentionTP()
	heads := max(ceil(m.a.KVHeads, ta), 1)
	perTok := 2 * heads * m.a.HeadDim * b * ceil(m.a.Layers, l.PP)
	if m.a.Attention == arch.MLA {
		perTok = (m.a.KVLoraRank + m.a.QKRopeDim) * b * ceil(m.a.Layers, l.PP)
	}
	g := GPU{
		Budget:  int64(float64(acc.Capacity())*0.9) - 2<<30,
		Weights: w,
		Seq:     func(n int64) int64 { return perTok * n },
		MaxContext: func(u int64) (int64, bool) {
			return u / perTok, true
		},
		Sequences: 1,
	}
	if l.DPAttention {
		g.Sequences = l.DP
	}
	return g, nil
}

func ceil(a, b int64) int64 { return (a + b - 1) / b }

func parse(t *testing.T, path string) *arch.Architecture {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := arch.Parse(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Accelerators as data/hardware.yaml states them on 2026-12-04, frozen.
func accel(id, class string, mem int64, perHost, scaleUp int, fabric string) *catalog.Accelerator {
	return &catalog.Accelerator{ID: id, Class: class, MemoryBytes: mem, GPUsPerNode: perHost,
		Host: &catalog.Host{GPUs: perHost, ScaleUp: scaleUp, Fabric: fabric}}
}

var (
	h100    = accel("H100", "datacenter", 81559<<20, 8, 8, "InfiniBand/Ethernet")
	h200    = accel("H200", "datacenter", 143771<<20, 8, 8, "InfiniBand/Ethernet")
	b200    = accel("B200", "datacenter", 183359<<20, 8, 8, "InfiniBand/Ethernet")
	l40s    = accel("L40S", "datacenter", 46068<<20, 8, 0, "none")
	rtx4090 = accel("RTX4090", "consumer", 24564<<20, 8, 0, "none")
	m3ultra = accel("M3Ultra512", "unified", 512<<30, 1, 0, "none")
)

func input(t *testing.T, model, cfg string, total, experts int64, acc *catalog.Accelerator, n int64) Input {
	a := parse(t, cfg)
	return Input{Model: model, Arch: a, Acc: acc, GPUs: n, Mem: fakeMemory{a, total, experts},
		KVBytes: []int64{2, 1}, Contexts: []int64{8192, 32768, 131072}, MinContext: 8192,
		Utilization: 0.9, TPSizes: []int64{1, 2, 4, 8}}
}

const (
	qwen2    = "testdata/configs/Qwen__Qwen2-7B-Instruct.json"
	ernie    = "testdata/configs/baidu__ERNIE-4.5-21B-A3B-PT.json"
	minimax  = "testdata/configs/MiniMaxAI__MiniMax-M2.json"
	qwen3fp8 = "../../testdata/configs/Qwen__Qwen3-30B-A3B-FP8.json"
	llama8b  = "../../testdata/configs/meta-llama__Llama-3.1-8B.json"
	k3       = "../../testdata/configs/moonshotai__Kimi-K3.json"
)

func find(cs []Candidate, e Engine, match func(Layout) bool) *Candidate {
	for i := range cs {
		if cs[i].Engine == e && match(cs[i].Layout) {
			return &cs[i]
		}
	}
	return nil
}

func pureTP(n int64) func(Layout) bool {
	return func(l Layout) bool { return l.TP == n && l.PP == 1 && l.DP == 1 && l.EP <= 1 && !l.DPAttention }
}

func violated(c *Candidate, constraint string) bool {
	return c != nil && slices.ContainsFunc(c.Violations, func(v Violation) bool { return v.Constraint == constraint })
}

// Qwen2-7B has 28 attention heads: vLLM refuses TP 8, so 8 × H100 runs
// TP 1, 2 or 4 with replicas or stages.
func TestQwen2On8H100IsNeverTP8(t *testing.T) {
	cs := Plan(input(t, "Qwen/Qwen2-7B-Instruct", qwen2, 15_231_233_024, 0, h100, 8))
	tp8 := find(cs, VLLM, pureTP(8))
	if !violated(tp8, "attention heads ÷ TP") || tp8.Deployable() {
		t.Fatalf("TP 8 = %+v, want refused for its heads", tp8)
	}
	if !strings.Contains(tp8.Reason(), "(28) must be divisible by tensor parallel size (8)") {
		t.Errorf("reason %q does not quote the engine", tp8.Reason())
	}
	best, ok := Best(cs)
	if !ok {
		t.Fatal("no deployable layout of 8 × H100")
	}
	l := best.Layout
	if !slices.Contains([]int64{1, 2, 4}, l.TP) || l.DP*l.PP == 1 || l.TP*l.DP*l.PP != 8 {
		t.Errorf("best = %s, want TP 1, 2 or 4 with DP or PP filling 8 GPUs", l)
	}
	for _, c := range cs {
		if c.Deployable() && c.Layout.TP == 8 {
			t.Errorf("%s deployable", c.Layout)
		}
	}
}

// ERNIE-4.5-21B-A3B has 20 heads: TP 8 is refused with the head rule as
// reason, also with expert parallelism on.
func TestERNIETP8RefusedForHeads(t *testing.T) {
	cs := Plan(input(t, "baidu/ERNIE-4.5-21B-A3B-PT", ernie, 43_600_000_000, 40_000_000_000, h100, 8))
	for _, c := range cs {
		if c.Layout.AttentionTP() == 8 && (!violated(&c, "attention heads ÷ TP") || c.Deployable()) {
			t.Errorf("%s %s: %q, want refused for 20 heads ÷ 8", c.Engine, c.Layout, c.Reason())
		}
	}
	if best, ok := Best(cs); !ok || best.Layout.AttentionTP() == 8 {
		t.Errorf("best = %+v %v", best.Layout, ok)
	}
}

// Qwen3-30B-A3B-FP8: moe_intermediate_size 768 with 128-wide FP8 blocks.
// 768 ÷ 4 = 192 and 768 ÷ 8 = 96 are not multiples of 128: pure TP 4 and
// TP 8 are refused, and an expert- or data-parallel layout is offered.
func TestQwen3FP8PureTPRefusedEPOffered(t *testing.T) {
	for _, n := range []int64{4, 8} {
		cs := Plan(input(t, "Qwen/Qwen3-30B-A3B-FP8", qwen3fp8, 32_500_000_000, 30_000_000_000, h100, n))
		tp := find(cs, VLLM, pureTP(n))
		if !violated(tp, "quantization block ÷ sharded dimension") || tp.Deployable() {
			t.Fatalf("pure TP %d = %+v, want refused for the FP8 block", n, tp)
		}
		if !strings.Contains(tp.Reason(), "moe_intermediate_size 768") {
			t.Errorf("TP %d reason %q does not name the dimension", n, tp.Reason())
		}
		best, ok := Best(cs)
		if !ok || (best.Layout.EP <= 1 && best.Layout.DP <= 1) {
			t.Fatalf("%d × H100: best %s %v, want an EP or DP layout", n, best.Layout, ok)
		}
		if best.Layout.EP > 1 && !strings.Contains(best.Command, "--enable-expert-parallel") && !strings.Contains(best.Command, "--ep-size") {
			t.Errorf("command %q does not turn expert parallelism on", best.Command)
		}
	}
	// TP 2: 768 ÷ 2 = 384 = 3 × 128.
	cs := Plan(input(t, "Qwen/Qwen3-30B-A3B-FP8", qwen3fp8, 32_500_000_000, 30_000_000_000, h100, 2))
	if tp2 := find(cs, VLLM, pureTP(2)); tp2 == nil || !tp2.Deployable() {
		t.Errorf("TP 2 = %+v, want deployable", tp2)
	}
}

// MiniMax-M2 (FP8, 128 blocks, expert width 1536): pure TP 8 fails
// (1536 ÷ 8 = 192), TP 8 with EP 8 passes.
func TestMiniMaxM2TP8NeedsEP(t *testing.T) {
	cs := Plan(input(t, "MiniMaxAI/MiniMax-M2", minimax, 230_000_000_000, 220_000_000_000, h200, 8))
	if tp8 := find(cs, VLLM, pureTP(8)); !violated(tp8, "quantization block ÷ sharded dimension") {
		t.Errorf("pure TP 8 = %+v", tp8)
	}
	ep := find(cs, VLLM, func(l Layout) bool { return l.TP == 8 && l.EP == 8 && !l.DPAttention })
	if ep == nil || !ep.Deployable() {
		t.Fatalf("TP 8 × EP 8 = %+v, want deployable", ep)
	}
	if want := "--tensor-parallel-size 8 --enable-expert-parallel"; !strings.Contains(ep.Command, want) {
		t.Errorf("command %q lacks %q", ep.Command, want)
	}
}

// TP never leaves a scale-up domain; beyond one node K3 runs pipeline,
// data or expert parallelism over the fabric, TP ≤ 8 per node.
func TestK3TPStaysInTheNode(t *testing.T) {
	in := input(t, "moonshotai/Kimi-K3", k3, 1_450_000_000_000, 1_400_000_000_000, b200, 16)
	cs := Plan(in)
	if tp16 := find(cs, VLLM, pureTP(16)); !violated(tp16, "TP within one scale-up domain") {
		t.Errorf("TP 16 = %+v", tp16)
	}
	// SGLang documents data-parallel attention for DeepSeek and Qwen MoE only.
	if dpa := find(cs, SGLang, func(l Layout) bool { return l.DPAttention }); !violated(dpa, "engine support") {
		t.Errorf("K3 data-parallel attention = %+v, want refused: engine support", dpa)
	}
	best, ok := Best(cs)
	if !ok {
		t.Fatal("16 × B200 serves nothing")
	}
	if best.Layout.TP > 8 && !best.Layout.DPAttention {
		t.Errorf("best %s has TP above a node", best.Layout)
	}
}

// Consumer cards across hosts, several Macs: experimental, never
// deployable; L40S across hosts: no fabric.
func TestNoMultiHostConsumerAppleOrPCIe(t *testing.T) {
	for _, tc := range []struct {
		acc  *catalog.Accelerator
		n    int64
		want string
	}{
		{rtx4090, 16, "llama.cpp RPC"},
		{m3ultra, 2, "exo"},
	} {
		cs := Plan(input(t, "meta-llama/Llama-3.1-8B", llama8b, 16_060_522_496, 0, tc.acc, tc.n))
		if _, ok := Best(cs); ok || len(cs) != 1 || !strings.Contains(cs[0].Reason(), tc.want) {
			t.Errorf("%d × %s: %+v", tc.n, tc.acc.ID, cs)
		}
	}
	cs := Plan(input(t, "Qwen/Qwen2-7B-Instruct", qwen2, 15_231_233_024, 0, l40s, 16))
	for _, c := range cs {
		if !violated(&c, "scale-out fabric") {
			t.Errorf("16 × L40S %s: %q, want refused for want of a fabric", c.Layout, c.Reason())
		}
	}
}

// Llama 3.1 8B on one RTX 4090: llama.cpp, with the longest context that
// fits stated and passed to -c.
func TestLlama8BLocalStatesItsContext(t *testing.T) {
	cs := Plan(input(t, "meta-llama/Llama-3.1-8B", llama8b, 16_060_522_496, 0, rtx4090, 1))
	best, ok := Best(cs)
	if !ok || best.Engine != LlamaCpp {
		t.Fatalf("1 × RTX 4090: %+v", cs)
	}
	mc := best.Fits[0].MaxContext
	// 22.1 GB × 0.9 − 2 GiB − 16.06 GB of weights ≈ 1.9 GB at 128 KiB a
	// token (32 layers × 8 KV heads × 128 × 2 × 2 B).
	if mc < 8192 || mc > 131072 {
		t.Errorf("max context %d", mc)
	}
	if !strings.Contains(best.Command, " -c "+itoa(mc)) {
		t.Errorf("command %q does not pass the max context %d", best.Command, mc)
	}
	if f := best.Fits[1]; f.KVBytes != 1 || f.MaxContext <= mc && mc < 131072 {
		t.Errorf("FP8 cache fits %+v, want a longer context than BF16's %d", f, mc)
	}
}

func itoa(n int64) string { return strings.ReplaceAll(count(n), ",", "") }

// Every command any test layout produces uses only the flags its engine
// defines, as listed in testdata/flags with the source they were read
// from.
func TestCommandsUseOnlyListedFlags(t *testing.T) {
	allowed := map[Engine][]string{}
	for _, e := range []Engine{VLLM, SGLang, LlamaCpp, MLX} {
		allowed[e] = readFlags(t, filepath.Join("testdata", "flags", string(e)+".txt"))
	}
	type model struct {
		id, cfg        string
		total, experts int64
	}
	models := []model{
		{"Qwen/Qwen2-7B-Instruct", qwen2, 15_231_233_024, 0},
		{"baidu/ERNIE-4.5-21B-A3B-PT", ernie, 43_600_000_000, 40_000_000_000},
		{"MiniMaxAI/MiniMax-M2", minimax, 230_000_000_000, 220_000_000_000},
		{"Qwen/Qwen3-30B-A3B-FP8", qwen3fp8, 32_500_000_000, 30_000_000_000},
		{"meta-llama/Llama-3.1-8B", llama8b, 16_060_522_496, 0},
		{"moonshotai/Kimi-K3", k3, 1_450_000_000_000, 1_400_000_000_000},
	}
	seen := map[Engine]int{}
	for _, m := range models {
		for _, acc := range []*catalog.Accelerator{h100, h200, b200, l40s, rtx4090, m3ultra} {
			for _, n := range []int64{1, 2, 4, 8, 16, 32} {
				in := input(t, m.id, m.cfg, m.total, m.experts, acc, n)
				in.RemoteCode = true
				for _, c := range Plan(in) {
					if !c.Deployable() {
						if c.Command != "" {
							t.Errorf("%s %s: a command for a layout that is not deployable", m.id, c.Layout)
						}
						continue
					}
					seen[c.Engine]++
					for _, f := range Flags(c.Command) {
						if !slices.Contains(allowed[c.Engine], f) {
							t.Errorf("%s: flag %s is not in testdata/flags/%s.txt", c.Command, f, c.Engine)
						}
					}
				}
			}
		}
	}
	for _, e := range []Engine{VLLM, SGLang, LlamaCpp, MLX} {
		if seen[e] == 0 {
			t.Errorf("no deployable %s command was checked", e)
		}
	}
}

func readFlags(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}
