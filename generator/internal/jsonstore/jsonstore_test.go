package jsonstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/internal/safefile"
)

type doc struct {
	N int `json:"n"`
}

var limit = safefile.Limit{Bytes: 64, What: "a test store"}

func decode(b []byte) (*doc, error) {
	var d doc
	if err := Decode(b, limit, &d); err != nil {
		return nil, err
	}
	if d.N < 0 {
		return nil, errors.New("field n: negative")
	}
	return &d, nil
}

func TestDecodeIsStrict(t *testing.T) {
	for in, want := range map[string]string{
		`{"n": 1} {"n": 2}`:     "more than one JSON value",
		`{"n": 1, "m": 2}`:      "unknown field",
		`{"n": "1"}`:            "cannot unmarshal",
		strings.Repeat(" ", 65): "over the limit of 64 for a test store",
		`{"n": -1}`:             "field n: negative",
	} {
		if _, err := decode([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.20q: %v, want %q", in, err, want)
		}
	}
}

func TestLoadAndWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "store.json")
	if _, err := Load(path, limit, decode); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v, want fs.ErrNotExist", err)
	}
	if err := Write(path, &doc{N: -1}, decode); err == nil {
		t.Fatal("a store that does not decode was written")
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("refused store left a file: %v", err)
	}
	if err := Write(path, &doc{N: 7}, decode); err != nil {
		t.Fatal(err)
	}
	d, err := Load(path, limit, decode)
	if err != nil || d.N != 7 {
		t.Fatalf("read back %+v, %v", d, err)
	}
	// A link out of the store's directory is refused, naming the path.
	outside := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(outside, []byte(`{"n": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(link, limit, decode); err == nil || !strings.Contains(err.Error(), link) {
		t.Errorf("link out of the directory: %v", err)
	}
}
