package localrun

import (
	"fmt"
	"sort"

	"dossier/generator/deploy"
	"dossier/generator/facts"
)

// Source keys the local facts cite besides the Hub.
const (
	SourceLocal    = "data:local.yaml"
	SourceHardware = "data:hardware.yaml"
	SourceLlamaArg = "llama.cpp:common/arg.cpp@145b628"
)

// Sources names what a quant's header facts were read from: the
// repository listing and the GGUF headers at its commit.
type Sources struct {
	Tree, Headers string // e.g. "hub:tree@1a2b3c4", "hub:gguf@1a2b3c4"
}

// AddQuantFacts adds gguf.<QUANT>.* for one quant.
func AddQuantFacts(s *facts.Set, q Quant, src Sources) {
	p := "gguf." + q.Label + "."
	z := q.Sizes
	both := []string{src.Tree, src.Headers}
	s.Add(facts.Fact{Key: p + "bytes", Value: z.Bytes, Unit: facts.UnitBytes, Sources: []string{src.Tree},
		Derivation: fmt.Sprintf("sum of the %s file sizes in the listing", fileCount(q))})
	s.Add(facts.Fact{Key: p + "tensor_bytes", Value: z.TensorBytes, Unit: facts.UnitBytes, Sources: []string{src.Headers},
		Derivation: "sum over the tensor infos of whole blocks × bytes per block of each tensor's ggml type"})
	s.Add(facts.Fact{Key: p + "params", Value: z.Params, Unit: facts.UnitParams, Sources: []string{src.Headers},
		Derivation: "sum over the tensor infos of the product of their dims"})
	s.Add(facts.Fact{Key: p + "bits_per_weight", Value: z.BitsPerWeight(), Unit: facts.UnitBits, Sources: []string{src.Headers},
		Derivation: fmt.Sprintf("%d tensor bytes × 8 ÷ %d parameters", z.TensorBytes, z.Params)})
	for _, t := range z.Types() {
		c := z.Census[t]
		s.Add(facts.Fact{Key: p + "census." + t, Value: c.Params, Unit: facts.UnitParams, Sources: []string{src.Headers},
			Derivation: fmt.Sprintf("parameters stored as %s: %d bytes, %.1f%% of the tensor bytes", t, c.Bytes, 100*float64(c.Bytes)/float64(max(z.TensorBytes, 1)))})
	}
	full, sliding := q.Cache.FullValues()
	kv := facts.Fact{Key: p + "kv_bytes_per_token", Unit: facts.UnitBytes, Sources: []string{src.Headers}}
	kv.Value = int64(full) * 2
	kv.Derivation = fmt.Sprintf("F16: 2 B × %d values per token (%s)", full, q.Cache.Derivation)
	if sliding > 0 {
		kv.Derivation += fmt.Sprintf("; sliding layers add %d values per token up to %d tokens", sliding, q.Cache.Window)
	}
	if q.Cache.RecurrentLayers > 0 {
		kv.Derivation += fmt.Sprintf("; %d recurrent layers keep a fixed state per sequence instead", q.Cache.RecurrentLayers)
	}
	s.Add(kv)
	if q.Cache.RecurrentLayers > 0 {
		if q.Cache.StateKnown {
			s.Add(facts.Fact{Key: p + "state_bytes_per_sequence", Value: q.Cache.StateBytes(), Unit: facts.UnitBytes, Sources: []string{src.Headers},
				Derivation: fmt.Sprintf("F32 recurrent state of %d layers, independent of context", q.Cache.RecurrentLayers)})
		} else {
			s.Unknown(p+"state_bytes_per_sequence", facts.UnitBytes, fmt.Sprintf("%d recurrent layers, and the file has no ssm.* keys to size their state by", q.Cache.RecurrentLayers))
		}
	}
	addLoaderFacts(s, p, q, src)
	s.Add(facts.Fact{Key: p + "expert_bytes", Value: z.ExpertBytes, Unit: facts.UnitBytes, Sources: []string{src.Headers},
		Derivation: "routed experts: the ffn_*_exps tensors, what --n-cpu-moe moves to host RAM"})
	if z.TensorBytes > 0 {
		s.Add(facts.Fact{Key: p + "expert_share", Value: float64(z.ExpertBytes) / float64(z.TensorBytes), Unit: facts.UnitShare,
			Sources: both, Derivation: fmt.Sprintf("%d expert bytes ÷ %d tensor bytes", z.ExpertBytes, z.TensorBytes)})
	}
}

// addLoaderFacts adds gguf.<QUANT>.architecture and .llamacpp_loads:
// whether llama.cpp's loader knows the file's architecture.
func addLoaderFacts(s *facts.Set, p string, q Quant, src Sources) {
	if q.Arch == "" {
		const why = "the stored quant predates recording general.architecture: syncing the repository again (dossier sync ORG/NAME, or sync --all --gguf) records it"
		s.Unknown(p+"architecture", facts.UnitText, why)
		s.Unknown(p+"llamacpp_loads", facts.UnitBool, why)
		return
	}
	s.Add(facts.Fact{Key: p + "architecture", Value: q.Arch, Unit: facts.UnitText, Sources: []string{src.Headers},
		Derivation: "general.architecture of the first file's header"})
	list, err := deploy.GGUFSupport()
	if err != nil {
		s.Unknown(p+"llamacpp_loads", facts.UnitBool, "llama.cpp's list of architectures is unreadable: "+err.Error())
		return
	}
	loads, why := list.Loads(q.Arch)
	f := facts.Fact{Key: p + "llamacpp_loads", Value: loads, Unit: facts.UnitBool, Sources: []string{src.Headers, "llama.cpp:src/llama-arch.cpp@" + list.Commit[:7]},
		Derivation: fmt.Sprintf("%s is one of the architectures llama.cpp's loader knows (LLM_ARCH_NAMES, src/llama-arch.cpp at %s)", q.Arch, list.Commit[:7])}
	if !loads {
		f.Derivation = why + `: llama.cpp at that commit stops loading the file with "unknown model architecture"`
	}
	s.Add(f)
}

func fileCount(q Quant) string {
	if q.Files == 1 {
		return "one"
	}
	return fmt.Sprint(q.Files)
}

// AddPlanFacts adds local.<QUANT>.<MACHINE>.* for one plan.
func AddPlanFacts(s *facts.Set, p Plan, src Sources) {
	k := "local." + p.Quant + "." + p.Machine + "."
	srcs := []string{src.Headers, SourceLocal, SourceHardware}
	fits := facts.Fact{Key: k + "fits", Value: p.Fits, Unit: facts.UnitText, Sources: srcs, Derivation: p.Derivation}
	if p.Refused != "" {
		fits.Derivation += "; memory only: llama.cpp would not load the file (" + p.Refused + ")"
	}
	s.Add(fits)
	s.Add(facts.Fact{Key: k + "memory_headroom", Value: p.CombinedMemory - p.FileBytes, Unit: facts.UnitBytes, Sources: []string{src.Tree, SourceLocal, SourceHardware},
		Derivation: fmt.Sprintf("VRAM + RAM %d bytes − the quant's files %d bytes: the margin of the rule of thumb \"VRAM + RAM ≥ the quant's size\", which leaves out the OS, the GPU's context and the cache (the plan says %s)", p.CombinedMemory, p.FileBytes, p.Fits)})
	if p.Fits == FitsNo || p.Refused != "" {
		why := "the quant does not fit this machine: " + p.DecodeReason
		if p.Refused != "" {
			why = "llama.cpp would not load the file: " + p.Refused
		}
		for _, f := range []string{"n_gpu_layers", "n_cpu_moe", "max_context", "decode_tokens_per_second", "prompt_tokens_per_second", "command"} {
			s.Unknown(k+f, Ref{Field: f}.Unit(), why)
		}
		return
	}
	s.Add(facts.Fact{Key: k + "n_gpu_layers", Value: int64(p.NGPULayers), Unit: facts.UnitCount, Sources: srcs,
		Derivation: fmt.Sprintf("the last %d of %d layers (and the output head past %d) on the GPU", min(p.NGPULayers, p.layers), p.layers, p.layers)})
	s.Add(facts.Fact{Key: k + "n_cpu_moe", Value: int64(p.NCPUMoE), Unit: facts.UnitCount, Sources: srcs,
		Derivation: "the fewest leading layers whose routed experts must stay in host RAM for the rest to fit the GPU side: " + p.Derivation})
	for _, t := range KVTypes {
		key := k + "max_context"
		if t.Name != "f16" {
			key += "_" + t.Name
		}
		if p.MaxContext[t.Name] == 0 {
			s.Unknown(key, facts.UnitTokens, "no context fits beside the weights this placement keeps in memory"+mmapNote(p))
			continue
		}
		s.Add(facts.Fact{Key: key, Value: p.MaxContext[t.Name], Unit: facts.UnitTokens, Sources: srcs,
			Derivation: fmt.Sprintf("longest context (multiple of 256, at most the model's) whose %s cache (%.4g B per value) still fits with this placement", t.Name, t.ValueBytes)})
	}
	switch {
	case p.DecodeTPS > 0 && p.DecodeCalibrated:
		// A prediction: the speed fit's efficiencies and layer cost, with
		// its regime's error (claims compare within the p90 band).
		f := s.Add(facts.Fact{Key: k + "decode_tokens_per_second", Value: p.DecodeTPS, Unit: facts.UnitTokensPerSec,
			Sources: append(srcs, "catalog:speed_fit.yaml", "catalog:calibration.yaml"), Derivation: p.DecodeDerivation})
		f.Display = "≈ " + f.Display + " (" + p.DecodeError.Text + ")"
		if p.DecodeError.Calibrated {
			f.ErrorP90 = p.DecodeError.P90
		}
	case p.DecodeTPS > 0:
		s.Add(facts.Fact{Key: k + "decode_tokens_per_second", Value: p.DecodeTPS, Unit: facts.UnitTokensPerSec, Sources: srcs, Derivation: p.DecodeDerivation + uncalibrated, Bound: facts.BoundUpper})
	default:
		s.Unknown(k+"decode_tokens_per_second", facts.UnitTokensPerSec, p.DecodeReason)
	}
	if p.PromptTPS > 0 {
		s.Add(facts.Fact{Key: k + "prompt_tokens_per_second", Value: p.PromptTPS, Unit: facts.UnitTokensPerSec, Sources: srcs, Derivation: p.PromptDerivation + uncalibrated, Bound: facts.BoundUpper})
	} else {
		s.Unknown(k+"prompt_tokens_per_second", facts.UnitTokensPerSec, p.PromptReason)
	}
	if ot := OverrideTensor(p.NCPUMoE); ot != "" && p.NGPULayers > 0 {
		s.Add(facts.Fact{Key: k + "override_tensor", Value: ot, Unit: facts.UnitText, Sources: append(srcs, SourceLlamaArg),
			Derivation: fmt.Sprintf("the -ot value equivalent to --n-cpu-moe %d: the routed experts of layers 0 to %d in the CPU buffer", p.NCPUMoE, p.NCPUMoE-1)})
	}
	s.Add(facts.Fact{Key: k + "command", Value: p.Command, Unit: facts.UnitText, Sources: append(srcs, SourceLlamaArg),
		Derivation: "flags as llama.cpp's common/arg.cpp declares them at 145b628"})
	if p.WiredLimitMB > 0 {
		s.Add(facts.Fact{Key: k + "wired_limit_mb", Value: p.WiredLimitMB, Unit: facts.UnitCount, Sources: srcs,
			Derivation: "the GPU side plus the margin in MiB, above macOS's default wired share: sudo sysctl iogpu.wired_limit_mb=" + fmt.Sprint(p.WiredLimitMB)})
	}
}

// uncalibrated is said of a local speed at peak rates (prompt processing,
// and decode without a speed fit): the ceiling carries no error bar and a
// claim below it cannot be confirmed (claims treats it as a bound).
const uncalibrated = "; uncalibrated: no fitted efficiency or error bar covers it"

func mmapNote(p Plan) string {
	if p.Fits == FitsMmap {
		return " (the weights are paged from disk)"
	}
	return ""
}

// AddBestFacts adds, per machine, the smallest quant that fits in VRAM
// (local.smallest_vram.<MACHINE>) and the quant with the most bits per
// weight that runs from RAM and VRAM without disk
// (local.best_offload.<MACHINE>); unknown with a reason when none does.
// Where none runs from RAM and VRAM, the smallest that runs mapped from
// disk (local.smallest_mmap.<MACHINE>): the one a person would still try.
func AddBestFacts(s *facts.Set, quants []Quant, plans []Plan, machines []string) {
	byLabel := map[string]Quant{}
	for _, q := range quants {
		byLabel[q.Label] = q
	}
	for _, m := range machines {
		var vram, off, mmap []Plan
		refused := ""
		for _, p := range plans {
			if p.Machine != m {
				continue
			}
			if p.Refused != "" {
				refused = p.Refused // llama.cpp runs none of its plans
				continue
			}
			switch p.Fits {
			case FitsVRAM:
				vram = append(vram, p)
				off = append(off, p)
			case FitsOffload:
				off = append(off, p)
			case FitsMmap:
				mmap = append(mmap, p)
			}
		}
		sort.Slice(vram, func(i, j int) bool {
			return byLabel[vram[i].Quant].Sizes.TensorBytes < byLabel[vram[j].Quant].Sizes.TensorBytes
		})
		sort.Slice(off, func(i, j int) bool {
			return byLabel[off[i].Quant].Sizes.BitsPerWeight() > byLabel[off[j].Quant].Sizes.BitsPerWeight()
		})
		none := func(why string) string {
			if refused != "" {
				return why + "; llama.cpp would not load some or all of them: " + refused
			}
			return why
		}
		key := "local.smallest_vram." + m
		if len(vram) == 0 {
			s.Unknown(key, facts.UnitText, none("no published quant fits in this machine's VRAM"))
		} else {
			s.Add(facts.Fact{Key: key, Value: vram[0].Quant, Unit: facts.UnitText, Sources: []string{SourceLocal},
				Derivation: fmt.Sprintf("the smallest of %d quants whose plan fits in VRAM", len(vram))})
		}
		key = "local.best_offload." + m
		if len(off) == 0 {
			s.Unknown(key, facts.UnitText, none("no published quant fits this machine's RAM and VRAM together; larger ones run only mapped from disk"))
		} else {
			s.Add(facts.Fact{Key: key, Value: off[0].Quant, Unit: facts.UnitText, Sources: []string{SourceLocal},
				Derivation: fmt.Sprintf("the most bits per weight of %d quants that run from RAM and VRAM", len(off))})
			continue
		}
		sort.Slice(mmap, func(i, j int) bool {
			return byLabel[mmap[i].Quant].Sizes.Bytes < byLabel[mmap[j].Quant].Sizes.Bytes
		})
		if len(mmap) > 0 {
			s.Add(facts.Fact{Key: "local.smallest_mmap." + m, Value: mmap[0].Quant, Unit: facts.UnitText, Sources: []string{SourceLocal},
				Derivation: fmt.Sprintf("none runs from RAM and VRAM; the smallest on disk of %d quants that run with the weights RAM cannot hold mapped from disk", len(mmap))})
		}
	}
}

// Published is a quant's size as a page lists it under variants:.
type Published struct {
	Label  string
	Bytes  int64
	Source string
}

// AddPublishedFacts sets each published size beside the one summed from
// the listing: gguf.<QUANT>.published_bytes and .published_agrees, true
// when the two differ by no more than half the published figure's last
// printed unit (a whole GB for "466 GB"), the rounding it was printed with.
func AddPublishedFacts(s *facts.Set, pubs []Published) {
	for _, p := range pubs {
		k := "gguf." + p.Label + "."
		s.Add(facts.Fact{Key: k + "published_bytes", Value: p.Bytes, Unit: facts.UnitBytes, Sources: []string{p.Source}, Derivation: "as published"})
		got, ok := s.Get(k + "bytes").Int()
		if !ok {
			s.Unknown(k+"published_agrees", facts.UnitBool, "no quant "+p.Label+" in the repository's headers")
			continue
		}
		unit := printedUnit(p.Bytes)
		diff := got - p.Bytes
		s.Add(facts.Fact{Key: k + "published_agrees", Value: 2*abs(diff) <= unit, Unit: facts.UnitBool,
			Sources:    append([]string{p.Source}, s.Get(k+"bytes").Sources...),
			Derivation: fmt.Sprintf("%d bytes summed from the listing − %d published = %d; the published figure is rounded to %d bytes", got, p.Bytes, diff, unit)})
	}
}

// printedUnit is the last unit a round published figure was printed to:
// 466e9 → 1e9, 1509e9 → 1e9, 85.1e9 → 1e8.
func printedUnit(b int64) int64 {
	u := int64(1)
	for b%(u*10) == 0 && u < 1e15 {
		u *= 10
	}
	return u
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
