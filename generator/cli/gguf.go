package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"

	"dossier/data"
	"dossier/generator/content"
	"dossier/generator/facts"
	"dossier/generator/hub"
	"dossier/generator/localrun"
	"dossier/generator/planreport"
	"dossier/generator/usercache"
)

// ggufRepoRe recognises a quant repository by its name, as the
// quantizers name them (unsloth/Kimi-K3-GGUF,
// bartowski/Qwen_Qwen3-30B-A3B-GGUF).
var ggufRepoRe = regexp.MustCompile(`(?i)[-_.]gguf$`)

// isGGUFRepo reports whether a plan reference names a GGUF repository.
func isGGUFRepo(ref string) bool {
	model, _, err := hub.ParseRef(ref)
	return err == nil && ggufRepoRe.MatchString(model)
}

// runGGUFPlan reads a GGUF repository's headers from the Hub and plans
// every quant on the machines asked for.
func (a *app) runGGUFPlan(ctx context.Context, env *planEnv, ref, format string, machineIDs []string, context int64, offline bool) error {
	if len(machineIDs) == 0 {
		machineIDs = localrun.DefaultMachines
	}
	// A site's own local.yaml, else the built-in one.
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
	var machines []localrun.Machine
	for _, id := range machineIDs {
		m, err := localrun.ParseMachine(id, hosts, env.cat)
		if err != nil {
			return codeError{2, fmt.Errorf("--machine: %w", err)}
		}
		machines = append(machines, m)
	}
	model, rev, err := hub.ParseRef(ref)
	if err != nil {
		return codeError{2, err}
	}
	qs, sha, origin, err := a.ggufQuants(ctx, env, model, rev, offline)
	if err != nil {
		return err
	}
	short := sha[:7]
	set, plans, err := localrun.Build(qs, localrun.Sources{Tree: "hub:tree@" + short, Headers: "hub:gguf@" + short},
		machines, localrun.Options{Context: context, Catalog: env.cat})
	if err != nil {
		return fmt.Errorf("plan %s@%s: %w", model, sha, err)
	}
	if env.inSite {
		pubs, err := publishedQuants(env, model)
		if err != nil {
			return err
		}
		localrun.AddPublishedFacts(set, pubs)
	}
	name := model + "@" + sha
	if format == "json" {
		return writePlanJSON(a.stdout, []planreport.Model{{Name: name, Origin: origin, Facts: set}})
	}
	return writeGGUFText(a.stdout, name, qs, set, plans, machineIDs)
}

// ggufQuants answers from the site's store when it is at the revision
// asked for (any, when none is), else reads the headers from the Hub
// unless offline.
func (a *app) ggufQuants(ctx context.Context, env *planEnv, model, rev string, offline bool) ([]localrun.Quant, string, string, error) {
	if env.inSite {
		path := localrun.StorePath(env.cfg.Dir(env.cfg.DataDir), model)
		st, err := localrun.LoadStore(path)
		switch {
		case err == nil && (rev == "" || rev == st.Revision):
			var qs []localrun.Quant
			for _, q := range st.Quants {
				qs = append(qs, q.Quant())
			}
			return qs, st.Revision, "the site store " + a.rel(env.cfg, path), nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return nil, "", "", err
		}
	}
	return a.ggufFromCache(ctx, model, rev, offline)
}

// ggufFromCache answers from the user cache
// ($DOSSIER_CACHE/hub/ORG/NAME/SHA.gguf.json) as plan does for
// snapshots: a commit sha needs no request, a branch is resolved (one
// request) unless offline, which uses the commit it last resolved to;
// what the Hub gave is cached.
func (a *app) ggufFromCache(ctx context.Context, model, rev string, offline bool) ([]localrun.Quant, string, string, error) {
	cache, err := usercache.Open(os.Getenv)
	if err != nil {
		return nil, "", "", err
	}
	if rev == "" {
		rev = "main"
	}
	storePath := func(sha string) string {
		p, err := cache.Path(model, sha)
		if err != nil {
			return ""
		}
		return strings.TrimSuffix(p, ".json") + ".gguf.json"
	}
	fromStore := func(sha string) ([]localrun.Quant, bool, error) {
		st, err := localrun.LoadStore(storePath(sha))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		var qs []localrun.Quant
		for _, q := range st.Quants {
			qs = append(qs, q.Quant())
		}
		return qs, true, nil
	}
	sha := ""
	switch {
	case usercache.IsCommit(rev):
		sha = rev
	case offline:
		if sha, err = cache.Ref(model, rev); err != nil {
			return nil, "", "", fmt.Errorf("plan %s@%s --offline: no commit of it is cached in %s and no store synced in a site; run once without --offline", model, rev, cache.Dir)
		}
	}
	if sha != "" {
		qs, ok, err := fromStore(sha)
		if err != nil || ok {
			return qs, sha, "the user cache " + storePath(sha), err
		}
		if offline {
			return nil, "", "", fmt.Errorf("plan %s@%s --offline: not in the user cache %s; run once without --offline", model, sha, cache.Dir)
		}
	}
	client, err := a.hubClient()
	if err != nil {
		return nil, "", "", err
	}
	if sha == "" {
		resolved, err := hub.Resolve(ctx, client, model, rev)
		if err != nil {
			return nil, "", "", fmt.Errorf("plan %w", err)
		}
		sha = resolved.Commit()
		qs, ok, err := fromStore(sha)
		if err != nil || ok {
			a.cacheRef(cache, model, rev, sha)
			return qs, sha, "the user cache " + storePath(sha) + " (" + rev + " resolved to it on " + client.Endpoint() + ")", err
		}
	}
	repo, err := hub.ReadGGUF(ctx, client, model, sha, 16)
	if err != nil {
		return nil, "", "", fmt.Errorf("plan %w", err)
	}
	qs, err := localrun.FromGGUFAll(repo.Quants)
	if err != nil {
		return nil, "", "", fmt.Errorf("plan %s@%s: %w", model, repo.Revision, err)
	}
	origin := "the Hub at " + client.Endpoint()
	if err := localrun.WriteStoreFile(storePath(repo.Revision), localrun.NewStore(model, repo.Revision, qs)); err != nil {
		fmt.Fprintf(a.stderr, "dossier: plan %s: not cached: %v\n", model, err)
	} else {
		origin += ", cached in " + storePath(repo.Revision)
		a.cacheRef(cache, model, rev, repo.Revision)
	}
	return qs, repo.Revision, origin, nil
}

// publishedQuants are the sizes the site's pages publish for repo's
// quants under variants:.
func publishedQuants(env *planEnv, repo string) ([]localrun.Published, error) {
	pages, err := content.Load(env.cfg.Dir(env.cfg.ContentDir))
	if err != nil {
		return nil, err
	}
	var out []localrun.Published
	for _, p := range pages.Models {
		for _, v := range p.Front.Variants {
			if strings.EqualFold(v.Repo, repo) && strings.EqualFold(v.Format, "GGUF") {
				out = append(out, localrun.Published{Label: v.Name, Bytes: int64(v.Bytes), Source: v.Source})
			}
		}
	}
	return out, nil
}

// writeGGUFText prints the quants, then one table per machine: fit,
// placement, context, speed and the command.
func writeGGUFText(w io.Writer, name string, qs []localrun.Quant, s *facts.Set, plans []localrun.Plan, machines []string) error {
	fmt.Fprintf(w, "%s: %d quants\n\n", name, len(qs))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "quant\tsize\tbits/weight\texperts\tKV/token (F16)")
	for _, q := range qs {
		p := "gguf." + q.Label + "."
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", q.Label, s.Get(p+"bytes").Display, strings.TrimSuffix(s.Get(p+"bits_per_weight").Display, " bits/parameter"),
			display(s, p+"expert_share"), s.Get(p+"kv_bytes_per_token").Display)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, m := range machines {
		fmt.Fprintf(w, "\n%s: smallest in VRAM %s, best from RAM and VRAM %s\n", m, display(s, "local.smallest_vram."+m), display(s, "local.best_offload."+m))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "quant\tfits\t-ngl\t--n-cpu-moe\tmax ctx f16/q8_0/q4_0\tdecode\tprompt")
		for _, p := range plans {
			if p.Machine != m {
				continue
			}
			k := "local." + p.Quant + "." + m + "."
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s/%s/%s\t%s\t%s\n", p.Quant, p.Fits, display(s, k+"n_gpu_layers"), display(s, k+"n_cpu_moe"),
				display(s, k+"max_context"), display(s, k+"max_context_q8_0"), display(s, k+"max_context_q4_0"),
				display(s, k+"decode_tokens_per_second"), display(s, k+"prompt_tokens_per_second"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if b := s.Get("local.best_offload." + m); b.Known() {
			fmt.Fprintf(w, "  %s\n", display(s, "local."+b.Value.(string)+"."+m+".command"))
		}
	}
	fmt.Fprintln(w, "\nDecode speeds are predictions timed by the speed fit, with their regime's typical error (ceilings at peak bandwidth where the catalog has no fit); prompt speeds are upper bounds from peak FLOP/s and PCIe; --format json carries every figure with its derivation.")
	return nil
}

func display(s *facts.Set, key string) string {
	if f := s.Get(key); f != nil {
		return f.Display
	}
	return "—"
}

// syncGGUF reads a GGUF repository's headers and keeps its quants'
// figures in data/hub/ORG/NAME/gguf.json; a store already at the
// answered commit is left unchanged.
func (a *app) syncGGUF(ctx context.Context, client *hub.Client, dataDir, model, rev string, opts hub.Options) error {
	repo, err := hub.ReadGGUF(ctx, client, model, rev, opts.Concurrency)
	if err != nil {
		return err
	}
	qs, err := localrun.FromGGUFAll(repo.Quants)
	if err != nil {
		return fmt.Errorf("%s@%s: %w", model, repo.Revision, err)
	}
	files := 0
	for _, q := range qs {
		files += q.Files
	}
	path := localrun.StorePath(dataDir, model)
	if old, err := localrun.LoadStore(path); err == nil && old.Revision == repo.Revision {
		fmt.Fprintf(a.stdout, "%s@%s: unchanged (%d quants)\n", model, repo.Revision, len(qs))
		return nil
	}
	if opts.DryRun {
		fmt.Fprintf(a.stdout, "%s@%s: would write %s: %d quants from %d file headers (dry run, nothing written)\n", model, repo.Revision, path, len(qs), files)
		return nil
	}
	if _, err := localrun.WriteStore(dataDir, localrun.NewStore(model, repo.Revision, qs)); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s@%s: wrote %s: %d quants from %d file headers\n", model, repo.Revision, path, len(qs), files)
	return nil
}

// ggufVariants lists the GGUF and MLX repositories the pages name under
// variants:, each once.
func ggufVariants(pages *content.Site) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range pages.Models {
		for _, v := range p.Front.Variants {
			if v.Repo == "" || !(strings.EqualFold(v.Format, "GGUF") || strings.EqualFold(v.Format, "MLX")) || seen[strings.ToLower(v.Repo)] {
				continue
			}
			seen[strings.ToLower(v.Repo)] = true
			out = append(out, v.Repo)
		}
	}
	return out
}
