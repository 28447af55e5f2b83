package render

import (
	"strings"
	"testing"
)

// TestFactMatrixHTML: cells carry their fact's id, text is escaped, an
// empty cell stays empty, and the notes come before the table.
func TestFactMatrixHTML(t *testing.T) {
	m := &FactMatrix{Title: "serving.{row}…", Notes: []string{"serving.{row}.fits (bool): a < b & {1}"}, Header: []string{"row", "fits", "other"},
		Rows: []MatrixRow{
			{Label: "8xH100", Cells: []MatrixCell{{ID: "serving.8xH100.fits", Value: "yes", Note: "80 · <i>"}, {}}},
			{Label: "1xH100", Cells: []MatrixCell{{ID: "bad id", Value: "no"}, {ID: "serving.1xH100.other", Value: "3"}}},
		}}
	var b strings.Builder
	m.writeHTML(&b)
	got := b.String()
	for _, want := range []string{
		"<h3 class=\"matrix\">serving.{row}…</h3>\n<ul class=\"matrix\">\n<li>serving.{row}.fits (bool): a &lt; b &amp; {1}</li>\n</ul>\n<table>",
		`<tr><th scope="row">8xH100</th><td id="serving.8xH100.fits">yes<br><small>80 · &lt;i&gt;</small></td><td></td></tr>`,
		`<tr><th scope="row">1xH100</th><td>no</td><td id="serving.1xH100.other">3</td></tr>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}
