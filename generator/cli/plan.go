package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"dossier/data"
	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/facts"
	"dossier/generator/hub"
	ranges "dossier/generator/internal/checked"
	"dossier/generator/internal/jsoncheck"
	"dossier/generator/internal/safefile"
	"dossier/generator/planreport"
	"dossier/generator/sizing"
	"dossier/generator/snapshot"
	"dossier/generator/usercache"
)

// planFlags are plan's command-line settings.
type planFlags struct {
	config      string
	format      string
	asJSON      bool
	all         bool
	offline     bool
	hardware    []string
	context     int64
	concurrency int64
	kvDType     string
	compare     string
	machines    []string // GGUF repositories: local machine classes
}

func (a *app) planCmd() *cobra.Command {
	var pf planFlags
	cmd := &cobra.Command{
		Use:   "plan (ORG/NAME[@REV] | --config FILE|DIR) [flags]",
		Short: "Size a model: parameters, bytes, memory, fit, cost and download time",
		Long: `plan sizes one model and prints the answer: the deployments an engine would
launch (cheapest per million output tokens, fastest single stream, smallest,
best single host, best local machine), each on one line with its engine,
parallelism, KV cache width, longest context, concurrency, speed, $/h and $/M;
a verdict for each layout --hardware names; the download time and the
assumptions; then the launch command of the top choice. --all adds the full
matrix: every fact grouped by parameters, architecture, bytes, memory, fit,
speed and cost, with its derivation.

ORG/NAME[@REV] works from any directory. Inside a site (a directory with
hugo-like.yaml, or --source) the synced snapshot data/hub/ORG/NAME is used
when there is one at that revision. Otherwise plan reads the Hub as sync does
(model info, file listing, config.json, the index and every safetensors
header by HTTP Range; no weights) with the site's catalogs, or outside a site
with the hardware and price catalogs built into the binary. Nothing is
written to the current directory: fetched snapshots are kept in the user
cache ($DOSSIER_CACHE, else the OS cache directory, e.g.
~/.cache/dossier/hub/ORG/NAME/SHA.json). A commit sha is answered from the
cache without a request; a branch (main by default) is resolved to its
commit each time, unless --offline, which uses the commit it last resolved
to.

--config sizes a config.json alone (a directory also picks up
hf_quant_config.json); figures that need the file listing are unknown.

A repository whose name ends in GGUF (unsloth/Kimi-K3-GGUF) is a quant
repository: every quant is sized from its GGUF headers (read by Range, or
from the site's synced store, or the user cache) and planned as llama.cpp
would run it on each --machine (HOST or NxGPU@HOST, from data/local.yaml
and hardware.yaml): fit, -ngl, --n-cpu-moe, longest context, speed and
the command.

A repository of mlx-community is an MLX conversion: it is sized from its
config.json quantization block and its safetensors headers (read by Range)
and planned as mlx_lm.server runs it on each Mac --machine (the default
Macs when none is given): fit in wired memory, the iogpu.wired_limit_mb it
needs, longest context, speed and the command.

Environment: HF_ENDPOINT, HF_TOKEN or HUGGING_FACE_HUB_TOKEN or
$HF_HOME/token, as for sync; DOSSIER_CACHE; DOSSIER_SIZING_* for the
assumptions the flags do not set.`,
		Example: `  dossier plan meta-llama/Llama-3.1-8B
  dossier plan moonshotai/Kimi-K3 --hardware 8xB200,8xB300 --context 32768 --concurrency 4
  dossier plan Qwen/Qwen3-30B-A3B --compare Qwen/Qwen3-30B-A3B-FP8 --format markdown
  dossier plan --config ./config.json --json
  dossier plan unsloth/Kimi-K3-GGUF --machine 1xRTX4090@Desktop128,M3Ultra512
  dossier plan mlx-community/Qwen3-30B-A3B-4bit --machine M4Max128`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runPlan(cmd, args, pf)
		},
	}
	// A flag that does not parse ("--context 8k") is a usage error too.
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return codeError{2, err} })
	f := cmd.Flags()
	f.StringVar(&pf.config, "config", "", "config.json to size, or a directory holding config.json (and hf_quant_config.json)")
	f.StringVar(&pf.format, "format", "text", "output: text, markdown or json (the facts document)")
	f.BoolVar(&pf.asJSON, "json", false, "same as --format json")
	f.BoolVar(&pf.all, "all", false, "print the full matrix: every fact with its derivation or reason")
	f.BoolVar(&pf.offline, "offline", false, "make no request: answer from the site snapshot or the user cache")
	f.StringSliceVar(&pf.hardware, "hardware", nil, "layouts to give a fit verdict for, COUNTxACCELERATOR (repeatable or comma list: 8xH200,4xB200)")
	f.Int64Var(&pf.context, "context", 0, "tokens per sequence the serving verdict assumes (default: the site's sizing.servingContext)")
	f.Int64Var(&pf.concurrency, "concurrency", 0, "sequences served at once in the serving verdict (default: the site's sizing.concurrency)")
	f.StringVar(&pf.kvDType, "kv-dtype", "", "KV cache precision: bf16, fp16, fp8, int8 or fp32 (default: the site's sizing.kvDtypeBytes)")
	f.StringVar(&pf.compare, "compare", "", "a second ORG/NAME[@REV] to print side by side")
	f.StringSliceVar(&pf.machines, "machine", nil, "for a GGUF or MLX repository: local machines to plan for, HOST or NxGPU@HOST (1xRTX4090@Desktop128; default: a set of desktops, workstations, servers and Macs; for MLX, its Macs)")
	return cmd
}

// planEnv is what sizing reads besides the model: the configuration and
// catalogs of the site plan runs in, or the built-in ones.
type planEnv struct {
	cfg    *config.Site
	cat    *catalog.Catalog
	inSite bool
	// catalogLabel names where the catalogs came from, for the report.
	catalogLabel string
}

// planTarget is one model to size and where its inputs came from.
type planTarget struct {
	name    string // "org/name@sha", or the config.json path
	origin  string
	input   sizing.Input
	tensors []arch.TensorShape // local safetensors headers beside config.json, if any
}

func (a *app) runPlan(cmd *cobra.Command, args []string, pf planFlags) error {
	format, err := pf.outputFormat(cmd)
	if err != nil {
		return err
	}
	if (pf.config == "") == (len(args) == 0) {
		return codeError{2, errors.New("plan needs either ORG/NAME[@REV] or --config FILE (a config.json or a directory holding one)")}
	}
	if err := pf.checkRefs(args); err != nil {
		return err
	}
	env, err := a.planEnvironment(cmd)
	if err != nil {
		return err
	}
	if err := pf.apply(env, cmd.Flags().Changed); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	if len(args) == 1 && isGGUFRepo(args[0]) {
		if pf.compare != "" {
			return codeError{2, errors.New("--compare does not apply to a GGUF repository")}
		}
		return a.runGGUFPlan(ctx, env, args[0], format, pf.machines, pf.context, pf.offline)
	}
	if len(args) == 1 && isMLXRepo(args[0]) {
		if pf.compare != "" {
			return codeError{2, errors.New("--compare does not apply to an MLX repository")}
		}
		return a.runMLXPlan(ctx, env, args[0], format, pf.machines, pf.context)
	}

	var targets []planTarget
	if pf.config != "" {
		t, err := configTarget(pf.config)
		if err != nil {
			return err
		}
		targets = append(targets, t)
	} else {
		t, err := a.refTarget(ctx, env, args[0], pf.offlineBy())
		if err != nil {
			return err
		}
		targets = append(targets, t)
	}
	if pf.compare != "" {
		t, err := a.refTarget(ctx, env, pf.compare, pf.offlineBy())
		if err != nil {
			return err
		}
		targets = append(targets, t)
	}
	models := make([]planreport.Model, len(targets))
	for i, t := range targets {
		set, err := sizeTarget(env, t)
		if err != nil {
			return err
		}
		models[i] = planreport.Model{Name: t.name, Origin: t.origin, Facts: set}
	}
	rep := &planreport.Report{
		Models:       models,
		Hardware:     env.cfg.Hardware,
		Accelerators: acceleratorIDs(env.cat),
		MemoryBytes:  acceleratorMemory(env.cat),
		Inputs:       catalogDates(env),
		All:          pf.all,
		Asked:        asked(pf.hardware),
	}
	// The report is printed whole before any verdict on the sizing (an
	// exit status for what could not be derived) is returned.
	if err := writePlan(a.stdout, format, rep); err != nil {
		return err
	}
	for _, m := range models {
		if err := sizing.Underived(m.Facts); err != nil {
			return codeError{3, fmt.Errorf("%s: %w", m.Name, err)}
		}
	}
	return nil
}

// asked lists the layouts --hardware named (each flag value may be a comma
// list), in the order given.
func asked(hw []string) []string {
	var out []string
	for _, h := range hw {
		for _, p := range strings.Split(h, ",") {
			if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func writePlan(w io.Writer, format string, rep *planreport.Report) error {
	switch format {
	case "json":
		return writePlanJSON(w, rep.Models)
	case "markdown":
		return planreport.Markdown(w, rep)
	}
	return planreport.Text(w, rep)
}

// outputFormat reads --format and its alias --json.
func (pf planFlags) outputFormat(cmd *cobra.Command) (string, error) {
	f := strings.ToLower(pf.format)
	switch f {
	case "text", "markdown", "json":
	case "md":
		f = "markdown"
	default:
		return "", codeError{2, fmt.Errorf("--format: expected text, markdown or json, found %q", pf.format)}
	}
	if pf.asJSON {
		if cmd.Flags().Changed("format") && f != "json" {
			return "", codeError{2, fmt.Errorf("--json and --format %s disagree: give one of them", pf.format)}
		}
		f = "json"
	}
	return f, nil
}

// checkRefs validates the Hub ids before anything is read.
func (pf planFlags) checkRefs(args []string) error {
	refs := map[string]string{"--compare": pf.compare}
	if len(args) == 1 {
		refs["ORG/NAME"] = args[0]
	}
	for what, ref := range refs {
		if ref == "" {
			continue
		}
		if _, _, err := hub.ParseRef(ref); err != nil {
			return codeError{2, fmt.Errorf("%s: %w", what, err)}
		}
	}
	return nil
}

// kvDTypeBytes maps the precisions a KV cache is served in to bytes per
// value (vLLM's --kv-cache-dtype names among them).
var kvDTypeBytes = map[string]int64{
	"bf16": 2, "bfloat16": 2, "fp16": 2, "float16": 2, "half": 2,
	"fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "int8": 1,
	"fp32": 4, "float32": 4,
}

// apply sets the sizing assumptions the flags give, each checked with an
// error naming the flag.
func (pf planFlags) apply(env *planEnv, changed func(flag string) bool) error {
	sz := &env.cfg.Sizing
	if changed("context") {
		if pf.context < 1 || pf.context > ranges.MaxContext {
			return codeError{2, fmt.Errorf("--context: %s", ranges.Range(1, int64(ranges.MaxContext), "tokens", pf.context))}
		}
		sz.ServingContext = pf.context
		if !slices.Contains(sz.Contexts, pf.context) {
			sz.Contexts = append(slices.Clone(sz.Contexts), pf.context)
			slices.Sort(sz.Contexts)
		}
	}
	if changed("concurrency") {
		if pf.concurrency < 1 || pf.concurrency > ranges.MaxConcurrency {
			return codeError{2, fmt.Errorf("--concurrency: %s", ranges.Range(1, int64(ranges.MaxConcurrency), "sequences", pf.concurrency))}
		}
		sz.Concurrency = pf.concurrency
	}
	if pf.kvDType != "" {
		b, ok := kvDTypeBytes[strings.ToLower(pf.kvDType)]
		if !ok {
			return codeError{2, fmt.Errorf("--kv-dtype: unknown precision %q; expected one of %s", pf.kvDType, strings.Join(sortedNames(kvDTypeBytes), ", "))}
		}
		sz.KVDTypeBytes = b
	}
	if len(pf.hardware) > 0 {
		var hw []string
		for _, h := range pf.hardware {
			h = strings.TrimSpace(h)
			n, id, ok := config.ParseHardware(h)
			if !ok {
				return codeError{2, fmt.Errorf("--hardware: expected COUNTxACCELERATOR such as 8xH200 with COUNT from 1 to %d, found %q", ranges.MaxGPUs, h)}
			}
			if env.cat.Accelerators[id] == nil {
				return codeError{2, fmt.Errorf("--hardware %s: accelerator %q is not in the hardware catalog (%s); known: %s",
					h, id, env.catalogLabel, strings.Join(acceleratorIDs(env.cat), ", "))}
			}
			if h = fmt.Sprintf("%dx%s", n, id); !slices.Contains(hw, h) {
				hw = append(hw, h)
			}
		}
		env.cfg.Hardware = hw
	}
	return nil
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// planEnvironment loads the site at --source when there is one; otherwise
// the built-in settings and catalogs. An explicit --source that holds no
// site is an error, as for every other command.
func (a *app) planEnvironment(cmd *cobra.Command) (*planEnv, error) {
	_, err := os.Stat(filepath.Join(a.source, config.FileName))
	if err == nil || cmd.Flags().Changed("source") {
		cfg, err := a.loadConfig(cmd, nil)
		if err != nil {
			return nil, err
		}
		dataDir := cfg.Dir(cfg.DataDir)
		cat, err := catalog.LoadSizing(dataDir)
		if err != nil {
			return nil, err
		}
		return &planEnv{cfg: cfg, cat: cat, inSite: true, catalogLabel: a.rel(cfg, dataDir)}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("site configuration: %w", err)
	}
	cfg, err := config.Builtin(cmd.Flags(), nil)
	if err != nil {
		return nil, err
	}
	cat, err := catalog.LoadFS(data.Catalogs, data.Label)
	if err != nil {
		return nil, err
	}
	// Without a site, one full node of every accelerator gets a verdict.
	for _, id := range acceleratorIDs(cat) {
		cfg.Hardware = append(cfg.Hardware, fmt.Sprintf("%dx%s", cat.Accelerators[id].GPUsPerNode, id))
	}
	return &planEnv{cfg: cfg, cat: cat, catalogLabel: data.Label}, nil
}

func acceleratorIDs(cat *catalog.Catalog) []string {
	return sortedNames(cat.Accelerators)
}

func acceleratorMemory(cat *catalog.Catalog) map[string]int64 {
	m := make(map[string]int64, len(cat.Accelerators))
	for id, acc := range cat.Accelerators {
		m[id] = acc.MemoryBytes
	}
	return m
}

// catalogDates says which catalogs sized the model and how old they are.
func catalogDates(env *planEnv) []string {
	var hwDates []string
	for _, id := range acceleratorIDs(env.cat) {
		if d := env.cat.Accelerators[id].AsOf; !slices.Contains(hwDates, d) {
			hwDates = append(hwDates, d)
		}
	}
	sort.Strings(hwDates)
	hw := "hardware: " + filepath.ToSlash(filepath.Join(env.catalogLabel, "hardware.yaml"))
	if n := len(hwDates); n > 0 {
		hw += ", as of " + hwDates[0]
		if n > 1 {
			hw += " to " + hwDates[n-1]
		}
	}
	out := []string{hw}
	if len(env.cat.PriceLists) == 0 {
		return append(out, "prices: none in "+filepath.ToSlash(filepath.Join(env.catalogLabel, "pricing")))
	}
	var prices []string
	for _, pl := range env.cat.PriceLists {
		prices = append(prices, pl.Provider+" as of "+pl.AsOf)
	}
	return append(out, "prices: "+strings.Join(prices, ", "))
}

// configTarget reads a bare config.json.
func configTarget(path string) (planTarget, error) {
	conf, quant, name, err := readConfig(path)
	if err != nil {
		return planTarget{}, fmt.Errorf("flag --config: %w", err)
	}
	t := planTarget{name: name, origin: "config.json alone (no file listing)", input: sizing.Input{Model: name}}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		ts, shards, err := localTensors(path)
		if err != nil {
			return planTarget{}, fmt.Errorf("flag --config: %w", err)
		}
		if shards > 0 {
			t.tensors = ts
			t.origin = fmt.Sprintf("config.json and the safetensors headers of %d local shard(s) (no file listing)", shards)
		}
	}
	return t.withConfig(conf, quant, name)
}

func (t planTarget) withConfig(conf, quant []byte, where string) (planTarget, error) {
	ar, err := arch.ParseWithTensors(conf, quant, t.tensors)
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// The parser's byte offset is into config.json or, after
			// its name in the message, hf_quant_config.json.
			in := conf
			if strings.HasPrefix(err.Error(), "hf_quant_config.json") {
				in = quant
			}
			return t, fmt.Errorf("%s: line %d: %w", where, jsoncheck.LineAt(in, se.Offset), err)
		}
		return t, fmt.Errorf("%s: %w", where, err)
	}
	an, anErr := sizing.AnalyticOf(conf, quant)
	t.input.Arch, t.input.Analytic, t.input.AnalyticErr = ar, an, anErr
	return t, nil
}

// refTarget finds the snapshot of ORG/NAME[@REV]: the site's when it is
// at that revision, else the user cache or the Hub.
func (a *app) refTarget(ctx context.Context, env *planEnv, ref string, offline string) (planTarget, error) {
	model, rev, err := hub.ParseRef(ref)
	if err != nil {
		return planTarget{}, codeError{2, err}
	}
	if env.inSite {
		path := snapshot.Path(env.cfg.Dir(env.cfg.DataDir), model)
		snap, err := snapshot.Load(path)
		switch {
		case err == nil && (rev == "" || rev == snap.Revision):
			return snapshotTarget(model, snap, "the site snapshot "+a.rel(env.cfg, path), path)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return planTarget{}, err
		}
	}
	snap, origin, err := a.hubSnapshot(ctx, model, rev, offline)
	if err != nil {
		return planTarget{}, err
	}
	return snapshotTarget(model, snap, origin, "")
}

func snapshotTarget(model string, snap *snapshot.Snapshot, origin, path string) (planTarget, error) {
	name := model + "@" + snap.Revision
	if snap.Revision == "" {
		name = model + " (commit not recorded)"
	}
	t := planTarget{name: name, origin: origin, input: sizing.Input{Model: model, Snapshot: snap}}
	where := name
	if path != "" {
		where = path
	}
	shapes, err := arch.SnapshotShapes(snap)
	if err != nil {
		return planTarget{}, fmt.Errorf("%s: %w", where, err)
	}
	t.tensors = shapes
	return t.withConfig(snap.Config, snap.HFQuantConfig, where+": field config")
}

// hubSnapshot answers from the user cache when it can and from the Hub
// otherwise, caching what it fetched. A commit sha needs no request; a
// branch or tag is resolved each time unless offline.
func (a *app) hubSnapshot(ctx context.Context, model, rev string, offline string) (*snapshot.Snapshot, string, error) {
	cache, err := usercache.Open(os.Getenv)
	if err != nil {
		return nil, "", err
	}
	if rev == "" {
		rev = "main"
	}
	ref := model + "@" + rev
	sha := ""
	if usercache.IsCommit(rev) {
		sha = rev
	} else if offline != "" {
		if sha, err = cache.Ref(model, rev); err != nil {
			if errors.Is(err, usercache.ErrNoRef) {
				return nil, "", fmt.Errorf("plan %s: no commit of %s is cached in %s; run once without %s, or pin a cached commit with @SHA", offlineRef(ref, offline), rev, cache.Dir, offline)
			}
			return nil, "", err
		}
	}
	if sha != "" {
		snap, err := cache.Snapshot(model, sha)
		if err == nil {
			return snap, "the user cache " + cacheName(cache, model, sha), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, "", err
		}
		if offline != "" {
			return nil, "", fmt.Errorf("plan %s: %s@%s is not in the user cache %s; run once without %s", offlineRef(ref, offline), model, sha, cache.Dir, offline)
		}
	}
	client, err := a.hubClient()
	if err != nil {
		return nil, "", err
	}
	resolved, err := hub.Resolve(ctx, client, model, rev)
	if err != nil {
		return nil, "", planHubError(err)
	}
	if sha == "" {
		sha = resolved.Commit()
		if snap, err := cache.Snapshot(model, sha); err == nil {
			a.cacheRef(cache, model, rev, sha)
			return snap, "the user cache " + cacheName(cache, model, sha) + " (" + rev + " resolved to it on " + client.Endpoint() + ")", nil
		}
	}
	res, err := hub.Fetch(ctx, client, resolved, hub.Options{Progress: a.progress(), KeepShapes: arch.ShapesWanted})
	if err != nil {
		return nil, "", planHubError(err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(a.stderr, "dossier: plan %s: warning: %s\n", ref, w)
	}
	origin := "the Hub at " + client.Endpoint()
	if err := cache.Put(res.Snapshot, rev); err != nil {
		// The report does not depend on the cache; say why the next
		// run will fetch again.
		fmt.Fprintf(a.stderr, "dossier: plan %s: not cached: %v\n", ref, err)
	} else {
		origin += ", cached in " + cacheName(cache, model, sha)
	}
	return res.Snapshot, origin, nil
}

// planHubError is a failed Hub request; one that never reached the Hub
// says how plan answers without it.
func planHubError(err error) error {
	if errors.Is(err, hub.ErrUnreachable) {
		return fmt.Errorf("plan %w; without the network, plan answers from the user cache (--offline) or from a config.json (--config FILE)", err)
	}
	return fmt.Errorf("plan %w", err)
}

// offlineRef is ref with what made plan offline: "a/b@main --offline",
// "a/b@main (HF_HUB_OFFLINE=1)".
func offlineRef(ref, offline string) string {
	if offline == "--offline" {
		return ref + " " + offline
	}
	return ref + " (" + offline + ")"
}

// offlineBy says what makes plan answer without the network: the
// --offline flag, the variable setting huggingface_hub's offline mode
// (HF_HUB_OFFLINE=1), or nothing ("").
func (pf planFlags) offlineBy() string {
	if pf.offline {
		return "--offline"
	}
	return hub.OfflineFromEnv(os.Getenv)
}

func (a *app) cacheRef(cache *usercache.Cache, model, rev, sha string) {
	if rev == sha {
		return
	}
	if err := cache.SetRef(model, rev, sha); err != nil {
		fmt.Fprintf(a.stderr, "dossier: plan %s@%s: %v\n", model, rev, err)
	}
}

func cacheName(c *usercache.Cache, model, sha string) string {
	p, err := c.Path(model, sha)
	if err != nil {
		return c.Dir
	}
	return p
}

// sizeTarget computes one model's facts with the environment's
// assumptions. Errors that say the model cannot be sized return here, so
// a typed sizing error can map to its own exit status in one place.
func sizeTarget(env *planEnv, t planTarget) (*facts.Set, error) {
	in := t.input
	in.Sizing, in.Hardware, in.Catalog = env.cfg.Sizing, env.cfg.Hardware, env.cat
	set, err := sizing.Derive(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	return set, nil
}

// readConfig reads a config.json, or config.json and hf_quant_config.json
// from a directory.
func readConfig(path string) (conf, quant []byte, name string, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, "", fmt.Errorf("read config: %w", err)
	}
	name = path
	if st.IsDir() {
		name = filepath.Join(path, "config.json")
		q, err := safefile.Read(filepath.Join(path, "hf_quant_config.json"), "", safefile.Config)
		if err == nil {
			quant = q
		} else if !os.IsNotExist(err) {
			return nil, nil, "", fmt.Errorf("read hf_quant_config.json: %w", err)
		}
	}
	conf, err = safefile.Read(name, "", safefile.Config)
	if err != nil {
		return nil, nil, "", fmt.Errorf("read config: %w", err)
	}
	return conf, quant, name, nil
}

// planDocument is one model's facts document as plan --json prints it.
type planDocument struct {
	Config string     `json:"config"` // the model@commit or config.json path sized
	Origin string     `json:"origin"` // where the inputs came from
	Facts  *facts.Set `json:"facts"`
}

// writePlanJSON prints one facts document, or with --compare
// {"models": [document, document]}.
func writePlanJSON(w io.Writer, models []planreport.Model) error {
	docs := make([]planDocument, len(models))
	for i, m := range models {
		docs[i] = planDocument{Config: m.Name, Origin: m.Origin, Facts: m.Facts}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if len(docs) == 1 {
		return enc.Encode(docs[0])
	}
	return enc.Encode(struct {
		Models []planDocument `json:"models"`
	}{docs})
}
