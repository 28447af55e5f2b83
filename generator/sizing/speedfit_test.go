package sizing_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"dossier/generator/catalog"
	"dossier/generator/sizing"
)

var updateFit = flag.Bool("update", false, "rewrite data/speed_fit.yaml from a refit")

// TestSpeedFitIsCurrent refits the speed model on data/calibration.yaml
// with leave-one-out cross-validation and checks that data/speed_fit.yaml
// holds exactly that fit, so the efficiencies and fixed costs the pages
// use and the errors they quote are what the calibration set gives (never
// set by hand). It reads the shipped data on purpose: that file is the
// fit's output. -update rewrites it.
func TestSpeedFitIsCurrent(t *testing.T) {
	dir := filepath.Join("..", "..", "data")
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := sizing.FitSpeed(cat)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sizing.MarshalSpeedFit(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, catalog.SpeedFitFile)
	t.Log("\n" + sizing.FitTable(f))
	if *updateFit {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not the fit of calibration.yaml; rerun with -update. The fit gives:\n%s", path, want)
	}
}
