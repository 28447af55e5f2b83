package mlx

import (
	"fmt"

	"dossier/generator/catalog"
	"dossier/generator/facts"
	"dossier/generator/localrun"
)

// Sources are what an MLX checkpoint's facts are read from.
type Sources struct {
	Tree, Config, Headers string // e.g. "hub:tree@1a2b3c4", "hub:config@1a2b3c4", "hub:safetensors@1a2b3c4"
}

// SourceServer is the flag list the command is checked against.
const SourceServer = "mlx-lm:mlx_lm/server.py@" + ServerCommit

// AddSizeFacts adds mlx.<LABEL>.* for one checkpoint: files, tensor
// bytes, logical parameters, bits per weight, the scales' share, the
// census by kind and the experts.
func AddSizeFacts(set *facts.Set, label string, fileBytes int64, files int, s Sizes, src Sources) {
	k := "mlx." + label + "."
	both := []string{src.Config, src.Headers}
	set.Add(facts.Fact{Key: k + "bytes", Value: fileBytes, Unit: facts.UnitBytes, Sources: []string{src.Tree},
		Derivation: fmt.Sprintf("sum of the %d .safetensors file sizes in the listing", files)})
	set.Add(facts.Fact{Key: k + "tensor_bytes", Value: s.TensorBytes, Unit: facts.UnitBytes, Sources: both,
		Derivation: "every tensor's elements × its dtype's width, packed weights, scales and biases included"})
	set.Add(facts.Fact{Key: k + "params", Value: s.Params, Unit: facts.UnitParams, Sources: both,
		Derivation: fmt.Sprintf("unpacked values of the %d quantized modules (their scales' width × group size per row) plus the elements of the rest; scales and biases are not parameters", s.Quantized)})
	set.Add(facts.Fact{Key: k + "bits_per_weight", Value: s.BitsPerWeight(), Unit: facts.UnitBits, Sources: both,
		Derivation: fmt.Sprintf("%d tensor bytes × 8 ÷ %d parameters, scales and biases included", s.TensorBytes, s.Params)})
	set.Add(facts.Fact{Key: k + "scale_bytes", Value: s.ScaleBytes, Unit: facts.UnitBytes, Sources: both,
		Derivation: "the quantized modules' scales and biases"})
	for _, kind := range s.Kinds() {
		c := s.Census[kind]
		set.Add(facts.Fact{Key: k + "census." + kind, Value: c.Params, Unit: facts.UnitParams, Sources: both,
			Derivation: fmt.Sprintf("parameters stored as %s: %d bytes with their scales, %.1f%% of the tensor bytes", kind, c.Bytes, 100*float64(c.Bytes)/float64(max(s.TensorBytes, 1)))})
	}
	set.Add(facts.Fact{Key: k + "expert_bytes", Value: s.ExpertBytes, Unit: facts.UnitBytes, Sources: both,
		Derivation: "routed experts: the switch_mlp (or experts) tensors with their scales"})
}

// AddPlanFacts adds mlx.<LABEL>.<MACHINE>.* for one Mac plan.
func AddPlanFacts(set *facts.Set, label string, p Plan, src Sources) {
	k := "mlx." + label + "." + p.Machine + "."
	srcs := []string{src.Headers, src.Config, localrun.SourceLocal, localrun.SourceHardware}
	set.Add(facts.Fact{Key: k + "fits", Value: p.Fits, Unit: facts.UnitText, Sources: srcs, Derivation: p.Derivation})
	if p.Fits != "vram" {
		for _, f := range []string{"max_context", "decode_tokens_per_second", "command"} {
			set.Unknown(k+f, localrun.Ref{Field: f}.Unit(), "the checkpoint does not fit this Mac: "+p.Derivation)
		}
		return
	}
	if p.WiredLimitMB > 0 {
		set.Add(facts.Fact{Key: k + "wired_limit_mb", Value: p.WiredLimitMB, Unit: facts.UnitCount, Sources: srcs,
			Derivation: "weights, cache and margin in MiB, above macOS's default wired share: sudo sysctl iogpu.wired_limit_mb=" + fmt.Sprint(p.WiredLimitMB)})
	}
	if p.MaxContext > 0 {
		set.Add(facts.Fact{Key: k + "max_context", Value: p.MaxContext, Unit: facts.UnitTokens, Sources: srcs,
			Derivation: fmt.Sprintf("longest context (multiple of 256, at most the model's) whose cache at %d B a value still fits beside the weights", CacheValueBytes)})
	} else {
		set.Unknown(k+"max_context", facts.UnitTokens, p.DecodeReason)
	}
	if p.DecodeTPS > 0 {
		d := p.DecodeDerivation
		disp := facts.Display(facts.UnitTokensPerSec, p.DecodeTPS)
		if p.ErrorP90 > 0 {
			d += fmt.Sprintf("; error ±%.0f%% typical, ±%.0f%% at the 90th percentile (%s)", 100*p.ErrorP50, 100*p.ErrorP90, p.ErrorBorrowed)
			disp = fmt.Sprintf("≈ %s (±%.0f%%, p90 ±%.0f%%, borrowed from llama.cpp Metal)", disp, 100*p.ErrorP50, 100*p.ErrorP90)
		}
		// ErrorP90: a claim about this speed is compared within the band.
		set.Add(facts.Fact{Key: k + "decode_tokens_per_second", Value: p.DecodeTPS, Display: disp, Unit: facts.UnitTokensPerSec,
			Sources: append(srcs, "catalog:speed_fit.yaml"), Derivation: d, ErrorP90: p.ErrorP90})
	} else {
		set.Unknown(k+"decode_tokens_per_second", facts.UnitTokensPerSec, p.DecodeReason)
	}
	set.Add(facts.Fact{Key: k + "command", Value: p.Command, Unit: facts.UnitText, Sources: append(srcs, SourceServer),
		Derivation: "flags as mlx_lm/server.py declares them at mlx-lm " + ServerCommit + "; mlx_lm.server wires what macOS recommends, which iogpu.wired_limit_mb raises"})
}

// Build plans a stored checkpoint on every Mac at context ctx (32,768
// when 0) and returns its mlx.* facts with the plans.
func Build(st *Store, macs []localrun.Machine, fit *catalog.SpeedFit, ctx int64) (*facts.Set, []Plan, error) {
	if ctx == 0 {
		ctx = 32768
	}
	short := st.Revision[:7]
	src := Sources{Tree: "hub:tree@" + short, Config: "hub:config@" + short, Headers: "hub:safetensors@" + short}
	set := facts.NewSet()
	s := st.SizesOf()
	AddSizeFacts(set, st.Label, st.FileBytes(), len(st.Files), s, src)
	var plans []Plan
	for _, m := range macs {
		p, err := MakeMac(st.Repo, s, st.Model, m, fit, ctx)
		if err != nil {
			return nil, nil, err
		}
		AddPlanFacts(set, st.Label, p, src)
		plans = append(plans, p)
	}
	return set, plans, nil
}
