package claimlist

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
)

// Written one dossier at a time, claims.json is the document
// json.MarshalIndent writes for every claim at once (as the lists were
// written before they were streamed), and claims.csv has one row per
// claim under the header, lists joined with "; ".
func TestListsOfDossiers(t *testing.T) {
	a := Record{Model: "acme/a", ID: "c1", Text: "Runs <fast> & cheap", Verdict: "supported", Value: 5, Evidence: []string{"e1", "e2"}, Tells: []int{2, 7}}
	b := Record{Model: "acme/b", ID: "c2", Text: "\"quoted\"\nline", Verdict: "refuted", Value: 1, Evidence: []string{}, Tells: []int{}, Corrections: []string{"x"}, Withdrawn: "void"}
	for _, dossiers := range [][][]Record{nil, {{}}, {{a}}, {{a, b}, {}, {b}}} {
		var js, table bytes.Buffer
		w, err := New(&js, &table)
		if err != nil {
			t.Fatal(err)
		}
		all := []Record{}
		for _, d := range dossiers {
			if err := w.Add(d); err != nil {
				t.Fatal(err)
			}
			all = append(all, d...)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		want, _ := json.MarshalIndent(map[string]any{"claims": all}, "", "  ")
		if want = append(want, '\n'); !bytes.Equal(js.Bytes(), want) {
			t.Errorf("%d claims: claims.json\n%s\nwant\n%s", len(all), js.Bytes(), want)
		}
		rows, err := csv.NewReader(&table).ReadAll()
		if err != nil || len(rows) != len(all)+1 || rows[0][0] != "model" {
			t.Fatalf("%d claims: claims.csv %q, %v", len(all), rows, err)
		}
		for i, c := range all {
			if r := rows[i+1]; r[3] != c.ID || r[4] != c.Text || r[15] != strings.Join(c.Evidence, "; ") || (c.ID == "c1" && r[17] != "2; 7") || r[20] != c.Withdrawn {
				t.Errorf("row %d %q for %+v", i+1, r, c)
			}
		}
	}
}
