package sizing_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"dossier/generator/catalog"
	"dossier/generator/sizing"
)

func floatOf(t *testing.T, s interface {
	Float() (float64, bool)
}, key string) float64 {
	t.Helper()
	v, ok := s.Float()
	if !ok {
		t.Fatalf("%s is not a known number", key)
	}
	return v
}

// TestDecodeRooflineByHand: Llama 3.1 8B on one H100 at batch 1 reads its
// 16.06 GB of weights less the 1.05 GB input embedding (128,256 × 4,096
// BF16 rows, a lookup) and 8,192 tokens × 131,072 B of cache per step at
// 3.35 TB/s × 0.6: memory-bound, near 3.35 TB/s ÷ 15.0 GB ≈ 223 tokens/s
// times the efficiency. The fixture has no fitted speed model: no fixed
// costs.
func TestDecodeRooflineByHand(t *testing.T) {
	s := serve(t, "llama-3.1-8b", "1xH100", "8xH100")
	const embedding = 128256 * 4096 * 2
	const bytes = 16060522496 - embedding + 8192*131072
	got := floatOf(t, s.Get("speed.1xH100.decode_tokens_per_second"), "decode")
	if want := 3.35e12 * 0.6 / bytes; math.Abs(got-want) > 1e-6*want {
		t.Errorf("1xH100 batch 1 = %v tokens/s, want %v", got, want)
	}
	if near := 3.35e12 / 15.0e9 * 0.6; math.Abs(got-near)/near > 0.1 {
		t.Errorf("1xH100 batch 1 = %v tokens/s, not near %v", got, near)
	}
	// TP 8: per layer two ring all-reduces of one token's 4,096 BF16 values,
	// 2 × 7/8 of them crossing each GPU's 900 GB/s NVLink at 0.8.
	comm := floatOf(t, s.Get("speed.8xH100.comm_seconds_per_step"), "comm")
	if want := 32 * 2 * (4096 * 2) * 2 * 7.0 / 8 / (900e9 * 0.8); math.Abs(comm-want) > 1e-9*want {
		t.Errorf("8xH100 communication = %v s, want %v", comm, want)
	}
	// $/M output tokens at the 3 sequences one H100 holds at 131,072
	// tokens: $2.39/h over 3 tokens per step of 15.0 GB + 3 × 1.07 GB.
	const step = (16060522496 - embedding + 3*8192*131072) / (3.35e12 * 0.6)
	usd := floatOf(t, s.Get("cost.1xH100.usd_per_million_output_tokens"), "cost")
	if want := 2.39 / (3 / step * 3600) * 1e6; math.Abs(usd-want) > 1e-6*want {
		t.Errorf("1xH100 $/M output tokens = %v, want %v", usd, want)
	}
}

// TestDistinctExperts: K3 routes each token to 16 of 896 experts; one
// token hits 16, a batch of 256 about 887 under uniform routing.
func TestDistinctExperts(t *testing.T) {
	if got := sizing.DistinctExperts(896, 16, 1); math.Abs(got-16) > 1e-9 {
		t.Errorf("B=1: %v", got)
	}
	if got := sizing.DistinctExperts(896, 16, 256); math.Abs(got-887.1) > 0.5 {
		t.Errorf("B=256: %v, want about 887.1", got)
	}
	if got := sizing.DistinctExperts(896, 16, 1e6); math.Abs(got-896) > 1e-6 {
		t.Errorf("B=10^6: %v, want all 896", got)
	}
}

// TestNoSpeedWhereTheWeightsDoNotFit: K3 on one H100 has no decode figure.
func TestNoSpeedWhereTheWeightsDoNotFit(t *testing.T) {
	s := serve(t, "kimi-k3", "1xH100", "16xB200")
	if f := s.Get("speed.1xH100.decode_tokens_per_second"); f == nil || f.Known() {
		t.Errorf("K3 on 1xH100 predicted: %+v", f)
	}
	if v := floatOf(t, s.Get("speed.16xB200.decode_tokens_per_second"), "decode"); v <= 0 {
		t.Errorf("K3 on 16xB200: %v", v)
	}
}

// TestCalibration: a self-hosted measurement with a layout gets the
// prediction for that layout and the ratio; a hosted API and a measurement
// without a layout are not comparable, with the reason.
func TestCalibration(t *testing.T) {
	_, in := servingInput(t, "llama-3.1-8b", "8xH100")
	in.Measured = []sizing.Measured{
		{ID: "h100-one", Unit: "tokens/s", Kind: "self-hosted", Layout: "1xH100", Batch: "batch 1", Value: 100},
		{ID: "api", Unit: "tokens/s", Kind: "hosted-api", Value: 80},
		{ID: "rack", Unit: "tokens/s", Kind: "self-hosted", Value: 80},
		{ID: "slow", Unit: "s/token", Kind: "community", Layout: "1xH100", Batch: "one sequence", Value: 0.02},
		// InferenceBench's wording for the Llama 3.1 8B pair: one request
		// in flight is batch one, not the layout's max concurrency.
		{ID: "conc1", Unit: "tokens/s", Kind: "community", Layout: "1xH100", Batch: "concurrency 1", Value: 154},
		{ID: "conc64", Unit: "tokens/s", Kind: "community", Layout: "1xH100", Batch: "concurrency 64", Value: 2000},
	}
	s := sizing.Compute(in)
	pred := floatOf(t, s.Get("speed.1xH100.decode_tokens_per_second"), "prediction for a layout only a measurement names")
	if r := floatOf(t, s.Get("calibration.h100-one.ratio"), "ratio"); math.Abs(r-pred/100) > 1e-12 {
		t.Errorf("ratio %v, want %v", r, pred/100)
	}
	if r := floatOf(t, s.Get("calibration.slow.ratio"), "ratio"); math.Abs(r-pred/50) > 1e-12 {
		t.Errorf("s/token ratio %v, want %v", r, pred/50)
	}
	if r := floatOf(t, s.Get("calibration.conc1.ratio"), "ratio"); math.Abs(r-pred/154) > 1e-12 {
		t.Errorf("concurrency 1 compared with %v tokens/s, want the batch-one %v", r*154, pred)
	}
	if p := floatOf(t, s.Get("calibration.conc64.predicted"), "prediction"); p == pred {
		t.Errorf("concurrency 64 compared with the batch-one prediction %v", p)
	}
	for _, id := range []string{"api", "rack"} {
		if f := s.Get("calibration." + id + ".ratio"); f == nil || f.Known() || f.Reason == "" {
			t.Errorf("%s: %+v, want not comparable with a reason", id, f)
		}
	}
}

// TestStreamedCalibrationByHand: a run that streams K3 from disk
// (AirLLM's 292 s per token) compares with stream.bytes_read_per_token ÷
// the stated disk rate, here 1 GB/s; a vendor's price per million output
// tokens becomes cost.api.usd_per_million_output_tokens.
func TestStreamedCalibrationByHand(t *testing.T) {
	_, in := servingInput(t, "kimi-k3", "8xB200")
	in.Sizing.Speed.DiskBytesPerSecond = 1e9
	in.Measured = []sizing.Measured{
		{ID: "airllm", Unit: "s/token", Kind: "community", Layout: "1xRTX6000Ada", Batch: "one sequence", Setting: "layer and expert streaming from disk", Value: 292},
		{ID: "price", Unit: "USD per million output tokens", Kind: "vendor", Value: 15},
	}
	s := sizing.Compute(in)
	read := floatOf(t, s.Get("stream.bytes_read_per_token"), "bytes read per token")
	if got := floatOf(t, s.Get("stream.seconds_per_token"), "seconds per token"); math.Abs(got-read/1e9) > 1e-9 {
		t.Errorf("stream.seconds_per_token = %v, want %v", got, read/1e9)
	}
	want := (1e9 / read) / (1.0 / 292) // predicted tokens/s ÷ measured tokens/s
	if got := floatOf(t, s.Get("calibration.airllm.ratio"), "streamed ratio"); math.Abs(got-want) > 1e-9*want {
		t.Errorf("streamed ratio %v, want %v", got, want)
	}
	// 292 s per token means the run read the token's bytes at read/292 B/s.
	if got := floatOf(t, s.Get("calibration.airllm.implied_disk_bytes_per_second"), "implied disk rate"); math.Abs(got-read/292) > 1e-9*got {
		t.Errorf("implied disk rate %v B/s, want %v", got, read/292)
	}
	if got := floatOf(t, s.Get("cost.api.usd_per_million_output_tokens"), "API price"); got != 15 {
		t.Errorf("API price %v, want 15", got)
	}
}

// TestExpertOffloadByHand: K3 on 8 × B200 does not hold its weights per
// GPU; with the routed experts in the CPU host's RAM (921.6 GB/s) a token
// reads the GPU's remaining bytes at 8 TB/s and 16/896 of the experts from
// the host, both at 0.6 of peak.
func TestExpertOffloadByHand(t *testing.T) {
	_, in := servingInput(t, "kimi-k3", "8xB200")
	s := sizing.Compute(in)
	if f := s.Get("speed.8xB200.decode_tokens_per_second"); f == nil || f.Known() {
		t.Fatalf("8xB200 in-memory decode predicted: %+v", f)
	}
	experts := float64(in.Analytic.ExpertBytes)
	gpu := floatOf(t, s.Get("offload.8xB200.experts_in_host_ram.gpu_bytes_per_gpu"), "gpu bytes")
	want := 1 / (gpu/(8e12*0.6) + experts*16/896/(921.6e9*0.6))
	if got := floatOf(t, s.Get("offload.8xB200.experts_in_host_ram.decode_tokens_per_second"), "offload"); math.Abs(got-want) > 1e-9*want {
		t.Errorf("offload decode = %v tokens/s, want %v", got, want)
	}
	if h := floatOf(t, s.Get("offload.8xB200.experts_in_host_ram.host_bytes"), "host bytes"); h != experts {
		t.Errorf("host bytes %v, want %v", h, experts)
	}
	// No CPU-offload pair in the fixture: the figure says it is uncalibrated
	// (the CPU-offload regime's, not the B200's tensor-parallel one).
	if d := s.Get("offload.8xB200.experts_in_host_ram.decode_tokens_per_second").Display; !strings.Contains(d, "uncalibrated: n = 0 < 5") {
		t.Errorf("offload display %q lacks its error bar", d)
	}
	if f := s.Get("speed.error_p50.cpu-offload"); f == nil || f.Known() || !strings.Contains(f.Reason, "cpu-offload") {
		t.Errorf("offload error_p50 = %+v, want unknown naming the cpu-offload regime", f)
	}
}

// withFit gives the fixture catalog a fitted speed model: 0.7 of the
// bandwidth, 40 µs per layer, 8 µs per collective, and a regime error for
// one-GPU decode quoted on 12 pairs (tensor parallel on 3: too few).
func withFit(in *sizing.Input) {
	in.Catalog.Speed = &catalog.SpeedModel{Fit: &catalog.SpeedFit{Pairs: 15,
		MemoryEfficiency: 0.7, LayerSeconds: 40e-6, CollectiveSeconds: 8e-6,
		Regimes: []catalog.RegimeErrors{
			{Regime: "single-gpu", Pairs: 12, ErrorP50: 0.2, ErrorP90: 0.45},
			{Regime: "tensor-parallel", Pairs: 3, ErrorP50: 0.1, ErrorP90: 0.2},
		}}}
}

// TestFixedCostByHand: a Llama-class 8B (32 layers) decodes at batch 1 in
// weights ÷ (bandwidth × 0.7) + 32 × 40 µs, and under tensor parallelism
// adds 2 all-reduces per layer at 8 µs each plus their bytes over NVLink.
// The fixed part does not shrink with TP, so TP 8 is far from 8 × TP 1.
func TestFixedCostByHand(t *testing.T) {
	_, in := servingInput(t, "llama-3.1-8b", "1xH100", "2xH100", "4xH100", "8xH100")
	withFit(&in)
	s := sizing.Compute(in)
	const layers = 32
	var tps [4]float64
	for i, n := range []int{1, 2, 4, 8} {
		cfg := fmt.Sprint(n, "xH100")
		fixed := floatOf(t, s.Get("speed."+cfg+".fixed_seconds_per_step"), "fixed")
		want := layers * 40e-6
		if n > 1 {
			want += 2 * layers * 8e-6
		}
		if math.Abs(fixed-want) > 1e-12 {
			t.Errorf("%s fixed cost %v s, want %v", cfg, fixed, want)
		}
		tps[i] = floatOf(t, s.Get("speed."+cfg+".decode_tokens_per_second"), "decode")
	}
	// TP 1 by hand: 15.01 GB of weights (no input embedding) and the
	// 8,192-token cache at 3.35 TB/s × 0.7, plus 1.28 ms.
	const bytes = 16060522496 - 128256*4096*2 + 8192*131072
	if want := 1 / (bytes/(3.35e12*0.7) + layers*40e-6); math.Abs(tps[0]-want) > 1e-9*want {
		t.Errorf("1xH100 = %v tokens/s, want %v", tps[0], want)
	}
	if r := tps[3] / tps[0]; r > 5 || r < 2 {
		t.Errorf("TP 8 is %.2f × TP 1: the fixed cost should keep it well under 8×", r)
	}
	// The step model is stated once, and each layout cites it with the
	// efficiencies of its class.
	for _, n := range []int{1, 8} {
		d := s.Get(fmt.Sprint("speed.", n, "xH100.decode_tokens_per_second")).Derivation
		if !strings.Contains(d, "(speed.method, speed.method.datacenter)") || strings.Contains(d, "per operator group") {
			t.Errorf("%dxH100 derivation %q: want the layout's figures citing speed.method", n, d)
		}
	}
	if m := s.Get("speed.method"); !m.Known() || !strings.Contains(m.Value.(string), "per operator group") {
		t.Errorf("speed.method = %+v", m)
	}
	if m := s.Get("speed.method.datacenter"); !m.Known() || !strings.HasPrefix(m.Value.(string), "memory efficiency 0.70, ") || !strings.Contains(m.Value.(string), "40 µs per layer, 8 µs per collective") {
		t.Errorf("speed.method.datacenter = %+v", m)
	}
	// The error bar: one GPU is calibrated (12 pairs), TP is not (3).
	if d := s.Get("speed.1xH100.decode_tokens_per_second").Display; !strings.Contains(d, "typically within ±20 %, n = 12") || !strings.HasPrefix(d, "≈ ") {
		t.Errorf("1xH100 display %q lacks its error bar", d)
	}
	if p := floatOf(t, s.Get("speed.error_p90.single-gpu"), "p90"); p != 0.45 {
		t.Errorf("p90 = %v", p)
	}
	if d := s.Get("speed.8xH100.decode_tokens_per_second").Display; !strings.Contains(d, "uncalibrated") {
		t.Errorf("8xH100 display %q: 3 pairs should read uncalibrated", d)
	}
	if f := s.Get("speed.error_p50.tensor-parallel"); f == nil || f.Known() {
		t.Errorf("uncalibrated regime has a known error: %+v", f)
	}
}

// TestBorrowedErrorBarByHand: every tensor-parallel pair ran on NVLink
// datacenter parts, so two RTX 4090s quote that error and say whose it is;
// two H100s quote it plainly.
func TestBorrowedErrorBarByHand(t *testing.T) {
	_, in := servingInput(t, "llama-3.1-8b", "2xRTX4090", "2xH100")
	withFit(&in)
	in.Catalog.Speed.Fit.Regimes[1] = catalog.RegimeErrors{Regime: "tensor-parallel", Pairs: 14, ErrorP50: 0.21, ErrorP90: 0.43, Classes: []string{"datacenter"}}
	s := sizing.Compute(in)
	const note = "measured on datacenter parts only, none consumer"
	gf := s.Get("speed.2xRTX4090.decode_tokens_per_second").Display
	if !strings.Contains(gf, "typically within ±21 %, n = 14; "+note) {
		t.Errorf("2xRTX4090 display %q does not say its error bar is borrowed", gf)
	}
	if d := s.Get("speed.2xRTX4090.decode_tokens_per_second").Derivation; !strings.HasSuffix(d, "its error: speed.error_p50.tensor-parallel, speed.error_p90.tensor-parallel") {
		t.Errorf("2xRTX4090 derivation %q does not name its regime's error facts", d)
	}
	if h := s.Get("speed.2xH100.decode_tokens_per_second").Display; !strings.Contains(h, "n = 14") || strings.Contains(h, "measured on") {
		t.Errorf("2xH100 display %q: its own class's error, nothing borrowed", h)
	}
}

// TestGeForcePrefillByHand: on an RTX 4090 llama.cpp's F16 GEMMs run at
// the FP16-accumulate peak (330.3 TFLOPS), twice the 165.2 the BF16 entry
// lists; an H100 has no such entry and keeps its BF16 peak.
func TestGeForcePrefillByHand(t *testing.T) {
	_, in := servingInput(t, "llama-3.1-8b", "1xRTX4090", "1xH100")
	s := sizing.Compute(in)
	gf := floatOf(t, s.Get("speed.1xRTX4090.prefill_seconds"), "4090 prefill")
	h := floatOf(t, s.Get("speed.1xH100.prefill_seconds"), "H100 prefill")
	// Same FLOPs on both: the ratio of times is the ratio of peaks.
	if r := gf / h; math.Abs(r-9.89e14/3.303e14) > 1e-9 {
		t.Errorf("4090 ÷ H100 prefill time = %v, want %v (FP16-accumulate 330.3 vs BF16 989 TFLOPS)", r, 9.89e14/3.303e14)
	}
	if d := s.Get("speed.1xRTX4090.prefill_seconds").Derivation; !strings.Contains(d, "FP16 accumulate") {
		t.Errorf("4090 prefill derivation does not name the FP16-accumulate peak: %s", d)
	}
}

// TestCalibratedExpertOffloadByHand: with a fitted host efficiency the
// experts-in-host-RAM figure reads the GPU's bytes at the datacenter
// class's efficiency, adds the layers' fixed cost and reads the active
// experts at the host's bandwidth × the host efficiency; its error bar is
// the cpu-offload regime's, measured on consumer GPUs only.
func TestCalibratedExpertOffloadByHand(t *testing.T) {
	_, in := servingInput(t, "kimi-k3", "8xB200")
	in.Catalog.Speed = &catalog.SpeedModel{Fit: &catalog.SpeedFit{Pairs: 20,
		MemoryEfficiency: 0.7, LayerSeconds: 40e-6, CollectiveSeconds: 8e-6, HostEfficiency: 0.4, OffloadPairs: 8,
		Classes: []catalog.ClassFit{{Class: "datacenter", MemoryEfficiency: 0.75, Pairs: 6}},
		Regimes: []catalog.RegimeErrors{{Regime: "cpu-offload", Pairs: 8, ErrorP50: 0.09, ErrorP90: 0.2, Classes: []string{"consumer"}}}}}
	s := sizing.Compute(in)
	experts := float64(in.Analytic.ExpertBytes)
	gpu := floatOf(t, s.Get("offload.8xB200.experts_in_host_ram.gpu_bytes_per_gpu"), "gpu bytes")
	want := 1 / (gpu/(8e12*0.75) + float64(in.Arch.Layers)*40e-6 + experts*16/896/(921.6e9*0.4))
	f := s.Get("offload.8xB200.experts_in_host_ram.decode_tokens_per_second")
	if got := floatOf(t, f, "offload"); math.Abs(got-want) > 1e-9*want {
		t.Errorf("offload decode = %v tokens/s, want %v", got, want)
	}
	if !strings.Contains(f.Display, "typically within ±9 %, n = 8; measured on consumer parts only, none datacenter") {
		t.Errorf("offload display %q lacks the cpu-offload regime's borrowed error bar", f.Display)
	}
	if p := floatOf(t, s.Get("speed.error_p90.cpu-offload"), "p90"); p != 0.2 {
		t.Errorf("offload error p90 = %v, want 0.2", p)
	}
	// The exported step gives the same time for the same split.
	r := sizing.OffloadRatesFor(in.Catalog, "datacenter", 0.6)
	r.GPUBandwidth, r.HostBandwidth = 8e12, 921.6e9
	if got := 1 / sizing.OffloadDecodeSeconds(gpu, experts*16/896, float64(in.Arch.Layers), r); math.Abs(got-want) > 1e-9*want || !r.Calibrated {
		t.Errorf("OffloadDecodeSeconds gives %v tokens/s (calibrated %v), want %v", got, r.Calibrated, want)
	}
	if r := sizing.OffloadRatesFor(nil, "consumer", 0.6); r.Calibrated || r.GPUEfficiency != 0.6 || r.HostEfficiency != 0.6 || r.LayerSeconds != 0 {
		t.Errorf("uncalibrated rates %+v, want the site's 0.6 on both sides and no fixed cost", r)
	}
}

// TestTokenBatchCostByHand: a fitted token-batch efficiency adds the
// FLOPs of the B − 1 tokens beyond the first (2 × the active parameters
// without the input embedding, a lookup) at the H100's BF16 peak × 0.25
// to the max-concurrency step, and nothing at batch 1; past the largest
// batch it was fitted on, the figure says it is extrapolated.
func TestTokenBatchCostByHand(t *testing.T) {
	_, in := servingInput(t, "llama-3.1-8b", "1xH100")
	withFit(&in)
	base := sizing.Compute(in)
	in.Catalog.Speed.Fit.TokenBatchEfficiency, in.Catalog.Speed.Fit.ManySequenceMaxBatch = 0.25, 2
	s := sizing.Compute(in)
	b := floatOf(t, s.Get("serving.1xH100.max_concurrency"), "max concurrency")
	if b < 3 {
		t.Fatalf("max concurrency %v: the fixture should hold more than 2 sequences", b)
	}
	const key = "speed.1xH100.decode_tokens_per_second_at_max_concurrency"
	active := floatOf(t, s.Get("params.active"), "active") - 128256*4096
	without, with := floatOf(t, base.Get(key), "without"), floatOf(t, s.Get(key), "with")
	want := (b - 1) * 2 * active / (in.Catalog.Accelerators["H100"].PeakBF16.Value * 0.25)
	if got := b/with - b/without; math.Abs(got-want) > 1e-9*want {
		t.Errorf("the token-batch cost adds %v s to the step, want %v", got, want)
	}
	if one, one0 := floatOf(t, s.Get("speed.1xH100.decode_tokens_per_second"), "one"), floatOf(t, base.Get("speed.1xH100.decode_tokens_per_second"), "one"); one != one0 {
		t.Errorf("batch 1 moved with the token-batch cost: %v, was %v", one, one0)
	}
	if d := s.Get(key).Derivation; !strings.Contains(d, "fitted on batches up to 2, so at") {
		t.Errorf("derivation %q does not say the cost is extrapolated", d)
	}
}
