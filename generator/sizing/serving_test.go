package sizing_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/facts"
	"dossier/generator/sizing"
	"dossier/generator/snapshot"
)

// The serving tests run on testdata/serving: snapshots copied from data/hub,
// a frozen copy of data/hardware.yaml and a fixture price list.
const servingDir = "testdata/serving"

// serve sizes one fixture snapshot against the fixture catalog with a
// 2 GiB reserve per GPU.
func serve(t *testing.T, snap string, hardware ...string) *facts.Set {
	t.Helper()
	_, in := servingInput(t, snap, hardware...)
	return sizing.Compute(in)
}

func servingInput(t testing.TB, snap string, hardware ...string) (*snapshot.Snapshot, sizing.Input) {
	t.Helper()
	sn, err := snapshot.Load(filepath.Join(servingDir, snap+".snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := arch.Parse(sn.Config, sn.HFQuantConfig)
	if err != nil {
		t.Fatal(err)
	}
	an, anErr := sizing.AnalyticOf(sn.Config, sn.HFQuantConfig)
	cat, err := catalog.Load(filepath.Join(servingDir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	sz := assumptions()
	sz.ReservePerGPUBytes = 2 << 30
	sz.Speed = config.Speed{MemoryEfficiency: 0.6, ComputeEfficiency: 0.5, InterconnectEfficiency: 0.8, PromptTokens: 8192}
	return sn, sizing.Input{Model: snap, Snapshot: sn, Arch: a, Analytic: an, AnalyticErr: anErr,
		Sizing: sz, Hardware: hardware, Catalog: cat}
}

func boolOf(t *testing.T, s *facts.Set, key string) bool {
	t.Helper()
	v, ok := s.Get(key).Value.(bool)
	if !ok {
		t.Fatalf("%s is not a known verdict: %+v", key, s.Get(key))
	}
	return v
}

// TestK3OnDeviceCapacity: 8 × B200 is 8 × 183,359 MiB as nvidia-smi reports
// it, 22.7 GB short of K3's tensor bytes (not the 120.9 GB a spec-sheet
// reading of 180 GB gives); 8 × MI300X at rocm-smi's 205,822,885,888 B
// holds the weights at rest.
func TestK3OnDeviceCapacity(t *testing.T) {
	s := serve(t, "kimi-k3", "8xB200", "8xMI300X")
	if got := intOf(t, s, "fit.8xB200.memory_bytes"); got != 8*183359<<20 {
		t.Errorf("8xB200 memory = %d", got)
	}
	m := intOf(t, s, "fit.8xB200.margin_bytes")
	if math.Abs(float64(m)+22.7e9) > 0.1e9 {
		t.Errorf("8xB200 margin = %d, want −22.7 GB ± 0.1 GB", m)
	}
	if d := s.Get("fit.8xB200.margin_bytes").Display; d != "22.7 GB short" {
		t.Errorf("8xB200 margin display = %q", d)
	}
	if d := s.Get("fit.8xB200.at_rest").Display; d != "does not fit at rest: 22.7 GB short of 8 × 183,359 MiB" {
		t.Errorf("8xB200 verdict reads %q", d)
	}
	if boolOf(t, s, "fit.8xB200.at_rest") {
		t.Error("K3 fits 8 × B200 at rest")
	}
	if !boolOf(t, s, "fit.8xMI300X.at_rest") {
		t.Errorf("K3 does not fit 8 × MI300X at rest: margin %v", s.Get("fit.8xMI300X.margin_bytes").Display)
	}
	// Beyond one node the smallest layout that holds it is two nodes.
	if got := s.Get("fit.smallest_at_rest.B200").Value; got != "16xB200" {
		t.Errorf("smallest B200 layout at rest = %v", got)
	}
}

// TestKVPerGPU: per-GPU cache per token as vLLM and SGLang place it.
func TestKVPerGPU(t *testing.T) {
	// MLA: DeepSeek-V3's latent (512 + 64) × 2 B × 61 layers, whole on each
	// of the 8 ranks.
	ds := serve(t, "deepseek-v3", "8xH200")
	if got := intOf(t, ds, "serving.8xH200.kv_bytes_per_gpu_per_token"); got != (512+64)*2*61 {
		t.Errorf("DeepSeek-V3 8xH200 KV per GPU per token = %d, want 70,272", got)
	}
	if got := intOf(t, ds, "serving.8xH200.kv_bytes_per_gpu_per_token_fp8"); got != 35136 {
		t.Errorf("DeepSeek-V3 8xH200 FP8 KV per GPU per token = %d, want 35,136", got)
	}
	// MTP is on disk and loaded only with speculative decoding.
	if with, without := intOf(t, ds, "serving.8xH200.weights_bytes_per_gpu_with_mtp"), intOf(t, ds, "serving.8xH200.weights_bytes_per_gpu"); with <= without {
		t.Errorf("weights with MTP %d ≤ without %d", with, without)
	}
	// GQA, 8 KV heads × 128 × 2 (K, V) × 2 B × 32 layers: TP 8 leaves one
	// head per rank; one GPU holds all eight.
	ll := serve(t, "llama-3.1-8b", "8xH100", "1xH100")
	if got := intOf(t, ll, "serving.8xH100.kv_bytes_per_gpu_per_token"); got != 16384 {
		t.Errorf("Llama 3.1 8B 8xH100 = %d, want 16,384", got)
	}
	if got := intOf(t, ll, "serving.1xH100.kv_bytes_per_gpu_per_token"); got != 131072 {
		t.Errorf("Llama 3.1 8B 1xH100 = %d, want 131,072", got)
	}
	// GQA with kv_heads < TP and a hybrid: Qwen3-Next has 2 KV heads of 256
	// on 12 full layers; at TP 8 each rank still holds one head (replicated),
	// not 2/8. Its 36 Gated DeltaNet layers split their 16 K / 32 V heads.
	qn := serve(t, "qwen3-next", "8xH100", "1xH100")
	if got := intOf(t, qn, "serving.8xH100.kv_bytes_per_gpu_per_token"); got != 12*2*1*256*2 {
		t.Errorf("Qwen3-Next 8xH100 KV = %d, want %d", got, 12*2*1*256*2)
	}
	if got := intOf(t, qn, "serving.1xH100.kv_bytes_per_gpu_per_token"); got != 12*2*2*256*2 {
		t.Errorf("Qwen3-Next 1xH100 KV = %d, want %d", got, 12*2*2*256*2)
	}
	// Per rank at TP 8: 4 V heads × 128 × 128 × 4 B recurrent state +
	// (4 − 1) × (2 × 2 × 128 + 4 × 128) × 2 B conv state, × 36 layers.
	if got, want := intOf(t, qn, "serving.8xH100.state_bytes_per_gpu_per_sequence"), int64(36*(4*128*128*4+3*(2*2*128+4*128)*2)); got != want {
		t.Errorf("Qwen3-Next 8xH100 state per GPU = %d, want %d", got, want)
	}
	if got, whole := intOf(t, qn, "serving.1xH100.state_bytes_per_gpu_per_sequence"), intOf(t, qn, "state.bytes_per_sequence"); got != whole {
		t.Errorf("one GPU holds %d of state, the model %d", got, whole)
	}
}

// TestMaxConcurrencyByHand: Llama 3.1 8B on 8 × H100, computed by hand from
// the device's 81,559 MiB, 0.90 utilization, a 2 GiB reserve and the
// weights of the tightest GPU.
func TestMaxConcurrencyByHand(t *testing.T) {
	s := serve(t, "llama-3.1-8b", "8xH100", "1xRTX4090")
	const (
		capacity = 81559 << 20              // 85,520,809,984 B
		budget   = 76968728985 - 2<<30      // ⌊capacity × 0.9⌋ − reserve
		norms    = 65 * 4096 * 2            // 1-D tensors, whole on every rank
		kvProj   = 32 * 2 * 1024 * 4096 * 2 // K and V projections: 8 heads, 8 ranks
		tensors  = 16060522496              // module-tree tensor bytes
		weights  = (tensors-norms-kvProj)/8 + norms + kvProj/8
		perSeq   = 16384 * 131072                // KV per GPU per token × context
		conc     = (budget - weights) / perSeq   // 33
		rtxFree  = 23181498777 - 2<<30 - tensors // 1 × RTX 4090 after weights and reserve
	)
	if capacity*9/10 != 76968728985 {
		t.Fatal("hand figure wrong")
	}
	if got := intOf(t, s, "serving.8xH100.weights_bytes_per_gpu"); got != weights {
		t.Errorf("weights per GPU = %d, want %d", got, weights)
	}
	if got := intOf(t, s, "serving.8xH100.max_concurrency"); got != conc || conc != 33 {
		t.Errorf("max concurrency = %d, want %d", got, conc)
	}
	if got := intOf(t, s, "serving.8xH100.max_context"); got != 131072 {
		t.Errorf("max context = %d, want the model's 131,072", got)
	}
	// One RTX 4090 holds the weights but not a 131,072-token sequence.
	if boolOf(t, s, "serving.1xRTX4090.fits") || intOf(t, s, "serving.1xRTX4090.max_concurrency") != 0 {
		t.Error("1 × RTX 4090 serves 131,072 tokens of Llama 3.1 8B")
	}
	if got := intOf(t, s, "serving.1xRTX4090.max_context"); got != rtxFree/131072 {
		t.Errorf("1xRTX4090 max context = %d, want %d", got, rtxFree/131072)
	}
	if got := intOf(t, s, "serving.1xRTX4090.max_context_fp8"); got != rtxFree/65536 {
		t.Errorf("1xRTX4090 FP8 max context = %d, want %d", got, rtxFree/65536)
	}
}

// TestCheapestServingIsOneGPU: with consumer and datacenter cards priced,
// Llama 3.1 8B's cheapest layout that serves 131,072 tokens is one GPU
// under $1.50/h (one L40S at $0.86: a 4090 or 5090 needs two).
func TestCheapestServingIsOneGPU(t *testing.T) {
	s := serve(t, "llama-3.1-8b", "1xRTX4090")
	label, _ := s.Get("fit.cheapest_serving").Value.(string)
	usd, ok := s.Get("cost.cheapest_serving.usd_per_hour").Float()
	if label != "1xL40S" || !ok || usd >= 1.50 {
		t.Errorf("cheapest serving = %q at %v", label, usd)
	}
	if got := s.Get("fit.smallest_serving.RTX4090").Value; got != "2xRTX4090" {
		t.Errorf("smallest RTX 4090 layout that serves = %v", got)
	}
	if f := s.Get("cost.1xRTX4090.usd_per_hour"); !f.Known() {
		t.Errorf("1xRTX4090 unpriced: %+v", f)
	}
	if f := s.Get("cost.1xMI300X.usd_per_hour"); f != nil {
		t.Errorf("an unpriced layout got a price: %+v", f)
	}
}

// TestNodeSearchRecordsOnlyWhatItFinds: past one node the matrix holds,
// per accelerator, the smallest layout that holds Kimi K3's weights and
// the smallest that serves it, not every count the search passed (which
// put 128 × RTX 4090 and 16 Macs on the page).
func TestNodeSearchRecordsOnlyWhatItFinds(t *testing.T) {
	s := serve(t, "kimi-k3", "8xB200")
	_, in := servingInput(t, "kimi-k3", "8xB200")
	past := map[string][]int{} // accelerator → counts past its node
	for _, k := range s.Keys() {
		var n int
		var id string
		rest, ok := strings.CutPrefix(k, "fit.")
		if !ok || !strings.HasSuffix(rest, ".at_rest") {
			continue
		}
		if _, err := fmt.Sscanf(strings.TrimSuffix(rest, ".at_rest"), "%dx%s", &n, &id); err != nil {
			continue
		}
		if acc := in.Catalog.Accelerators[id]; acc != nil && n > acc.GPUsPerNode {
			past[id] = append(past[id], n)
		}
	}
	gpus := func(key string) int {
		label, _ := s.Get(key).Value.(string)
		var n int
		fmt.Sscanf(label, "%dx", &n)
		return n
	}
	for id, ns := range past {
		for _, n := range ns {
			if n != gpus("fit.smallest_at_rest."+id) && n != gpus("fit.smallest_serving."+id) {
				t.Errorf("%dx%s recorded: neither %s's smallest layout at rest (%v) nor serving (%v)",
					n, id, id, s.Get("fit.smallest_at_rest."+id).Value, s.Get("fit.smallest_serving."+id).Value)
			}
		}
	}
	// The search still finds them: 24 H100 hold and serve K3, and a Mac
	// Studio needs four machines for the weights (75 % of 512 GB each wired) (no engine joins them).
	if got := s.Get("fit.smallest_serving.H100").Value; got != "24xH100" {
		t.Errorf("smallest H100 layout that serves = %v, want 24xH100", got)
	}
	if got := s.Get("fit.smallest_at_rest.M3Ultra512").Value; got != "4xM3Ultra512" {
		t.Errorf("smallest M3 Ultra layout at rest = %v", got)
	}
	if f := s.Get("fit.smallest_serving.M3Ultra512"); f.Known() {
		t.Errorf("several Macs serve K3: %+v", f)
	}
	if len(past["RTX4090"]) != 1 {
		t.Errorf("RTX 4090 layouts past one node: %v, want only the smallest at rest", past["RTX4090"])
	}
}
