// Command dossier builds fact-checked model dossiers. See README.md.
package main

import (
	"os"

	"dossier/generator/cli"
)

func main() {
	os.Exit(cli.Execute(os.Args[1:], os.Stdout, os.Stderr))
}
