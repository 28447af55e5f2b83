package cli

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the generator version, module version and commit it was built from",
		Long: `version prints the generator version, then the module version and the VCS
commit that the Go toolchain stamped into the binary (go build and go install
from a git checkout stamp them; go run does not, and says so).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, ok := debug.ReadBuildInfo()
			if !ok {
				info = nil
			}
			_, err := fmt.Fprintln(a.stdout, versionLine(info))
			return err
		},
	}
}

// versionLine describes the binary: "dossier 0.1.0 (module v0.1.0,
// commit 1a2b3c4d5e6f, 2026-12-02T10:00:00Z, modified, go1.26.0)". A field
// the build did not record is named as unknown rather than left out.
func versionLine(info *debug.BuildInfo) string {
	if info == nil {
		return "dossier " + Version + " (no build information in the binary)"
	}
	module := info.Main.Version
	if module == "" || module == "(devel)" {
		module = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	parts := []string{"module " + module}
	if rev := settings["vcs.revision"]; rev != "" {
		parts = append(parts, "commit "+rev[:min(12, len(rev))])
		if t := settings["vcs.time"]; t != "" {
			parts = append(parts, t)
		}
		if settings["vcs.modified"] == "true" {
			parts = append(parts, "modified")
		}
	} else {
		parts = append(parts, "commit unknown (not built with go build or go install from a git checkout)")
	}
	if info.GoVersion != "" {
		parts = append(parts, info.GoVersion)
	}
	return "dossier " + Version + " (" + strings.Join(parts, ", ") + ")"
}
