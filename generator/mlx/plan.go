package mlx

import (
	"fmt"
	"strings"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/localrun"
)

// ServerCommit is the mlx-lm commit whose mlx_lm/server.py the command's
// flags are checked against (testdata/mlx-lm-server-flags.txt).
const ServerCommit = "ba46244"

// Model is what a plan needs beside the sizes: the cache one token adds,
// the experts a token reads, whether the tokenizer needs remote code.
type Model struct {
	// FullValues and SlidingValues are the K and V values one token adds
	// over the full-attention and the sliding layers; the sliding ones
	// stop growing at Window. CacheReason says why the cache is unknown.
	FullValues    int64  `json:"full_values"`
	SlidingValues int64  `json:"sliding_values"`
	Window        int64  `json:"window"`
	CacheReason   string `json:"cache_reason,omitempty"`
	// Context is the model's longest context (max_position_embeddings).
	Context     int64  `json:"context"`
	Experts     int64  `json:"experts"`
	ExpertsUsed int64  `json:"experts_used"`
	RemoteCode  bool   `json:"remote_code"`
	CacheSource string `json:"cache_source,omitempty"` // the config fields the cache shape is read from
}

// CacheValueBytes is what a cached value takes: mlx-lm keeps keys and
// values in the activations' dtype (BF16 or F16 for these checkpoints).
const CacheValueBytes = 2

// ModelOf reads the plan's inputs from the architecture. Latent
// attention and state-holding layers leave the cache unknown with the
// reason: how mlx-lm caches them depends on its model file, not read
// here.
func ModelOf(a *arch.Architecture) Model {
	m := Model{Context: a.Context, Experts: a.RoutedExperts, ExpertsUsed: a.ActiveExperts, RemoteCode: a.RemoteCode, Window: a.SlidingWindow}
	switch {
	case a.LayerKinds == nil:
		m.CacheReason = "the layer layout is unknown: " + a.Missing["layer_kinds"]
	case a.Attention == arch.MLA:
		m.CacheReason = "latent attention (MLA): whether mlx-lm caches the latent or the expanded heads depends on its model file for this family, which is not read here"
	case a.StateLayers() > 0:
		m.CacheReason = fmt.Sprintf("%d linear or state-space layers keep a state per sequence that is not sized for MLX here", a.StateLayers())
	default:
		full, sliding := a.KVShapeOf(arch.Full).Values(), a.KVShapeOf(arch.Sliding).Values()
		m.FullValues = int64(a.Count(arch.Full)) * full
		m.SlidingValues = int64(a.Count(arch.Sliding)) * sliding
		m.CacheSource = "config.json: " + a.KVShapeOf(arch.Full).Src
	}
	return m
}

// cacheBytes is the cache at ctx tokens.
func (m Model) cacheBytes(ctx int64) int64 {
	s := ctx
	if m.Window > 0 {
		s = min(ctx, m.Window)
	}
	return (m.FullValues*ctx + m.SlidingValues*s) * CacheValueBytes
}

// Plan is how mlx_lm.server runs the checkpoint on one Mac.
type Plan struct {
	Machine string
	// Fits is "vram" when weights and cache fit the memory the GPU may
	// wire (the OS's 8 GiB and a 1 GiB margin apart), else "no": MLX
	// evaluates from wired memory and does not page weights from disk.
	Fits         string
	WiredLimitMB int64 // iogpu.wired_limit_mb needed past the default share; 0 when it holds
	Context      int64 // the context the plan holds a cache for
	MaxContext   int64 // longest context that fits, multiples of 256; 0 with CacheReason
	// DecodeTPS is one sequence's tokens/s: the bytes a token reads at the
	// unified-memory efficiency of the speed fit, with the apple regime's
	// error (ErrorP50, ErrorP90) borrowed from llama.cpp Metal pairs.
	DecodeTPS, ErrorP50, ErrorP90      float64
	DecodeDerivation, DecodeReason     string
	Command, Derivation, ErrorBorrowed string
	Budget, Need                       int64
}

// MakeMac plans sizes s of repo on Mac m at context ctx (capped at the
// model's), with the speed fit's unified-memory efficiency and the apple
// regime's error.
func MakeMac(repo string, s Sizes, md Model, m localrun.Machine, fit *catalog.SpeedFit, ctx int64) (Plan, error) {
	if !m.Host.Mac() {
		return Plan{}, fmt.Errorf("machine %s: mlx_lm runs on a Mac (Apple silicon), not a %s", m.ID, m.Host.Kind)
	}
	if md.Context > 0 {
		ctx = min(ctx, md.Context)
	}
	p := Plan{Machine: m.ID, Context: ctx}
	p.Budget = m.Host.MemoryBytes - localrun.DefaultHostReserveBytes - localrun.DefaultGPUMarginBytes
	cache := int64(0)
	if md.CacheReason == "" {
		cache = md.cacheBytes(ctx)
	}
	p.Need = s.TensorBytes + cache
	if p.Need > p.Budget {
		p.Fits = "no"
		p.DecodeReason = "does not fit: MLX keeps every weight in wired memory"
		p.Derivation = fmt.Sprintf("weights %d bytes + cache %d bytes at %d tokens against %d usable (%d less %d for the OS and %d margin)",
			s.TensorBytes, cache, ctx, p.Budget, m.Host.MemoryBytes, int64(localrun.DefaultHostReserveBytes), int64(localrun.DefaultGPUMarginBytes))
		return p, nil
	}
	p.Fits = "vram"
	wired := p.Need + localrun.DefaultGPUMarginBytes
	if float64(wired) > float64(m.Host.MemoryBytes)*m.Host.GPUWiredShare {
		p.WiredLimitMB = (wired + 1<<20 - 1) >> 20
	}
	if md.CacheReason == "" {
		top := md.Context
		if top <= 0 {
			top = 1 << 24
		}
		lo, hi := int64(0), top/256
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if s.TensorBytes+md.cacheBytes(mid*256) <= p.Budget {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		p.MaxContext = lo * 256
	}
	p.speed(s, md, m, fit, cache)
	p.Command = command(repo, md, cache)
	p.Derivation = fmt.Sprintf("weights %d bytes + cache %d bytes at %d tokens, of %d usable (%d less %d for the OS and %d margin); wired: %d bytes against the default %.0f%% share",
		s.TensorBytes, cache, ctx, p.Budget, m.Host.MemoryBytes, int64(localrun.DefaultHostReserveBytes), int64(localrun.DefaultGPUMarginBytes), wired, 100*m.Host.GPUWiredShare)
	return p, nil
}

func (p *Plan) speed(s Sizes, md Model, m localrun.Machine, fit *catalog.SpeedFit, cache int64) {
	eff := 0.0
	if fit != nil {
		eff = fit.MemoryEfficiency
		for _, c := range fit.Classes {
			if c.Class == "unified" && c.MemoryEfficiency > 0 {
				eff = c.MemoryEfficiency
			}
		}
	}
	if eff <= 0 {
		p.DecodeReason = "no speed fit in the catalog (speed_fit.yaml) to give the unified memory's efficiency"
		return
	}
	if md.CacheReason != "" {
		p.DecodeReason = "the cache a token reads is unknown: " + md.CacheReason
		return
	}
	frac := 1.0
	if md.Experts > 0 && md.ExpertsUsed > 0 {
		frac = float64(md.ExpertsUsed) / float64(md.Experts)
	}
	// A token reads every weight but the embedding (one row) and the
	// experts it is not routed to, then the whole cache.
	read := float64(s.TensorBytes-s.EmbeddingBytes-s.ExpertBytes) + float64(s.ExpertBytes)*frac + float64(cache)
	p.DecodeTPS = m.Host.Bandwidth.Value * eff / read
	p.DecodeDerivation = fmt.Sprintf("%s B/s × %.2f (unified memory's fitted efficiency) ÷ %.4g bytes a token reads (weights less the embedding and the %d of %d experts not routed to, and the cache at %d tokens)",
		trimFloat(m.Host.Bandwidth.Value), eff, read, md.Experts-md.ExpertsUsed, md.Experts, p.Context)
	if re := fit.Regime("apple"); re != nil && re.Pairs > 0 {
		p.ErrorP50, p.ErrorP90 = re.ErrorP50, re.ErrorP90
		p.ErrorBorrowed = fmt.Sprintf("leave-one-out error of the apple regime's %d pairs, llama.cpp Metal runs: borrowed for mlx_lm, which none of them measured", re.Pairs)
	}
}

func trimFloat(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4g", f), "0"), ".")
}

// command is the mlx_lm.server line: the repository, remote code when the
// config maps to code, and the prompt cache capped at the plan's cache.
func command(repo string, md Model, cache int64) string {
	var b strings.Builder
	b.WriteString("mlx_lm.server --model " + repo)
	if md.RemoteCode {
		b.WriteString(" --trust-remote-code")
	}
	if cache > 0 && md.CacheReason == "" {
		fmt.Fprintf(&b, " --prompt-cache-bytes %d", cache)
	}
	return b.String()
}

// Label names a checkpoint by its default quantization: "4bit-g64", or
// "mxfp4-4bit-g32" for a mode other than affine; "bf16" unquantized.
func Label(q *Quantization) string {
	if q == nil {
		return "unquantized"
	}
	l := fmt.Sprintf("%dbit-g%d", q.Default.Bits, q.Default.GroupSize)
	if q.Default.Mode != "affine" {
		l = q.Default.Mode + "-" + l
	}
	return l
}
