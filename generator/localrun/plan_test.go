package localrun_test

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"dossier/generator/catalog"
	"dossier/generator/facts"
	"dossier/generator/gguf"
	"dossier/generator/gguf/gguftest"
	"dossier/generator/localrun"
)

// testCatalog holds the accelerators the fixtures name, with the figures
// of data/hardware.yaml as of 2026-12-02 copied in: tests read no live data.
func testCatalog() *catalog.Catalog {
	spec := func(v float64) catalog.Spec { return catalog.Spec{Value: v, Source: "fixture", AsOf: "2026-12-02"} }
	sp := func(v float64) *catalog.Spec { s := spec(v); return &s }
	return &catalog.Catalog{Accelerators: map[string]*catalog.Accelerator{
		"RTX4090": {ID: "RTX4090", Class: "consumer", MemoryBytes: 25757220864, Bandwidth: spec(1.008e12),
			PeakBF16: sp(1.652e14), Interconnect: sp(3.2e10), InterconnectKind: "PCIe 4.0 x16"},
		"RTX3090": {ID: "RTX3090", Class: "consumer", MemoryBytes: 25769803776, Bandwidth: spec(9.36e11),
			PeakBF16: sp(7.1e13), Interconnect: sp(3.2e10), InterconnectKind: "PCIe 4.0 x16"},
		"M4Max128":   {ID: "M4Max128", Class: "unified", MemoryBytes: 137438953472, Bandwidth: spec(5.46e11), GPUWiredShare: 0.84, Source: "fixture", AsOf: "2026-12-02"},
		"M3Ultra512": {ID: "M3Ultra512", Class: "unified", MemoryBytes: 549755813888, Bandwidth: spec(8.19e11), GPUWiredShare: 0.75, Source: "fixture", AsOf: "2026-12-02"},
		"B200":       {ID: "B200", Class: "datacenter", MemoryBytes: 192265846784, Bandwidth: spec(8e12)},
	}}
}

func machine(t testing.TB, id string) localrun.Machine {
	t.Helper()
	cat := testCatalog()
	hosts, err := localrun.LoadHosts(os.DirFS("testdata"), "testdata", cat)
	if err != nil {
		t.Fatal(err)
	}
	m, err := localrun.ParseMachine(id, hosts, cat)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMachineGrammar(t *testing.T) {
	cat := testCatalog()
	hosts, err := localrun.LoadHosts(os.DirFS("testdata"), "testdata", cat)
	if err != nil {
		t.Fatal(err)
	}
	m, err := localrun.ParseMachine("2xRTX3090@Workstation256", hosts, cat)
	if err != nil || m.GPUs != 2 || m.GPU.ID != "RTX3090" || m.Host.MemoryBytes != 256<<30 {
		t.Fatalf("%+v %v", m, err)
	}
	if m, err := localrun.ParseMachine("M4Max128", hosts, cat); err != nil || m.Host.MemoryBytes != 137438953472 || m.Host.GPUWiredShare != 0.84 {
		t.Errorf("mac from the catalog: %+v %v", m.Host, err)
	}
	for s, want := range map[string]string{
		"3xRTX4090@Desktop128": "at most 2 GPUs",
		"1xB200@Desktop128":    "not a consumer or workstation GPU",
		"1xRTX4090@Laptop":     `no host "Laptop"`,
		"1xRTX4090@M4Max128":   "a Mac takes no discrete GPUs",
		"RTX4090":              `no host "RTX4090"`,
		"1x RTX4090@Desktop64": "expected HOST or NxGPU@HOST",
	} {
		if _, err := localrun.ParseMachine(s, hosts, cat); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", s, err, want)
		}
	}
}

func typ(t *testing.T, n string) gguf.Type {
	ty, ok := gguf.TypeByName(n)
	if !ok {
		t.Fatal(n)
	}
	return ty
}

func quantOf(t *testing.T, built []gguftest.Built) localrun.Quant {
	t.Helper()
	var listed []gguf.Listed
	var hs []*gguf.Header
	for _, b := range built {
		h, err := gguf.Parse(b.Header, b.Size)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
		listed = append(listed, gguf.Listed{Path: b.Path, Size: b.Size})
	}
	gs, err := gguf.GroupFiles(listed)
	if err != nil {
		t.Fatal(err)
	}
	q, err := gguf.Combine(gs[0], hs)
	if err != nil {
		t.Fatal(err)
	}
	lq, err := localrun.FromGGUF(q)
	if err != nil {
		t.Fatal(err)
	}
	return lq
}

// A K3-shaped MoE on one 24 GB card: --n-cpu-moe leaves in host RAM the
// fewest layers' experts that let the rest fit, so the card is filled to
// within one layer's experts of its margin, not emptied of all experts.
func TestNCPUMoEFillsTheCard(t *testing.T) {
	m := gguftest.MoE{
		Layers: 93, DenseLayers: 1, Hidden: 7168, Vocab: 163840, Heads: 96,
		QLoraRank: 1536, KVLoraRnk: 512, RopeDim: 64, NopeDim: 128, VDim: 128, DenseFF: 18432,
		Experts: 896, ExpertsUsed: 16, ExpertIn: 3584, ExpertFF: 1024, SharedFF: 2048, Context: 1 << 20,
		ExpertType: typ(t, "IQ1_S"), MatrixType: typ(t, "Q4_K"), EmbedType: typ(t, "Q4_K"),
		Shards: 4, Name: "UD-IQ1_S/Kimi-K3-UD-IQ1_S",
	}
	q := quantOf(t, m.Build())
	mc := machine(t, "1xRTX4090@EPYC768")
	p, err := localrun.Make(q, mc, localrun.Options{Context: 8192})
	if err != nil {
		t.Fatal(err)
	}
	if p.Fits != localrun.FitsOffload || p.NGPULayers != 94 {
		t.Fatalf("fits %s, -ngl %d (%s)", p.Fits, p.NGPULayers, p.Derivation)
	}
	budget := int64(25757220864 - 1<<30)
	if p.GPUBudget != budget || p.GPUBytes > budget {
		t.Fatalf("GPU side %d of %d", p.GPUBytes, p.GPUBudget)
	}
	next := q.Sizes.LayerExpertBytes[p.NCPUMoE-1]
	if p.NCPUMoE <= 1 || p.NCPUMoE >= 93 || p.GPUBytes+next <= budget {
		t.Errorf("--n-cpu-moe %d leaves %d bytes free, less than one more layer's experts (%d)", p.NCPUMoE, budget-p.GPUBytes, next)
	}
	if !strings.Contains(p.Command, "-ngl 99 --n-cpu-moe ") || !strings.Contains(p.Command, "-c 8192 -ctk q8_0 -ctv q8_0 -fa on") ||
		!strings.HasPrefix(p.Command, "llama-server -m UD-IQ1_S/Kimi-K3-UD-IQ1_S-00001-of-00004.gguf") {
		t.Errorf("command %q", p.Command)
	}
	if p.DecodeTPS <= 0 || p.PromptTPS <= 0 || p.MaxContext["q4_0"] < p.MaxContext["q8_0"] || p.MaxContext["q8_0"] < p.MaxContext["f16"] || p.MaxContext["f16"] < 8192 {
		t.Errorf("decode %v prompt %v contexts %v (%s; %s)", p.DecodeTPS, p.PromptTPS, p.MaxContext, p.DecodeReason, p.PromptReason)
	}
	t.Logf("%s: --n-cpu-moe %d, GPU %d of %d, host %d; max ctx %v; decode %.2f tok/s (%s); prompt %.1f tok/s (%s)", p.Machine, p.NCPUMoE, p.GPUBytes, p.GPUBudget, p.HostBytes, p.MaxContext, p.DecodeTPS, p.DecodeDerivation, p.PromptTPS, p.PromptDerivation)
	flags := readFlags(t)
	for _, tok := range strings.Fields(p.Command) {
		if strings.HasPrefix(tok, "-") {
			if _, ok := flags[tok]; !ok {
				t.Errorf("%s is not a llama-server flag at the pinned commit", tok)
			}
		}
	}
	// The same quant on a 64 GB desktop: more than RAM + VRAM.
	p2, err := localrun.Make(q, machine(t, "1xRTX4090@Desktop64"), localrun.Options{Context: 8192})
	if err != nil || p2.Fits != localrun.FitsMmap || p2.DecodeReason == "" || p2.DecodeTPS != 0 {
		t.Errorf("desktop: %+v %v", p2, err)
	}
}

// dense is two layers of one F16 tensor each, 8 heads of 128 with 2 KV
// heads: 2 × 2 × (128 + 128) = 1,024 cache values per token.
func dense(t *testing.T, ctxLen uint32) localrun.Quant { return denseRows(t, ctxLen, 4_000_000) }

// denseRows is dense with layers of 1,024 × rows F16 values.
func denseRows(t *testing.T, ctxLen uint32, rows int64) localrun.Quant {
	f16, f32 := typ(t, "F16"), typ(t, "F32")
	h, size := gguftest.Encode(gguftest.File{
		KV: []gguftest.KV{{"general.architecture", "llama"}, {"llama.block_count", uint32(2)}, {"llama.context_length", ctxLen},
			{"llama.embedding_length", uint32(1024)}, {"llama.attention.head_count", uint32(8)}, {"llama.attention.head_count_kv", uint32(2)}},
		Tensors: []gguftest.Tensor{
			{"token_embd.weight", f16, []int64{1024, 1000}},
			{"blk.0.ffn_up.weight", f16, []int64{1024, rows}},
			{"blk.1.ffn_up.weight", f16, []int64{1024, rows}},
			{"output_norm.weight", f32, []int64{1024}},
		},
	})
	return quantOf(t, []gguftest.Built{{Path: "Toy-F16.gguf", Header: h, Size: size}})
}

// Longest context by hand: a 4090 reports 25,757,220,864 bytes; less the
// 1 GiB margin, 24,683,479,040. The GPU holds both layers (2 × 8,192,000,000
// bytes) and the output norm (4,096): 8,299,474,944 bytes are left for
// the cache. Per token: 1,024 values × 2 B (f16) = 2,048 B; × 34/32
// (q8_0) = 1,088 B; × 18/32 (q4_0) = 576 B. So 4,052,477 tokens (f16) →
// 4,052,224 in multiples of 256; 7,628,194 (q8_0) → 7,628,032; q4_0
// 14,408,810, capped at the model's 8,000,000.
func TestMaxContextByHand(t *testing.T) {
	q := dense(t, 8_000_000)
	p, err := localrun.Make(q, machine(t, "1xRTX4090@Desktop64"), localrun.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Fits != localrun.FitsVRAM || p.GPUBytes-int64(float64(1024*32768)*34/32) != 16_384_004_096 {
		t.Fatalf("fits %s, GPU side %d", p.Fits, p.GPUBytes)
	}
	want := map[string]int64{"f16": 4_052_224, "q8_0": 7_628_032, "q4_0": 8_000_000}
	for k, v := range want {
		if p.MaxContext[k] != v {
			t.Errorf("%s: max context %d, want %d", k, p.MaxContext[k], v)
		}
	}
	if p.Command != "llama-server -m Toy-F16.gguf -ngl 99 -c 32768 -ctk q8_0 -ctv q8_0 -fa on" {
		t.Errorf("command %q", p.Command)
	}
	// Decode by hand: 16,384,004,096 weight bytes + the q8_0 cache at
	// 32,768 tokens (35,651,584) read per token at 1,008 GB/s.
	wantTPS := 1.008e12 / (16_384_004_096 + 35_651_584)
	if d := p.DecodeTPS/wantTPS - 1; d > 1e-9 || d < -1e-9 {
		t.Errorf("decode %v tokens/s, want %v", p.DecodeTPS, wantTPS)
	}
}

func TestMacWiredLimit(t *testing.T) {
	q := dense(t, 32768)
	// 16.4 GB on a 128 GB M4 Max: within the default 84 % share.
	p, err := localrun.Make(q, machine(t, "M4Max128"), localrun.Options{})
	if err != nil || p.Fits != localrun.FitsVRAM || p.WiredLimitMB != 0 || p.PromptReason == "" {
		t.Fatalf("%+v %v", p, err)
	}
	// 114.7 GB of weights: past the 84 % (115.45 GB) default once the
	// cache and the 1 GiB margin are added, within 128 GiB less 9 GiB.
	big := denseRows(t, 32768, 28_000_000)
	p, err = localrun.Make(big, machine(t, "M4Max128"), localrun.Options{})
	gpu := int64(2*57_344_000_000 + 4096 + 1024*32768*34/32)
	want := (gpu + 1<<30 + 1<<20 - 1) >> 20
	if err != nil || p.Fits != localrun.FitsVRAM || p.GPUBytes != gpu || p.WiredLimitMB != want {
		t.Errorf("fits %s, GPU side %d (want %d), wired limit %d MiB, want %d: %v", p.Fits, p.GPUBytes, gpu, p.WiredLimitMB, want, err)
	}
	// Over 128 GiB less the OS's 8 GiB: only mapped from disk.
	huge := denseRows(t, 32768, 32_000_000)
	if p, err := localrun.Make(huge, machine(t, "M4Max128"), localrun.Options{}); err != nil || p.Fits != localrun.FitsMmap || p.DecodeReason == "" {
		t.Errorf("huge: %s %v", p.Fits, err)
	}
}

// toyQuant is a one-layer dense quant, Toy-Q4_K_M.gguf, whose header
// names arch as its general.architecture; size is its file's.
func toyQuant(t *testing.T, arch string) (q localrun.Quant, size int64) {
	t.Helper()
	f16 := typ(t, "F16")
	h, size := gguftest.Encode(gguftest.File{
		KV: []gguftest.KV{{"general.architecture", arch}, {arch + ".block_count", uint32(1)}, {arch + ".context_length", uint32(4096)},
			{arch + ".embedding_length", uint32(256)}, {arch + ".attention.head_count", uint32(2)}, {arch + ".attention.head_count_kv", uint32(1)}},
		Tensors: []gguftest.Tensor{{"blk.0.ffn_up.weight", f16, []int64{256, 1000}}, {"blk.0.ffn_down.weight", typ(t, "Q4_K"), []int64{256, 1000}}},
	})
	gh, _ := gguf.Parse(h, size)
	gs, _ := gguf.GroupFiles([]gguf.Listed{{Path: "Toy-Q4_K_M.gguf", Size: size}})
	gq, err := gguf.Combine(gs[0], []*gguf.Header{gh})
	if err != nil {
		t.Fatal(err)
	}
	q, err = localrun.FromGGUF(gq)
	if err != nil {
		t.Fatal(err)
	}
	return q, size
}

func TestFacts(t *testing.T) {
	ms := []localrun.Machine{machine(t, "1xRTX4090@Desktop64"), machine(t, "M4Max128")}
	lq, size := toyQuant(t, "llama")
	s, _, err := localrun.Build([]localrun.Quant{lq}, localrun.Sources{Tree: "hub:tree@abc1234", Headers: "hub:gguf@abc1234"}, ms, localrun.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ints := map[string]int64{
		"gguf.Q4_K_M.bytes":        size,
		"gguf.Q4_K_M.tensor_bytes": 256*1000*2 + 256*1000/256*144,
		"gguf.Q4_K_M.params":       512000,
		"gguf.Q4_K_M.census.F16":   256000,
		"gguf.Q4_K_M.census.Q4_K":  256000,
		// 1 KV head × (128 + 128) values × 2 B
		"gguf.Q4_K_M.kv_bytes_per_token":                512,
		"gguf.Q4_K_M.expert_bytes":                      0,
		"local.Q4_K_M.1xRTX4090@Desktop64.n_gpu_layers": 2,
		"local.Q4_K_M.1xRTX4090@Desktop64.n_cpu_moe":    0,
		"local.Q4_K_M.1xRTX4090@Desktop64.max_context":  4096,
	}
	for k, want := range ints {
		if v, ok := s.Get(k).Int(); !ok || v != want {
			t.Errorf("%s = %v, want %d", k, s.Get(k), want)
		}
	}
	if bpw, _ := s.Get("gguf.Q4_K_M.bits_per_weight").Float(); bpw != float64(256*1000*2+1000*144)*8/512000 {
		t.Errorf("bits per weight %v", bpw)
	}
	for k, want := range map[string]any{
		"local.Q4_K_M.1xRTX4090@Desktop64.fits":   "vram",
		"local.Q4_K_M.M4Max128.fits":              "vram",
		"local.smallest_vram.1xRTX4090@Desktop64": "Q4_K_M",
		"local.best_offload.M4Max128":             "Q4_K_M",
		"gguf.Q4_K_M.architecture":                "llama",
		"gguf.Q4_K_M.llamacpp_loads":              true,
	} {
		if f := s.Get(k); f == nil || f.Value != want {
			t.Errorf("%s = %v, want %s", k, f, want)
		}
	}
	if f := s.Get("local.Q4_K_M.M4Max128.prompt_tokens_per_second"); f == nil || f.Known() || f.Reason == "" {
		t.Errorf("Mac prompt speed should be unknown with a reason: %+v", f)
	}
	// The rule of thumb's margin: a 4090's 25,757,220,864 bytes + 64 GiB
	// less the file; a Mac's memory counts once.
	for k, want := range map[string]int64{
		"local.Q4_K_M.1xRTX4090@Desktop64.memory_headroom": 25757220864 + 68719476736 - size,
		"local.Q4_K_M.M4Max128.memory_headroom":            137438953472 - size,
	} {
		if v, ok := s.Get(k).Int(); !ok || v != want {
			t.Errorf("%s = %v, want %d", k, s.Get(k), want)
		}
	}
	// Speeds from peak rates are ceilings, and say they are uncalibrated.
	if f := s.Get("local.Q4_K_M.1xRTX4090@Desktop64.decode_tokens_per_second"); f.Bound != facts.BoundUpper || !strings.Contains(f.Derivation, "uncalibrated") {
		t.Errorf("decode speed not marked as a ceiling: %+v", f)
	}
}

// "VRAM + RAM ≥ the quant's size" is not the plan: 90 GB of weights in
// two 45 GB layers on a 4090 and 64 GiB (94.5 GB together) leave 4.5 GB
// by the rule, but no layer fits the card's 24.7 GB and the host keeps
// 8 GiB for the OS (60.1 GB usable): RAM and VRAM do not hold it.
func TestRuleOfThumbAgainstThePlan(t *testing.T) {
	q := denseRows(t, 32768, 21_972_656) // 1,024 × 21,972,656 × 2 B ≈ 45.0 GB a layer
	p, err := localrun.Make(q, machine(t, "1xRTX4090@Desktop64"), localrun.Options{})
	if err != nil {
		t.Fatal(err)
	}
	headroom := p.CombinedMemory - p.FileBytes
	if p.CombinedMemory != 25757220864+68719476736 || headroom <= 0 || headroom > 5e9 {
		t.Fatalf("combined %d, file %d", p.CombinedMemory, p.FileBytes)
	}
	if p.Fits == localrun.FitsVRAM || p.Fits == localrun.FitsOffload {
		t.Errorf("fits %s, but RAM and VRAM cannot hold it (%s)", p.Fits, p.Derivation)
	}
}

// A claim's key either names a fact a plan adds or is an error, so a
// typo is not taken for a quant that is merely not synced.
func TestParseRef(t *testing.T) {
	for key, want := range map[string]localrun.Ref{
		"gguf.UD-Q2_K_XL.bytes":                                       {Quant: "UD-Q2_K_XL", Field: "bytes"},
		"gguf.Q4_K_M.census.Q6_K":                                     {Quant: "Q4_K_M", Field: "census.Q6_K"},
		"local.UD-TQ1_0.1xRTX4090@Workstation256.fits":                {Quant: "UD-TQ1_0", Machine: "1xRTX4090@Workstation256", Field: "fits"},
		"local.best_offload.M3Ultra512":                               {Machine: "M3Ultra512", Field: "best_offload"},
		"local.Q8_0.EPYC768.max_context_q4_0":                         {Quant: "Q8_0", Machine: "EPYC768", Field: "max_context_q4_0"},
		"local.UD-TQ1_0.1xRTX4090@Desktop64.memory_headroom":          {Quant: "UD-TQ1_0", Machine: "1xRTX4090@Desktop64", Field: "memory_headroom"},
		"local.UD-TQ1_0.1xRTX4090@Desktop64.decode_tokens_per_second": {Quant: "UD-TQ1_0", Machine: "1xRTX4090@Desktop64", Field: "decode_tokens_per_second"},
	} {
		r, ok, err := localrun.ParseRef(key)
		want.Key = key
		if !ok || err != nil || r != want {
			t.Errorf("%s: %+v %v %v, want %+v", key, r, ok, err, want)
		}
	}
	for _, key := range []string{"gguf.Q4_K_M.byte", "gguf.Q4_K_M.census.Q5_X", "local.Q4_K_M.Desktop64.fit", "local.Q4_K_M.fits", "gguf..bytes"} {
		if _, ok, err := localrun.ParseRef(key); !ok || err == nil {
			t.Errorf("%s: accepted", key)
		}
	}
	if _, ok, err := localrun.ParseRef("bytes.checkpoint"); ok || err != nil {
		t.Errorf("a sizing key is not a local one: %v %v", ok, err)
	}
}

// A hybrid model's recurrent state sits beside its cache on the GPU: one
// sequence of F32 state per recurrent layer, whatever the context.
func TestRecurrentStateCounted(t *testing.T) {
	f16 := typ(t, "F16")
	h, size := gguftest.Encode(gguftest.File{
		KV: []gguftest.KV{{"general.architecture", "qwen3next"}, {"qwen3next.block_count", uint32(4)}, {"qwen3next.context_length", uint32(262144)},
			{"qwen3next.embedding_length", uint32(1024)}, {"qwen3next.attention.head_count", uint32(8)},
			{"qwen3next.attention.head_count_kv", []uint32{0, 0, 0, 2}},
			{"qwen3next.ssm.conv_kernel", uint32(4)}, {"qwen3next.ssm.inner_size", uint32(4096)},
			{"qwen3next.ssm.state_size", uint32(128)}, {"qwen3next.ssm.group_count", uint32(16)}},
		Tensors: []gguftest.Tensor{{"blk.0.ffn_up.weight", f16, []int64{1024, 1024}}},
	})
	q := quantOf(t, []gguftest.Built{{Path: "Hybrid-F16.gguf", Header: h, Size: size}})
	p, err := localrun.Make(q, machine(t, "1xRTX4090@Desktop64"), localrun.Options{Context: 4096})
	if err != nil {
		t.Fatal(err)
	}
	// Weights 2 MiB; cache 2 heads × 256 values × 4,096 tokens × 34/32;
	// state 3 × 548,864 values × 4 B.
	want := int64(1024*1024*2) + int64(2*256*4096*34/32) + 3*548_864*4
	if p.GPUBytes != want {
		t.Errorf("GPU side %d, want %d (%s)", p.GPUBytes, want, p.Derivation)
	}
}

// fittedCatalog is testCatalog with a speed fit shaped like
// data/speed_fit.yaml's (2026-12-04): consumer GPUs at 0.86 of their
// bandwidth, the host at 0.42 of its, 89 µs per layer, and the
// cpu-offload regime's leave-one-out error from 8 pairs on one host.
func fittedCatalog() *catalog.Catalog {
	cat := testCatalog()
	cat.Speed = &catalog.SpeedModel{
		Pairs: []*catalog.CalibrationPair{{ID: "offload-a", Offload: &catalog.PairOffload{Host: catalog.PairHost{CPU: "Intel Core i9-10900X", Memory: "DDR4, quad channel", Bandwidth: 1.02e11, Measured: true}}}},
		Fit: &catalog.SpeedFit{MemoryEfficiency: 0.71, LayerSeconds: 89e-6, HostEfficiency: 0.42, OffloadPairs: 8,
			Classes: []catalog.ClassFit{{Class: "consumer", MemoryEfficiency: 0.86, Pairs: 16}},
			Regimes: []catalog.RegimeErrors{
				{Regime: "cpu-offload", Pairs: 8, ErrorP50: 0.08796, ErrorP90: 0.1827, Classes: []string{"consumer"}, IDs: []string{"offload-a"}},
				{Regime: "single-gpu", Pairs: 24, ErrorP50: 0.08808, ErrorP90: 0.2457, Classes: []string{"consumer", "datacenter"}},
			}}}
	return cat
}

// Decode on one 4090 with a 128 GB DDR5 desktop, timed by the speed fit
// (sizing.OffloadDecodeSeconds), by hand: with -ngl 99 --n-cpu-moe N a
// token reads on the GPU every dense weight, the output head, the used
// 16/896 of the experts of layers N.. and the q8_0 cache at 8,192 tokens
// (1.0625 B a value), and on the host the used 16/896 of the experts of
// layers 0..N-1; time = GPU bytes ÷ (1,008 GB/s × 0.86) + host bytes ÷
// (89.6 GB/s × 0.42) + 93 layers × 89 µs. Without a fit the same bytes at
// the peaks, no layer cost, is the ceiling the claims treat as a bound.
func TestDecodeTimedByTheSpeedFit(t *testing.T) {
	m := gguftest.MoE{
		Layers: 93, DenseLayers: 1, Hidden: 7168, Vocab: 163840, Heads: 96,
		QLoraRank: 1536, KVLoraRnk: 512, RopeDim: 64, NopeDim: 128, VDim: 128, DenseFF: 18432,
		Experts: 896, ExpertsUsed: 16, ExpertIn: 3584, ExpertFF: 512, SharedFF: 2048, Context: 1 << 20,
		ExpertType: typ(t, "IQ1_S"), MatrixType: typ(t, "Q4_K"), EmbedType: typ(t, "Q4_K"),
		Shards: 2, Name: "UD-IQ1_S/Kimi-K3-UD-IQ1_S",
	}
	q := quantOf(t, m.Build())
	mc := machine(t, "1xRTX4090@Desktop128")
	p, err := localrun.Make(q, mc, localrun.Options{Context: 8192, Catalog: fittedCatalog()})
	if err != nil {
		t.Fatal(err)
	}
	if p.Fits != localrun.FitsOffload || p.NGPULayers != 94 || p.NCPUMoE < 1 {
		t.Fatalf("fits %s, -ngl %d, --n-cpu-moe %d (%s)", p.Fits, p.NGPULayers, p.NCPUMoE, p.Derivation)
	}
	z := q.Sizes
	var gpu, host float64
	for l := range z.LayerBytes {
		exp := float64(z.LayerExpertBytes[l]) * 16 / 896
		gpu += float64(z.LayerBytes[l] - z.LayerExpertBytes[l])
		if l < p.NCPUMoE {
			host += exp
		} else {
			gpu += exp
		}
		gpu += math.Ceil(float64(q.Cache.LayerValues[l]) * 8192 * 1.0625)
	}
	gpu += float64(z.OtherBytes - z.EmbeddingBytes)
	want := 1 / (gpu/(1.008e12*0.86) + host/(8.96e10*0.42) + 93*89e-6)
	if math.Abs(p.DecodeTPS/want-1) > 1e-9 || !p.DecodeCalibrated || p.DecodeError.Regime != "cpu-offload" || p.DecodeError.P90 != 0.1827 {
		t.Errorf("decode %v tokens/s (calibrated %v, %+v), want %v", p.DecodeTPS, p.DecodeCalibrated, p.DecodeError, want)
	}
	if !strings.Contains(p.DecodeDerivation, "Intel Core i9-10900X") || !strings.Contains(p.DecodeDerivation, "peak") {
		t.Errorf("the derivation does not say the host efficiency was fitted on another host: %s", p.DecodeDerivation)
	}
	s := facts.NewSet()
	localrun.AddPlanFacts(s, p, localrun.Sources{Tree: "hub:tree@abc", Headers: "hub:gguf@abc"})
	f := s.Get("local.UD-IQ1_S.1xRTX4090@Desktop128.decode_tokens_per_second")
	if f.Bound != "" || f.ErrorP90 != 0.1827 || !strings.HasPrefix(f.Display, "≈ ") || !strings.Contains(f.Display, "±9 %, n = 8") {
		t.Errorf("calibrated decode fact: bound %q, p90 %v, %q", f.Bound, f.ErrorP90, f.Display)
	}
	t.Logf("GPU %.4g GB, host %.4g GB per token: %.3g tokens/s (%s)", gpu/1e9, host/1e9, p.DecodeTPS, f.Display)

	// No fit: the peaks, a ceiling.
	u, err := localrun.Make(q, mc, localrun.Options{Context: 8192})
	if err != nil {
		t.Fatal(err)
	}
	ceiling := 1 / (gpu/1.008e12 + host/8.96e10)
	if math.Abs(u.DecodeTPS/ceiling-1) > 1e-9 || u.DecodeCalibrated || u.DecodeTPS <= p.DecodeTPS {
		t.Errorf("uncalibrated decode %v, want the ceiling %v above %v", u.DecodeTPS, ceiling, p.DecodeTPS)
	}
	s = facts.NewSet()
	localrun.AddPlanFacts(s, u, localrun.Sources{Tree: "hub:tree@abc", Headers: "hub:gguf@abc"})
	if f := s.Get("local.UD-IQ1_S.1xRTX4090@Desktop128.decode_tokens_per_second"); f.Bound != facts.BoundUpper || f.ErrorP90 != 0 {
		t.Errorf("uncalibrated decode fact: bound %q, p90 %v", f.Bound, f.ErrorP90)
	}
	t.Logf("ceiling %.3g tokens/s", u.DecodeTPS)
}

// A machine on which no quant runs from RAM and VRAM names the smallest
// that runs mapped from disk, the one a person would still try; one on
// which a quant runs from RAM and VRAM names none.
func TestSmallestFromDisk(t *testing.T) {
	m := gguftest.MoE{
		Layers: 93, DenseLayers: 1, Hidden: 7168, Vocab: 163840, Heads: 96,
		QLoraRank: 1536, KVLoraRnk: 512, RopeDim: 64, NopeDim: 128, VDim: 128, DenseFF: 18432,
		Experts: 896, ExpertsUsed: 16, ExpertIn: 3584, ExpertFF: 1024, SharedFF: 2048, Context: 1 << 20,
		ExpertType: typ(t, "IQ1_S"), MatrixType: typ(t, "Q4_K"), EmbedType: typ(t, "Q4_K"),
		Shards: 4, Name: "UD-IQ1_S/Kimi-K3-UD-IQ1_S",
	}
	q := quantOf(t, m.Build())
	ms := []localrun.Machine{machine(t, "1xRTX4090@Desktop64"), machine(t, "1xRTX4090@EPYC768")}
	s, _, err := localrun.Build([]localrun.Quant{q}, localrun.Sources{Tree: "hub:tree@abc", Headers: "hub:gguf@abc"}, ms, localrun.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Get("local.smallest_mmap.1xRTX4090@Desktop64"); !f.Known() || f.Value != "UD-IQ1_S" || s.Get("local.best_offload.1xRTX4090@Desktop64").Known() {
		t.Errorf("desktop: smallest from disk %+v", f)
	}
	if s.Get("local.smallest_mmap.1xRTX4090@EPYC768") != nil || s.Get("local.best_offload.1xRTX4090@EPYC768").Value != "UD-IQ1_S" {
		t.Error("EPYC: a quant runs from RAM and VRAM, yet one from disk is named")
	}
	if _, ok, err := localrun.ParseRef("local.smallest_mmap.1xRTX4090@Desktop64"); !ok || err != nil {
		t.Errorf("a claim cannot name local.smallest_mmap: %v", err)
	}
}

// On a Mac the token embedding, which llama.cpp keeps in a CPU buffer,
// sits in the same memory as the wired weights: a budget between the
// wired part alone and the two together leaves the quant mapped from disk.
func TestMacCountsTheEmbedding(t *testing.T) {
	m := gguftest.MoE{
		Layers: 93, DenseLayers: 1, Hidden: 7168, Vocab: 163840, Heads: 96,
		QLoraRank: 1536, KVLoraRnk: 512, RopeDim: 64, NopeDim: 128, VDim: 128, DenseFF: 18432,
		Experts: 896, ExpertsUsed: 16, ExpertIn: 3584, ExpertFF: 512, SharedFF: 2048, Context: 1 << 20,
		ExpertType: typ(t, "IQ1_S"), MatrixType: typ(t, "Q4_K"), EmbedType: typ(t, "Q4_K"),
		Shards: 2, Name: "UD-IQ1_S/Kimi-K3-UD-IQ1_S",
	}
	q := quantOf(t, m.Build())
	mac := machine(t, "M3Ultra512")
	p, err := localrun.Make(q, mac, localrun.Options{Context: 8192})
	if err != nil || p.Fits != localrun.FitsVRAM || p.HostBytes != q.Sizes.EmbeddingBytes || p.HostBytes == 0 || !strings.Contains(p.Derivation, "token embedding") {
		t.Fatalf("fits %s, host side %d (embedding %d): %s %v", p.Fits, p.HostBytes, q.Sizes.EmbeddingBytes, p.Derivation, err)
	}
	margin := mac.Host.MemoryBytes - localrun.DefaultHostReserveBytes - (p.GPUBytes + p.HostBytes/2)
	tight, err := localrun.Make(q, mac, localrun.Options{Context: 8192, GPUMarginBytes: margin})
	if err != nil || tight.GPUBytes > tight.GPUBudget || tight.Fits != localrun.FitsMmap {
		t.Errorf("wired part %d of %d, yet fits %s: %v", tight.GPUBytes, tight.GPUBudget, tight.Fits, err)
	}
}

// TestLoaderRefusesUnknownArchitecture: a quant whose general.architecture
// llama.cpp's loader does not know ("gptoss", the tag of some early
// gpt-oss quants) keeps its memory plan but gets no command, speed or
// recommendation, each unknown with the reason; a store keeps the
// architecture, and one written before it was kept leaves it unknown.
func TestLoaderRefusesUnknownArchitecture(t *testing.T) {
	ms := []localrun.Machine{machine(t, "1xRTX4090@Desktop64")}
	q, _ := toyQuant(t, "gptoss")
	src := localrun.Sources{Tree: "hub:tree@abc1234", Headers: "hub:gguf@abc1234"}
	s, plans, err := localrun.Build([]localrun.Quant{q}, src, ms, localrun.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Get("gguf.Q4_K_M.llamacpp_loads"); f == nil || f.Value != false || !strings.Contains(f.Derivation, `no general.architecture "gptoss"`) || !strings.Contains(f.Derivation, "unknown model architecture") {
		t.Errorf("llamacpp_loads: %+v", f)
	}
	const m = "local.Q4_K_M.1xRTX4090@Desktop64."
	if f := s.Get(m + "fits"); f == nil || f.Value != "vram" || !strings.Contains(f.Derivation, "llama.cpp would not load the file") {
		t.Errorf("fits keeps the memory verdict and says llama.cpp refuses the file: %+v", f)
	}
	if len(plans) != 1 || plans[0].Refused == "" {
		t.Errorf("plans %+v", plans)
	}
	for _, k := range []string{m + "command", m + "decode_tokens_per_second", "local.smallest_vram.1xRTX4090@Desktop64", "local.best_offload.1xRTX4090@Desktop64"} {
		if f := s.Get(k); f == nil || f.Known() || !strings.Contains(f.Reason, "gptoss") {
			t.Errorf("%s should be unknown, naming the architecture: %+v", k, f)
		}
	}

	b, err := json.Marshal(localrun.NewStore("acme/Toy-GGUF", storeSHA, []localrun.Quant{q}))
	if err != nil {
		t.Fatal(err)
	}
	st, err := localrun.DecodeStore(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Quants[0].Quant().Arch; got != "gptoss" {
		t.Errorf("the store kept architecture %q", got)
	}
	old := st.Quants[0].Quant()
	old.Arch = ""
	s, _, err = localrun.Build([]localrun.Quant{old}, src, ms, localrun.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Get("gguf.Q4_K_M.llamacpp_loads"); f == nil || f.Known() || !strings.Contains(f.Reason, "sync --all --gguf") {
		t.Errorf("a store without the architecture: %+v", f)
	}
	if f := s.Get(m + "command"); f == nil || !f.Known() {
		t.Errorf("without the architecture the plan is not refused: %+v", f)
	}
}
