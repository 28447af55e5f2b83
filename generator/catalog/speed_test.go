package catalog

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

const speedOK = "classes:\n  - {class: datacenter, engine: vLLM, compute_efficiency: 0.5, compute_source: s, max_batch: 1024, max_batch_source: s}\n"

const pairOK = "pairs:\n  - {id: p1, model: M, quant: BF16, hardware: X1, gpus: 1, engine: e, engine_version: \"1\", batch: 1, prompt_tokens: 5, output_tokens: 100, metric: decode_tokens_per_second, value: 100, source: s, date: \"2026-12-04\", layers: 32, hidden: 4096, active_params: 8e9, bytes_per_gpu: 16e9, bytes_how: h}\n"

// offloadOK is an offload pair on a part outside the catalog, its host's
// bandwidth worked out from the memory it states: 2 × 8 B × 6,000 MT/s.
const offloadOK = "pairs:\n  - {id: o1, model: M, quant: Q4_K_M, hardware: G8, gpus: 1, engine: e, engine_version: \"1\", batch: 1, prompt_tokens: 5, output_tokens: 100, metric: decode_tokens_per_second, value: 30, source: s, date: \"2026-12-04\", layers: 48, hidden: 2048, active_params: 3e9, bytes_per_gpu: 1e9, bytes_how: h, gpu: {name: G, class: consumer, memory_bandwidth: 4.48e11, bandwidth_source: s}, offload: {flags: \"--n-cpu-moe 36\", host_bytes: 8e8, host_bytes_how: h, host: {cpu: c, memory: DDR5, mt_s: 6000, channels: 2, bandwidth: 9.6e10, measured: false, source: s}}}\n"

const fitOK = "method: m\npairs: 1\nmemory_efficiency: 0.7\nlayer_seconds: 4e-05\ncollective_seconds: 8e-06\nregimes:\n  - {regime: single-gpu, pairs: 1, error_p50: 0.1, error_p90: 0.2}\n"

// TestSpeedModelLoads: the three files load together; the fit's regime
// and the class are found by name.
func TestSpeedModelLoads(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "hardware.yaml", hw)
	write(t, dir, speedFile, speedOK)
	write(t, dir, calibrationFile, pairOK)
	write(t, dir, SpeedFitFile, fitOK)
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Speed
	if m == nil || len(m.Pairs) != 1 || m.Pairs[0].BytesPerGPU != 16e9 || m.Fit == nil || m.Fit.LayerSeconds != 4e-5 {
		t.Fatalf("speed model %+v", m)
	}
	if r := m.Fit.Regime("single-gpu"); r == nil || r.ErrorP90 != 0.2 {
		t.Errorf("regime single-gpu: %+v", r)
	}
	if m.Fit.Regime("prefill") != nil || m.ClassFor("datacenter").MaxBatch != 1024 || m.ClassFor("consumer") != nil {
		t.Error("regime or class lookup")
	}
	// An offload pair on a part outside the catalog, its host's bandwidth
	// from channels × 8 B × MT/s, or measured by the source.
	for _, body := range []string{offloadOK, strings.Replace(strings.Replace(offloadOK, "bandwidth: 9.6e10", "bandwidth: 1.02e11", 1), "measured: false", "measured: true", 1)} {
		write(t, dir, calibrationFile, body)
		c, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		o := c.Speed.Pairs[0].Offload
		if o == nil || o.HostBytes != 8e8 || c.Speed.Pairs[0].GPU.Bandwidth != 4.48e11 || (!o.Host.Measured && o.Host.TheoreticalBandwidth() != 9.6e10) {
			t.Errorf("offload pair %+v", c.Speed.Pairs[0])
		}
	}
	// No speed.yaml: no speed model, and no error.
	dir2 := t.TempDir()
	write(t, dir2, "hardware.yaml", hw)
	if c, err := Load(dir2); err != nil || c.Speed != nil {
		t.Errorf("without speed.yaml: %v, %+v", err, c.Speed)
	}
}

// TestBadSpeedModelNamesFileAndField: each bad input names its file and
// the field at fault.
func TestBadSpeedModelNamesFileAndField(t *testing.T) {
	for _, tc := range []struct{ file, body, want string }{
		{speedFile, strings.Replace(speedOK, "compute_efficiency: 0.5", "compute_efficiency: 1.5", 1), "classes[0].compute_efficiency"},
		{speedFile, strings.Replace(speedOK, "class: datacenter", "class: gpu", 1), "classes[0].class"},
		{calibrationFile, strings.Replace(pairOK, "hardware: X1", "hardware: Z9", 1), "pairs[0].hardware"},
		{calibrationFile, strings.Replace(pairOK, "value: 100", "value: -1", 1), "pairs[0].value"},
		{calibrationFile, strings.Replace(pairOK, "metric: decode_tokens_per_second", "metric: ttft", 1), "pairs[0].metric"},
		{calibrationFile, strings.Replace(pairOK, "date: \"2026-12-04\"", "date: yesterday", 1), "pairs[0].date"},
		{calibrationFile, strings.Replace(pairOK, ", bytes_how: h", "", 1), "pairs[0].bytes_how"},
		{calibrationFile, strings.Replace(offloadOK, "bandwidth: 9.6e10", "bandwidth: 1.2e11", 1), "pairs[0].offload.host.bandwidth"},
		{calibrationFile, strings.Replace(offloadOK, "channels: 2, ", "", 1), "pairs[0].offload.host.bandwidth"},
		{calibrationFile, strings.Replace(offloadOK, "host_bytes: 8e8", "host_bytes: 0", 1), "pairs[0].offload.host_bytes"},
		{calibrationFile, strings.Replace(offloadOK, "batch: 1,", "batch: 4,", 1), "pairs[0].offload"},
		{calibrationFile, strings.Replace(offloadOK, "class: consumer", "class: gpu", 1), "pairs[0].gpu"},
		{calibrationFile, strings.Replace(offloadOK, "hardware: G8", "hardware: X1", 1), "pairs[0].gpu"},
		{calibrationFile, strings.Replace(offloadOK, ", gpu: {name: G, class: consumer, memory_bandwidth: 4.48e11, bandwidth_source: s}", "", 1), "pairs[0].hardware"},
		{SpeedFitFile, strings.Replace(fitOK, "memory_efficiency: 0.7", "memory_efficiency: 0", 1), "memory_efficiency"},
		{SpeedFitFile, fitOK + "host_efficiency: 1.5\n", "host_efficiency"},
		{SpeedFitFile, strings.Replace(fitOK, "layer_seconds: 4e-05", "layer_seconds: 3", 1), "layer_seconds"},
		{SpeedFitFile, strings.Replace(fitOK, "error_p90: 0.2", "error_p90: .nan", 1), "regimes[0]"},
	} {
		dir := t.TempDir()
		write(t, dir, "hardware.yaml", hw)
		files := map[string]string{speedFile: speedOK, calibrationFile: pairOK, SpeedFitFile: fitOK}
		files[tc.file] = tc.body
		for name, body := range files {
			write(t, dir, name, body)
		}
		_, err := Load(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, tc.file)) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s with %q: error %v, want the file and %s", tc.file, tc.body, err, tc.want)
		}
	}
}

// FuzzLoadSpeed: any speed.yaml, calibration.yaml and speed_fit.yaml
// either load or fail with an error naming one of them; never a panic,
// and a loaded pair is one the predictions can use.
func FuzzLoadSpeed(f *testing.F) {
	f.Add(speedOK, pairOK, fitOK)
	f.Add(speedOK, "pairs: [{}]", "")
	f.Add(speedOK, offloadOK, fitOK)
	f.Add("classes: [{class: unified}]", "", "regimes: [{regime: x}]")
	f.Fuzz(func(t *testing.T, speed, pairs, fit string) {
		fsys := fstest.MapFS{"hardware.yaml": {Data: []byte(hw)}, speedFile: {Data: []byte(speed)}}
		if pairs != "" {
			fsys[calibrationFile] = &fstest.MapFile{Data: []byte(pairs)}
		}
		if fit != "" {
			fsys[SpeedFitFile] = &fstest.MapFile{Data: []byte(fit)}
		}
		c, err := LoadFS(fsys, "data")
		if err != nil {
			msg := err.Error()
			if !strings.Contains(msg, speedFile) && !strings.Contains(msg, calibrationFile) && !strings.Contains(msg, SpeedFitFile) {
				t.Fatalf("error names no speed file: %v", err)
			}
			return
		}
		if c.Speed == nil {
			t.Fatal("speed.yaml present but no speed model")
		}
		for _, p := range c.Speed.Pairs {
			if (c.Accelerators[p.Hardware] == nil && (p.GPU == nil || !(p.GPU.Bandwidth > 0))) || !(p.BytesPerGPU > 0) || p.GPUs < 1 || p.Batch < 1 || !(p.Value > 0) {
				t.Fatalf("loaded an unusable pair %+v", p)
			}
			if o := p.Offload; o != nil && (!(o.HostBytes > 0) || !(o.Host.Bandwidth > 0) || p.Batch != 1) {
				t.Fatalf("loaded an unusable offload pair %+v", o)
			}
		}
	})
}
