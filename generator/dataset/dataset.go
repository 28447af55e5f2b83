// Package dataset publishes every model's facts as two Parquet files a
// reader can query in place (DuckDB over HTTP, pandas, Polars) instead of
// downloading every facts.json:
//
//   - facts.parquet: one row per model × fact — model, revision, key,
//     value (numbers as DOUBLE, integers also exactly as INT64, text and
//     booleans as text), unit, display, derivation, sources, and the
//     reason a value is unknown;
//   - models.parquet: one row per model with its headline figures.
//
// Rows are sorted by model and key, so the same facts give the same bytes.
package dataset

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"dossier/generator/facts"
)

// Schema is the version of both files' columns; a column renamed or
// retyped bumps it. Readers find it in each file's key-value metadata.
const Schema = "1"

// Model is one model's facts and where its page is.
type Model struct {
	Model    string // org/name
	Revision string
	Slug     string
	Title    string
	URL      string // the page, relative to the site root
	Facts    *facts.Set
}

// FactRow is one row of facts.parquet.
type FactRow struct {
	Model      string   `parquet:"model,dict"`
	Revision   string   `parquet:"revision,dict"`
	Key        string   `parquet:"key"`
	Value      *float64 `parquet:"value,optional"`
	ValueInt   *int64   `parquet:"value_int,optional"`
	Text       *string  `parquet:"text,optional"`
	Unit       string   `parquet:"unit,dict"`
	Display    string   `parquet:"display"`
	Derivation string   `parquet:"derivation,dict"`
	Sources    []string `parquet:"sources,list"`
	Reason     string   `parquet:"reason,dict"`
}

// ModelRow is one row of models.parquet. A headline figure the model does
// not have (or has as unknown) is null; facts.parquet says why.
type ModelRow struct {
	Model            string   `parquet:"model"`
	Revision         string   `parquet:"revision"`
	Slug             string   `parquet:"slug"`
	Title            string   `parquet:"title"`
	URL              string   `parquet:"url"`
	Family           *string  `parquet:"family,optional"`
	ParamsTotal      *int64   `parquet:"params_total,optional"`
	ParamsActive     *int64   `parquet:"params_active,optional"`
	BytesCheckpoint  *int64   `parquet:"bytes_checkpoint,optional"`
	BitsPerParam     *float64 `parquet:"bits_per_param,optional"`
	KVBytesPerToken  *int64   `parquet:"kv_bytes_per_token,optional"`
	Context          *int64   `parquet:"context,optional"`
	ExpertsRouted    *int64   `parquet:"experts_routed,optional"`
	CheapestServing  *string  `parquet:"cheapest_serving,optional"`
	CheapestUSDPerHr *float64 `parquet:"cheapest_usd_per_hour,optional"`
	Facts            int64    `parquet:"facts"`
}

// FactRows flattens the models' facts, sorted by model and key.
func FactRows(models []Model) []FactRow {
	var rows []FactRow
	for _, m := range sorted(models) {
		for f := range m.Facts.All() {
			r := FactRow{Model: m.Model, Revision: m.Revision, Key: f.Key, Unit: f.Unit, Display: f.Display,
				Derivation: f.Derivation, Sources: f.Sources, Reason: f.Reason}
			switch v := f.Value.(type) {
			case int64:
				x := float64(v)
				r.Value, r.ValueInt = &x, &v
			case float64:
				r.Value = &v
			case bool:
				s := strconv.FormatBool(v)
				r.Text = &s
			case string:
				r.Text = &v
			}
			if r.Sources == nil {
				r.Sources = []string{}
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// ModelRows gives each model its headline row, sorted by model.
func ModelRows(models []Model) []ModelRow {
	rows := make([]ModelRow, 0, len(models))
	for _, m := range sorted(models) {
		s := m.Facts
		rows = append(rows, ModelRow{
			Model: m.Model, Revision: m.Revision, Slug: m.Slug, Title: m.Title, URL: m.URL,
			Family:           text(s, "arch.family"),
			ParamsTotal:      integer(s, "params.total"),
			ParamsActive:     integer(s, "params.active"),
			BytesCheckpoint:  integer(s, "bytes.checkpoint"),
			BitsPerParam:     number(s, "bits_per_param"),
			KVBytesPerToken:  integer(s, "kv.bytes_per_token"),
			Context:          integer(s, "arch.context"),
			ExpertsRouted:    integer(s, "moe.experts_routed"),
			CheapestServing:  text(s, "fit.cheapest_serving"),
			CheapestUSDPerHr: number(s, "cost.cheapest_serving.usd_per_hour"),
			Facts:            int64(s.Len()),
		})
	}
	return rows
}

// Encode writes rows as one Parquet file with zstd-compressed pages and
// the schema version in its metadata.
func Encode[T any](rows []T) ([]byte, error) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf,
		parquet.Compression(&parquet.Zstd),
		parquet.KeyValueMetadata("dossier.schema", Schema),
		parquet.CreatedBy("dossier", "", ""))
	if _, err := w.Write(rows); err != nil {
		return nil, fmt.Errorf("encode parquet rows: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("close parquet file: %w", err)
	}
	return buf.Bytes(), nil
}

// Decode reads a file Encode wrote.
func Decode[T any](b []byte) ([]T, error) {
	rows, err := parquet.Read[T](bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("read parquet: %w", err)
	}
	return rows, nil
}

func sorted(models []Model) []Model {
	out := slices.Clone(models)
	slices.SortFunc(out, func(a, b Model) int {
		if c := cmp.Compare(a.Model, b.Model); c != 0 {
			return c
		}
		return cmp.Compare(a.Slug, b.Slug)
	})
	return out
}

func integer(s *facts.Set, key string) *int64 {
	if v, ok := s.Get(key).Int(); ok {
		return &v
	}
	return nil
}

func number(s *facts.Set, key string) *float64 {
	if v, ok := s.Get(key).Float(); ok {
		return &v
	}
	return nil
}

func text(s *facts.Set, key string) *string {
	if f := s.Get(key); f.Known() {
		if v, ok := f.Value.(string); ok {
			return &v
		}
	}
	return nil
}
