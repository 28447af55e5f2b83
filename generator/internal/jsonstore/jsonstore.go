// Package jsonstore reads and writes the JSON files sync keeps beside a
// model's snapshot (a GGUF repository's quants, an MLX conversion):
// bounded and strict on the way in, checked and atomic on the way out.
package jsonstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"dossier/generator/internal/safefile"
	"dossier/generator/snapshot"
)

// Decode reads exactly one JSON value of at most limit bytes into v:
// unknown fields and a trailing value are errors.
func Decode(b []byte, limit safefile.Limit, v any) error {
	if int64(len(b)) > limit.Bytes {
		return fmt.Errorf("%d bytes, over the limit of %d for %s", len(b), limit.Bytes, limit.What)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// Load reads the file at path through safefile (no link out of its
// directory, at most limit bytes) and decodes it with decode, whose error
// is prefixed with the path. A missing file is fs.ErrNotExist.
func Load[T any](path string, limit safefile.Limit, decode func([]byte) (*T, error)) (*T, error) {
	b, err := safefile.Read(path, filepath.Dir(path), limit)
	if err != nil {
		return nil, err
	}
	v, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// Write encodes v indented, checks that decode reads it back, and writes
// it to path atomically: a store that would not load is never written.
func Write[T any](path string, v *T, decode func([]byte) (*T, error)) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := decode(b); err != nil {
		return err
	}
	return snapshot.WriteFileAtomic(path, b)
}
