package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"dossier/generator/config"
	"dossier/generator/site"
)

// Exit statuses, the same for every command (README, "Exit status").
const (
	exitOK      = 0
	exitInput   = 1 // bad input, or a check that found errors
	exitUsage   = 2 // unknown command or flag, wrong arguments
	exitNothing = 3 // nothing could be derived: no model to build
)

// exitCode maps an error to the exit status.
func exitCode(err error) int {
	var ce codeError
	switch {
	case err == nil:
		return exitOK
	case asCode(err, &ce):
		return ce.code
	case errors.Is(err, site.ErrNoModels):
		return exitNothing
	case strings.HasPrefix(err.Error(), "unknown command "):
		return exitUsage
	}
	return exitInput
}

// usageErrors makes every command's flag and argument errors usage errors
// (exit 2), and an unknown flag suggest the nearest one the command has.
func usageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
			var names []string
			cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, "--"+f.Name) })
			cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, "--"+f.Name) })
			if s := config.Closest("--"+name, names); s != "" {
				msg += "; did you mean " + s + "?"
			}
		}
		return codeError{exitUsage, fmt.Errorf("%s (see dossier %s --help)", msg, cmd.Name())}
	})
	var wrap func(c *cobra.Command)
	wrap = func(c *cobra.Command) {
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error {
				if err := args(cmd, a); err != nil {
					return codeError{exitUsage, err}
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			wrap(sub)
		}
	}
	wrap(root)
}
