package cli

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"dossier/data"
	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/facts"
	"dossier/generator/hub"
	"dossier/generator/localrun"
	"dossier/generator/mlx"
	"dossier/generator/planreport"
)

// isMLXRepo reports whether a plan reference names an mlx-community
// conversion.
func isMLXRepo(ref string) bool {
	model, _, err := hub.ParseRef(ref)
	return err == nil && strings.EqualFold(strings.SplitN(model, "/", 2)[0], "mlx-community")
}

// runMLXPlan reads an MLX checkpoint's config and safetensors headers from
// the Hub, sizes it, and plans mlx_lm.server on each Mac asked for (the
// Macs of the default machine classes when none is).
func (a *app) runMLXPlan(ctx context.Context, env *planEnv, ref, format string, machineIDs []string, context int64) error {
	var fsys fs.FS = data.Catalogs
	label := data.Label
	if env.inSite {
		dir := env.cfg.Dir(env.cfg.DataDir)
		if _, err := os.Stat(filepath.Join(dir, localrun.LocalFile)); err == nil {
			label, fsys = dir, os.DirFS(dir)
		}
	}
	hosts, err := localrun.LoadHosts(fsys, label, env.cat)
	if err != nil {
		return err
	}
	if len(machineIDs) == 0 {
		for _, id := range localrun.DefaultMachines {
			if h := hosts.ByID[id]; h != nil && h.Mac() {
				machineIDs = append(machineIDs, id)
			}
		}
	}
	var machines []localrun.Machine
	for _, id := range machineIDs {
		m, err := localrun.ParseMachine(id, hosts, env.cat)
		if err != nil {
			return codeError{2, fmt.Errorf("--machine: %w", err)}
		}
		if !m.Host.Mac() {
			return codeError{2, fmt.Errorf("--machine: %s is not a Mac; an MLX checkpoint runs on Apple silicon", id)}
		}
		machines = append(machines, m)
	}
	model, rev, err := hub.ParseRef(ref)
	if err != nil {
		return codeError{2, err}
	}
	client, err := a.hubClient()
	if err != nil {
		return err
	}
	repo, err := hub.ReadMLX(ctx, client, model, rev)
	if err != nil {
		return err
	}
	name := model + "@" + repo.Revision
	fail := func(err error) error { return fmt.Errorf("plan %s: %w", name, err) }
	q, err := mlx.ParseConfig(repo.Config)
	if err != nil {
		return fail(err)
	}
	sizes, err := mlx.Size(q, repo.Tensors)
	if err != nil {
		return fail(err)
	}
	ar, err := arch.Parse(repo.Config, nil)
	if err != nil {
		return fail(fmt.Errorf("config.json: %w", err))
	}
	md := mlx.ModelOf(ar)
	short := repo.Revision[:7]
	src := mlx.Sources{Tree: "hub:tree@" + short, Config: "hub:config@" + short, Headers: "hub:safetensors@" + short}
	var fileBytes int64
	for _, f := range repo.Files {
		fileBytes += f.Size
	}
	qlabel := mlx.Label(q)
	set := facts.NewSet()
	mlx.AddSizeFacts(set, qlabel, fileBytes, len(repo.Files), sizes, src)
	if context == 0 {
		context = 32768
	}
	var fit *catalog.SpeedFit
	if env.cat.Speed != nil {
		fit = env.cat.Speed.Fit
	}
	var plans []mlx.Plan
	for _, m := range machines {
		p, err := mlx.MakeMac(model, sizes, md, m, fit, context)
		if err != nil {
			return fail(err)
		}
		mlx.AddPlanFacts(set, qlabel, p, src)
		plans = append(plans, p)
	}
	if format == "json" {
		return writePlanJSON(a.stdout, []planreport.Model{{Name: name, Origin: "hub", Facts: set}})
	}
	return writeMLXText(a.stdout, name, qlabel, set, plans)
}

// writeMLXText prints the checkpoint's sizes, then one line per Mac.
func writeMLXText(w io.Writer, name, label string, s *facts.Set, plans []mlx.Plan) error {
	k := "mlx." + label + "."
	fmt.Fprintf(w, "%s (%s): %s on disk, %s parameters, %s\n", name, label, display(s, k+"bytes"), display(s, k+"params"), display(s, k+"bits_per_weight"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Mac\tfits\twired limit (MiB)\tmax context\tdecode\tcommand")
	for _, p := range plans {
		m := k + p.Machine + "."
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Machine, p.Fits, display(s, m+"wired_limit_mb"), display(s, m+"max_context"), display(s, m+"decode_tokens_per_second"), display(s, m+"command"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\n--format json carries every figure with its derivation.")
	return nil
}
