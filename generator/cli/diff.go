package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"dossier/generator/config"
	"dossier/generator/review"
	"dossier/generator/site"
)

func (a *app) diffCmd() *cobra.Command {
	var base, head, format string
	cmd := &cobra.Command{
		Use:   "diff --base REF|DIR [--head DIR] [--format markdown|json]",
		Short: "Report which facts and verdicts changed between two builds",
		Long: `diff compares the facts.json of two builds and prints a report for a pull
request: models added or removed, facts whose value changed with the input
that moved them, verdicts that flipped (fit, cheapest configuration, claims)
and new tells. --base is a git ref (its committed public/) or a directory;
--head is a directory, by default the site built from the current inputs.
It prints "no changes" when nothing moved.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if base == "" {
				return codeError{2, errors.New("diff needs --base REF or --base DIR")}
			}
			if format != "markdown" && format != "json" {
				return codeError{2, fmt.Errorf("--format: expected markdown or json, found %q", format)}
			}
			cfg, err := a.loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			var b, h review.Set
			var inputs []string // nil: not compared
			if st, err := os.Stat(base); err == nil && st.IsDir() {
				b, err = review.FromDir(base)
				if err != nil {
					return err
				}
			} else {
				top, err := gitTop(cfg.Root)
				if err != nil {
					return fmt.Errorf("--base %s is not a directory, and %w", base, err)
				}
				rel, err := filepath.Rel(top, cfg.Dir(cfg.PublishDir))
				if err != nil {
					return err
				}
				if b, err = review.FromGit(top, base, rel); err != nil {
					return err
				}
				if inputs, err = review.ChangedInputs(top, base, inputPaths(cfg, top)); err != nil {
					return err
				}
			}
			if head != "" {
				h, err = review.FromDir(head)
			} else {
				h, err = builtFacts(cfg)
			}
			if err != nil {
				return err
			}
			r := review.Compare(b, h, inputs)
			if format == "json" {
				out, err := r.JSON()
				if err != nil {
					return err
				}
				_, err = a.stdout.Write(out)
				return err
			}
			_, err = fmt.Fprint(a.stdout, r.Markdown())
			return err
		},
	}
	cmd.Flags().StringVar(&base, "base", "", "git ref or directory of the base build")
	cmd.Flags().StringVar(&head, "head", "", "directory of the head build (default: build the current inputs)")
	cmd.Flags().StringVar(&format, "format", "markdown", "markdown or json")
	return cmd
}

// inputPaths are the site's inputs relative to the repository root top:
// the configuration file and the content, data and templates directories.
func inputPaths(cfg *config.Site, top string) []string {
	var out []string
	for _, p := range []string{filepath.Join(cfg.Root, config.FileName), cfg.Dir(cfg.ContentDir), cfg.Dir(cfg.DataDir), cfg.Dir(cfg.TemplatesDir)} {
		if rel, err := filepath.Rel(top, p); err == nil {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

func gitTop(dir string) (string, error) {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("the site is not in a git repository: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func builtFacts(cfg *config.Site) (review.Set, error) {
	s, err := site.Load(cfg, site.Options{})
	if err != nil {
		return nil, err
	}
	files, err := s.Render()
	if err != nil {
		return nil, err
	}
	facts := map[string][]byte{}
	for name, b := range files {
		if strings.HasSuffix(name, "/facts.json") {
			facts[name] = b
		}
	}
	return review.Parse(facts)
}
