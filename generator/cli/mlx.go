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
	st, err := mlxStore(repo)
	if err != nil {
		return err
	}
	set, plans, err := mlx.Build(st, machines, speedFit(env.cat), context)
	if err != nil {
		return fmt.Errorf("plan %s: %w", name, err)
	}
	qlabel := st.Label
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

// syncMLX reads an MLX repository's config and headers and keeps its
// sizes and plan inputs in data/hub/ORG/NAME/mlx.json; a store already at
// the answered commit is left unchanged.
func (a *app) syncMLX(ctx context.Context, client *hub.Client, dataDir, model, rev string, opts hub.Options) error {
	repo, err := hub.ReadMLX(ctx, client, model, rev)
	if err != nil {
		return err
	}
	st, err := mlxStore(repo)
	if err != nil {
		return err
	}
	path := mlx.StorePath(dataDir, model)
	if old, err := mlx.LoadStore(path); err == nil && old.Revision == repo.Revision {
		fmt.Fprintf(a.stdout, "%s@%s: unchanged (MLX %s)\n", model, repo.Revision, st.Label)
		return nil
	}
	if opts.DryRun {
		fmt.Fprintf(a.stdout, "%s@%s: would write %s: MLX %s from %d file headers (dry run, nothing written)\n", model, repo.Revision, path, st.Label, len(repo.Files))
		return nil
	}
	if _, err := mlx.WriteStore(dataDir, st); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s@%s: wrote %s: MLX %s from %d file headers\n", model, repo.Revision, path, st.Label, len(repo.Files))
	return nil
}

// mlxStore sizes a read repository and keeps what its plans need.
func mlxStore(repo *hub.MLXRepo) (*mlx.Store, error) {
	fail := func(err error) (*mlx.Store, error) {
		return nil, fmt.Errorf("%s@%s: %w", repo.Model, repo.Revision, err)
	}
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
	var files []mlx.StoredFile
	for _, f := range repo.Files {
		files = append(files, mlx.StoredFile{Path: f.Path, Size: f.Size})
	}
	return mlx.NewStore(repo.Model, repo.Revision, mlx.Label(q), files, sizes, mlx.ModelOf(ar)), nil
}

// speedFit is the catalog's speed fit, nil without one.
func speedFit(cat *catalog.Catalog) *catalog.SpeedFit {
	if cat.Speed == nil {
		return nil
	}
	return cat.Speed.Fit
}
