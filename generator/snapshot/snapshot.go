// Package snapshot holds what the generator knows about one Hub repository at
// one commit: the file listing, the Hub's dtype census, the index and header
// figures and the config the engine reads. Snapshots live under
// data/hub/<org>/<name>/snapshot.json and are written by `dossier sync` or,
// for shipped data, assembled by hand with a source for every section.
package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"dossier/generator/internal/checked"
	"dossier/generator/internal/jsoncheck"
	"dossier/generator/internal/safefile"
)

// FileName is the snapshot's name inside its model directory.
const FileName = "snapshot.json"

// Schema is the version of the format this package reads and writes.
const Schema = 1

// Snapshot is one repository at one revision.
type Snapshot struct {
	Schema   int    `json:"schema"`
	Model    string `json:"model"`    // "org/name"
	Revision string `json:"revision"` // full commit sha the Hub answered; "" only with RevisionNote
	// RevisionNote says why Revision is empty: a hand-assembled snapshot
	// whose sources did not record the full commit sha. A sync always
	// records the sha; an unknown revision is never filled in by guess.
	RevisionNote string `json:"revision_note,omitempty"`
	Fetched      string `json:"fetched"` // when the metadata was read (RFC 3339 or a date)
	Endpoint     string `json:"endpoint,omitempty"`
	// Source says how the snapshot was made: "dossier sync" or the documents
	// a hand-assembled snapshot was taken from.
	Source string `json:"source"`

	// Census is the Hub's own parameter count per stored dtype
	// (model_info safetensors.parameters): quantization-aware, so packed
	// 4-bit payloads count two parameters per byte.
	Census       Counts `json:"census,omitempty"`
	CensusSource string `json:"census_source,omitempty"`

	// Files is the repository listing. Size is nil when the listing that
	// the snapshot came from did not give it.
	Files  []File  `json:"files"`
	Shards Shards  `json:"shards"`
	Index  *Index  `json:"index,omitempty"`
	Header *Header `json:"headers,omitempty"`
	// Tensors maps each tensor's name to its shape ("4096x14336", "" for a
	// scalar; see FormatShape). A sync keeps them only when arch does not
	// know the family: its layout is then inferred from the shapes. Always
	// keeping them is not cheap: K3's 497,220 tensors encode to 47.5 MB,
	// against 112 KB for the whole shipped data/hub.
	Tensors       map[string]string `json:"tensors,omitempty"`
	TensorsSource string            `json:"tensors_source,omitempty"`

	// Config is the model's config.json (possibly reduced to the fields the
	// engine reads); HFQuantConfig a sibling hf_quant_config.json if any.
	Config        json.RawMessage `json:"config"`
	ConfigSource  string          `json:"config_source"`
	HFQuantConfig json.RawMessage `json:"hf_quant_config,omitempty"`
}

// File is one entry of the repository listing.
type File struct {
	Path string `json:"path"`
	Size *int64 `json:"size,omitempty"`
}

// Shards summarizes the weight shards: *.safetensors at the repository
// root, not original/ copies nor GGUF siblings.
type Shards struct {
	Count    int    `json:"count"`
	Bytes    int64  `json:"bytes"` // sum of the shard file sizes
	Source   string `json:"source"`
	Numbered string `json:"numbered,omitempty"` // naming pattern, e.g. model-%05d-of-%06d.safetensors
}

// Index is model.safetensors.index.json.
type Index struct {
	TotalSize int64  `json:"total_size"` // metadata.total_size: tensor bytes
	Tensors   int    `json:"tensors"`    // entries in weight_map
	FileBytes int64  `json:"file_bytes,omitempty"`
	Source    string `json:"source"`
}

// Header is what reading every shard's safetensors header gave.
type Header struct {
	Bytes   int64  `json:"bytes"` // sum over shards of 8 + header length
	Tensors int    `json:"tensors"`
	Elems   Counts `json:"elements"` // stored elements per dtype
	TBytes  Counts `json:"tensor_bytes"`
	Source  string `json:"source"`
}

// Path is where the snapshot of model lives under dataDir.
func Path(dataDir, model string) string {
	return filepath.Join(dataDir, "hub", filepath.FromSlash(model), FileName)
}

var (
	modelRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)
	shaRe   = regexp.MustCompile(`^[0-9a-f]{40}$`)
	dtypeRe = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

// ValidModel reports whether id is an org/name Hub id that is safe to use
// as a path below data/hub.
func ValidModel(id string) bool {
	return modelRe.MatchString(id) && !strings.Contains(id, "..")
}

// Load reads and validates the snapshot at path.
func Load(path string) (*Snapshot, error) {
	b, err := safefile.Read(path, filepath.Dir(path), safefile.Snapshot)
	if err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	s, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Decode parses a snapshot strictly: unknown fields and inconsistent
// figures are errors that name the field.
func Decode(b []byte) (*Snapshot, error) {
	var je *jsoncheck.Error
	if errors.As(jsoncheck.Check(b, ""), &je) {
		return nil, &FieldError{Field: je.Field, Msg: je.Msg}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s Snapshot
	if err := dec.Decode(&s); err != nil {
		return nil, describeJSONError(err, b)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the snapshot object")
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Counts maps a dtype to a count. Decoding names the key whose value is
// not a whole number, which encoding/json's own error does not.
type Counts map[string]int64

// UnmarshalJSON implements json.Unmarshaler. encoding/json does not tell
// an Unmarshaler where its value sits, so the error is relative to the
// Counts value; Decode finds which field held it (see locateCounts).
func (c *Counts) UnmarshalJSON(b []byte) error {
	out, err := decodeCounts("", b)
	if err != nil {
		return err
	}
	*c = out
	return nil
}

// decodeCounts decodes one dtype: integer object whose field path is
// field ("" when unknown); errors name field and, for a bad value, the key.
// null decodes to an empty Counts, as an absent object would.
func decodeCounts(field string, b []byte) (Counts, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, &countsError{FieldError{Field: field, Msg: "expected an object of dtype: integer, found " + jsonValueKind(b)}}
	}
	out := make(Counts, len(raw))
	for _, k := range sortedKeys(raw) {
		var n int64
		if err := json.Unmarshal(raw[k], &n); err != nil {
			return nil, &countsError{FieldError{Field: joinField(field, k), Msg: "expected an integer, found " + shorten(string(raw[k]))}}
		}
		out[k] = n
	}
	return out, nil
}

// countsError is a decodeCounts failure; its Field may lack the parent.
type countsError struct{ FieldError }

func (e *countsError) Error() string {
	if e.Field == "" {
		return "dtype counts: " + e.Msg
	}
	return e.FieldError.Error()
}

func joinField(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// jsonValueKind names the kind of one JSON value, for "found ..." messages.
func jsonValueKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// shorten keeps an echoed input value short enough for a message.
func shorten(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max]) + "…"
}

// FieldError names the field of a snapshot that is wrong.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return "field " + e.Field + ": " + e.Msg }

func describeJSONError(err error, b []byte) error {
	var ce *countsError
	if errors.As(err, &ce) {
		// A Counts value failed: find which field held it.
		var located *countsError
		if errors.As(locateCounts(b), &located) {
			return &located.FieldError
		}
		// Not reached for input the decoder read; still name the candidates.
		return &FieldError{Field: joinField("census|headers.elements|headers.tensor_bytes", ce.Field), Msg: ce.Msg}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &FieldError{Field: te.Field, Msg: "expected " + jsonKind(te.Type.Kind().String()) + ", found " + te.Value}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("line %d: invalid JSON at byte %d: %w", jsoncheck.LineAt(b, se.Offset), se.Offset, err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("line %d: the JSON ends before the snapshot object is closed", jsoncheck.LineAt(b, int64(len(b))))
	}
	if msg := err.Error(); strings.HasPrefix(msg, "json: unknown field ") {
		return &FieldError{Field: strings.Trim(strings.TrimPrefix(msg, "json: unknown field "), `"`), Msg: "unknown field"}
	}
	return err
}

func jsonKind(k string) string {
	switch k {
	case "int", "int64", "int32":
		return "an integer"
	case "string":
		return "a string"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	}
	return k
}

// Validate checks the figures agree with each other.
func (s *Snapshot) Validate() error {
	bad := func(field, format string, a ...any) error {
		return &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	if s.Schema != Schema {
		return bad("schema", "expected %d, found %d", Schema, s.Schema)
	}
	if !ValidModel(s.Model) {
		return bad("model", "expected an org/name Hub id, found %q", s.Model)
	}
	switch {
	case s.Revision == "" && strings.TrimSpace(s.RevisionNote) == "":
		return bad("revision", "expected a 40-hex-digit commit sha, or an empty revision with revision_note saying why the commit is unknown")
	case s.Revision != "" && !shaRe.MatchString(s.Revision):
		return bad("revision", "expected a 40-hex-digit commit sha, found %q", s.Revision)
	}
	if s.Fetched == "" {
		return bad("fetched", "missing")
	}
	if s.Source == "" {
		return bad("source", "missing: say where the snapshot came from")
	}
	for _, k := range sortedKeys(s.Census) {
		if !dtypeRe.MatchString(k) {
			return bad("census."+k, "expected a safetensors dtype name")
		}
		if s.Census[k] < 0 {
			return bad("census."+k, "expected a non-negative count, found %d", s.Census[k])
		}
	}
	if len(s.Census) > 0 && s.CensusSource == "" {
		return bad("census_source", "missing: the census needs a source")
	}
	var known int64
	sizes := 0
	shards := 0
	for i, f := range s.Files {
		if f.Path == "" || strings.HasPrefix(f.Path, "/") || strings.Contains(f.Path, "..") {
			return bad(fmt.Sprintf("files[%d].path", i), "expected a relative path inside the repository, found %q", f.Path)
		}
		if f.Size != nil && *f.Size < 0 {
			return bad(fmt.Sprintf("files[%d].size", i), "expected a non-negative size")
		}
		if IsWeightShard(f.Path) {
			shards++
			if f.Size != nil {
				sizes++
				var ok bool
				if known, ok = checked.Add(known, *f.Size); !ok {
					return bad(fmt.Sprintf("files[%d].size", i), "the weight shard sizes up to this one sum past the int64 range (%d bytes)", int64(math.MaxInt64))
				}
			}
		}
	}
	if s.Shards.Count != shards {
		return bad("shards.count", "the file listing has %d weight shards, found %d", shards, s.Shards.Count)
	}
	if s.Shards.Bytes <= 0 && shards > 0 {
		return bad("shards.bytes", "expected the summed shard size in bytes")
	}
	if sizes == shards && shards > 0 && known != s.Shards.Bytes {
		return bad("shards.bytes", "the listed shard sizes sum to %d, found %d", known, s.Shards.Bytes)
	}
	if s.Shards.Source == "" && shards > 0 {
		return bad("shards.source", "missing")
	}
	if s.Shards.Bytes < 0 {
		return bad("shards.bytes", "expected a non-negative byte count, found %d", s.Shards.Bytes)
	}
	if s.Index != nil {
		if s.Index.TotalSize <= 0 {
			return bad("index.total_size", "expected a positive byte count, found %d", s.Index.TotalSize)
		}
		// Without shard sizes (no listing captured) there is nothing to
		// compare the index with.
		if s.Shards.Bytes > 0 && s.Index.TotalSize > s.Shards.Bytes {
			return bad("index.total_size", "tensor bytes %d exceed the shard bytes %d", s.Index.TotalSize, s.Shards.Bytes)
		}
		if s.Index.Tensors < 0 {
			return bad("index.tensors", "expected a non-negative tensor count, found %d", s.Index.Tensors)
		}
		if s.Index.FileBytes < 0 {
			return bad("index.file_bytes", "expected a non-negative byte count, found %d", s.Index.FileBytes)
		}
		if s.Index.Source == "" {
			return bad("index.source", "missing")
		}
	}
	if err := s.validateHeader(); err != nil {
		return err
	}
	if err := s.validateTensors(); err != nil {
		return err
	}
	if len(s.Config) == 0 {
		return bad("config", "missing: the engine needs config.json")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(s.Config, &obj); err != nil || obj == nil {
		return bad("config", "expected a JSON object, found %s", jsonValueKind(s.Config))
	}
	if s.ConfigSource == "" {
		return bad("config_source", "missing")
	}
	return nil
}

// validateHeader checks the figures read from the safetensors headers: no
// negative count, and header plus tensor bytes within the shard bytes when
// those are known (the rest of a shard is padding, never negative).
func (s *Snapshot) validateHeader() error {
	h := s.Header
	if h == nil {
		return nil
	}
	bad := func(field, format string, a ...any) error {
		return &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	if h.Bytes < 0 {
		return bad("headers.bytes", "expected a non-negative byte count, found %d", h.Bytes)
	}
	if h.Tensors < 0 {
		return bad("headers.tensors", "expected a non-negative tensor count, found %d", h.Tensors)
	}
	for _, k := range sortedKeys(h.Elems) {
		if h.Elems[k] < 0 {
			return bad("headers.elements."+k, "expected a non-negative integer, found %d", h.Elems[k])
		}
	}
	for _, k := range sortedKeys(h.TBytes) {
		if h.TBytes[k] < 0 {
			return bad("headers.tensor_bytes."+k, "expected a non-negative integer, found %d", h.TBytes[k])
		}
	}
	if s.Shards.Bytes <= 0 {
		return nil
	}
	if h.Bytes > s.Shards.Bytes {
		return bad("headers.bytes", "header bytes %d exceed the shard bytes %d", h.Bytes, s.Shards.Bytes)
	}
	// Every term is non-negative: stop summing before the total overflows.
	var tb int64
	sum := ""
	for _, k := range sortedKeys(h.TBytes) {
		if h.TBytes[k] > math.MaxInt64-tb {
			sum = "beyond the int64 range"
			break
		}
		tb += h.TBytes[k]
	}
	if sum != "" || tb > s.Shards.Bytes-h.Bytes {
		if sum == "" {
			sum = fmt.Sprint(tb)
		}
		return bad("headers.tensor_bytes", "expected the tensor bytes plus the header bytes %d to be at most the shard bytes %d, found tensor bytes %s", h.Bytes, s.Shards.Bytes, sum)
	}
	return nil
}

// validateTensors checks each kept shape parses, and that the headers
// read hold at least as many tensors as were kept.
func (s *Snapshot) validateTensors() error {
	if len(s.Tensors) == 0 {
		return nil
	}
	if s.TensorsSource == "" {
		return &FieldError{Field: "tensors_source", Msg: "missing: the tensor shapes need a source"}
	}
	if s.Header != nil && len(s.Tensors) > s.Header.Tensors {
		return &FieldError{Field: "tensors", Msg: fmt.Sprintf("%d shapes kept, but the headers hold %d tensors", len(s.Tensors), s.Header.Tensors)}
	}
	for _, name := range sortedKeys(s.Tensors) {
		if name == "" {
			return &FieldError{Field: "tensors", Msg: "expected tensor names, found an empty one"}
		}
		if _, err := ParseShape(s.Tensors[name]); err != nil {
			return &FieldError{Field: "tensors." + name, Msg: err.Error()}
		}
	}
	return nil
}

// FormatShape writes a tensor shape as its dimensions joined by "x": one
// short string per tensor keeps the indented snapshot one line a tensor.
func FormatShape(shape []int64) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return strings.Join(parts, "x")
}

// maxDims bounds a kept shape's rank; safetensors shapes are a handful.
const maxDims = 16

// ParseShape reads a FormatShape string back: non-negative decimal
// dimensions, at most maxDims of them, whose product fits an int64.
func ParseShape(s string) ([]int64, error) {
	if s == "" {
		return []int64{}, nil
	}
	parts := strings.Split(s, "x")
	if len(parts) > maxDims {
		return nil, fmt.Errorf("expected at most %d dimensions, found %d", maxDims, len(parts))
	}
	shape := make([]int64, len(parts))
	elems := int64(1)
	for i, p := range parts {
		d, err := strconv.ParseInt(p, 10, 64)
		if err != nil || d < 0 || p != strconv.FormatInt(d, 10) {
			return nil, fmt.Errorf("expected dimensions like 4096x14336, found %q", shorten(s))
		}
		shape[i] = d
		var ok bool
		if elems, ok = checked.Mul(elems, d); !ok {
			return nil, fmt.Errorf("%q holds more than %d elements", shorten(s), int64(math.MaxInt64))
		}
	}
	return shape, nil
}

// IsWeightShard reports whether a repository path is a weight shard that
// counts toward the checkpoint: *.safetensors at the top level. Copies
// under original/ or other folders and GGUF siblings do not.
func IsWeightShard(path string) bool {
	return !strings.Contains(path, "/") && strings.HasSuffix(path, ".safetensors")
}

// Encode writes s as indented JSON with a trailing newline; deterministic.
func Encode(s *Snapshot) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("encode snapshot: %w", err)
	}
	return buf.Bytes(), nil
}

// Write validates s and writes it under dataDir atomically: a temporary
// file in the same directory, synced, then renamed over the old snapshot.
func Write(dataDir string, s *Snapshot) (string, error) {
	if err := s.Validate(); err != nil {
		return "", fmt.Errorf("snapshot %s: %w", s.Model, err)
	}
	b, err := Encode(s)
	if err != nil {
		return "", err
	}
	path := Path(dataDir, s.Model)
	if err := WriteFileAtomic(path, b); err != nil {
		return "", err
	}
	return path, nil
}

// WriteFileAtomic writes b to path through a temporary sibling and rename.
func WriteFileAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("create temporary file in %s: %w", dir, err)
	}
	tmp := f.Name()
	_, werr := f.Write(b)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// countsFields are the Counts-typed fields of a snapshot, by parent.
var countsFields = map[string][]string{
	"":        {"census"},
	"headers": {"elements", "tensor_bytes"},
}

// locateCounts walks the snapshot's JSON in document order, as the decoder
// did, and returns the first Counts-typed field that does not decode, with
// the error naming its full path; nil if none fails.
func locateCounts(b []byte) error {
	var walk func(parent string, obj []byte) error
	walk = func(parent string, obj []byte) error {
		for _, m := range objectMembers(obj) {
			for _, name := range countsFields[parent] {
				// encoding/json matches keys case-insensitively.
				if strings.EqualFold(m.key, name) {
					if _, err := decodeCounts(joinField(parent, name), m.value); err != nil {
						return err
					}
				}
			}
			if parent == "" && strings.EqualFold(m.key, "headers") {
				if err := walk("headers", m.value); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk("", b)
}

type member struct {
	key   string
	value json.RawMessage
}

// objectMembers lists the members of a JSON object in document order,
// duplicates included; nil if b is not an object.
func objectMembers(b []byte) []member {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, member{key, v})
	}
	return out
}
