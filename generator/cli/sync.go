package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"

	"dossier/generator/arch"
	"dossier/generator/config"
	"dossier/generator/content"
	"dossier/generator/hub"
	"dossier/generator/scaffold"
)

func (a *app) syncCmd() *cobra.Command {
	var all, dryRun, watch, withGGUF bool
	var concurrency, limit int
	var shardFlag string
	var budget int64
	cmd := &cobra.Command{
		Use:   "sync [org/name[@revision]]... [--all] [--new [--limit N]] [--dry-run]",
		Short: "Read Hub metadata and safetensors headers into data/hub snapshots",
		Long: `sync reads a model's metadata from the Hub — model info, the file listing,
config.json, the safetensors index and every shard's header by HTTP Range —
without downloading weights, and writes data/hub/<org>/<name>/snapshot.json
pinned to the commit the Hub answered. A snapshot already at that commit is
left unchanged. --all syncs every model that has a page in content/.

A repository whose name ends in GGUF (unsloth/Kimi-K3-GGUF) is read as a
quant repository: every .gguf header by HTTP Range, split files together,
kept as data/hub/<org>/<name>/gguf.json. A repository of mlx-community is
read as an MLX conversion: config.json and every .safetensors header,
kept as data/hub/<org>/<name>/mlx.json. --all --gguf also syncs the GGUF
and MLX repositories the pages list under variants:.

--new lists the newest models (--limit per organisation, newest first) of
every organisation in watchOrgs in hugo-like.yaml, and for each one that no
page in content/ names in its model field, syncs it and writes a draft page
content/models/<slug>.md (as dossier new does). Drafts are published only by
build --drafts. With --dry-run, --new lists the drafts it would write.

--shard i/n syncs only the models whose id hashes to shard i of n (stable
by model id: every model is in exactly one shard), so n jobs can share the
tracked set; --budget N starts no model once the Hub requests spent plus
the costliest model so far would pass N, and lists the models left for
the next run (a model is never cut short, a snapshot is whole or not
written). Unchanged repositories cost one request each.

Environment: HF_ENDPOINT (a mirror), HF_TOKEN or HUGGING_FACE_HUB_TOKEN or
$HF_HOME/token for private and gated repositories. The token is never written
to disk or printed.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			refs := args
			var pages *content.Site
			if all || watch {
				if pages, err = content.Load(cfg.Dir(cfg.ContentDir)); err != nil {
					return err
				}
			}
			if all {
				for _, p := range pages.Models {
					refs = append(refs, p.Front.Model)
				}
				if withGGUF {
					refs = append(refs, ggufVariants(pages)...)
				}
			}
			if withGGUF && !all {
				return codeError{2, errors.New("sync: --gguf applies to --all only")}
			}
			if cmd.Flags().Changed("limit") && !watch {
				return codeError{2, errors.New("sync: --limit applies to --new only")}
			}
			if watch && len(cfg.WatchOrgs) == 0 {
				return codeError{2, fmt.Errorf("sync --new: %s has no watchOrgs: list the organisations whose models to add", cfg.File)}
			}
			shard := hub.Shard{}
			if shardFlag != "" {
				if shard, err = hub.ParseShard(shardFlag); err != nil {
					return codeError{2, err}
				}
			}
			if budget < 0 {
				return codeError{2, fmt.Errorf("--budget %d: want 0 (no limit) or a positive number of Hub requests", budget)}
			}
			if len(refs) == 0 && !watch {
				return codeError{2, errors.New("sync needs org/name arguments, --all or --new")}
			}
			client, err := a.hubClient()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			opts := hub.Options{DryRun: dryRun, Concurrency: concurrency, Progress: a.progress(), KeepShapes: arch.ShapesWanted}
			// Every reference is checked before any is synced, so a typo in
			// the last one does not leave the first ones half done.
			// GGUF repositories are read as quant repositories (syncGGUF),
			// after the models and outside their shards and budget.
			set := hub.Set{Shard: shard, Budget: budget}
			var ggufTargets []hub.Target
			for _, ref := range refs {
				model, rev, err := hub.ParseRef(ref)
				if err != nil {
					return codeError{2, err}
				}
				if isGGUFRepo(model) || isMLXRepo(model) {
					ggufTargets = append(ggufTargets, hub.Target{Model: model, Revision: rev})
					continue
				}
				set.Targets = append(set.Targets, hub.Target{Model: model, Revision: rev})
			}
			res := hub.SyncSet(ctx, client, cfg.Dir(cfg.DataDir), set, opts, func(t hub.Target, r *hub.Result, err error) {
				if err != nil {
					fmt.Fprintf(a.stderr, "dossier: sync %s: %v\n", refOf(t), err)
					return
				}
				a.printSync(r)
			})
			failed, tried := res.Failed, res.InShard
			for _, t := range ggufTargets {
				if ctx.Err() != nil {
					break
				}
				tried++
				syncLocal := a.syncGGUF
				if isMLXRepo(t.Model) {
					syncLocal = a.syncMLX
				}
				if err := syncLocal(ctx, client, cfg.Dir(cfg.DataDir), t.Model, t.Revision, opts); err != nil {
					fmt.Fprintf(a.stderr, "dossier: sync %s: %v\n", refOf(t), err)
					failed++
				}
			}
			if shard.Count > 1 || budget > 0 {
				fmt.Fprintf(a.stdout, "shard %s: %d of %d model(s), %d synced, %d failed, %d left, %d Hub requests\n",
					shard, res.InShard, len(set.Targets), res.Synced, res.Failed, len(res.Left), res.HubRequests)
			}
			if len(res.Left) > 0 {
				fmt.Fprintf(a.stdout, "budget of %d Hub requests spent: %d model(s) left for the next run: %s\n",
					budget, len(res.Left), strings.Join(res.Left, ", "))
			}
			if watch && ctx.Err() == nil {
				n, f := a.syncNew(ctx, client, cfg, pages, limit, opts)
				tried, failed = tried+n, failed+f
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d model(s) failed to sync", failed, tried)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "sync every model that has a page in content/")
	cmd.Flags().BoolVar(&watch, "new", false, "add the models of watchOrgs that have no page: sync each and write a draft page")
	cmd.Flags().IntVar(&limit, "limit", 10, "with --new: how many of each organisation's newest models to consider (0: all)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "report what would change and write nothing")
	cmd.Flags().BoolVar(&withGGUF, "gguf", false, "with --all: also sync the GGUF and MLX repositories the pages list under variants:")
	cmd.Flags().IntVar(&concurrency, "concurrency", 16, "header reads in flight at once")
	cmd.Flags().StringVar(&shardFlag, "shard", "", "sync only shard i of n of the models (i/n, stable by model id)")
	cmd.Flags().Int64Var(&budget, "budget", 0, "start no model once this many Hub requests would be passed (0: no limit)")
	return cmd
}

// hubClient is a Hub client configured from the environment.
func (a *app) hubClient() (*hub.Client, error) {
	hc, err := hub.ConfigFromEnv(os.Getenv, Version)
	if err != nil {
		return nil, err
	}
	return hub.New(hc)
}

// progress draws on a terminal and stays silent elsewhere.
func (a *app) progress() hub.Progress {
	if hub.IsTerminal(a.stderr) {
		return hub.NewTerminalProgress(a.stderr)
	}
	return hub.NopProgress{}
}

func refOf(t hub.Target) string {
	if t.Revision == "" {
		return t.Model
	}
	return t.Model + "@" + t.Revision
}

// syncModel syncs one model and prints what it did.
func (a *app) syncModel(ctx context.Context, client *hub.Client, cfg *config.Site, model, rev string, opts hub.Options) (*hub.Result, error) {
	r, err := hub.Sync(ctx, client, cfg.Dir(cfg.DataDir), model, rev, opts)
	if err != nil {
		return nil, err
	}
	a.printSync(r)
	return r, nil
}

// printSync prints what a sync did.
func (a *app) printSync(r *hub.Result) {
	fmt.Fprintln(a.stdout, r.Summary())
	for _, c := range r.Changes {
		fmt.Fprintln(a.stdout, "  "+c)
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(a.stdout, "  warning: "+w)
	}
}

// syncNew lists the newest models of every watched organisation and, for
// each that no page names, syncs it and writes its draft; in a dry run it
// only says which drafts it would write. It returns how many models (and
// listings that failed) it tried and how many of them failed.
func (a *app) syncNew(ctx context.Context, client *hub.Client, cfg *config.Site, pages *content.Site, limit int, opts hub.Options) (tried, failed int) {
	// The Hub matches ids without regard to case, so a page naming
	// qwen/qwen3-x already tracks Qwen/Qwen3-X.
	tracked := map[string]bool{}
	for _, p := range pages.Models {
		tracked[strings.ToLower(p.Front.Model)] = true
	}
	var todo []hub.ListedModel
	seen := map[string]bool{}
	for _, org := range cfg.WatchOrgs {
		ms, err := client.ListModels(ctx, org, limit)
		if err != nil {
			fmt.Fprintf(a.stderr, "dossier: sync --new: %v\n", err)
			tried++
			failed++
			if ctx.Err() != nil {
				return tried, failed
			}
			continue
		}
		fresh := 0
		for _, m := range ms {
			k := strings.ToLower(m.ID)
			if tracked[k] || seen[k] {
				continue
			}
			seen[k] = true
			todo = append(todo, m)
			fresh++
		}
		fmt.Fprintf(a.stdout, "%s: %d newest model(s) listed, %d without a page\n", org, len(ms), fresh)
	}
	contentDir := cfg.Dir(cfg.ContentDir)
	wrote := 0
	for _, m := range todo {
		tried++
		if opts.DryRun {
			if err := scaffold.Taken(contentDir, m.ID); err != nil {
				fmt.Fprintf(a.stderr, "dossier: sync --new %s: %v\n", m.ID, err)
				failed++
				continue
			}
			fmt.Fprintf(a.stdout, "%s: would sync it and write the draft %s%s (dry run, nothing written)\n",
				m.ID, a.rel(cfg, scaffold.Path(contentDir, m.ID)), createdNote(m))
			wrote++
			continue
		}
		if _, err := a.newPage(ctx, client, cfg, m.ID, "", true, scaffold.Options{Created: m.CreatedAt}, opts); err != nil {
			fmt.Fprintf(a.stderr, "dossier: sync --new %s: %v\n", m.ID, err)
			failed++
			if errors.Is(err, context.Canceled) {
				break
			}
			continue
		}
		wrote++
	}
	switch {
	case len(todo) == 0:
		fmt.Fprintln(a.stdout, "--new: every listed model has a page")
	case opts.DryRun:
		fmt.Fprintf(a.stdout, "--new: %d draft(s) would be written\n", wrote)
	case wrote == len(todo):
		fmt.Fprintf(a.stdout, "--new: wrote %d draft(s); dossier build --drafts publishes them\n", wrote)
	default:
		fmt.Fprintf(a.stdout, "--new: wrote %d of %d draft(s)\n", wrote, len(todo))
	}
	return tried, failed
}

func createdNote(m hub.ListedModel) string {
	if t, ok := m.Created(); ok {
		return ", created " + t.UTC().Format("2006-01-02")
	}
	return ""
}
