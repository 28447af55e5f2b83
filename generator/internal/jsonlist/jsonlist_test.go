package jsonlist

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

type doc[T any] struct {
	Head  map[string]any `json:"head"`
	Items []T            `json:"items"`
}

type elem struct {
	Name  string         `json:"name"`
	Tags  []string       `json:"tags"`
	Inner map[string]int `json:"inner"`
	Empty []int          `json:"empty"`
}

// Written element by element, a document is the bytes MarshalIndent
// writes for it whole: any count (none included), any indent, strings
// that MarshalIndent escapes, empty and nested values, elements given
// already encoded.
func TestSameAsMarshalIndent(t *testing.T) {
	elems := []elem{
		{Name: "a <b> & \u2028", Tags: []string{}, Inner: map[string]int{"z": 1, "a": 2}, Empty: []int{}},
		{Name: "c", Tags: []string{"x", "y"}},
		{Name: "\"q\"\n", Inner: map[string]int{}},
	}
	for _, indent := range []string{" ", "  ", "\t"} {
		for n := range len(elems) + 1 {
			want, err := json.MarshalIndent(doc[elem]{Head: map[string]any{"k": []int{0, 1}, "e": []int{}}, Items: elems[:n]}, "", indent)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, '\n')
			for _, raw := range []bool{false, true} {
				var got bytes.Buffer
				l, err := New(&got, doc[int]{Head: map[string]any{"k": []int{0, 1}, "e": []int{}}, Items: Placeholder}, indent)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range elems[:n] {
					var v any = e
					if raw {
						b, _ := json.Marshal(e)
						v = json.RawMessage(b)
					}
					if err := l.Add(v); err != nil {
						t.Fatal(err)
					}
				}
				if err := l.Close(); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("indent %q, %d elements, raw %v:\n%s\nwant\n%s", indent, n, raw, got.Bytes(), want)
				}
			}
		}
	}
}

// A document whose array is not its last field, or holds more than the
// placeholder, is refused rather than written wrong.
func TestRefusesOtherDocuments(t *testing.T) {
	for _, d := range []any{
		struct {
			Items []int `json:"items"`
			After int   `json:"after"`
		}{Items: Placeholder},
		map[string][]int{"items": {1, 0}},
		map[string]int{"items": 0},
		[]int{0},
	} {
		if _, err := New(&bytes.Buffer{}, d, " "); err == nil {
			t.Errorf("%s: accepted", fmt.Sprint(d))
		}
	}
}
