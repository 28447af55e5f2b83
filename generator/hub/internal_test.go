package hub

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"dossier/generator/snapshot"
)

func TestNextLink(t *testing.T) {
	cases := map[string]string{
		`<https://huggingface.co/api/models/a/b/tree/main?recursive=true&cursor=abc%3D>; rel="next"`: "https://huggingface.co/api/models/a/b/tree/main?recursive=true&cursor=abc%3D",
		`<https://x/prev>; rel="prev", <https://x/next?cursor=a,b>; rel="next"`:                      "https://x/next?cursor=a,b",
		`<https://x/last>; rel="last"`:                     "",
		`</api/models/a/b/tree/main?cursor=Zm9v>;rel=next`: "/api/models/a/b/tree/main?cursor=Zm9v",
		`<https://x/n>; title="a;b"; rel="prev next"`:      "https://x/n",
		``:                          "",
		`garbage`:                   "",
		`<unterminated; rel="next"`: "",
	}
	for in, want := range cases {
		if got := nextLink(in); got != want {
			t.Errorf("nextLink(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRewriteNext(t *testing.T) {
	page, _ := url.Parse("https://hf-mirror.example/hf/api/models/a/b/tree/main?recursive=true")
	cases := []struct{ endpoint, next, want string }{
		{"https://hf-mirror.example", "https://huggingface.co/api/models/a/b/tree/main?cursor=x", "https://hf-mirror.example/api/models/a/b/tree/main?cursor=x"},
		{"https://hf-mirror.example/hf", "https://huggingface.co/api/models/a/b/tree/main?cursor=x", "https://hf-mirror.example/hf/api/models/a/b/tree/main?cursor=x"},
		{"https://hf-mirror.example/hf", "https://other.example/hf/api/models/a/b/tree/main?cursor=x", "https://hf-mirror.example/hf/api/models/a/b/tree/main?cursor=x"},
		{"https://hf-mirror.example/hf", "/hf/api/models/a/b/tree/main?cursor=y", "https://hf-mirror.example/hf/api/models/a/b/tree/main?cursor=y"},
		{"https://huggingface.co", "https://huggingface.co/api/models/a/b/tree/main?cursor=z", "https://huggingface.co/api/models/a/b/tree/main?cursor=z"},
	}
	for _, tc := range cases {
		c, err := New(Config{Endpoint: tc.endpoint})
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.rewriteNext(page, tc.next)
		if err != nil || got != tc.want {
			t.Errorf("endpoint %s, next %s: got %s (%v), want %s", tc.endpoint, tc.next, got, err, tc.want)
		}
	}
}

func TestContentRange(t *testing.T) {
	good := map[string][3]int64{
		"bytes 0-99999/1560936091448": {0, 99999, 1560936091448},
		"bytes 100000-790000/*":       {100000, 790000, -1},
		"bytes 0-0/1":                 {0, 0, 1},
	}
	for in, want := range good {
		a, b, c, err := contentRange(in)
		if err != nil || [3]int64{a, b, c} != want {
			t.Errorf("%q: %d %d %d %v", in, a, b, c, err)
		}
	}
	for _, bad := range []string{"", "bytes */100", "bytes 5-4/10", "bytes 0-9/9", "items 0-1/2", "bytes a-b/c"} {
		if _, _, _, err := contentRange(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 8, 30, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{http.Header{"Ratelimit": {`"api";r=0;t=55`}, "Retry-After": {"3"}}, 56 * time.Second},
		{http.Header{"Ratelimit": {`"api";r=12;t=55`}, "Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"99999999999999999"}}, time.Duration(1<<32) * time.Second},
		{http.Header{}, 0},
	}
	for _, tc := range cases {
		if got := retryAfter(tc.h, now); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.h, got, tc.want)
		}
	}
	for attempt, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second} {
		if got := backoff(attempt + 1); got != want {
			t.Errorf("backoff(%d) = %s", attempt+1, got)
		}
	}
	if backoff(100) != 8*time.Second {
		t.Error("backoff overflows")
	}
}

func TestParseIndex(t *testing.T) {
	total, n, err := parseIndex([]byte(`{"metadata": {"total_size": 1560860324864, "total_parameters": 2779931837184},
	  "weight_map": {"a.weight": "model-00001-of-000096.safetensors", "b\"q\\\\": "x", "c": "y"}, "extra": [1, {"z": null}]}`))
	if err != nil || total != 1560860324864 || n != 3 {
		t.Fatalf("%d %d %v", total, n, err)
	}
	if total, _, err := parseIndex([]byte(`{"weight_map":{},"metadata":{"total_size":1.5e3}}`)); err != nil || total != 1500 {
		t.Fatalf("float total: %d %v", total, err)
	}
	for in, want := range map[string]string{
		`[]`:                "expected a JSON object",
		`{"weight_map":{}}`: "metadata.total_size: missing",
		`{"metadata":{"total_size":0},"weight_map":{}}`:         "expected a positive integer",
		`{"metadata":{"total_size":"twelve"},"weight_map":{}}`:  "metadata",
		`{"metadata":{"total_size":1.5},"weight_map":{}}`:       "expected a positive integer",
		`{"metadata":{"total_size":12}}`:                        "weight_map: missing",
		`{"metadata":{"total_size":12},"weight_map":{"a" "b"}}`: "weight_map: byte",
		`{"metadata":{"total_size":12},"weight_map":{"a":"b}}`:  "unterminated string",
		`{"metadata":{"total_size":12},"weight_map":{}} x`:      "unexpected data",
		`{"metadata":{"total_size":12},"weight_map":[]}`:        "expected an object",
	} {
		if _, _, err := parseIndex([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
}

func TestShardSummary(t *testing.T) {
	mk := func(names ...string) []TreeEntry {
		var es []TreeEntry
		for _, n := range names {
			es = append(es, TreeEntry{Path: n, Size: 10})
		}
		return es
	}
	k3 := mk("model-00001-of-000003.safetensors", "model-00002-of-000003.safetensors", "model-00003-of-000003.safetensors")
	if s := shardSummary(k3); s.Numbered != "model-%05d-of-%06d.safetensors" || s.Count != 3 || s.Bytes != 30 {
		t.Errorf("%+v", s)
	}
	if w := numberingWarning(k3); w != "" {
		t.Errorf("warning %q", w)
	}
	gptoss := mk("model-00000-of-00002.safetensors", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")
	if w := numberingWarning(gptoss); w != "" {
		t.Errorf("numbering from 0: %q", w)
	}
	gap := mk("model-00001-of-00004.safetensors", "model-00002-of-00004.safetensors", "model-00004-of-00004.safetensors")
	if w := numberingWarning(gap); !strings.Contains(w, "missing from the listing: 3") {
		t.Errorf("gap: %q", w)
	}
	if s := shardSummary(mk("model.safetensors")); s.Numbered != "" || s.Count != 1 {
		t.Errorf("single: %+v", s)
	}
	if s := shardSummary(mk("100%-00001-of-00001.safetensors")); s.Numbered != "100%%-%05d-of-%05d.safetensors" {
		t.Errorf("percent: %q", s.Numbered)
	}
}

func TestChangesAgainstHandAssembled(t *testing.T) {
	size := int64(5)
	prev := &snapshot.Snapshot{Revision: strings.Repeat("a", 40), Files: []snapshot.File{{Path: "x.safetensors"}, {Path: "old.txt", Size: &size}},
		Census: map[string]int64{"BF16": 10}, Config: []byte(`{"a": 1}`)}
	next := &snapshot.Snapshot{Revision: strings.Repeat("b", 40), Files: []snapshot.File{{Path: "x.safetensors", Size: &size}},
		Census: map[string]int64{"BF16": 10, "U8": 4}, Config: []byte(`{"a":1}`), Header: &snapshot.Header{Tensors: 2, Bytes: 100}}
	got := strings.Join(changes(prev, next), "\n")
	for _, want := range []string{"revision aaaa", "files removed (1): old.txt", "census U8: new, 4", "headers read: 2 tensors"} {
		if !strings.Contains(got, want) {
			t.Errorf("changes lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "config.json") {
		t.Errorf("whitespace counted as a config change:\n%s", got)
	}
}

func TestErrorMessageScrubbed(t *testing.T) {
	tok := NewToken("hf_secret")
	c, _ := New(Config{Token: tok})
	got := c.scrub("bad token hf_secret\x1b[31m" + strings.Repeat("é", 400))
	if strings.Contains(got, "hf_secret") || strings.ContainsRune(got, 0x1b) || len(got) > 310 || !strings.HasSuffix(got, "…") {
		t.Fatalf("%q", got)
	}
}

// TestHeaderGuesses sizes each shard's first read from the names the index
// maps to it; a value that is not a string (no shard) is not counted.
func TestHeaderGuesses(t *testing.T) {
	g, err := headerGuesses([]byte(`{"metadata": {"total_size": 12}, "weight_map": {
	  "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
	  "model.layers.0.mlp.up_proj.weight": "model-00001-of-00002.safetensors",
	  "lm_head.weight": "model-00002-of-00002.safetensors", "odd": 3}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"model-00001-of-00002.safetensors": 25 + 33 + 2*112 + 8192,
		"model-00002-of-00002.safetensors": 14 + 112 + 8192,
	}
	if len(g) != len(want) {
		t.Fatalf("guesses %v, want %v", g, want)
	}
	for f, n := range want {
		if g[f] != n {
			t.Errorf("%s: guess %d, want %d", f, g[f], n)
		}
	}
	if _, err := headerGuesses([]byte(`{"weight_map": {"a": "b"}}`)); err == nil {
		t.Error("an index without metadata gave guesses")
	}
}

// TestShapesStayWithinWhatLoadReads: the estimate of what kept shapes add
// to an encoded snapshot is never short of the real bytes, and shapes that
// would pass the limit are dropped with a warning, not written into a
// snapshot that Load would refuse.
func TestShapesStayWithinWhatLoadReads(t *testing.T) {
	shapes := map[string]string{}
	for i := range 2000 {
		shapes[fmt.Sprintf("model.layers.%d.mlp.experts.%d.down_proj.weight", i%61, i)] = "7168x2048"
	}
	shapes["model.norm.weight"] = "7168"
	shapes["scalar"] = ""
	bare := &snapshot.Snapshot{}
	withShapes := &snapshot.Snapshot{Tensors: shapes, TensorsSource: "t"}
	a, err := snapshot.Encode(bare)
	if err != nil {
		t.Fatal(err)
	}
	b, err := snapshot.Encode(withShapes)
	if err != nil {
		t.Fatal(err)
	}
	added := int64(len(b) - len(a))
	// The encoding adds the shape lines plus the two fields' own lines
	// (`"tensors": {`, `},`, `"tensors_source": "t",`): under 64 bytes.
	if est := shapesBytes(shapes); est > added || est < added-64 {
		t.Errorf("estimate %d bytes, the encoding adds %d", est, added)
	}

	f := &fetch{shapes: shapes}
	snap := &snapshot.Snapshot{}
	f.attachShapes(snap, shapesMargin+shapesBytes(shapes)-1)
	if snap.Tensors != nil || len(f.warnings) != 1 || !strings.Contains(f.warnings[0], "tensor shapes not kept: 2002 tensors") {
		t.Fatalf("past the limit: %d shapes kept, warnings %q", len(snap.Tensors), f.warnings)
	}
	f.attachShapes(snap, shapesMargin+shapesBytes(shapes))
	if len(snap.Tensors) != 2002 || snap.TensorsSource == "" {
		t.Fatalf("at the limit: %d shapes kept", len(snap.Tensors))
	}
}
