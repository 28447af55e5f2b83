// Package data embeds the shipped hardware, price and software catalogs so
// that `dossier plan` sizes a model from any directory, with the dates
// these files carry. The embed lives beside the files it embeds (go:embed
// cannot reach ../), so there is no second copy to keep in step.
package data

import "embed"

// Catalogs holds hardware.yaml, software.yaml, references.yaml,
// local.yaml (the machines a person owns), api_changes.yaml (for dossier
// audit), the speed model (speed.yaml, calibration.yaml, speed_fit.yaml)
// and pricing/, laid out as in a site's data/ directory.
//
//go:embed hardware.yaml software.yaml references.yaml local.yaml api_changes.yaml speed.yaml calibration.yaml speed_fit.yaml pricing/*.yaml pricing/*.json
var Catalogs embed.FS

// Label names the embedded catalogs in sources and errors.
const Label = "built-in data"
