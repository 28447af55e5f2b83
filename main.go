// Command dossier builds fact-checked model dossiers. See README.md.
package main

import (
	"os"
	"runtime/debug"

	"dossier/generator/cli"
)

func main() {
	// A build makes gigabytes of short-lived garbage (rendered pages)
	// around a small live heap: two models in flight and a few kilobytes
	// per model. At Go's default GOGC=100 collecting was over a quarter
	// of a 1,000-page build's time; 400 collects a quarter as often. The
	// soft limit keeps that headroom from growing with the site: the heap
	// stays near 112 MiB from 1,000 to 5,000 pages, and the collector
	// runs more often instead (README, Performance). GOGC and GOMEMLIMIT
	// in the environment still decide.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(112 << 20)
	}
	os.Exit(cli.Execute(os.Args[1:], os.Stdout, os.Stderr))
}
