// Command dossier builds fact-checked model dossiers. See README.md.
package main

import (
	"os"
	"runtime/debug"

	"dossier/generator/cli"
)

func main() {
	// A build makes gigabytes of short-lived garbage (rendered pages)
	// around a live heap of tens of megabytes: at Go's default GOGC=100
	// collecting was over a quarter of a 1,000-page build's time. 400
	// trades about 100 MB of memory for it (README, Performance). GOGC
	// in the environment still decides.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(cli.Execute(os.Args[1:], os.Stdout, os.Stderr))
}
