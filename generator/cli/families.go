package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"dossier/generator/modeltree"
)

func (a *app) familiesCmd() *cobra.Command {
	var markdown bool
	cmd := &cobra.Command{
		Use:   "families [--markdown]",
		Short: "List the model families dossier sizes from config.json, and what each test checks",
		Long: `families lists every registered model family: the model_types it handles,
its support level (exact from config: the tensor list follows from config.json
and a published total confirms it) and the published figure its test
reproduces. Any other model_type is sized from a synced snapshot's
safetensors headers only. --markdown prints the README's table.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if markdown {
				_, err := io.WriteString(a.stdout, familiesMarkdown())
				return err
			}
			return writeFamilies(a.stdout)
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the table as Markdown (the README's list)")
	return cmd
}

func checked(f modeltree.Family, withSource bool) string {
	if len(f.Checks) == 0 {
		return "—"
	}
	var cs []string
	for _, c := range f.Checks {
		s := c.Repo + " " + c.Published
		if withSource {
			s += " (" + c.Source + ")"
		}
		cs = append(cs, s)
	}
	return strings.Join(cs, "; ")
}

func writeFamilies(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "family\tmodel_types\tstatus\tchecked against")
	for _, f := range modeltree.Families() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Name, strings.Join(f.ModelTypes, ", "), f.Status(), checked(f, true))
	}
	fmt.Fprintln(tw, "any other\t\theaders only\tcensus, bytes, active parameters and KV from a synced snapshot's safetensors headers and standard config keys")
	return tw.Flush()
}

// familiesMarkdown is the README's family table.
func familiesMarkdown() string {
	var b strings.Builder
	b.WriteString("| family | model_types | status | published figure checked |\n|---|---|---|---|\n")
	for _, f := range modeltree.Families() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", f.Name, strings.Join(f.ModelTypes, ", "), f.Status(), checked(f, false))
	}
	return b.String()
}
