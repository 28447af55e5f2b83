package render

import (
	"strings"
	"testing"
)

// TestFactMatrixHTML: rows carry their facts' row key as id (not a cell:
// a dossier links to the row), text is escaped, an empty cell stays
// empty, and the notes come before the table.
func TestFactMatrixHTML(t *testing.T) {
	m := &FactMatrix{Title: "serving.{row}…", Notes: []string{"serving.{row}.fits (bool): a < b & {1}"}, Header: []string{"row", "fits", "other"},
		Rows: []MatrixRow{
			{ID: "serving.8xH100", Label: "8xH100", Cells: []MatrixCell{{Key: "serving.8xH100.fits", Value: "yes", Note: "80 · <i>"}, {}}},
			{ID: "bad id", Label: "1xH100", Cells: []MatrixCell{{Key: "serving.1xH100.fits", Value: "no"}, {Key: "serving.1xH100.other", Value: "3"}}},
		}}
	var b strings.Builder
	m.writeHTML(&b)
	got := b.String()
	for _, want := range []string{
		"<h3 class=\"matrix\">serving.{row}…</h3>\n<ul class=\"matrix\">\n<li>serving.{row}.fits (bool): a &lt; b &amp; {1}</li>\n</ul>\n<table>",
		`<tr id="serving.8xH100"><th scope="row">8xH100</th><td>yes<br><small>80 · &lt;i&gt;</small></td><td></td></tr>`,
		`<tr><th scope="row">1xH100</th><td>no</td><td>3</td></tr>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}
