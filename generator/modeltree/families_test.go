package modeltree

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPublishedTotals reproduces every published figure the registry
// cites, from the real config.json in testdata.
func TestPublishedTotals(t *testing.T) {
	n := 0
	for _, f := range Families() {
		for _, c := range f.Checks {
			n++
			t.Run(f.Name+"/"+c.Repo, func(t *testing.T) {
				data, err := os.ReadFile(filepath.Join("testdata", c.Config))
				if err != nil {
					t.Fatal(err)
				}
				inv, err := FromConfig(data, nil)
				if err != nil {
					t.Fatal(err)
				}
				if inv.Family != f.Name && !contains(f.ModelTypes, inv.Family) {
					t.Errorf("family %s, want %s", inv.Family, f.Name)
				}
				got := inv.TotalParams()
				if c.NonEmbedding {
					got -= embedAndHead(inv)
				}
				if c.ExcludesMTP {
					got -= inv.ParamsByComponent()[CompMTP]
				}
				if c.TextOnly {
					got = inv.ParamsByComponent()[CompText]
				}
				if d := got - c.Params; d > c.Tolerance || d < -c.Tolerance {
					t.Errorf("total %d, published %s (%d ± %d, %s)", got, c.Published, c.Params, c.Tolerance, c.Source)
				}
			})
		}
	}
	if n < 10 {
		t.Errorf("%d published figures checked", n)
	}
}

// TestGroupsMatchNames checks, on every testdata config, that the
// arithmetic aggregates equal sums over the names All spells out, and
// that the names are unique.
func TestGroupsMatchNames(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*/*.config.json")
	eachConfig(t, paths, func(t *testing.T, _ string, inv *Inventory) {
		var params, bytes int64
		count := 0
		seen := map[string]bool{}
		for ts := range inv.All() {
			params += ts.Params
			bytes += ts.Bytes()
			count++
			if seen[ts.Name] {
				t.Fatalf("duplicate tensor %s", ts.Name)
			}
			seen[ts.Name] = true
		}
		if params != inv.TotalParams() || bytes != inv.TensorBytes() || count != inv.Count() {
			t.Errorf("names: %d params %d bytes %d tensors; groups: %d, %d, %d", params, bytes, count, inv.TotalParams(), inv.TensorBytes(), inv.Count())
		}
	})
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// embedAndHead is the input embedding plus an untied output head.
func embedAndHead(inv *Inventory) int64 {
	var n int64
	for i := range inv.Groups {
		if g := &inv.Groups[i]; g.Component == CompText && (g.Embedding || g.Head) {
			n += g.Count * g.Params
		}
	}
	return n
}

// TestPublishedActive checks the activated-parameter figures model cards
// publish, each at its rounding, with the convention (input embedding
// counted or not) the family's Inventory.Convention states.
func TestPublishedActive(t *testing.T) {
	for _, c := range []struct {
		config    string
		withEmbed bool
		want, tol float64
		source    string
	}{
		{"qwen2_moe/Qwen__Qwen1.5-MoE-A2.7B.config.json", true, 2.7e9, 0.05e9, "https://huggingface.co/Qwen/Qwen1.5-MoE-A2.7B: 2.7B activated"},
		{"phimoe/microsoft__Phi-3.5-MoE-instruct.config.json", true, 6.6e9, 0.05e9, "https://huggingface.co/microsoft/Phi-3.5-MoE-instruct: 6.6B active parameters"},
		{"llama4/meta-llama__Llama-4-Scout-17B-16E-Instruct.config.json", true, 17e9, 0.5e9, "https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct: 17B activated"},
		{"hunyuan_v1_moe/tencent__Hunyuan-A13B-Instruct.config.json", true, 13e9, 0.5e9, "https://huggingface.co/tencent/Hunyuan-A13B-Instruct: 13B active"},
		{"minimax_m2/MiniMaxAI__MiniMax-M2.config.json", false, 10e9, 0.5e9, "https://huggingface.co/MiniMaxAI/MiniMax-M2: 10B active"},
		{"ernie4_5_moe/baidu__ERNIE-4.5-21B-A3B-PT.config.json", true, 3e9, 0.5e9, "https://huggingface.co/baidu/ERNIE-4.5-21B-A3B-PT: 3B activated"},
		{"mimo_v2_flash/XiaomiMiMo__MiMo-V2-Flash.config.json", true, 15e9, 0.5e9, "https://huggingface.co/XiaomiMiMo/MiMo-V2-Flash: 15B active"},
		{"qwen3_5/Qwen__Qwen3.5-35B-A3B.config.json", true, 3e9, 0.5e9, "Qwen3.5/3.6-35B-A3B model card: 3B activated"},
		{"jamba/ai21labs__AI21-Jamba-1.5-Mini.config.json", true, 12e9, 0.5e9, "https://arxiv.org/abs/2408.12570: Jamba-1.5-Mini, 12B active parameters"},
		{"nemotron_h/nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.config.json", true, 3.6e9, 0.05e9, "https://replicate.com/nvidia/nemotron-3-nano-30b-a3b/readme: about 3.6 billion active"},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", c.config))
		if err != nil {
			t.Fatal(err)
		}
		inv, err := FromConfig(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(inv.ActiveParams(c.withEmbed)); got < c.want-c.tol || got > c.want+c.tol {
			t.Errorf("%s: active %.0f, published %.1f B ± %.2f B (%s)", c.config, got, c.want/1e9, c.tol/1e9, c.source)
		}
	}
}

// TestQwen3VLSplit: the pages that count Qwen3-VL's stored tensors give
// the vision model (tower and mergers) and the language model apart; the
// tree's components reproduce both at the pages' rounding (0.1M, 1M).
func TestQwen3VLSplit(t *testing.T) {
	for _, c := range []struct {
		config  string
		vit, lm int64 // in units of 100k and 1M params
	}{
		{"Qwen__Qwen3-VL-8B-Instruct.config.json", 5764, 8191},
		{"Qwen__Qwen3-VL-4B-Instruct.config.json", 4153, 4022},
		{"Qwen__Qwen3-VL-2B-Instruct.config.json", 4070, 1721},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "qwen3_vl", c.config))
		if err != nil {
			t.Fatal(err)
		}
		inv, err := FromConfig(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := inv.ParamsByComponent()
		vit, lm := p[CompVision]+p[CompProjector], p[CompText]
		if (vit+50_000)/100_000 != c.vit || (lm+500_000)/1_000_000 != c.lm {
			t.Errorf("%s: vision %d, language model %d; published %.1fM and %.3fB", c.config, vit, lm, float64(c.vit)/10, float64(c.lm)/1000)
		}
	}
}

// TestSmolLM3Shards: HuggingFaceTB/SmolLM3-3B ships two BF16 shards of
// 4,966,315,264 and 1,183,919,744 bytes holding 326 tensors (listing in
// github.com/fetchwiki/HuggingFaceTB-SmolLM3-3B model_files.json at
// 2db8990c473c6b73b340dde39f1f323e8ab305e4). The tree's tensors fill them
// but for the two safetensors headers, a few tens of KiB.
func TestSmolLM3Shards(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "smollm3", "HuggingFaceTB__SmolLM3-3B.config.json"))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := FromConfig(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	const shards = 4_966_315_264 + 1_183_919_744
	if headers := shards - inv.TensorBytes(); headers <= 0 || headers > 64<<10 || inv.Count() != 326 {
		t.Errorf("tensor bytes %d (%d tensors) leave %d bytes of headers in %d", inv.TensorBytes(), inv.Count(), headers, int64(shards))
	}
}
