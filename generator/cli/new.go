package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"dossier/generator/arch"
	"dossier/generator/config"
	"dossier/generator/content"
	"dossier/generator/hub"
	"dossier/generator/scaffold"
	"dossier/generator/snapshot"
)

func (a *app) newCmd() *cobra.Command {
	var concurrency int
	cmd := &cobra.Command{
		Use:   "new org/name[@revision]",
		Short: "Sync a model and write a draft page for it",
		Long: `new starts the dossier of a model that has no page yet: it syncs the model
from the Hub when data/hub has no snapshot of it (or a revision is given), then
writes content/models/<slug>.md, the slug being the repository name in lower
case with dashes: front matter with the title and organisation as the Hub id
spells them, draft: true, an empty summary, and a body of fact references
(parameters, bytes, layers, cache) to write the prose from. A draft is
published only by build --drafts. An existing page is never overwritten: new
fails, naming the file, when the model already has a page or the page name is
taken.

Environment: as for sync (HF_ENDPOINT, HF_TOKEN).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			model, rev, err := hub.ParseRef(args[0])
			if err != nil {
				return codeError{2, err}
			}
			pages, err := content.Load(cfg.Dir(cfg.ContentDir))
			if err != nil {
				return err
			}
			for _, p := range pages.Models {
				if strings.EqualFold(p.Front.Model, model) {
					return fmt.Errorf("new %s: the model already has a page, %s", model, a.rel(cfg, p.Path))
				}
			}
			client, err := a.hubClient()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			opts := hub.Options{Concurrency: concurrency, Progress: a.progress(), KeepShapes: arch.ShapesWanted}
			if _, err := a.newPage(ctx, client, cfg, model, rev, false, scaffold.Options{}, opts); err != nil {
				return fmt.Errorf("new %s: %w", model, err)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&concurrency, "concurrency", 16, "header reads in flight at once")
	return cmd
}

// newPage writes the draft page of model, syncing it first when always
// is set, a revision is asked for, or there is no snapshot yet. The page
// name is checked before anything is fetched, so a taken name costs no
// Hub requests.
func (a *app) newPage(ctx context.Context, client *hub.Client, cfg *config.Site, model, rev string, always bool, sopts scaffold.Options, opts hub.Options) (string, error) {
	contentDir := cfg.Dir(cfg.ContentDir)
	if err := scaffold.Taken(contentDir, model); err != nil {
		return "", a.relError(cfg, err)
	}
	snapPath := snapshot.Path(cfg.Dir(cfg.DataDir), model)
	snap, err := snapshot.Load(snapPath)
	switch {
	case always || rev != "" || errors.Is(err, fs.ErrNotExist):
		r, err := a.syncModel(ctx, client, cfg, model, rev, opts)
		if err != nil {
			return "", err
		}
		if sopts.Created == "" {
			sopts.Created = r.Created
		}
		if snap = r.Snapshot; snap == nil { // already at that commit
			if snap, err = snapshot.Load(snapPath); err != nil {
				return "", err
			}
		}
	case err != nil:
		return "", err
	default:
		fmt.Fprintf(a.stdout, "%s: using the snapshot %s at %s\n", model, a.rel(cfg, snapPath), shortRev(snap.Revision))
	}
	path, err := scaffold.Write(contentDir, snap, sopts)
	if err != nil {
		return "", a.relError(cfg, err)
	}
	fmt.Fprintf(a.stdout, "%s: wrote the draft %s (draft: true; dossier build --drafts publishes it)\n", model, a.rel(cfg, path))
	return path, nil
}

// rel is path relative to the site root when it lies inside it.
func (a *app) rel(cfg *config.Site, path string) string {
	if r, err := filepath.Rel(cfg.Root, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// relError names an existing page relative to the site root.
func (a *app) relError(cfg *config.Site, err error) error {
	var ee *scaffold.ExistsError
	if errors.As(err, &ee) {
		c := *ee
		c.Path = a.rel(cfg, ee.Path)
		return &c
	}
	return err
}

func shortRev(sha string) string {
	if sha == "" {
		return "an unrecorded revision"
	}
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
