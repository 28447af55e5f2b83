package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"dossier/generator/internal/safefile"
	"dossier/generator/site"
)

// manifestLimit bounds a files manifest: about 100 bytes a file.
var manifestLimit = safefile.Limit{Bytes: 256 << 20, What: "a files manifest"}

func (a *app) changedCmd() *cobra.Command {
	var from, previous string
	cmd := &cobra.Command{
		Use:   "changed --previous MANIFEST [--from DIR]",
		Short: "List the files a deploy must upload or delete since a previous build",
		Long: `changed compares a built site's file manifest (` + site.FilesManifestPath + `,
every published file with the sha256 of its bytes) with the manifest of
what is deployed now, and prints one line per file to upload ("put PATH")
or to delete ("delete PATH"), sorted by path; the manifest itself is put
last, so a deploy that stops half-way is redone in full by the next one.
A previous manifest that does not exist means nothing is deployed: every
file is put. scripts/deploy-changed runs an upload command on each line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if previous == "" {
				return codeError{2, errors.New("changed needs --previous MANIFEST (a path; one that does not exist means nothing is deployed)")}
			}
			if from == "" {
				cfg, err := a.loadConfig(cmd, nil)
				if err != nil {
					return err
				}
				from = cfg.Dir(cfg.PublishDir)
			}
			now, err := readManifest(filepath.Join(from, filepath.FromSlash(site.FilesManifestPath)))
			if err != nil {
				return err
			}
			was, err := readManifest(previous)
			if errors.Is(err, fs.ErrNotExist) {
				was, err = map[string]string{}, nil
			}
			if err != nil {
				return err
			}
			for _, line := range changes(was, now) {
				fmt.Fprintln(a.stdout, line)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the built site (default: the configured publishDir)")
	cmd.Flags().StringVar(&previous, "previous", "", "the manifest of what is deployed now")
	return cmd
}

func readManifest(path string) (map[string]string, error) {
	b, err := safefile.Read(path, filepath.Dir(path), manifestLimit)
	if err != nil {
		return nil, err
	}
	var m site.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for p, sum := range m.Files {
		if !filepath.IsLocal(filepath.FromSlash(p)) || strings.Contains(p, `\`) {
			return nil, fmt.Errorf("%s: field files: %q is not a path inside the site", path, p)
		}
		if len(sum) != 64 || strings.Trim(sum, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("%s: field files[%q]: %q is not a sha256", path, p, sum)
		}
	}
	return m.Files, nil
}

// changes is what turns the deployed files was into now: puts of new or
// changed files and deletes of removed ones by path, the manifest last.
func changes(was, now map[string]string) []string {
	var out []string
	paths := make([]string, 0, len(now)+len(was))
	for p := range now {
		paths = append(paths, p)
	}
	for p := range was {
		if _, ok := now[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		switch sum, ok := now[p]; {
		case p == site.FilesManifestPath:
		case !ok:
			out = append(out, "delete "+p)
		case was[p] != sum:
			out = append(out, "put "+p)
		}
	}
	// The manifest lists every file but itself.
	return append(out, "put "+site.FilesManifestPath)
}
