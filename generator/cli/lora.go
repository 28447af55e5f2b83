package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"dossier/generator/facts"
	"dossier/generator/lora"
	"dossier/generator/modeltree"
)

// loraFlags are lora's command-line settings.
type loraFlags struct {
	config       string
	targets      []string
	rank         int64
	format       string
	offline      bool
	batch        int64
	seqLen       int64
	optimizer    string
	adapterDType string
}

func (a *app) loraCmd() *cobra.Command {
	var lf loraFlags
	cmd := &cobra.Command{
		Use:   "lora (ORG/NAME[@REV] | --config FILE|DIR) --target LIST [flags]",
		Short: "Resolve LoRA target_modules against a model's module tree; size adapters and training memory",
		Long: `lora answers, without weights or Python, what a PEFT LoRA config would
adapt: it builds the model's module tree from config.json (the exact tensor
list the checkpoint stores) and matches --target as PEFT's
check_target_module_exists does: a name matches a module whose full name
equals it or ends with "." + name; "re:EXPR" is PEFT's single-string form,
a regular expression that must match the whole module name; "all-linear" is
every Linear layer but the output head.

It prints the matched nn.Linear modules by layer kind (full_attention,
linear_attention, sliding_attention, moe_experts, shared_experts, dense_mlp,
router, vision, mtp, lm_head, other), each target that matched nothing with
the closest real names, the adapter parameters r·(in + out) per module and
their bytes (FP32, as PEFT keeps adapters; lora_alpha scales the update and
changes neither), and the memory of LoRA and QLoRA training at --batch,
--seq-len and --optimizer, term by term.

Routed experts stored fused as 3-D parameters (gpt-oss, Llama 4) are not
nn.Linear: no target_modules entry reaches them (PEFT's target_parameters
does), and the report says so.

The model is found as plan finds it (site snapshot, user cache, the Hub).
Exit 1 when no target matches any Linear module (PEFT raises then too).`,
		Example: `  dossier lora moonshotai/Kimi-K3 --target q_proj,k_proj,v_proj,o_proj
  dossier lora meta-llama/Llama-3.1-8B --target all-linear --rank 64 --batch 4 --seq-len 4096
  dossier lora --config ./config.json --target 're:.*\.layers\.\d+\.self_attn\.(q|v)_proj' --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runLora(cmd, args, lf)
		},
	}
	f := cmd.Flags()
	f.StringVar(&lf.config, "config", "", "config.json to resolve against, or a directory holding config.json (and hf_quant_config.json)")
	f.StringSliceVar(&lf.targets, "target", nil, "target_modules: names, re:EXPR or all-linear (comma list or repeated)")
	f.Int64Var(&lf.rank, "rank", 16, "LoRA rank r")
	f.StringVar(&lf.format, "format", "text", "output: text or json")
	f.BoolVar(&lf.offline, "offline", false, "make no request: answer from the site snapshot or the user cache")
	f.Int64Var(&lf.batch, "batch", 1, "sequences per step the training memory assumes")
	f.Int64Var(&lf.seqLen, "seq-len", 2048, "tokens per sequence the training memory assumes")
	f.StringVar(&lf.optimizer, "optimizer", string(lora.AdamW), "optimizer whose state is held: adamw, adamw_8bit or sgd")
	f.StringVar(&lf.adapterDType, "adapter-dtype", "fp32", "adapter weight precision: fp32 (PEFT's default autocast) or bf16")
	return cmd
}

// loraDocument is lora --format json.
type loraDocument struct {
	Config    string           `json:"config"`
	Origin    string           `json:"origin"`
	Facts     *facts.Set       `json:"facts"`
	Unmatched []loraUnmatched  `json:"targets_unmatched"`
	Matches   []lora.Match     `json:"matches"`
	PerTarget map[string]int64 `json:"modules_per_target"`
}

type loraUnmatched struct {
	Target  string   `json:"target"`
	Closest []string `json:"closest"`
	Note    string   `json:"note,omitempty"`
}

func (a *app) runLora(cmd *cobra.Command, args []string, lf loraFlags) error {
	if (lf.config == "") == (len(args) == 0) {
		return codeError{2, errors.New("lora needs either ORG/NAME[@REV] or --config FILE (a config.json or a directory holding one)")}
	}
	format := strings.ToLower(lf.format)
	if format != "text" && format != "json" {
		return codeError{2, fmt.Errorf("--format: expected text or json, found %q", lf.format)}
	}
	if len(lf.targets) == 0 {
		return codeError{2, errors.New("--target: give the target_modules to resolve, e.g. --target q_proj,k_proj,v_proj,o_proj")}
	}
	targets, err := lora.ParseTargets(lf.targets)
	if err != nil {
		return codeError{2, fmt.Errorf("--target: %w", err)}
	}
	if lf.rank <= 0 || lf.rank > lora.MaxRank {
		return codeError{2, fmt.Errorf("--rank: expected 1 to %d, found %d", lora.MaxRank, lf.rank)}
	}
	opt, err := lora.ParseOptimizer(lf.optimizer)
	if err != nil {
		return codeError{2, fmt.Errorf("--optimizer: %w", err)}
	}
	adapterBytes := map[string]int64{"fp32": 4, "float32": 4, "bf16": 2, "bfloat16": 2, "fp16": 2, "float16": 2}[strings.ToLower(lf.adapterDType)]
	if adapterBytes == 0 {
		return codeError{2, fmt.Errorf("--adapter-dtype: expected fp32 or bf16, found %q", lf.adapterDType)}
	}
	if lf.batch <= 0 || lf.seqLen <= 0 {
		return codeError{2, fmt.Errorf("--batch %d, --seq-len %d: both must be positive", lf.batch, lf.seqLen)}
	}
	if len(args) == 1 {
		if err := (planFlags{}).checkRefs(args); err != nil {
			return err
		}
	}
	env, err := a.planEnvironment(cmd)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	var t planTarget
	var conf, quant []byte
	if lf.config != "" {
		if conf, quant, _, err = readConfig(lf.config); err != nil {
			return fmt.Errorf("flag --config: %w", err)
		}
		if t, err = configTarget(lf.config); err != nil {
			return err
		}
	} else {
		if t, err = a.refTarget(ctx, env, args[0], planFlags{offline: lf.offline}.offlineBy()); err != nil {
			return err
		}
		conf, quant = t.input.Snapshot.Config, t.input.Snapshot.HFQuantConfig
	}
	inv, err := modeltree.FromConfig(conf, quant)
	if err != nil {
		return fmt.Errorf("%s: module tree: %w", t.name, err)
	}
	res, err := lora.Resolve(inv, t.input.Arch, targets, lf.rank)
	if err != nil {
		return fmt.Errorf("%s: %w", t.name, err)
	}
	sized, err := sizeTarget(env, t)
	if err != nil {
		return err
	}
	set := facts.NewSet()
	ar := t.input.Arch
	mem, memErr := lora.Estimate(res, lora.Shape{Layers: ar.Layers, Hidden: ar.Hidden, Vocab: ar.Vocab},
		lora.Setup{Batch: lf.batch, SeqLen: lf.seqLen, Optimizer: opt, AdapterBytes: adapterBytes})
	fz := lora.Frozen{LoRA: sized.Get("train.lora_frozen_bytes"), QLoRA: sized.Get("train.qlora_frozen_bytes")}
	for _, f := range []*facts.Fact{fz.LoRA, fz.QLoRA} {
		if f != nil {
			set.Add(*f)
		}
	}
	lora.AddFacts(set, res, adapterBytes, mem, fz)
	if memErr != nil {
		set.Unknown("lora.memory.activations_bytes", facts.UnitBytes, memErr.Error())
	}
	doc := loraDocument{Config: t.name, Origin: t.origin, Facts: set, Matches: res.Matches, PerTarget: res.PerTarget,
		Unmatched: []loraUnmatched{}}
	for _, u := range res.Unmatched {
		closest := u.Closest
		if closest == nil {
			closest = []string{}
		}
		doc.Unmatched = append(doc.Unmatched, loraUnmatched{Target: u.Target, Closest: closest, Note: u.Note})
	}
	if format == "json" {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return err
		}
	} else if err := writeLoraText(a.stdout, &doc, res, mem, lf, opt); err != nil {
		return err
	}
	if res.Modules == 0 {
		return fmt.Errorf("%s: no target matches an nn.Linear module (PEFT raises \"Target modules ... not found in the base model\")", t.name)
	}
	return nil
}

func writeLoraText(w io.Writer, doc *loraDocument, res *lora.Resolution, mem *lora.Memory, lf loraFlags, opt lora.Optimizer) error {
	s := doc.Facts
	disp := func(k string) string {
		if f := s.Get(k); f != nil {
			return f.Display
		}
		return "unknown"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nfrom %s\n\n", doc.Config, doc.Origin)
	fmt.Fprintf(&b, "targets %s at r = %d\n", disp("lora.targets"), res.Rank)
	fmt.Fprintf(&b, "matched %s nn.Linear modules\n", disp("lora.modules_matched"))
	for k, rest := range s.Prefixed("lora.modules_matched.") {
		fmt.Fprintf(&b, "  %-18s %s\n", rest, s.Get(k).Display) // "24 of 144"
	}
	if len(doc.Unmatched) == 0 {
		b.WriteString("unmatched targets: none\n")
	}
	for _, u := range doc.Unmatched {
		fmt.Fprintf(&b, "unmatched target %s", u.Target)
		if len(u.Closest) > 0 {
			fmt.Fprintf(&b, ": closest Linear names %s", strings.Join(u.Closest, ", "))
		}
		if u.Note != "" {
			fmt.Fprintf(&b, "; %s", u.Note)
		}
		b.WriteString("\n")
	}
	if f := s.Get("lora.fused_expert_params"); f != nil {
		fmt.Fprintf(&b, "routed experts: %s parameters stored fused, out of target_modules' reach (%s)\n", f.Display, f.Derivation)
	}
	fmt.Fprintf(&b, "\nadapter parameters %s = %s\n", disp("lora.adapter_params"), s.Get("lora.adapter_params").Derivation)
	fmt.Fprintf(&b, "adapter bytes %s (%s)\n", disp("lora.adapter_bytes"), s.Get("lora.adapter_bytes").Derivation)
	if mem != nil {
		fmt.Fprintf(&b, "\ntraining memory at batch %d × %d tokens, %s:\n", lf.batch, lf.seqLen, opt)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, k := range []string{"train.lora_frozen_bytes", "train.qlora_frozen_bytes",
			"lora.memory.adapter_weights_bytes", "lora.memory.gradients_bytes", "lora.memory.optimizer_bytes",
			"lora.memory.activations_bytes", "lora.memory.activations_checkpointed_bytes",
			"lora.memory.lora_bytes", "lora.memory.lora_checkpointed_bytes",
			"lora.memory.qlora_bytes", "lora.memory.qlora_checkpointed_bytes"} {
			fmt.Fprintf(tw, "  %s\t%s\n", k, disp(k))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		b.WriteString("  (each term's derivation: --format json)\n")
	} else if f := s.Get("lora.memory.activations_bytes"); f != nil && f.Reason != "" {
		fmt.Fprintf(&b, "\ntraining memory: unknown (%s)\n", f.Reason)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
