package sizing

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"dossier/generator/catalog"
)

// TestPairPredictionByHand: a decode pair at TP 8 on A100s and a prefill
// pair on an RTX 4090, predicted from the catalog's figures by hand.
func TestPairPredictionByHand(t *testing.T) {
	cat, err := catalog.Load(filepath.Join("testdata", "serving", "data"))
	if err != nil {
		t.Fatal(err)
	}
	cat.Speed = &catalog.SpeedModel{Classes: []*catalog.SpeedClass{{Class: "datacenter", Engine: "e", ComputeEfficiency: 0.5, ComputeSource: "s"}}}
	f := fitted{sp: speedParams{memEff: 0.8, layerSeconds: 50e-6, collectiveSeconds: 8e-6}, ceff: 0.4}
	// Llama-2-7B at TP 8: 2.14 GB per GPU; a 5-token prompt and 200 new
	// tokens average 105 tokens of cache at 65,536 B per GPU per token;
	// 32 layers and 64 all-reduces of 8 KiB, 7/4 of which cross NVLink.
	tp8 := &catalog.CalibrationPair{Hardware: "A100", GPUs: 8, Batch: 1, PromptTokens: 5, OutputTokens: 200, Metric: catalog.MetricDecode,
		Layers: 32, Hidden: 4096, ActiveParams: 6.74e9, BytesPerGPU: 2.1438e9, KVBytesPerToken: 65536, Value: 1}
	a100 := cat.Accelerators["A100"]
	step := (2.1438e9+105*65536)/(a100.Bandwidth.Value*0.8) + 32*50e-6 + 64*8e-6 + 64*4096*2*2*7.0/8/(a100.Interconnect.Value*0.8)
	if got := predictPair(cat, tp8, f); math.Abs(got-1/step) > 1e-9/step {
		t.Errorf("TP 8 decode %v tokens/s, want %v", got, 1/step)
	}
	// Prefill of 512 tokens of an 8B on a 4090: 2 × 7.5e9 × 512 FLOPs of
	// GEMMs and 32 × 8,192 × 512² of causal attention at 0.4 of the
	// FP16-accumulate peak, plus one pass of 32 layers.
	pp := &catalog.CalibrationPair{Hardware: "RTX4090", GPUs: 1, Batch: 1, PromptTokens: 512, Metric: catalog.MetricPrefill,
		Layers: 32, Hidden: 4096, ActiveParams: 7.5e9, BytesPerGPU: 15e9, AttentionWidth: 8192, Value: 1}
	g := cat.Accelerators["RTX4090"]
	peak := g.PeakBF16.Value
	if g.PeakFP16Acc16 != nil {
		peak = g.PeakFP16Acc16.Value
	}
	flops := math.Max(15e9/(g.Bandwidth.Value*0.8), 2*7.5e9*512/(peak*0.4)) + 32*8192*512*512/(peak*0.4)
	want := 512 / (flops + 32*50e-6)
	if got := predictPair(cat, pp, f); math.Abs(got-want) > 1e-9*want {
		t.Errorf("prefill %v tokens/s, want %v", got, want)
	}
}

// offloadPair is an offload run on a part outside the catalog: 1 GB on a
// 448 GB/s GPU and hostBytes on a 100 GB/s host, 40 layers.
func offloadPair(id string, hostBytes, value float64) *catalog.CalibrationPair {
	return &catalog.CalibrationPair{ID: id, Hardware: "G8", GPUs: 1, Batch: 1, Metric: catalog.MetricDecode, Layers: 40, Hidden: 4096,
		ActiveParams: 3e9, BytesPerGPU: 1e9, Value: value,
		GPU:     &catalog.PairGPU{Name: "G", Class: "consumer", Bandwidth: 448e9, BandwidthSource: "s"},
		Offload: &catalog.PairOffload{Flags: "-ngl 20", HostBytes: hostBytes, HostBytesHow: "h", Host: catalog.PairHost{CPU: "c", Memory: "DDR5", Bandwidth: 100e9, Measured: true, Source: "s"}}}
}

// TestOffloadPairByHand: an offload pair's step is its GPU bytes at the
// class's efficiency, the layers' fixed cost, and its host bytes at the
// host's bandwidth × the host efficiency.
func TestOffloadPairByHand(t *testing.T) {
	cat := &catalog.Catalog{Accelerators: map[string]*catalog.Accelerator{}}
	f := fitted{sp: speedParams{memEff: 0.8, layerSeconds: 50e-6, hostEff: 0.4}}
	p := offloadPair("o", 2e9, 1)
	want := 1 / (1e9/(448e9*0.8) + 40*50e-6 + 2e9/(100e9*0.4))
	if got := predictPair(cat, p, f); math.Abs(got-want) > 1e-9*want {
		t.Errorf("offload pair %v tokens/s, want %v", got, want)
	}
}

// TestFitFindsHostEfficiency: offload pairs generated at a host efficiency
// of 0.45 (with the fitted GPU side) give that efficiency back, and leave
// the GPU fit as it was without them.
func TestFitFindsHostEfficiency(t *testing.T) {
	cat, err := catalog.Load(filepath.Join("testdata", "serving", "data"))
	if err != nil {
		t.Fatal(err)
	}
	cat.Speed = &catalog.SpeedModel{}
	var pairs []*catalog.CalibrationPair
	for i, b := range []float64{16e9, 8e9, 4e9, 2e9, 1e9} {
		pairs = append(pairs, &catalog.CalibrationPair{ID: fmt.Sprintf("g%d", i), Hardware: "RTX4090", GPUs: 1, Batch: 1, Metric: catalog.MetricDecode,
			Layers: 32, Hidden: 4096, ActiveParams: b, BytesPerGPU: b, Value: 1 / (b/(cat.Accelerators["RTX4090"].Bandwidth.Value*0.8) + 32*60e-6)})
	}
	gpuOnly := fit(cat, pairs)
	for i, h := range []float64{1e9, 2e9, 4e9, 8e9, 16e9} {
		v := 1 / (1e9/(448e9*gpuOnly.sp.memEff) + 40*gpuOnly.sp.layerSeconds + h/(100e9*0.45))
		pairs = append(pairs, offloadPair(fmt.Sprintf("o%d", i), h, v))
	}
	f := fit(cat, pairs)
	if math.Abs(f.sp.hostEff-0.45) > 1e-9 || f.offload != 5 {
		t.Errorf("host efficiency %v on %d offload pairs, want 0.45 on 5", f.sp.hostEff, f.offload)
	}
	if f.sp.memEff != gpuOnly.sp.memEff || f.sp.layerSeconds != gpuOnly.sp.layerSeconds {
		t.Errorf("offload pairs moved the GPU fit: %+v, without them %+v", f.sp, gpuOnly.sp)
	}
}

// TestFitFindsTokenBatchEfficiency: many-sequences pairs generated with
// each extra token's FLOPs at 0.2 of the 16-bit peak, at the GPU fit of
// their batch-1 pairs, give that efficiency back to within 0.05 (two
// rounds of alternating least squares reach near the joint minimum, not
// onto it: the many-sequences pairs also move the GPU fit); the batch-1
// pairs alone fit none.
func TestFitFindsTokenBatchEfficiency(t *testing.T) {
	cat, err := catalog.Load(filepath.Join("testdata", "serving", "data"))
	if err != nil {
		t.Fatal(err)
	}
	cat.Speed = &catalog.SpeedModel{}
	h100 := cat.Accelerators["H100"]
	bw := h100.Bandwidth.Value
	var pairs []*catalog.CalibrationPair
	for i, b := range []float64{16e9, 8e9, 4e9, 2e9, 1e9} {
		pairs = append(pairs, &catalog.CalibrationPair{ID: fmt.Sprintf("g%d", i), Hardware: "H100", GPUs: 1, Batch: 1, Metric: catalog.MetricDecode,
			Layers: 32, Hidden: 4096, ActiveParams: b / 2, BytesPerGPU: b, Value: 1 / (b/(bw*0.8) + 32*60e-6)})
	}
	one := fit(cat, pairs)
	if one.sp.batchEff != 0 || one.many != 0 {
		t.Fatalf("batch-1 pairs fit a token-batch cost: %+v", one.sp)
	}
	for i, batch := range []int{4, 16, 32, 64} {
		p := &catalog.CalibrationPair{ID: fmt.Sprintf("m%d", i), Hardware: "H100", GPUs: 1, Batch: batch, Metric: catalog.MetricDecode,
			Layers: 32, Hidden: 4096, ActiveParams: 8e9, BytesPerGPU: 16e9, Value: 1}
		step := float64(batch) / predictPair(cat, p, one)
		p.Value = float64(batch) / (step + float64(batch-1)*2*8e9/(h100.PeakBF16.Value*0.2))
		pairs = append(pairs, p)
	}
	f := fit(cat, pairs)
	if math.Abs(f.sp.batchEff-0.2) > 0.05 || f.many != 4 {
		t.Errorf("token-batch efficiency %v on %d pairs, want 0.2 on 4", f.sp.batchEff, f.many)
	}
}
