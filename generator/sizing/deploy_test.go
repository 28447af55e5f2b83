package sizing_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/deploy"
	"dossier/generator/facts"
	"dossier/generator/sizing"
	"dossier/generator/snapshot"
)

// fixtureModels are the models of the fixture site (testdata/site).
var fixtureModels = []string{
	"Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-Next-80B-A3B-Thinking", "deepseek-ai/DeepSeek-V3",
	"meta-llama/Llama-3.1-8B", "mistralai/Mixtral-8x7B-v0.1", "moonshotai/Kimi-K2.5",
	"moonshotai/Kimi-K3", "moonshotai/Kimi-Linear-48B-A3B-Instruct", "openai/gpt-oss-20b",
}

// withSpeed are the sizing assumptions with the site's speed settings and
// reserve, so the frontier (fastest, cheapest) can be named.
func withSpeed() config.Sizing {
	sz := assumptions()
	sz.ReservePerGPUBytes = 2 << 30
	sz.Speed = config.Speed{MemoryEfficiency: 0.6, ComputeEfficiency: 0.5, InterconnectEfficiency: 0.8, PromptTokens: 8192}
	return sz
}

func fixtureModel(t *testing.T, cat *catalog.Catalog, model string) *facts.Set {
	t.Helper()
	snap, err := snapshot.Load(snapshot.Path(fixtureData, model))
	if err != nil {
		t.Fatal(err)
	}
	a, err := arch.Parse(snap.Config, snap.HFQuantConfig)
	if err != nil {
		t.Fatal(err)
	}
	an, anErr := sizing.AnalyticOf(snap.Config, snap.HFQuantConfig)
	return sizing.Compute(sizing.Input{Model: model, Snapshot: snap, Arch: a, Analytic: an, AnalyticErr: anErr,
		Sizing: withSpeed(), Catalog: cat, Hardware: []string{"8xH100", "1xRTX4090"}})
}

// layoutOf reads the accelerator and count of a deploy.*.layout answer.
func layoutOf(t *testing.T, s *facts.Set, key string) (int64, string) {
	t.Helper()
	f := s.Get(key)
	if !f.Known() {
		return 0, ""
	}
	label, _ := f.Value.(string)
	n, id, ok := strings.Cut(label, "x")
	if !ok {
		t.Fatalf("%s = %q is not a layout id", key, label)
	}
	count, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		t.Fatalf("%s = %q is not a layout id", key, label)
	}
	return count, id
}

// The answers of every fixture model name no consumer layout over 8 cards
// and no more than one Apple or CPU host; K3's cheapest, fastest and
// smallest are datacenter layouts with TP ≤ 8 per node; Llama 3.1 8B's
// local answer is one RTX 4090 (or smaller) with its longest context.
func TestDeploymentAnswers(t *testing.T) {
	cat, err := catalog.Load(fixtureData)
	if err != nil {
		t.Fatal(err)
	}
	answers := []string{"cheapest", "fastest", "smallest", "single_host", "local"}
	allowed := engineFlags(t)
	for _, model := range fixtureModels {
		s := fixtureModel(t, cat, model)
		// Every command the build writes uses only its engine's listed flags.
		for k := range s.Prefixed("deploy.") {
			if !strings.HasSuffix(k, ".command") {
				continue
			}
			cmd := s.Get(k).Display
			engine := s.Get(strings.TrimSuffix(k, ".command") + ".engine").Display
			for _, f := range deploy.Flags(cmd) {
				if !slices.Contains(allowed[engine], f) {
					t.Errorf("%s %s: flag %s is not in generator/deploy/testdata/flags/%s.txt", model, k, f, engine)
				}
			}
		}
		for _, a := range answers {
			n, id := layoutOf(t, s, "deploy."+a+".layout")
			if id == "" {
				continue
			}
			acc := cat.Accelerators[id]
			switch {
			case acc == nil:
				t.Errorf("%s deploy.%s = %dx%s: not in the catalog", model, a, n, id)
			case acc.Class == "consumer" && n > 8, (acc.Class == "unified" || acc.Class == "cpu") && n > 1:
				t.Errorf("%s deploy.%s = %d × %s (%s)", model, a, n, id, acc.Class)
			}
			if ok, _ := s.Get("deploy." + label(n, id) + ".deployable").Bool(); !ok {
				t.Errorf("%s deploy.%s names %s, which is not deployable", model, a, label(n, id))
			}
		}
		if model == "moonshotai/Kimi-K3" {
			for _, a := range []string{"cheapest", "fastest", "smallest"} {
				n, id := layoutOf(t, s, "deploy."+a+".layout")
				if id == "" || cat.Accelerators[id].Class != "datacenter" {
					t.Errorf("K3 deploy.%s = %d × %q, want a datacenter layout", a, n, id)
					continue
				}
				if tp := intOf(t, s, "deploy."+label(n, id)+".tp"); tp > 8 {
					t.Errorf("K3 deploy.%s: TP %d", a, tp)
				}
			}
			if usd, ok := s.Get("deploy.cheapest.usd_per_m_output_tokens").Float(); !ok || usd <= 0 {
				t.Errorf("K3 cheapest $/M = %+v", s.Get("deploy.cheapest.usd_per_m_output_tokens"))
			}
		}
		if model == "meta-llama/Llama-3.1-8B" {
			n, id := layoutOf(t, s, "deploy.local.layout")
			if n != 1 || cat.Accelerators[id].Capacity() > cat.Accelerators["RTX4090"].Capacity() {
				t.Errorf("Llama 3.1 8B local = %d × %s, want one RTX 4090 or smaller", n, id)
			}
			// 24,564 MiB × 0.9 − 2 GiB − 16.06 GB of BF16 weights leaves
			// about 4.9 GB: at 128 KiB a token about 37,000 tokens, short
			// of the model's 131,072.
			mc := intOf(t, s, "deploy."+label(n, id)+".max_context")
			if mc < 30000 || mc > 45000 {
				t.Errorf("Llama 3.1 8B on %s: max context %d", id, mc)
			}
			if cmd := s.Get("deploy." + label(n, id) + ".command").Display; !strings.Contains(cmd, fmt.Sprintf("-c %d", mc)) {
				t.Errorf("command %q does not pass the max context %d", cmd, mc)
			}
		}
	}
}

// TestNotDeployableSaysWhatStopsIt: an accelerator with no deployable
// layout gives the reason of the smallest count that holds the weights,
// not "no layout is deployable"; one too small at every count says so
// with the tensor bytes; and the local answer for K3 names the engine
// support that stops the machines holding it (the CPU host holds its
// 1,560.9 GB with memory to spare, but llama.cpp's converter has no
// KimiK3ForConditionalGeneration), grouped by reason.
func TestNotDeployableSaysWhatStopsIt(t *testing.T) {
	cat, err := catalog.Load(fixtureData)
	if err != nil {
		t.Fatal(err)
	}
	s := fixtureModel(t, cat, "moonshotai/Kimi-K3")
	cpu := s.Get("deploy.smallest_of.CPUHost")
	if cpu.Known() || !strings.Contains(cpu.Reason, "the smallest that holds the weights, 1 × CPUHost, is not: llama.cpp") ||
		!strings.Contains(cpu.Reason, "has no KimiK3ForConditionalGeneration") {
		t.Errorf("deploy.smallest_of.CPUHost: %q", cpu.Reason)
	}
	// Every such count holds the tensor bytes.
	tb := intOf(t, s, "bytes.tensors")
	held := regexp.MustCompile(`the smallest that holds the weights, (\d+) × (\S+), is not`)
	for k, id := range s.Prefixed("deploy.smallest_of.") {
		f := s.Get(k)
		if f.Known() {
			continue
		}
		m := held.FindStringSubmatch(f.Reason)
		if m == nil {
			t.Errorf("%s: %q names no layout that holds the weights", k, f.Reason)
			continue
		}
		if n, _ := strconv.ParseInt(m[1], 10, 64); m[2] != id || n*cat.Accelerators[id].Capacity() < tb {
			t.Errorf("%s: %d × %s does not hold %d tensor bytes", k, n, m[2], tb)
		}
	}
	// The fit answer, too, names the engine rather than the context when
	// memory would serve: 80 RTX 4090 hold K3 and its cache.
	if r := s.Get("fit.smallest_serving.RTX4090").Reason; !strings.Contains(r, "holds the weights and the cache at the stated context, but no engine launches it: llama.cpp") ||
		!strings.Contains(r, "has no KimiK3ForConditionalGeneration") {
		t.Errorf("fit.smallest_serving.RTX4090: %q", r)
	}
	// A layout that breaks many limits gives the first and counts the
	// rest: 40 L40S for K3 break eleven, TP across hosts first.
	if r := s.Get("deploy.smallest_of.L40S").Reason; !regexp.MustCompile(`40 × L40S, is not: vllm TP 40 on 5 hosts: TP within one scale-up domain: [^;]*; across it use PP, DP or EP; and \d+ other limit\(s\)$`).MatchString(r) {
		t.Errorf("deploy.smallest_of.L40S: %q", r)
	}
	// A card 16 domains of which cannot hold the weights says so.
	small, err := catalog.Load(fixtureData)
	if err != nil {
		t.Fatal(err)
	}
	small.Accelerators["RTX4090"].MemoryBytes = 1 << 30
	if r := fixtureModel(t, small, "moonshotai/Kimi-K3").Get("deploy.smallest_of.RTX4090").Reason; r != "no layout of up to 16 RTX4090 domains holds the weights (1,560.9 GB)" {
		t.Errorf("a 1 GiB card: %q", r)
	}
	local := s.Get("deploy.local.layout")
	if local.Known() {
		t.Fatalf("K3 deploy.local.layout = %v", local.Value)
	}
	// One clause per reason, each with the layouts it stops; the CPU host
	// under llama.cpp's.
	clause := regexp.MustCompile(`has no KimiK3ForConditionalGeneration \(ggml-org/llama.cpp convert_hf_to_gguf.py\) \(([^)]*)\)`).FindStringSubmatch(local.Reason)
	if clause == nil || !strings.Contains(clause[1], "1 × CPUHost") || strings.Count(local.Reason, "KimiK3ForConditionalGeneration") != 1 {
		t.Errorf("K3 deploy.local.layout: %q", local.Reason)
	}
}

// label is the fact-key label of n × id, "8xH100".
func label(n int64, id string) string { return fmt.Sprintf("%dx%s", n, id) }

// Qwen2-7B-like placement on the configured 8 × H100: the serving
// placement follows the deployment, never TP 8 for 28 heads.
func TestServingPlacementFollowsDeployment(t *testing.T) {
	cat, err := catalog.Load(fixtureData)
	if err != nil {
		t.Fatal(err)
	}
	cfg := []byte(`{"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944,
		"num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4, "vocab_size": 152064,
		"tie_word_embeddings": false, "torch_dtype": "bfloat16", "max_position_embeddings": 32768}`)
	s := computeIn(t, cfg, nil, true, sizing.Input{Catalog: cat, Hardware: []string{"8xH100"}})
	if got := s.Get("serving.8xH100.placement").Display; got == "TP 8" || !strings.HasPrefix(got, "TP ") {
		t.Errorf("serving.8xH100.placement = %q", got)
	}
	if tp := intOf(t, s, "deploy.8xH100.tp"); tp == 8 || 28%tp != 0 {
		t.Errorf("deploy.8xH100.tp = %d", tp)
	}
}

// engineFlags reads the flag lists of generator/deploy/testdata/flags.
func engineFlags(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, e := range []string{"vllm", "sglang", "llama.cpp", "mlx"} {
		b, err := os.ReadFile(filepath.Join("..", "deploy", "testdata", "flags", e+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				out[e] = append(out[e], l)
			}
		}
	}
	return out
}
