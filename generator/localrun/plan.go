package localrun

import (
	"fmt"
	"math"
	"strings"

	"dossier/generator/catalog"
	"dossier/generator/deploy"
	"dossier/generator/gguf"
	"dossier/generator/sizing"
)

// Quant is what a plan needs of one quant: its sizes by layer, its cache
// and its experts.
type Quant struct {
	Label, File string // File: the first (or only) .gguf, what -m names
	// Arch is the file's general.architecture, what llama.cpp's loader
	// dispatches on; "" when read from a store that predates it.
	Arch     string
	Files    int // how many files the quant is split into
	FileList []gguf.Listed
	Sizes    gguf.Sizes
	Cache    gguf.Cache
	// Experts and ExpertsUsed: routed experts and how many a token
	// reads; 0 for a dense model.
	Experts, ExpertsUsed int64
}

// Refusal is why llama.cpp's loader refuses the quant: its
// general.architecture is not one the loader knows at the commit of
// deploy's list (loading stops with "unknown model architecture"). ""
// when it knows it, or when the architecture was not recorded.
func (q Quant) Refusal() (string, error) {
	if q.Arch == "" {
		return "", nil
	}
	list, err := deploy.GGUFSupport()
	if err != nil {
		return "", err
	}
	if ok, why := list.Loads(q.Arch); !ok {
		return why + `: loading the file stops with "unknown model architecture"`, nil
	}
	return "", nil
}

// FromGGUF reads a quant's plan inputs from its headers.
func FromGGUF(q *gguf.Quant) (Quant, error) {
	s, err := q.Sizes()
	if err != nil {
		return Quant{}, err
	}
	c, err := q.Cache()
	if err != nil {
		return Quant{}, err
	}
	e, u := q.Experts()
	if s.ExpertBytes > 0 && (e <= 0 || u <= 0 || u > e) {
		return Quant{}, fmt.Errorf("quant %s: expert tensors but expert_count %d, expert_used_count %d", q.Label, e, u)
	}
	return Quant{Label: q.Label, File: q.Files[0].Path, Arch: q.Arch(), Files: len(q.Files), FileList: q.Files, Sizes: s, Cache: c, Experts: e, ExpertsUsed: u}, nil
}

// KV cache types a plan reports a longest context for, with llama.cpp's
// -ctk/-ctv names.
var KVTypes = []struct {
	Name       string
	ValueBytes float64
}{{"f16", gguf.F16ValueBytes}, {"q8_0", gguf.Q8_0ValueBytes}, {"q4_0", gguf.Q4_0ValueBytes}}

// Options are the plan's assumptions, each printed with it.
type Options struct {
	// Context is the context the command asks for (-c), capped at the
	// model's; 32,768 when 0.
	Context int64
	// KVType is the cache type of the command and the placement
	// (-ctk/-ctv); "q8_0" when empty.
	KVType string
	// GPUMarginBytes is kept free on every GPU for the CUDA or Metal
	// context and compute buffers; 1 GiB when 0.
	GPUMarginBytes int64
	// HostReserveBytes is host RAM left to the OS and other programs;
	// 8 GiB when 0.
	HostReserveBytes int64
	// Ubatch is llama.cpp's physical batch (-ub, default 512): in prompt
	// processing, weights kept in host RAM cross PCIe once per ubatch.
	Ubatch int64
	// Catalog holds the speed fit decode is timed with
	// (sizing.OffloadRatesFor, sizing.OffloadDecodeSeconds) and the
	// regimes' errors; without a fit, decode speeds are ceilings from
	// peak bandwidths.
	Catalog *catalog.Catalog
}

// What a plan keeps free by default: on every GPU (or a Mac's wired
// memory) for the runtime's context and compute buffers, and on the host
// for the OS and other programs. The MLX plans keep the same.
const (
	DefaultGPUMarginBytes   = 1 << 30
	DefaultHostReserveBytes = 8 << 30
)

func (o Options) withDefaults() Options {
	if o.Context == 0 {
		o.Context = 32768
	}
	if o.KVType == "" {
		o.KVType = "q8_0"
	}
	if o.GPUMarginBytes == 0 {
		o.GPUMarginBytes = DefaultGPUMarginBytes
	}
	if o.HostReserveBytes == 0 {
		o.HostReserveBytes = DefaultHostReserveBytes
	}
	if o.Ubatch == 0 {
		o.Ubatch = 512
	}
	return o
}

func kvBytes(name string) (float64, bool) {
	for _, t := range KVTypes {
		if t.Name == name {
			return t.ValueBytes, true
		}
	}
	return 0, false
}

// Fits values.
const (
	FitsVRAM    = "vram"    // every weight on the GPU(s) (a Mac: in wired memory)
	FitsOffload = "offload" // experts or layers in host RAM
	FitsMmap    = "mmap"    // more than RAM + VRAM: the file pages in from disk
	FitsNo      = "no"
)

// Plan is how llama.cpp runs one quant on one machine.
type Plan struct {
	Quant, Machine string
	Fits           string
	// NGPULayers is -ngl (Layers+1 puts the output head on the GPU too);
	// NCPUMoE is --n-cpu-moe: the routed experts of layers 0..N-1 stay
	// in host RAM.
	NGPULayers, NCPUMoE int
	Context             int64
	KVType              string
	// GPUBytes and HostBytes are the weights and cache at Context on
	// each side; GPUBudget what the GPUs offer after the margin.
	GPUBytes, HostBytes, GPUBudget, HostBudget int64
	// MaxContext is the longest context with the same placement, per
	// cache type (multiples of 256, capped at the model's).
	MaxContext map[string]int64
	// DecodeTPS is one sequence's decode timed by the speed fit
	// (sizing.OffloadDecodeSeconds), a prediction with DecodeError when
	// DecodeCalibrated, else a ceiling at peak bandwidths; PromptTPS a
	// ceiling at peak FLOP/s and PCIe. Zero with a reason when not derived.
	DecodeTPS, PromptTPS               float64
	DecodeCalibrated                   bool
	DecodeError                        sizing.RegimeError
	DecodeReason, PromptReason         string
	DecodeDerivation, PromptDerivation string
	Command                            string
	// Refused is why llama.cpp's loader refuses the file (Quant.Refusal),
	// "" when it loads it or the architecture is not known: the memory
	// plan stands, but nothing runs it.
	Refused      string
	WiredLimitMB int64 // Mac: iogpu.wired_limit_mb needed, 0 when the default holds
	// CombinedMemory is the machine's VRAM plus RAM (a Mac's unified
	// memory once), and FileBytes the quant's files: the two sides of
	// the quantizers' rule of thumb "VRAM + RAM ≥ the quant's size".
	CombinedMemory, FileBytes        int64
	Derivation                       string
	layers                           int
	gpuBW, hostBW, pcieBW, peakFLOPs float64
	gpuClass                         string // the fit's class of the GPU side: consumer, workstation, unified; cpu without a GPU
	mac                              bool   // one memory: the host side counts against the GPU's budget
}

// placement is where the bytes sit for one -ngl / --n-cpu-moe choice.
type placement struct{ gpuW, hostW, hostResident int64 }

// place puts layers Layers+1-ngl.. on the GPU (the last ones, as
// llama.cpp does), the experts of layers below ncmoe in host RAM, the
// token embedding in host RAM, the output head on the GPU when ngl
// exceeds the layer count.
func place(q Quant, ngl, ncmoe int) placement {
	s := q.Sizes
	L := len(s.LayerBytes)
	start := max(L+1-ngl, 0)
	var p placement
	for l := 0; l < L; l++ {
		exp := s.LayerExpertBytes[l]
		dense := s.LayerBytes[l] - exp
		onGPU := l >= start
		if onGPU {
			p.gpuW += dense
		} else {
			p.hostW += dense
			p.hostResident += dense
		}
		if onGPU && l >= ncmoe {
			p.gpuW += exp
		} else {
			p.hostW += exp
		}
	}
	head := s.OtherBytes - s.EmbeddingBytes
	if ngl > L {
		p.gpuW += head
	} else {
		p.hostW += head
		p.hostResident += head
	}
	p.hostW += s.EmbeddingBytes
	return p
}

// kvSplit is the cache at ctx tokens, and the recurrent state of one
// sequence, on the GPU and host sides.
func kvSplit(q Quant, ngl int, ctx int64, vb float64) (gpu, host int64) {
	c := q.Cache
	L := len(c.LayerValues)
	start := max(L+1-ngl, 0)
	for l, v := range c.LayerValues {
		n := ctx
		if c.Sliding[l] {
			n = min(ctx, c.Window)
		}
		b := int64(math.Ceil(float64(v) * float64(n) * vb))
		if l < len(c.LayerState) {
			b += c.LayerState[l] * gguf.StateValueBytes
		}
		if l >= start {
			gpu += b
		} else {
			host += b
		}
	}
	return gpu, host
}

// Make plans quant q on machine m.
func Make(q Quant, m Machine, opts Options) (Plan, error) {
	o := opts.withDefaults()
	vb, ok := kvBytes(o.KVType)
	if !ok {
		return Plan{}, fmt.Errorf("cache type %q: expected f16, q8_0 or q4_0", o.KVType)
	}
	if len(q.Sizes.LayerBytes) != len(q.Cache.LayerValues) {
		return Plan{}, fmt.Errorf("quant %s: %d layers of weights but %d of cache", q.Label, len(q.Sizes.LayerBytes), len(q.Cache.LayerValues))
	}
	L := len(q.Sizes.LayerBytes)
	ctx := o.Context
	if q.Cache.ContextLength > 0 {
		ctx = min(ctx, q.Cache.ContextLength)
	}
	refused, err := q.Refusal()
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Quant: q.Label, Machine: m.ID, Context: ctx, KVType: o.KVType, layers: L, MaxContext: map[string]int64{},
		hostBW: m.Host.Bandwidth.Value, gpuClass: "cpu", Refused: refused}
	p.HostBudget = m.Host.MemoryBytes - o.HostReserveBytes
	p.CombinedMemory, p.FileBytes = m.Host.MemoryBytes, q.Sizes.Bytes
	if !m.Host.Mac() && m.GPUs > 0 {
		p.CombinedMemory += int64(m.GPUs) * m.GPU.MemoryBytes
	}
	switch {
	case m.Host.Mac():
		p.gpuBW, p.gpuClass, p.mac = m.Host.Bandwidth.Value, "unified", true
		// The GPU may wire up to what the OS leaves; past the default
		// share it needs iogpu.wired_limit_mb raised.
		p.GPUBudget = m.Host.MemoryBytes - o.HostReserveBytes - o.GPUMarginBytes
		p.HostBudget = 0
	case m.GPUs > 0:
		p.gpuBW, p.gpuClass = m.GPU.Bandwidth.Value, m.GPU.Class
		p.GPUBudget = int64(m.GPUs) * (m.GPU.MemoryBytes - o.GPUMarginBytes)
		p.pcieBW = m.Host.PCIe.Value
		if m.GPU.Interconnect != nil && strings.HasPrefix(m.GPU.InterconnectKind, "PCIe") {
			p.pcieBW = min(p.pcieBW, m.GPU.Interconnect.Value)
		}
		if m.Host.Kind == "desktop" && m.GPUs > 1 {
			p.pcieBW /= 2 // x8/x8
		}
		if m.GPU.PeakBF16 != nil {
			p.peakFLOPs = m.GPU.PeakBF16.Value
		}
	}
	fitsAt := func(ngl, ncmoe int, c int64, vbytes float64) (placement, int64, int64, bool) {
		pl := place(q, ngl, ncmoe)
		kg, kh := kvSplit(q, ngl, c, vbytes)
		return pl, pl.gpuW + kg, pl.hostW + kh, pl.gpuW+kg <= p.GPUBudget
	}
	// Choose the placement: everything on the GPU, else the fewest
	// layers' experts in host RAM, else fewer layers on the GPU.
	ngl, ncmoe := L+1, 0
	if m.GPUs == 0 && !m.Host.Mac() {
		ngl = 0
	}
	var pl placement
	var gpuB, hostB int64
	found := false
	if m.Host.Mac() {
		// Unified memory: nothing to offload to; all of it or mmap.
		pl, gpuB, hostB, _ = fitsAt(L+1, 0, ctx, vb)
		found = true
	}
	if ngl > 0 && !found {
		for n := 0; n <= L && !found; n++ {
			if n > 0 && q.Sizes.LayerExpertBytes[n-1] == 0 && n < L {
				continue // moving no expert bytes changes nothing
			}
			if pl, gpuB, hostB, found = fitsAt(L+1, n, ctx, vb); found {
				ncmoe = n
			}
			if q.Sizes.ExpertBytes == 0 {
				break
			}
		}
		for g := L; g >= 0 && !found; g-- {
			if pl, gpuB, hostB, found = fitsAt(g, L, ctx, vb); found {
				ngl, ncmoe = g, L
			}
		}
		if !found {
			ngl, ncmoe = 0, 0
		}
	}
	if ngl == 0 && !found {
		pl, gpuB, hostB, _ = fitsAt(0, 0, ctx, vb)
		found = true
	}
	if q.Sizes.ExpertBytes == 0 {
		ncmoe = 0
	}
	p.NGPULayers, p.NCPUMoE, p.GPUBytes, p.HostBytes = ngl, ncmoe, gpuB, hostB
	switch {
	case m.Host.Mac() && gpuB+hostB <= p.GPUBudget:
		// The token embedding stays in a CPU buffer, outside the wired
		// part but in the same memory.
		p.Fits = FitsVRAM
		need := gpuB + o.GPUMarginBytes
		if float64(need) > float64(m.Host.MemoryBytes)*m.Host.GPUWiredShare {
			p.WiredLimitMB = (need + (1<<20 - 1)) >> 20
		}
	case m.Host.Mac():
		p.Fits = FitsMmap
	case ngl == L+1 && ncmoe == 0 && gpuB <= p.GPUBudget && m.GPUs > 0:
		p.Fits = FitsVRAM
	case hostB <= p.HostBudget:
		p.Fits = FitsOffload
	case pl.hostResident+(hostB-pl.hostW) <= p.HostBudget:
		p.Fits = FitsMmap
	default:
		p.Fits = FitsNo
	}
	if p.Fits == FitsNo {
		p.DecodeReason = "does not fit: the layers kept in host RAM and their cache exceed it even with the experts mapped from disk"
		p.PromptReason = p.DecodeReason
		p.Derivation = fmt.Sprintf("host side %d bytes against %d usable", hostB, p.HostBudget)
		return p, nil
	}
	// Longest context with this placement, per cache type.
	for _, t := range KVTypes {
		p.MaxContext[t.Name] = p.maxContext(q, ngl, ncmoe, t.ValueBytes, o)
	}
	p.speeds(q, pl, ngl, vb, o)
	p.Command = p.command(q, m)
	p.Derivation = p.explain(q, m, o)
	return p, nil
}

// maxContext is the largest multiple of 256 (llama.cpp pads the cache
// to it) up to the model's context at which the placement still fits.
func (p *Plan) maxContext(q Quant, ngl, ncmoe int, vb float64, o Options) int64 {
	top := q.Cache.ContextLength
	if top <= 0 {
		top = 1 << 24
	}
	ok := func(c int64) bool {
		pl := place(q, ngl, ncmoe)
		kg, kh := kvSplit(q, ngl, c, vb)
		if pl.gpuW+kg > p.GPUBudget || p.mac && pl.gpuW+kg+pl.hostW+kh > p.GPUBudget {
			return false
		}
		if p.Fits == FitsOffload && pl.hostW+kh > p.HostBudget {
			return false
		}
		if p.Fits == FitsMmap && pl.hostResident+kh > p.HostBudget {
			return false
		}
		return true
	}
	lo, hi := int64(0), top/256
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if ok(mid * 256) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo * 256
}

func (p *Plan) speeds(q Quant, pl placement, ngl int, vb float64, o Options) {
	s := q.Sizes
	frac := 1.0
	if q.Experts > 0 {
		frac = float64(q.ExpertsUsed) / float64(q.Experts)
	}
	// Bytes read per decoded token on each side: every dense weight,
	// the used share of the experts, the whole cache at Context; the
	// embedding is one row and left out.
	L := len(s.LayerBytes)
	start := max(L+1-ngl, 0)
	var gpuRead, hostRead, hostExperts float64
	for l := 0; l < L; l++ {
		exp, dense := float64(s.LayerExpertBytes[l]), float64(s.LayerBytes[l]-s.LayerExpertBytes[l])
		if l >= start {
			gpuRead += dense
		} else {
			hostRead += dense
		}
		if l >= start && l >= p.NCPUMoE {
			gpuRead += exp * frac
		} else {
			hostRead += exp * frac
			hostExperts += exp
		}
	}
	head := float64(s.OtherBytes - s.EmbeddingBytes)
	if ngl > L {
		gpuRead += head
	} else {
		hostRead += head
	}
	kg, kh := kvSplit(q, ngl, p.Context, vb)
	gpuRead += float64(kg)
	hostRead += float64(kh)
	switch {
	case p.Fits == FitsMmap:
		// A drive's sequential peak would be a number, not a prediction:
		// the misses depend on routing and the page cache, and no
		// llama.cpp mmap run is in calibration.yaml to fit them.
		p.DecodeReason = "the weights RAM cannot hold are paged in from disk as tokens route to them; how much a token misses depends on the routing and the page cache, and no measured llama.cpp run from mmap calibrates it, so the speed is unknown rather than a drive's sequential peak"
	case p.gpuBW == 0 && gpuRead > 0:
		p.DecodeReason = "no GPU bandwidth in the catalog"
	default:
		p.decode(q, gpuRead, hostRead, o)
	}
	// Prompt processing: compute-bound on the GPU; weights in host RAM
	// cross PCIe once per ubatch (llama.cpp offloads the batch's matrix
	// products to the GPU).
	active := float64(s.Params-s.EmbeddingParams-s.ExpertParams) + float64(s.ExpertParams)*frac
	switch {
	case p.Fits == FitsMmap:
		p.PromptReason = p.DecodeReason
	case p.peakFLOPs == 0:
		p.PromptReason = "no published dense FLOP/s for this machine's processor in the catalog"
	default:
		hostW := float64(pl.hostW - s.EmbeddingBytes)
		t := 2 * active / p.peakFLOPs
		if hostW > 0 {
			t += hostW / p.pcieBW / float64(o.Ubatch)
		}
		p.PromptTPS = 1 / t
		p.PromptDerivation = fmt.Sprintf("1 / (2 × %.3g active parameters at %.4g TFLOP/s dense + %.3g GB of host-resident weights over PCIe at %.4g GB/s per %d-token ubatch); peaks, so an upper bound: the prefill pairs in calibration.yaml all ran in VRAM, none crossed PCIe, so no fitted efficiency or error covers this sum",
			active, p.peakFLOPs/1e12, hostW/1e9, p.pcieBW/1e9, o.Ubatch)
	}
}

// decode times one sequence's token with the speed fit: gpuRead bytes on
// the GPU side (a Mac's unified memory, none on a CPU alone) and hostRead
// the CPU multiplies from RAM, plus the layers' fixed cost; without a
// fitted host efficiency the rates are the peaks and the figure a ceiling.
func (p *Plan) decode(q Quant, gpuRead, hostRead float64, o Options) {
	r := sizing.OffloadRatesFor(o.Catalog, p.gpuClass, 1)
	r.GPUBandwidth, r.HostBandwidth = p.gpuBW, p.hostBW
	p.DecodeTPS = 1 / sizing.OffloadDecodeSeconds(gpuRead, hostRead, float64(p.layers), r)
	p.DecodeCalibrated = r.Calibrated
	p.DecodeError = sizing.RegimeErrorFor(o.Catalog, sizing.LocalRegime(p.gpuClass, hostRead), p.gpuClass)
	gpu := "no GPU"
	if gpuRead > 0 {
		gpu = fmt.Sprintf("%.3g GB read on the GPU side at %.4g GB/s × %.2f", gpuRead/1e9, p.gpuBW/1e9, r.GPUEfficiency)
	}
	host := "nothing in host RAM"
	if hostRead > 0 {
		host = fmt.Sprintf("%.3g GB in host RAM at %.4g GB/s × %.2f", hostRead/1e9, p.hostBW/1e9, r.HostEfficiency)
	}
	p.DecodeDerivation = fmt.Sprintf("1 / (%s + %s + %d layers × %.3g µs) per token at %d tokens of context; experts read at %d of %d; %s",
		gpu, host, p.layers, r.LayerSeconds*1e6, p.Context, q.ExpertsUsed, q.Experts, r.How)
	if !r.Calibrated {
		p.DecodeDerivation += "; peak bandwidths, so an upper bound"
		return
	}
	e := p.DecodeError
	p.DecodeDerivation += "; " + e.Regime + " regime: " + e.Text
	if len(e.Hosts) > 0 && hostRead > 0 {
		p.DecodeDerivation += fmt.Sprintf("; its host efficiency was fitted on %s, and this machine's RAM bandwidth is the platform's peak", strings.Join(e.Hosts, "; "))
	}
}

func (p *Plan) command(q Quant, m Machine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "llama-server -m %s", q.File)
	switch {
	case p.NGPULayers > p.layers:
		b.WriteString(" -ngl 99")
	default:
		fmt.Fprintf(&b, " -ngl %d", p.NGPULayers)
	}
	if p.NCPUMoE > 0 && p.NGPULayers > 0 {
		fmt.Fprintf(&b, " --n-cpu-moe %d", p.NCPUMoE)
	}
	fmt.Fprintf(&b, " -c %d", p.Context)
	if p.KVType != "f16" {
		fmt.Fprintf(&b, " -ctk %s -ctv %s", p.KVType, p.KVType)
	}
	b.WriteString(" -fa on")
	return b.String()
}

func (p *Plan) explain(q Quant, m Machine, o Options) string {
	gpu := "no GPU"
	switch {
	case m.Host.Mac():
		gpu = fmt.Sprintf("unified memory %d bytes less %d for the OS and %d margin", m.Host.MemoryBytes, o.HostReserveBytes, o.GPUMarginBytes)
	case m.GPUs > 0:
		gpu = fmt.Sprintf("%d × %s %d bytes less %d margin each", m.GPUs, m.GPU.ID, m.GPU.MemoryBytes, o.GPUMarginBytes)
	}
	state := ""
	if q.Cache.RecurrentLayers > 0 && !q.Cache.StateKnown {
		state = fmt.Sprintf("; the state of %d recurrent layers is not counted: the file gives nothing to size it by", q.Cache.RecurrentLayers)
	}
	if p.mac {
		return fmt.Sprintf("%s: %d bytes wired for the GPU and %d (the token embedding) in a CPU buffer of the same memory, together against %d available (%s); %s cache at %d tokens%s",
			p.Fits, p.GPUBytes, p.HostBytes, p.GPUBudget, gpu, p.KVType, p.Context, state)
	}
	return fmt.Sprintf("%s: %d bytes on the GPU side of %d available (%s); %d bytes in host RAM of %d usable (%d less %d for the OS); %s cache at %d tokens%s",
		p.Fits, p.GPUBytes, p.GPUBudget, gpu, p.HostBytes, max(p.HostBudget, 0), m.Host.MemoryBytes, o.HostReserveBytes, p.KVType, p.Context, state)
}
