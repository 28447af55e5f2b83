package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	stamped := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Path: "dossier", Version: "v0.1.1-0.20261202100000-1a2b3c4d5e6f+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"},
			{Key: "vcs.time", Value: "2026-12-02T10:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	for _, tc := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{stamped, "dossier " + Version + " (module v0.1.1-0.20261202100000-1a2b3c4d5e6f+dirty, commit 1a2b3c4d5e6f, 2026-12-02T10:00:00Z, modified, go1.26.0)"},
		{&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "dossier", Version: "(devel)"}},
			"dossier " + Version + " (module (devel), commit unknown (not built with go build or go install from a git checkout), go1.26.0)"},
		{nil, "dossier " + Version + " (no build information in the binary)"},
	} {
		if got := versionLine(tc.info); got != tc.want {
			t.Errorf("versionLine:\n got %s\nwant %s", got, tc.want)
		}
	}
	code, out, errs := run("version")
	if code != 0 || !strings.HasPrefix(out, "dossier "+Version+" (module ") {
		t.Errorf("dossier version: exit %d, %q %q", code, out, errs)
	}
	if code, _, _ := run("version", "extra"); code == 0 {
		t.Error("dossier version extra: exit 0")
	}
}
