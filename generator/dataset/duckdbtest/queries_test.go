// Package duckdbtest runs the README's DuckDB queries on the dataset of
// the fixture site. It is a module of its own so that the main module does
// not link DuckDB: .ci/run runs it with `go test` in this directory.
package duckdbtest

import (
	"bytes"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"dossier/generator/cli"
	"dossier/generator/internal/sitetest"
)

func run(t *testing.T, args ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Execute(args, &out, &errb); code != 0 {
		t.Fatalf("dossier %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	}
}

// The three queries the README shows, with the site URL replaced by the
// built directory (DuckDB reads a local path and an https URL alike).
const (
	largest = `SELECT model, value_int FROM '%s/data/facts.parquet'
WHERE key = 'params.total' ORDER BY value_int DESC LIMIT 3`
	moeOn8xH100 = `SELECT f.model, s.value_int AS spare_bytes
FROM '%[1]s/data/facts.parquet' f
JOIN '%[1]s/data/facts.parquet' s ON s.model = f.model AND s.key = 'fit.8xH100.serving_margin_bytes'
JOIN '%[1]s/data/models.parquet' m ON m.model = f.model
WHERE f.key = 'serving.8xH100.fits' AND f.text = 'true' AND m.experts_routed > 0
ORDER BY spare_bytes DESC, f.model`
	bits = `SELECT model, bits_per_param, bytes_checkpoint FROM '%s/data/models.parquet'
WHERE bits_per_param IS NOT NULL ORDER BY bits_per_param, model`
)

func TestREADMEQueries(t *testing.T) {
	t.Chdir("../../..") // sitetest finds the repository by its go.mod
	site := sitetest.Fixture(t, nil)
	out := filepath.Join(t.TempDir(), "public")
	run(t, "--source", site, "build", "--destination", out)
	run(t, "--source", site, "dataset", "--from", out)

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := func(query string) [][]any {
		rows, err := db.Query(strings.ReplaceAll(query, "%[1]s", out))
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var all [][]any
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			all = append(all, vals)
		}
		return all
	}

	top := q(strings.ReplaceAll(largest, "%s", out))
	if len(top) != 3 || top[0][0] != "moonshotai/Kimi-K3" || top[0][1] != int64(2779931837184) {
		t.Errorf("largest models: %v", top)
	}
	moe := q(moeOn8xH100)
	for i, r := range moe {
		if r[0] == "meta-llama/Llama-3.1-8B" {
			t.Errorf("a dense model in the MoE query: %v", moe)
		}
		if spare, ok := r[1].(int64); !ok || spare <= 0 || i > 0 && spare > moe[i-1][1].(int64) {
			t.Errorf("row %d: spare bytes %v: not a positive margin in descending order", i, r[1])
		}
	}
	if len(moe) == 0 {
		t.Error("no MoE model serves on 8 × H100 in the fixture")
	}
	bb := q(strings.ReplaceAll(bits, "%s", out))
	for i := 1; i < len(bb); i++ {
		if bb[i-1][1].(float64) > bb[i][1].(float64) {
			t.Errorf("not sorted by bits per parameter: %v", bb)
		}
	}
	t.Logf("largest %v; MoE on 8×H100 %v; by bits %v", top, moe, bb)
}
