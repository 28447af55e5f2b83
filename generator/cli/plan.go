package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/facts"
	"dossier/generator/site"
	"dossier/generator/sizing"
	"dossier/generator/snapshot"
)

func (a *app) planCmd() *cobra.Command {
	var cfgPath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "plan (--config FILE|DIR | ORG/NAME) [--json]",
		Short: "Size a config.json: parameters, bytes, cache, fit and cost",
		Long: `plan sizes a model from its config.json alone, without a Hub snapshot: layout,
experts, KV cache and state, and the fit per configured hardware entry.
With a directory, it reads config.json and a sibling hf_quant_config.json.
Figures that need the file listing (checkpoint bytes, download time) are
reported as unknown. With ORG/NAME instead, it sizes the synced snapshot
data/hub/ORG/NAME/snapshot.json, no content page needed. --json prints the
facts document on stdout.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (cfgPath == "") == (len(args) == 0) {
				return codeError{2, errors.New("plan needs either --config FILE (a config.json or a directory holding one) or ORG/NAME of a synced snapshot")}
			}
			cfg, err := a.loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			cat, err := catalog.Load(cfg.Dir(cfg.DataDir))
			if err != nil {
				return err
			}
			if len(args) == 1 {
				return a.planSnapshot(cfg, cat, args[0], asJSON)
			}
			conf, quant, name, err := readConfig(cfgPath)
			if err != nil {
				return fmt.Errorf("flag --config: %w", err)
			}
			ar, err := arch.Parse(conf, quant)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			an, anErr := site.Analytic(conf, quant)
			set, err := sizing.Derive(sizing.Input{Model: name, Arch: ar, Analytic: an, AnalyticErr: anErr, Sizing: cfg.Sizing, Hardware: cfg.Hardware, Catalog: cat})
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			return planDone(a.stdout, name, set, asJSON)
		},
	}
	cmd.Flags().StringVar(&cfgPath, "config", "", "config.json to size, or a directory holding config.json (and hf_quant_config.json)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the facts document as JSON")
	return cmd
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
		q, err := os.ReadFile(filepath.Join(path, "hf_quant_config.json"))
		if err == nil {
			quant = q
		} else if !os.IsNotExist(err) {
			return nil, nil, "", fmt.Errorf("read hf_quant_config.json: %w", err)
		}
	}
	conf, err = os.ReadFile(name)
	if err != nil {
		return nil, nil, "", fmt.Errorf("read config: %w", err)
	}
	return conf, quant, name, nil
}

func writePlanJSON(w io.Writer, name string, set *facts.Set) error {
	doc := struct {
		Config string     `json:"config"`
		Facts  *facts.Set `json:"facts"`
	}{name, set}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

func writePlanTable(w io.Writer, name string, set *facts.Set) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\n\n", name)
	fmt.Fprintln(tw, "fact\tvalue\thow")
	for _, k := range set.Keys() {
		f := set.Get(k)
		how := f.Derivation
		if !f.Known() {
			how = f.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k, f.Display, how)
	}
	return tw.Flush()
}

// planSnapshot sizes a synced snapshot without a content page.
func (a *app) planSnapshot(cfg *config.Site, cat *catalog.Catalog, model string, asJSON bool) error {
	if !snapshot.ValidModel(model) {
		return codeError{2, fmt.Errorf("%q is not an org/name Hub id", model)}
	}
	path := snapshot.Path(cfg.Dir(cfg.DataDir), model)
	snap, err := snapshot.Load(path)
	if err != nil {
		return fmt.Errorf("%w (run dossier sync %s first)", err, model)
	}
	ar, err := arch.Parse(snap.Config, snap.HFQuantConfig)
	if err != nil {
		return fmt.Errorf("%s: field config: %w", path, err)
	}
	an, anErr := site.Analytic(snap.Config, snap.HFQuantConfig)
	set, err := sizing.Derive(sizing.Input{Model: model, Snapshot: snap, Arch: ar, Analytic: an, AnalyticErr: anErr, Sizing: cfg.Sizing, Hardware: cfg.Hardware, Catalog: cat})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	name := model + "@" + snap.Revision
	return planDone(a.stdout, name, set, asJSON)
}

// planDone writes the report and fails with status 3 when it holds no
// parameter count, so a script can tell that nothing was derived.
func planDone(w io.Writer, name string, set *facts.Set, asJSON bool) error {
	write := writePlanTable
	if asJSON {
		write = writePlanJSON
	}
	if err := write(w, name, set); err != nil {
		return err
	}
	if err := sizing.Underived(set); err != nil {
		return codeError{3, fmt.Errorf("%s: %w", name, err)}
	}
	return nil
}
