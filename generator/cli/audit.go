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
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"dossier/data"
	"dossier/generator/audit"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/pysnippet"
)

// auditFlags are audit's command-line settings.
type auditFlags struct {
	model    string
	versions map[string]*string
	format   string
	offline  bool
}

func (a *app) auditCmd() *cobra.Command {
	af := auditFlags{versions: map[string]*string{}}
	cmd := &cobra.Command{
		Use:   "audit SNIPPET.py [--model ORG/NAME] [--transformers V] [--trl V] [--peft V] [flags]",
		Short: "Check a fine-tuning snippet against the libraries' API changes, the Hub and the model's remote-code window",
		Long: `audit reads a Python fine-tuning snippet as text (no Python needed) and
reports, each with its line and source:

  - keyword arguments and imported symbols that the stated versions of
    transformers, trl, peft, accelerate or bitsandbytes no longer (or do not
    yet) have, with what replaced them (data/api_changes.yaml; a package
    without a version flag is checked as a current release);
  - a string literal passed where a Dataset is expected (train_dataset=);
  - model ids that are neither among the site's snapshots nor on the Hub,
    with the nearest id the site knows (--offline: snapshots only);
  - the model's remote-code window from data/software.yaml: a warning when no
    --transformers is given, an error when the given one failed.

Output lines read FILE:LINE: error|warning: message; exit 1 when there is
an error. --format json prints {"file", "findings": [{line, severity,
kind, symbol, message, source}], "errors", "warnings"}.`,
		Example: `  dossier audit finetune.py
  dossier audit finetune.py --model moonshotai/Kimi-K3 --transformers 5.1.0 --trl 1.9.0
  dossier audit finetune.py --offline --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runAudit(cmd, args[0], af)
		},
	}
	f := cmd.Flags()
	f.StringVar(&af.model, "model", "", "the model the snippet is for (ORG/NAME), for its remote-code window")
	for _, p := range audit.Packages {
		af.versions[p] = f.String(p, "", "the "+p+" version to check against (default: a current release)")
	}
	f.StringVar(&af.format, "format", "text", "output: text or json")
	f.BoolVar(&af.offline, "offline", false, "make no request: check model ids against the site's snapshots only")
	return cmd
}

// auditDocument is audit --format json.
type auditDocument struct {
	File     string          `json:"file"`
	Findings []audit.Finding `json:"findings"`
	Errors   int             `json:"errors"`
	Warnings int             `json:"warnings"`
}

func (a *app) runAudit(cmd *cobra.Command, path string, af auditFlags) error {
	format := strings.ToLower(af.format)
	if format != "text" && format != "json" {
		return codeError{2, fmt.Errorf("--format: expected text or json, found %q", af.format)}
	}
	opts := audit.Options{Versions: map[string]audit.Version{}}
	for p, v := range af.versions {
		if *v == "" {
			continue
		}
		ver, err := audit.ParseVersion(*v)
		if err != nil {
			return codeError{2, fmt.Errorf("--%s: %w", p, err)}
		}
		opts.Versions[p] = ver
	}
	if af.model != "" {
		if strings.Count(af.model, "/") != 1 {
			return codeError{2, fmt.Errorf("--model: expected ORG/NAME, found %q", af.model)}
		}
		opts.Model = af.model
	}
	src, err := readSnippet(path)
	if err != nil {
		return err
	}
	sn, err := pysnippet.Parse(src)
	if err != nil {
		var pe *pysnippet.Error
		if errors.As(err, &pe) && pe.Line > 0 {
			return fmt.Errorf("%s:%d: %s", path, pe.Line, pe.Msg)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	table, err := a.auditInputs(cmd, &opts)
	if err != nil {
		return err
	}
	if !af.offline {
		ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
		defer stop()
		if err := a.hubResolver(ctx, &opts); err != nil {
			return err
		}
	}
	doc := auditDocument{File: path, Findings: audit.Check(sn, table, opts)}
	for _, f := range doc.Findings {
		if f.Severity == audit.Error {
			doc.Errors++
		} else {
			doc.Warnings++
		}
	}
	if doc.Findings == nil {
		doc.Findings = []audit.Finding{}
	}
	if format == "json" {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return err
		}
	} else if err := writeAuditText(a.stdout, &doc); err != nil {
		return err
	}
	if doc.Errors > 0 {
		return codeError{1, fmt.Errorf("audit %s: %d error(s)", path, doc.Errors)}
	}
	return nil
}

// readSnippet reads at most pysnippet.MaxBytes (+1 to tell it was more).
func readSnippet(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read snippet: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, pysnippet.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read snippet %s: %w", path, err)
	}
	if len(b) > pysnippet.MaxBytes {
		return nil, fmt.Errorf("%s: larger than the %d bytes a snippet may have", path, pysnippet.MaxBytes)
	}
	return b, nil
}

// auditInputs loads the API-change table, the software windows and the
// known model ids: the site's (inside a site, or with --source), else the
// built-in data and no known ids.
func (a *app) auditInputs(cmd *cobra.Command, opts *audit.Options) (*audit.Table, error) {
	_, err := os.Stat(filepath.Join(a.source, config.FileName))
	if err != nil && !cmd.Flags().Changed("source") {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("site configuration: %w", err)
		}
		cat, err := catalog.LoadFS(data.Catalogs, data.Label)
		if err != nil {
			return nil, err
		}
		opts.Windows = cat.Software
		return audit.LoadTable(data.Catalogs, data.Label)
	}
	cfg, err := a.loadConfig(cmd, nil)
	if err != nil {
		return nil, err
	}
	dataDir := cfg.Dir(cfg.DataDir)
	cat, err := catalog.Load(dataDir)
	if err != nil {
		return nil, err
	}
	opts.Windows = cat.Software
	dirs, err := filepath.Glob(filepath.Join(dataDir, "hub", "*", "*"))
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			opts.Known = append(opts.Known, filepath.Base(filepath.Dir(d))+"/"+filepath.Base(d))
		}
	}
	sort.Strings(opts.Known)
	opts.KnownSource = "snapshots under " + a.rel(cfg, filepath.Join(dataDir, "hub"))
	label := a.rel(cfg, dataDir)
	if _, err := os.Stat(filepath.Join(dataDir, audit.TableFile)); errors.Is(err, fs.ErrNotExist) {
		return audit.LoadTable(data.Catalogs, data.Label)
	}
	return audit.LoadTable(os.DirFS(dataDir), label)
}

// hubResolver lets the audit ask the Hub about ids the site does not know.
func (a *app) hubResolver(ctx context.Context, opts *audit.Options) error {
	client, err := a.hubClient()
	if err != nil {
		return err
	}
	opts.HubSource = client.Endpoint() + "/api/models/ORG/NAME"
	opts.Resolve = func(id string) error {
		_, err := client.ModelInfo(ctx, id, "")
		return err
	}
	return nil
}

func writeAuditText(w io.Writer, doc *auditDocument) error {
	var b strings.Builder
	for _, f := range doc.Findings {
		fmt.Fprintf(&b, "%s:%d: %s: %s\n", doc.File, f.Line, f.Severity, f.Message)
		if f.Source != "" {
			fmt.Fprintf(&b, "    source: %s\n", f.Source)
		}
	}
	fmt.Fprintf(&b, "%d error(s), %d warning(s)\n", doc.Errors, doc.Warnings)
	_, err := io.WriteString(w, b.String())
	return err
}
