package catalog

import (
	"dossier/generator/internal/checked"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"

	"dossier/generator/yamlx"
)

// The speed model's data, three files beside hardware.yaml:
//   - speed.yaml, written by hand: the engine each hardware class is
//     assumed to run, that engine's batch cap and the compute efficiency
//     stated for it, each with its source;
//   - calibration.yaml, written by hand: public speed measurements with
//     the configuration they ran (the calibration set);
//   - speed_fit.yaml, written by the fit (sizing.FitSpeed; the test
//     TestSpeedFitIsCurrent rewrites it with -update and fails when it
//     differs from a refit): the fitted efficiencies and fixed costs and
//     the leave-one-out error of each regime.
const (
	speedFile       = "speed.yaml"
	calibrationFile = "calibration.yaml"
	SpeedFitFile    = "speed_fit.yaml"
)

// SpeedModel is what the speed predictions read besides the hardware.
// A catalog without speed.yaml has none (Catalog.Speed is nil) and the
// predictions fall back to the site's efficiencies.
type SpeedModel struct {
	Classes []*SpeedClass
	Pairs   []*CalibrationPair
	// Fit is nil when speed_fit.yaml is absent (before the first fit).
	Fit *SpeedFit
}

// SpeedClass is what one hardware class is assumed to run.
type SpeedClass struct {
	Class  string `yaml:"class"`
	Engine string `yaml:"engine"`
	// ComputeEfficiency is the share of the dense peak the engine's GEMMs
	// are assumed to reach (prefill and large batches); stated with its
	// source, not fitted: the calibration set has too few compute-bound
	// pairs to fit it.
	ComputeEfficiency float64 `yaml:"compute_efficiency"`
	ComputeSource     string  `yaml:"compute_source"`
	// MaxBatch caps the sequences one engine instance decodes together
	// (vLLM max_num_seqs, llama-server --parallel, ...); 0 for no cap.
	MaxBatch       int    `yaml:"max_batch"`
	MaxBatchSource string `yaml:"max_batch_source"`
}

// CalibrationPair is one public measurement with the configuration it ran.
// BytesPerGPU is what one GPU reads per decode step for the weights (with
// BytesHow saying where the figure comes from); KVBytesPerToken is the
// cache one GPU reads per token of context.
type CalibrationPair struct {
	ID            string  `yaml:"id"`
	Model         string  `yaml:"model"`
	Quant         string  `yaml:"quant"`
	Hardware      string  `yaml:"hardware"`
	GPUs          int     `yaml:"gpus"`
	Engine        string  `yaml:"engine"`
	EngineVersion string  `yaml:"engine_version"`
	Batch         int     `yaml:"batch"`
	PromptTokens  int     `yaml:"prompt_tokens"`
	OutputTokens  int     `yaml:"output_tokens"`
	Metric        string  `yaml:"metric"`
	Value         float64 `yaml:"value"`
	Source        string  `yaml:"source"`
	Date          string  `yaml:"date"`
	Layers        int     `yaml:"layers"`
	Hidden        int     `yaml:"hidden"`
	ActiveParams  float64 `yaml:"active_params"`
	BytesPerGPU   float64 `yaml:"bytes_per_gpu"`
	BytesHow      string  `yaml:"bytes_how"`
	// KVBytesPerToken is per GPU; 0 when the context is too short to count.
	KVBytesPerToken float64 `yaml:"kv_bytes_per_token"`
	// AttentionWidth is heads × (QK + V head dimensions) per layer: a
	// token attending to n others costs 2 × n × this FLOPs per layer.
	AttentionWidth float64 `yaml:"attention_width,omitempty"`
	Note           string  `yaml:"note,omitempty"`
	// GPU states the part a pair ran on when hardware.yaml does not list
	// it (an offload run on a small card); nil otherwise.
	GPU *PairGPU `yaml:"gpu,omitempty"`
	// Offload is set for a run whose weights were split between the GPU
	// and the host's RAM: BytesPerGPU is then the GPU side only.
	Offload *PairOffload `yaml:"offload,omitempty"`
}

// PairGPU is a part outside the catalog: its class and its bandwidth,
// with the source.
type PairGPU struct {
	Name            string  `yaml:"name"`
	Class           string  `yaml:"class"`
	Bandwidth       float64 `yaml:"memory_bandwidth"`
	BandwidthSource string  `yaml:"bandwidth_source"`
}

// PairOffload is what an offload run kept in the host's RAM and computed
// on its CPU (llama.cpp -ngl below the layer count, --n-cpu-moe, -ot):
// the bytes the CPU reads per token and the host it read them on.
type PairOffload struct {
	Flags        string   `yaml:"flags"`
	HostBytes    float64  `yaml:"host_bytes"`
	HostBytesHow string   `yaml:"host_bytes_how"`
	Host         PairHost `yaml:"host"`
}

// PairHost is the host memory an offload run read from. Bandwidth is
// what the source measured (Measured) or channels × 8 B × MT/s from the
// memory it states.
type PairHost struct {
	CPU       string  `yaml:"cpu"`
	Memory    string  `yaml:"memory"`
	MTs       int     `yaml:"mt_s,omitempty"`
	Channels  int     `yaml:"channels,omitempty"`
	Bandwidth float64 `yaml:"bandwidth"`
	Measured  bool    `yaml:"measured"`
	Source    string  `yaml:"source"`
}

// TheoreticalBandwidth is channels × 8 B × MT/s: each DDR channel moves
// 64 bits per transfer (JEDEC DDR4/DDR5 DIMMs are 64 data bits wide,
// DDR5's as two 32-bit subchannels).
func (h PairHost) TheoreticalBandwidth() float64 {
	return float64(h.Channels) * 8 * float64(h.MTs) * 1e6
}

// The metrics a pair may measure: a per-sequence decode rate, and a
// prompt's tokens ÷ the time to process it (prefill), both in tokens/s.
const (
	MetricDecode  = "decode_tokens_per_second"
	MetricPrefill = "prefill_tokens_per_second"
)

// SpeedFit is speed_fit.yaml: the fitted parameters and their
// leave-one-out error.
type SpeedFit struct {
	Method string `yaml:"method"`
	Pairs  int    `yaml:"pairs"`
	// MemoryEfficiency is the share of the catalog bandwidth a step's
	// bytes stream at, over all pairs; a class with enough pairs of its
	// own has its own (Classes).
	MemoryEfficiency float64 `yaml:"memory_efficiency"`
	// LayerSeconds is the fixed cost of one layer per step (kernel
	// launches, norms, small ops); CollectiveSeconds the latency of one
	// tensor-parallel all-reduce.
	LayerSeconds      float64 `yaml:"layer_seconds"`
	CollectiveSeconds float64 `yaml:"collective_seconds"`
	// ComputeEfficiency is the share of the dense peak a prefill's GEMMs
	// reach, fitted on the prefill pairs (0 when there are none: each
	// class's stated figure in speed.yaml stands).
	ComputeEfficiency float64 `yaml:"compute_efficiency,omitempty"`
	PrefillPairs      int     `yaml:"prefill_pairs,omitempty"`
	// HostEfficiency is the share of the host's memory bandwidth an
	// offload run's CPU side reads its weights at, fitted on the offload
	// pairs (0 when there are none).
	HostEfficiency float64 `yaml:"host_efficiency,omitempty"`
	OffloadPairs   int     `yaml:"offload_pairs,omitempty"`
	// TokenBatchEfficiency is the share of the 16-bit dense peak at which
	// each token beyond the first adds its GEMM FLOPs to a decode step,
	// fitted on the many-sequences pairs (0 when there are none).
	TokenBatchEfficiency float64 `yaml:"token_batch_efficiency,omitempty"`
	ManySequencePairs    int     `yaml:"many_sequence_pairs,omitempty"`
	// ManySequenceMaxBatch is the largest batch among them: beyond it the
	// token-batch cost is extrapolated.
	ManySequenceMaxBatch int            `yaml:"many_sequence_max_batch,omitempty"`
	Classes              []ClassFit     `yaml:"classes"`
	Regimes              []RegimeErrors `yaml:"regimes"`
}

// ClassFit is a hardware class's own efficiencies, fitted on its pairs
// when it has enough of them (0: the shared figure applies).
type ClassFit struct {
	Class             string   `yaml:"class"`
	MemoryEfficiency  float64  `yaml:"memory_efficiency,omitempty"`
	ComputeEfficiency float64  `yaml:"compute_efficiency,omitempty"`
	Pairs             int      `yaml:"pairs"`
	FittedOn          []string `yaml:"fitted_on"`
}

// RegimeErrors is the leave-one-out error of one regime: each pair
// predicted by a fit that did not see it, predicted ÷ measured.
// ErrorP50 and ErrorP90 are the 50th and 90th percentiles of
// max(r, 1/r) − 1 over its pairs (0.2 is "within ±20 %").
type RegimeErrors struct {
	Regime      string  `yaml:"regime"`
	Pairs       int     `yaml:"pairs"`
	MedianRatio float64 `yaml:"median_ratio"`
	Within125   float64 `yaml:"within_1_25x"`
	Within15    float64 `yaml:"within_1_5x"`
	Within2     float64 `yaml:"within_2x"`
	ErrorP50    float64 `yaml:"error_p50"`
	ErrorP90    float64 `yaml:"error_p90"`
	// Classes are the hardware classes its pairs ran on: a figure on a
	// part of another class borrows the error of parts it was not
	// measured on, and says so.
	Classes []string `yaml:"classes,omitempty"`
	IDs     []string `yaml:"ids"`
}

// MinRegimePairs is the fewest pairs a regime's error is quoted on; with
// fewer a figure in it is "uncalibrated".
const MinRegimePairs = 5

// Regime returns the named regime's errors, nil when it has none.
func (f *SpeedFit) Regime(name string) *RegimeErrors {
	if f == nil {
		return nil
	}
	for i := range f.Regimes {
		if f.Regimes[i].Regime == name {
			return &f.Regimes[i]
		}
	}
	return nil
}

// ClassFor returns what class runs, nil when speed.yaml does not say.
func (m *SpeedModel) ClassFor(class string) *SpeedClass {
	if m == nil {
		return nil
	}
	for _, c := range m.Classes {
		if c.Class == class {
			return c
		}
	}
	return nil
}

// loadSpeed reads the speed model's files; a data directory without
// speed.yaml has none.
func loadSpeed(fsys fs.FS, label string, c *Catalog) error {
	b, err := fs.ReadFile(fsys, speedFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	file := filepath.Join(label, speedFile)
	if err != nil {
		return fmt.Errorf("read speed model %s: %w", file, err)
	}
	var sf struct {
		Classes []*SpeedClass `yaml:"classes"`
	}
	if err := yamlx.Decode(file, b, &sf); err != nil {
		return err
	}
	m := &SpeedModel{Classes: sf.Classes}
	for i, cl := range m.Classes {
		field := func(f string) string { return fmt.Sprintf("%s: classes[%d].%s", file, i, f) }
		switch {
		case cl == nil || !slices.Contains(Classes, cl.Class):
			return fmt.Errorf("%s: expected one of %v", field("class"), Classes)
		case cl.Engine == "":
			return fmt.Errorf("%s: missing (the engine this class is assumed to run)", field("engine"))
		case !(cl.ComputeEfficiency > 0 && cl.ComputeEfficiency <= 1):
			return fmt.Errorf("%s: expected a fraction in (0, 1], found %v", field("compute_efficiency"), cl.ComputeEfficiency)
		case cl.ComputeSource == "":
			return fmt.Errorf("%s: missing", field("compute_source"))
		case cl.MaxBatch < 0 || cl.MaxBatch > 1<<20:
			return fmt.Errorf("%s: expected a count in 0..2^20, found %d", field("max_batch"), cl.MaxBatch)
		case cl.MaxBatch > 0 && cl.MaxBatchSource == "":
			return fmt.Errorf("%s: missing (where the cap is documented)", field("max_batch_source"))
		}
	}
	pairs, err := loadPairs(fsys, label, c)
	if err != nil {
		return err
	}
	m.Pairs = pairs
	fit, err := loadFit(fsys, label)
	if err != nil {
		return err
	}
	m.Fit = fit
	c.Speed = m
	return nil
}

func loadPairs(fsys fs.FS, label string, c *Catalog) ([]*CalibrationPair, error) {
	file := filepath.Join(label, calibrationFile)
	b, err := fs.ReadFile(fsys, calibrationFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read calibration set %s: %w", file, err)
	}
	var pf struct {
		Pairs []*CalibrationPair `yaml:"pairs"`
	}
	if err := yamlx.Decode(file, b, &pf); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, p := range pf.Pairs {
		field := func(f string) string { return fmt.Sprintf("%s: pairs[%d].%s", file, i, f) }
		pos := func(v float64) bool { return v > 0 && !math.IsInf(v, 1) }
		switch {
		case p == nil || p.ID == "" || seen[p.ID]:
			return nil, fmt.Errorf("%s: missing or repeated", field("id"))
		case p.Model == "" || p.Quant == "" || p.Engine == "" || p.EngineVersion == "":
			return nil, fmt.Errorf("%s: model, quant, engine and engine_version are all required", field("model"))
		case c.Accelerators[p.Hardware] == nil && p.GPU == nil:
			return nil, fmt.Errorf("%s: %q is not in hardware.yaml (a part outside it is stated in gpu)", field("hardware"), p.Hardware)
		case p.GPU != nil && (c.Accelerators[p.Hardware] != nil || !slices.Contains(Classes, p.GPU.Class) || !pos(p.GPU.Bandwidth) || p.GPU.Name == "" || p.GPU.BandwidthSource == ""):
			return nil, fmt.Errorf("%s: a part outside hardware.yaml needs name, class (one of %v), memory_bandwidth and bandwidth_source, and a part in it takes none", field("gpu"), Classes)
		case p.GPUs < 1 || p.GPUs > checked.MaxGPUs:
			return nil, fmt.Errorf("%s: expected a count in 1..%d, found %d", field("gpus"), checked.MaxGPUs, p.GPUs)
		case p.Batch < 1 || p.Batch > 1<<20:
			return nil, fmt.Errorf("%s: expected a count in 1..2^20, found %d", field("batch"), p.Batch)
		case p.PromptTokens < 0 || p.OutputTokens < 0 || p.PromptTokens > 1<<30 || p.OutputTokens > 1<<30:
			return nil, fmt.Errorf("%s: expected token counts in 0..2^30 (0: not stated, see note)", field("output_tokens"))
		case p.Metric != MetricDecode && p.Metric != MetricPrefill:
			return nil, fmt.Errorf("%s: expected %s or %s, found %q", field("metric"), MetricDecode, MetricPrefill, p.Metric)
		case p.Metric == MetricPrefill && (p.PromptTokens < 1 || p.Batch != 1):
			return nil, fmt.Errorf("%s: a prefill pair processes one prompt of at least one token", field("prompt_tokens"))
		case p.AttentionWidth < 0 || math.IsInf(p.AttentionWidth, 1):
			return nil, fmt.Errorf("%s: expected ≥ 0", field("attention_width"))
		case !pos(p.Value):
			return nil, fmt.Errorf("%s: expected a positive rate, found %v", field("value"), p.Value)
		case p.Source == "":
			return nil, fmt.Errorf("%s: missing", field("source"))
		case !dateRe.MatchString(p.Date):
			return nil, fmt.Errorf("%s: expected YYYY-MM-DD, found %q", field("date"), p.Date)
		case p.Layers < 1 || p.Hidden < 1:
			return nil, fmt.Errorf("%s: layers and hidden are required", field("layers"))
		case !pos(p.ActiveParams) || !pos(p.BytesPerGPU):
			return nil, fmt.Errorf("%s: active_params and bytes_per_gpu must be positive", field("bytes_per_gpu"))
		case p.BytesHow == "":
			return nil, fmt.Errorf("%s: missing (where the bytes come from)", field("bytes_how"))
		case p.KVBytesPerToken < 0 || math.IsInf(p.KVBytesPerToken, 1):
			return nil, fmt.Errorf("%s: expected ≥ 0", field("kv_bytes_per_token"))
		}
		if err := checkOffload(p, field); err != nil {
			return nil, err
		}
		seen[p.ID] = true
	}
	return pf.Pairs, nil
}

// checkOffload checks an offload run's host: its bytes, and a bandwidth
// either measured by the source or equal to channels × 8 B × MT/s.
func checkOffload(p *CalibrationPair, field func(string) string) error {
	o := p.Offload
	if o == nil {
		return nil
	}
	h := o.Host
	switch {
	case p.Metric != MetricDecode || p.Batch != 1 || p.GPUs != 1:
		return fmt.Errorf("%s: offload pairs are one sequence's decode on one GPU", field("offload"))
	case o.Flags == "":
		return fmt.Errorf("%s: missing (the engine's offload flags)", field("offload.flags"))
	case !(o.HostBytes > 0 && o.HostBytes < 1e15):
		return fmt.Errorf("%s: expected the positive bytes the CPU reads per token, found %v", field("offload.host_bytes"), o.HostBytes)
	case o.HostBytesHow == "":
		return fmt.Errorf("%s: missing (where the host bytes come from)", field("offload.host_bytes_how"))
	case h.CPU == "" || h.Memory == "" || h.Source == "":
		return fmt.Errorf("%s: cpu, memory and source are required", field("offload.host"))
	case !(h.Bandwidth > 0 && h.Bandwidth < 1e14):
		return fmt.Errorf("%s: expected a positive bytes/s figure, found %v", field("offload.host.bandwidth"), h.Bandwidth)
	case h.MTs < 0 || h.Channels < 0 || h.MTs > 100000 || h.Channels > 64:
		return fmt.Errorf("%s: expected mt_s in 0..100000 and channels in 0..64", field("offload.host"))
	case !h.Measured && (h.MTs == 0 || h.Channels == 0 || math.Abs(h.Bandwidth-h.TheoreticalBandwidth()) > 1):
		return fmt.Errorf("%s: %v is not measured, so it must equal channels × 8 B × MT/s = %v", field("offload.host.bandwidth"), h.Bandwidth, h.TheoreticalBandwidth())
	}
	return nil
}

func loadFit(fsys fs.FS, label string) (*SpeedFit, error) {
	file := filepath.Join(label, SpeedFitFile)
	b, err := fs.ReadFile(fsys, SpeedFitFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read speed fit %s: %w", file, err)
	}
	var f SpeedFit
	if err := yamlx.Decode(file, b, &f); err != nil {
		return nil, err
	}
	switch {
	case !(f.MemoryEfficiency > 0 && f.MemoryEfficiency <= 1):
		return nil, fmt.Errorf("%s: memory_efficiency: expected a fraction in (0, 1], found %v", file, f.MemoryEfficiency)
	case !(f.LayerSeconds >= 0 && f.LayerSeconds < 1) || !(f.CollectiveSeconds >= 0 && f.CollectiveSeconds < 1):
		return nil, fmt.Errorf("%s: layer_seconds and collective_seconds: expected seconds in [0, 1)", file)
	case !(f.ComputeEfficiency >= 0 && f.ComputeEfficiency <= 1):
		return nil, fmt.Errorf("%s: compute_efficiency: expected a fraction in [0, 1], found %v", file, f.ComputeEfficiency)
	case !(f.TokenBatchEfficiency >= 0 && f.TokenBatchEfficiency <= 1):
		return nil, fmt.Errorf("%s: token_batch_efficiency: expected a fraction in [0, 1], found %v", file, f.TokenBatchEfficiency)
	case !(f.HostEfficiency >= 0 && f.HostEfficiency <= 1):
		return nil, fmt.Errorf("%s: host_efficiency: expected a fraction in [0, 1], found %v", file, f.HostEfficiency)
	}
	for i, r := range f.Regimes {
		finite := func(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }
		switch {
		case r.Regime == "" || r.Pairs < 0:
			return nil, fmt.Errorf("%s: regimes[%d]: a regime names itself and counts its pairs", file, i)
		case !finite(r.MedianRatio) || !finite(r.ErrorP50) || !finite(r.ErrorP90):
			return nil, fmt.Errorf("%s: regimes[%d]: expected finite, non-negative ratio and errors", file, i)
		case !(r.Within125 >= 0 && r.Within125 <= 1 && r.Within15 >= 0 && r.Within15 <= 1 && r.Within2 >= 0 && r.Within2 <= 1):
			return nil, fmt.Errorf("%s: regimes[%d]: expected shares in [0, 1]", file, i)
		}
	}
	for i, cf := range f.Classes {
		if !(cf.MemoryEfficiency >= 0 && cf.MemoryEfficiency <= 1) || !(cf.ComputeEfficiency >= 0 && cf.ComputeEfficiency <= 1) {
			return nil, fmt.Errorf("%s: classes[%d]: expected efficiencies in [0, 1], found %v and %v", file, i, cf.MemoryEfficiency, cf.ComputeEfficiency)
		}
	}
	return &f, nil
}
