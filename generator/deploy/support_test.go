package deploy

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"dossier/generator/catalog"
)

const v4Flash = "../modeltree/testdata/deepseek_v4/deepseek-ai__DeepSeek-V4-Flash.config.json"

var (
	a100 = accel("A100", "datacenter", 81920<<20, 8, 8, "InfiniBand/Ethernet")
)

func supportRefused(c *Candidate) bool {
	return violated(c, "engine architecture support") || violated(c, "engine support on this GPU")
}

// DeepSeek-V4's sparse MLA runs in vLLM on FlashMLA sparse, which accepts
// Hopper and Blackwell only: every vLLM layout of 8 × A100 is refused
// with that reason, 8 × H200 is not refused for engine support and
// deploys.
func TestV4RefusedOnA100AcceptedOnH200(t *testing.T) {
	cs := Plan(input(t, "deepseek-ai/DeepSeek-V4-Flash", v4Flash, 160_000_000_000, 150_000_000_000, a100, 8))
	for _, c := range cs {
		if c.Engine != VLLM {
			continue
		}
		if !violated(&c, "engine support on this GPU") || c.Deployable() {
			t.Errorf("A100 %s: %q, want refused: engine support on this GPU", c.Layout, c.Reason())
		}
		if !strings.Contains(c.Reason(), "FlashMLA Sparse is only supported on Hopper and Blackwell devices.") {
			t.Errorf("A100 %s: reason %q does not quote vLLM", c.Layout, c.Reason())
		}
	}
	if _, ok := Best(cs); ok {
		t.Errorf("8 × A100 deploys V4: %+v", cs)
	}
	cs = Plan(input(t, "deepseek-ai/DeepSeek-V4-Flash", v4Flash, 160_000_000_000, 150_000_000_000, h200, 8))
	for _, c := range cs {
		if c.Engine == VLLM && supportRefused(&c) {
			t.Errorf("H200 %s refused: %q", c.Layout, c.Reason())
		}
	}
	if best, ok := Best(cs); !ok || best.Engine != VLLM {
		t.Errorf("8 × H200: best %+v %v, want a vLLM layout", best, ok)
	}
}

// mlx-lm has no deepseek_v4 module: MLX is refused naming its commit.
func TestV4RefusedByMLX(t *testing.T) {
	cs := Plan(input(t, "deepseek-ai/DeepSeek-V4-Flash", v4Flash, 160_000_000_000, 150_000_000_000, m3ultra, 1))
	if len(cs) != 1 || !violated(&cs[0], "engine architecture support") || cs[0].Deployable() {
		t.Fatalf("M3 Ultra: %+v, want refused: engine architecture support", cs)
	}
	if want := "mlx @d78bf58 has no deepseek_v4"; !strings.Contains(cs[0].Reason(), want) {
		t.Errorf("reason %q lacks %q", cs[0].Reason(), want)
	}
}

// The shipped and deploy fixtures are refused by no engine list: the
// layouts they deployed on before still deploy.
func TestFixturesStillSupported(t *testing.T) {
	for _, m := range []struct{ id, cfg string }{
		{"Qwen/Qwen2-7B-Instruct", qwen2},
		{"baidu/ERNIE-4.5-21B-A3B-PT", ernie},
		{"MiniMaxAI/MiniMax-M2", minimax},
		{"Qwen/Qwen3-30B-A3B-FP8", qwen3fp8},
		{"meta-llama/Llama-3.1-8B", llama8b},
		{"moonshotai/Kimi-K3", k3},
		{"deepseek-ai/DeepSeek-V3", "../../testdata/configs/deepseek-ai__DeepSeek-V3.json"},
		{"mistralai/Mixtral-8x7B-v0.1", "../../testdata/configs/mistralai__Mixtral-8x7B-v0.1.json"},
		{"openai/gpt-oss-20b", "../../testdata/configs/openai__gpt-oss-20b.json"},
		{"Qwen/Qwen3-Next-80B-A3B-Thinking", "../../testdata/configs/Qwen__Qwen3-Next-80B-A3B-Thinking.json"},
		{"moonshotai/Kimi-Linear-48B-A3B-Instruct", "../../testdata/configs/moonshotai__Kimi-Linear-48B-A3B-Instruct.json"},
		{"moonshotai/Kimi-K2.5", "../../testdata/configs/moonshotai__Kimi-K2.5.json"},
	} {
		in := input(t, m.id, m.cfg, 16_000_000_000, 0, h100, 8)
		in.RemoteCode = in.Arch.RemoteCode
		for _, c := range Plan(in) {
			if supportRefused(&c) {
				t.Errorf("%s %s %s: %q", m.id, c.Engine, c.Layout, c.Reason())
			}
		}
		for _, acc := range []*catalog.Accelerator{rtx4090, m3ultra} {
			if m.id == "moonshotai/Kimi-K3" {
				// mlx-lm has no kimi_k3 module and llama.cpp's converter no
				// KimiK3ForConditionalGeneration: refused, a finding
				// (TestK3RefusedByLlamaCpp).
				continue
			}
			for _, c := range Plan(input(t, m.id, m.cfg, 16_000_000_000, 0, acc, 1)) {
				if supportRefused(&c) {
					t.Errorf("%s %s %s: %q", m.id, c.Engine, c.Layout, c.Reason())
				}
			}
		}
	}
}

// Kimi K3's class is in no vLLM registry list but ships its code: vLLM
// layouts are not refused and say how vLLM would load it.
func TestRemoteCodeNotRefusedButNoted(t *testing.T) {
	cs := Plan(input(t, "moonshotai/Kimi-K3", k3, 1_450_000_000_000, 1_400_000_000_000, b200, 8))
	for _, c := range cs {
		if c.Engine != VLLM {
			continue
		}
		if supportRefused(&c) {
			t.Errorf("%s refused: %q", c.Layout, c.Reason())
		}
		if !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "lists no KimiK3ForConditionalGeneration") }) {
			t.Errorf("%s notes %q lack the Transformers-backend note", c.Layout, c.Notes)
		}
	}
}

// Every embedded list parses, and loses its source when any header field
// is dropped: the list is refused, naming the field.
func TestEngineListsNameTheirSource(t *testing.T) {
	lists, err := supportLists()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []Engine{VLLM, MLX, SGLang, LlamaCpp} {
		if len(lists[e].Names) < 50 {
			t.Errorf("%s list has %d names", e, len(lists[e].Names))
		}
	}
	files, _ := engineLists.ReadDir("engines")
	for _, f := range files {
		b, _ := engineLists.ReadFile("engines/" + f.Name())
		for _, field := range []string{"engine", "repo", "path", "commit", "read"} {
			var kept []string
			for _, l := range strings.Split(string(b), "\n") {
				if !strings.HasPrefix(l, "# "+field+":") {
					kept = append(kept, l)
				}
			}
			if _, err := ParseSupport(f.Name(), []byte(strings.Join(kept, "\n"))); err == nil || !strings.Contains(err.Error(), `"`+field+`"`) {
				t.Errorf("%s without its %s line: err %v", f.Name(), field, err)
			}
		}
	}
	if _, err := ParseSupport("x.txt", []byte("# engine: vllm\n# repo: a/b\n# path: p\n# commit: 0002bff\n# read: 2026-12-04\nA\n")); err == nil {
		t.Error("a short commit was accepted")
	}
	// Only llama.cpp's loader lists GGUF architectures; no list is keyed
	// by a field its engine does not read.
	head := "# repo: a/b\n# path: p\n# commit: 00395eb285c7c6821ff372e3ca41dae9da33c2c7\n# read: 2026-12-05\nA\n"
	for _, bad := range []string{"# engine: vllm\n# key: general.architecture\n", "# engine: llama.cpp\n# key: model_type\n"} {
		if _, err := ParseSupport("x.txt", []byte(bad+head)); err == nil || !strings.Contains(err.Error(), "x.txt: header key") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
	if s, err := ParseSupport("x.txt", []byte("# engine: llama.cpp\n# key: general.architecture\n"+head)); err != nil || s.Key != GGUFKey {
		t.Errorf("llama.cpp by %s: %+v, %v", GGUFKey, s, err)
	}
}

func FuzzParseSupport(f *testing.F) {
	b, _ := engineLists.ReadFile("engines/mlx.txt")
	f.Add(b)
	b, _ = engineLists.ReadFile("engines/llamacpp-gguf.txt")
	f.Add(b)
	f.Add([]byte("# engine: vllm\n# commit: x\nA B\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSupport("f.txt", b)
		if err == nil && (len(s.Commit) != 40 || len(s.Names) == 0 || s.Key == "") {
			t.Fatalf("accepted %+v", s)
		}
	})
}

// GLM-5's class is not in vLLM's registry at the list's commit, and it
// ships no code of its own: vLLM's loader then falls back to its
// Transformers backend, so no vLLM layout is refused for support and each
// says how vLLM would load it (not the remote-code wording).
func TestUnlistedClassFallsBackToTransformers(t *testing.T) {
	const glm5 = "../modeltree/testdata/glm_moe_dsa/zai-org__GLM-5.config.json"
	in := input(t, "zai-org/GLM-5", glm5, 750_000_000_000, 700_000_000_000, b200, 8)
	if slices.Contains(mustLists(t)[VLLM].Names, in.Arch.Architectures[0]) {
		t.Fatalf("the fixture assumes vLLM's list lacks %s", in.Arch.Architectures[0])
	}
	n := 0
	for _, c := range Plan(in) {
		if c.Engine != VLLM {
			continue
		}
		n++
		if supportRefused(&c) {
			t.Errorf("%s refused: %q", c.Layout, c.Reason())
		}
		if !slices.ContainsFunc(c.Notes, func(s string) bool {
			return strings.Contains(s, "lists no GlmMoeDsaForCausalLM: vLLM loads it through its Transformers backend")
		}) {
			t.Errorf("%s notes %q lack the fallback note", c.Layout, c.Notes)
		}
	}
	if n == 0 {
		t.Fatal("no vLLM layout planned")
	}
}

func mustLists(t *testing.T) map[Engine]Support {
	t.Helper()
	lists, err := supportLists()
	if err != nil {
		t.Fatal(err)
	}
	return lists
}

// Each shipped list names a class once, and a name line's trailing comment,
// where it has one, names the file and the 40-hex commit the name was read
// at. The SGLang list is read file by file from stored versions, so every
// one of its names carries that comment.
func TestEngineListsUniqueAndAttributed(t *testing.T) {
	all, err := parseLists()
	if err != nil {
		t.Fatal(err)
	}
	seenList := map[[2]string]bool{}
	for _, s := range all {
		k := [2]string{string(s.Engine), s.Key}
		if seenList[k] {
			t.Errorf("two files list %s by %s", s.Engine, s.Key)
		}
		seenList[k] = true
	}
	files, _ := engineLists.ReadDir("engines")
	for _, f := range files {
		b, _ := engineLists.ReadFile("engines/" + f.Name())
		seen := map[string]bool{}
		for i, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			name, comment, commented := strings.Cut(l, "#")
			name = strings.TrimSpace(name)
			if seen[name] {
				t.Errorf("%s:%d: %s listed twice", f.Name(), i+1, name)
			}
			seen[name] = true
			if commented && !readAt.MatchString(strings.TrimSpace(comment)) {
				t.Errorf("%s:%d: comment %q is not \"<path> at <40-hex commit>\"", f.Name(), i+1, comment)
			}
			if f.Name() == "sglang.txt" && !commented {
				t.Errorf("%s:%d: %s names no file and commit", f.Name(), i+1, name)
			}
		}
	}
}

var readAt = regexp.MustCompile(`^\S+\.py at [0-9a-f]{40}$`)

// Classes both new lists must hold, each checked in the engine's source
// at the commit the list names: SGLang's deepseek_v2.py EntryClass
// [DeepseekV2ForCausalLM, DeepseekV3ForCausalLM], qwen3_moe.py and
// llama.py; llama.cpp's @ModelBase.register on DeepseekV2Model, Qwen3MoeModel
// and LlamaModel.
func TestCommonClassesInSGLangAndLlamaCpp(t *testing.T) {
	lists := mustLists(t)
	for _, e := range []Engine{SGLang, LlamaCpp} {
		for _, name := range []string{"DeepseekV3ForCausalLM", "Qwen3MoeForCausalLM", "LlamaForCausalLM", "Qwen2MoeForCausalLM", "MixtralForCausalLM", "GptOssForCausalLM"} {
			if !slices.Contains(lists[e].Names, name) {
				t.Errorf("%s list lacks %s", e, name)
			}
		}
	}
	// Left out on purpose: embedding and projector-only classes.
	for e, name := range map[Engine]string{SGLang: "EmbeddingGemmaModel", LlamaCpp: "BertModel"} {
		if slices.Contains(lists[e].Names, name) {
			t.Errorf("%s list holds the embedding class %s", e, name)
		}
	}
}

// Kimi K3's class is in no llama.cpp converter registration at the list's
// commit: the llama.cpp layout on consumer cards is refused naming that
// list and commit, so the page never prints a llama.cpp launch for it.
func TestK3RefusedByLlamaCpp(t *testing.T) {
	cs := Plan(input(t, "moonshotai/Kimi-K3", k3, 1_450_000_000_000, 1_400_000_000_000, rtx4090, 8))
	if len(cs) != 1 || cs[0].Engine != LlamaCpp {
		t.Fatalf("8 × RTX4090: %+v, want one llama.cpp layout", cs)
	}
	if !violated(&cs[0], "engine architecture support") || cs[0].Deployable() {
		t.Fatalf("reason %q, want refused: engine architecture support", cs[0].Reason())
	}
	if want := "llama.cpp @0024aa7 has no KimiK3ForConditionalGeneration (ggml-org/llama.cpp convert_hf_to_gguf.py)"; !strings.Contains(cs[0].Reason(), want) {
		t.Errorf("reason %q lacks %q", cs[0].Reason(), want)
	}
	// Refused for support only: the layer split is still llama.cpp's shape,
	// which sizing places memory by.
	if !cs[0].ShapeAccepted() {
		t.Errorf("violations %v: shape refused, want only support refused", cs[0].Violations)
	}
}

// A layout breaking a shape constraint (20 heads ÷ TP 8) is not shape
// accepted; one refused for GPU support alone (V4 on A100) is.
func TestShapeAcceptedIgnoresSupportOnly(t *testing.T) {
	for _, c := range Plan(input(t, "baidu/ERNIE-4.5-21B-A3B-PT", ernie, 43_600_000_000, 40_000_000_000, h100, 8)) {
		if c.Layout.AttentionTP() == 8 && c.ShapeAccepted() {
			t.Errorf("%s %s shape accepted with %v", c.Engine, c.Layout, c.Violations)
		}
	}
	c := find(Plan(input(t, "deepseek-ai/DeepSeek-V4-Flash", v4Flash, 160_000_000_000, 150_000_000_000, a100, 8)), VLLM, pureTP(8))
	if c == nil || !violated(c, "engine support on this GPU") || !c.ShapeAccepted() {
		t.Errorf("V4 on 8 × A100 TP 8: %+v, want refused for GPU support only", c)
	}
}

// An architecture SGLang's list lacks refuses SGLang's data-parallel
// attention layout, naming the list's commit, while vLLM (whose list only
// notes) still deploys: the chooser lands on vLLM. With the real class the
// SGLang layout is not refused for support.
func TestUnlistedClassRefusesSGLangOnly(t *testing.T) {
	const v3 = "../../testdata/configs/deepseek-ai__DeepSeek-V3.json"
	in := input(t, "deepseek-ai/DeepSeek-V3", v3, 690_000_000_000, 650_000_000_000, b200, 8)
	dpa := func(l Layout) bool { return l.DPAttention }
	if c := find(Plan(in), SGLang, dpa); c == nil || violated(c, "engine architecture support") {
		t.Fatalf("DeepseekV3ForCausalLM: SGLang layout %+v, want one not refused for support", c)
	}
	renamed := *in.Arch
	renamed.Architectures = []string{"DeepseekV9ForCausalLM"}
	in.Arch = &renamed
	cs := Plan(in)
	c := find(cs, SGLang, dpa)
	if c == nil || !violated(c, "engine architecture support") || c.Deployable() {
		t.Fatalf("DeepseekV9ForCausalLM: SGLang layout %+v, want refused: engine architecture support", c)
	}
	if want := "sglang @5d2c83e has no DeepseekV9ForCausalLM"; !strings.Contains(c.Reason(), want) {
		t.Errorf("reason %q lacks %q", c.Reason(), want)
	}
	best, ok := Best(cs)
	if !ok || best.Engine != VLLM {
		t.Errorf("best %+v %v, want a vLLM layout", best, ok)
	}
	for _, c := range cs {
		if c.Engine == VLLM && supportRefused(&c) {
			t.Errorf("vLLM %s refused: %q", c.Layout, c.Reason())
		}
	}
}

// TestGGUFArchitectures: llama.cpp's loader list holds the architectures
// of the GGUFs this site's models publish (as their headers name them)
// and lacks names its LLM_ARCH_NAMES does not have at the list's commit:
// "gptoss", the tag of some early gpt-oss quants that llama.cpp refuses
// with "unknown model architecture: 'gptoss'", and the dummy "clip".
func TestGGUFArchitectures(t *testing.T) {
	s, err := GGUFSupport()
	if err != nil {
		t.Fatal(err)
	}
	if s.Engine != LlamaCpp || s.Key != GGUFKey || s.Commit[:7] != "00395eb" {
		t.Fatalf("GGUF list: %s by %s at %s", s.Engine, s.Key, s.Commit)
	}
	for _, arch := range []string{"deepseek2", "qwen3moe", "qwen3next", "llama", "gpt-oss", "kimi-linear", "deepseek4", "nemotron_h_moe", "lfm2"} {
		if ok, why := s.Loads(arch); !ok {
			t.Errorf("%s refused: %s", arch, why)
		}
	}
	for _, arch := range []string{"gptoss", "clip", "(unknown)", "kimi_linear", ""} {
		ok, why := s.Loads(arch)
		if ok {
			t.Errorf("%q loads", arch)
			continue
		}
		if want := "llama.cpp @00395eb has no general.architecture " + strconv.Quote(arch); !strings.HasPrefix(why, want) {
			t.Errorf("%q: %q, want it to begin %q", arch, why, want)
		}
	}
	// The config.json lists are keyed apart: the converter's list is
	// still llama.cpp's list of architectures.
	if lists := mustLists(t); lists[LlamaCpp].Key != "architectures" {
		t.Errorf("llama.cpp's config.json list is keyed by %s", lists[LlamaCpp].Key)
	}
}
