// Package deploy turns a model and an accelerator count into what an
// inference engine would actually launch: the engine, its parallelism
// (tensor, pipeline, data, expert), whether the engine accepts it (the
// violated constraint named when not), the launch command, and the longest
// context and the concurrency that fit. It reads the normalized
// architecture and the hardware catalog; the per-GPU memory accounting is
// the sizing stage's, asked through Memory.
package deploy

import (
	"fmt"
	"strings"

	"dossier/generator/arch"
	"dossier/generator/catalog"
)

// Engine is an inference server.
type Engine string

const (
	VLLM     Engine = "vllm"
	SGLang   Engine = "sglang"
	LlamaCpp Engine = "llama.cpp"
	MLX      Engine = "mlx"
)

// Layout is how one engine spreads a model over GPUs. GPUs = TP × PP × DP
// but for expert parallelism, which reuses the ranks of TP × DP.
type Layout struct {
	Accelerator string
	GPUs        int64
	Hosts       int64 // hosts the GPUs sit in
	TP, PP, DP  int64
	EP          int64 // experts split over EP ranks; 0 or 1 for none
	// DPAttention: attention runs data-parallel (each rank whole, with its
	// own sequences) while routed experts split over EP ranks — SGLang's
	// --enable-dp-attention, vLLM's --data-parallel-size with
	// --enable-expert-parallel.
	DPAttention bool
}

// ID is the layout's fact-key label: the total count, "16xB200".
func (l Layout) ID() string { return fmt.Sprintf("%dx%s", l.GPUs, l.Accelerator) }

// String names the parallelism, "TP 4 × DP 2".
func (l Layout) String() string {
	var parts []string
	if l.DPAttention {
		parts = append(parts, fmt.Sprintf("DP-attention %d", l.DP), fmt.Sprintf("EP %d", l.EP))
	} else {
		parts = append(parts, fmt.Sprintf("TP %d", l.TP))
		if l.EP > 1 {
			parts = append(parts, fmt.Sprintf("EP %d", l.EP))
		}
		if l.DP > 1 {
			parts = append(parts, fmt.Sprintf("DP %d", l.DP))
		}
	}
	if l.PP > 1 {
		parts = append(parts, fmt.Sprintf("PP %d", l.PP))
	}
	s := strings.Join(parts, " × ")
	if l.Hosts > 1 {
		s += fmt.Sprintf(" on %d hosts", l.Hosts)
	}
	return s
}

// Describe names the parallelism as the engine runs it: llama.cpp splits
// layers across one host's cards, MLX runs on one machine.
func (c Candidate) Describe() string {
	l := c.Layout
	switch {
	case c.Engine == LlamaCpp && l.PP > 1:
		return fmt.Sprintf("layers split over %d cards", l.PP)
	case c.Engine == LlamaCpp || c.Engine == MLX:
		return "one device"
	}
	return l.String()
}

// AttentionTP is the tensor-parallel degree attention heads split over.
func (l Layout) AttentionTP() int64 {
	if l.DPAttention {
		return 1
	}
	return l.TP
}

// ExpertTP is the tensor-parallel degree each routed expert's matrices
// split over: 1 when experts sit whole on EP ranks.
func (l Layout) ExpertTP() int64 {
	if l.EP > 1 {
		return 1
	}
	return l.TP
}

// Replicas is how many copies of the model serve sequences independently.
func (l Layout) Replicas() int64 {
	if l.DPAttention || l.DP < 1 {
		// One engine: the data-parallel attention ranks share the experts.
		return 1
	}
	return l.DP
}

// GPU is the sizing stage's accounting of the tightest GPU of a layout at
// one cache width.
type GPU struct {
	Budget  int64 // capacity × gpu_memory_utilization − reserve
	Weights int64 // the weights it holds
	// Seq is the cache one sequence of n tokens holds on it; MaxContext
	// the longest one sequence whose cache fits usable bytes (grows false
	// when the cache does not grow with context).
	Seq        func(n int64) int64
	MaxContext func(usable int64) (n int64, grows bool)
	// Sequences is how many sequences one copy of that cache serves: the
	// data-parallel attention ranks each hold their own.
	Sequences int64
}

// Usable is what the cache may take after the weights.
func (g GPU) Usable() int64 { return g.Budget - g.Weights }

// Memory is the per-GPU accounting of the sizing stage.
type Memory interface {
	// OnGPU sizes the tightest GPU of layout l of acc with cache values of
	// kvBytes bytes; an error says why the cache cannot be sized.
	OnGPU(acc *catalog.Accelerator, l Layout, kvBytes int64) (GPU, error)
}

// Violation is one engine constraint a layout breaks.
type Violation struct {
	Constraint string // "attention heads ÷ TP", "FP8 block ÷ sharded dimension", …
	Detail     string
}

func (v Violation) String() string { return v.Constraint + ": " + v.Detail }

// Fit is what fits one layout at one cache width.
type Fit struct {
	KVBytes     int64
	Usable      int64 // per GPU
	MaxContext  int64 // one sequence, capped at the model's context
	Concurrency map[int64]int64
}

// Candidate is one layout an engine could be asked to launch.
type Candidate struct {
	Engine Engine
	Layout Layout
	// Violations are the engine constraints broken; Memory why the model
	// does not fit (weights, or one sequence at MinContext).
	Violations []Violation
	Memory     string
	// Experimental names the tool that would run a layout no verdict
	// chooses (several Macs: exo; consumer rigs across hosts: llama.cpp
	// RPC).
	Experimental string
	Notes        []string
	Fits         []Fit // per cache width asked, primary first
	Command      string
}

// Deployable reports whether the engine accepts the layout and the model
// fits it with at least one sequence of the minimum context.
func (c *Candidate) Deployable() bool {
	return len(c.Violations) == 0 && c.Memory == "" && c.Experimental == "" && len(c.Fits) > 0
}

// Reason says why the candidate is not deployable, the first violated
// constraint first; "" when it is.
func (c *Candidate) Reason() string {
	switch {
	case len(c.Violations) > 0:
		out := make([]string, len(c.Violations))
		for i, v := range c.Violations {
			out[i] = v.String()
		}
		return strings.Join(out, "; ")
	case c.Experimental != "":
		return c.Experimental
	case c.Memory != "":
		return c.Memory
	}
	return ""
}

// Input is one model on one accelerator count.
type Input struct {
	Model string // Hub id
	Arch  *arch.Architecture
	Acc   *catalog.Accelerator
	GPUs  int64
	Mem   Memory
	// KVBytes are the cache widths to size, the primary first.
	KVBytes []int64
	// Contexts are the contexts concurrency is stated at (the model's own
	// maximum is added).
	Contexts []int64
	// MinContext is the sequence a deployable layout must hold at least
	// once.
	MinContext int64
	// Utilization is gpu_memory_utilization (and SGLang's
	// --mem-fraction-static) the commands pass.
	Utilization float64
	// RemoteCode: the checkpoint ships its own modelling code (auto_map).
	RemoteCode bool
	// TPSizes are the tensor-parallel sizes tried (sizing.tensorParallelSizes).
	TPSizes []int64
}

// Plan returns the layouts the engines could launch for in.GPUs of
// in.Acc, in the order they are preferred; Best picks the first
// deployable.
func Plan(in Input) []Candidate {
	cands := layoutsFor(in)
	for i := range cands {
		c := &cands[i]
		c.Violations = append(c.Violations, check(in, c.Engine, c.Layout)...)
		c.Notes = append(c.Notes, notes(in, c.Engine, c.Layout)...)
		if len(c.Violations) == 0 && c.Experimental == "" {
			size(in, c)
		}
		if c.Deployable() {
			c.Command = Command(in, *c)
		}
	}
	return cands
}

// Best is the first deployable candidate.
func Best(cands []Candidate) (Candidate, bool) {
	for _, c := range cands {
		if c.Deployable() {
			return c, true
		}
	}
	return Candidate{}, false
}

// Contexts are the contexts a plan states concurrency at: in.Contexts up
// to the model's context, then the model's context itself.
func Contexts(in Input) []int64 {
	var out []int64
	max := in.Arch.Context
	for _, n := range in.Contexts {
		if max > 0 && n >= max {
			continue
		}
		out = append(out, n)
	}
	if max > 0 {
		out = append(out, max)
	}
	return out
}

// size fills the fits of a candidate the engines accept.
func size(in Input, c *Candidate) {
	minCtx := in.MinContext
	if in.Arch.Context > 0 && in.Arch.Context < minCtx {
		minCtx = in.Arch.Context
	}
	for i, b := range in.KVBytes {
		g, err := in.Mem.OnGPU(in.Acc, c.Layout, b)
		if err != nil {
			if i == 0 {
				c.Memory = "cache not sized: " + err.Error()
				return
			}
			continue
		}
		usable := g.Usable()
		if i == 0 {
			switch {
			case usable <= 0:
				c.Memory = fmt.Sprintf("weights per GPU %s exceed what a GPU offers (%s)", gb(g.Weights), gb(g.Budget))
				return
			case g.Seq(minCtx) > usable:
				c.Memory = fmt.Sprintf("one %s-token sequence (%s per GPU) does not fit the %s left per GPU after %s of weights", count(minCtx), gb(g.Seq(minCtx)), gb(usable), gb(g.Weights))
				return
			}
		}
		f := Fit{KVBytes: b, Usable: usable, Concurrency: map[int64]int64{}}
		mc, grows := g.MaxContext(usable)
		if !grows || (in.Arch.Context > 0 && mc > in.Arch.Context) {
			mc = in.Arch.Context
		}
		f.MaxContext = mc
		seqs := max(g.Sequences, 1) * c.Layout.Replicas()
		for _, n := range Contexts(in) {
			per := g.Seq(n)
			if per <= 0 {
				continue // not bounded by memory
			}
			f.Concurrency[n] = usable / per * seqs
		}
		c.Fits = append(c.Fits, f)
	}
}

func gb(b int64) string { return fmt.Sprintf("%.1f GB", float64(b)/1e9) }

// count prints n with thousands separators.
func count(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "−" + count(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
