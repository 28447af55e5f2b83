package yamlx

import (
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

type inner struct {
	ID    string   `yaml:"id"`
	Tags  []string `yaml:"tags"`
	Deep  *leaf    `yaml:"deep"`
	Count int
}

type leaf struct {
	Low  float64 `yaml:"low"`
	High float64 `yaml:"high"`
}

type doc struct {
	Title   string           `yaml:"title"`
	Items   []inner          `yaml:"items"`
	Ptr     *inner           `yaml:"ptr"`
	ByName  map[string]inner `yaml:"by_name"`
	Any     any              `yaml:"any"`
	Skipped string           `yaml:"-"`
	Plain   bool
}

// decodeCases are documents DecodeNode must read exactly as Decode does:
// fast where every key has a field, else Decode's own result and error.
var decodeCases = []struct {
	src  string
	fast bool // every key has a field: the node is decoded
}{
	{"title: x\nitems:\n  - id: a\n    tags: [p, q]\n    deep: {low: 1, high: 2.5}\n    count: 3\nptr: {id: b}\nby_name:\n  k: {id: c}\nany: {free: [1, 2]}\nplain: true\n", true},
	{"title: x\n", true},
	{"title: x\nitems: []\nptr: null\nby_name: {}\nany: ~\n", true},
	{"'title': \"quoted keys\"\n", true},
	{"title: x\nitems: [{id: a}]\n", true},
	{"title: x\nunknown: 1\n", false},
	{"title: x\nitems:\n  - id: a\n    extra: 1\n", false},
	{"title: x\nptr: {deep: {low: 1, middle: 2}}\n", false},
	{"title: x\nby_name:\n  k: {id: c, nope: 1}\n", false},
	{"title: x\nSkipped: no\n", false},
	{"title: x\n'-': no\n", false},
	{"Title: capitalised\n", false},
	{"title: &a x\nptr: {id: *a}\n", false},
	{"base: &b {id: a}\nptr:\n  <<: *b\n", false},
	{"ptr:\n  <<: {id: a}\n", false},
	{"any: &x [1]\n", false},
	{"1: number key\n", false},
	{"title: [not, a, string]\n", true}, // a type error: the decoder reports it
	{"items: {id: a}\n", true},
	{"title: x\ntitle: y\n", true}, // a duplicate key: the decoder reports it
	{"items:\n  - id: a\n    count: many\n", true},
	{"ptr: {deep: [1, 2]}\n", true},
	{"plain: yes\n", true},
}

func TestDecodeNodeIsDecode(t *testing.T) {
	for _, c := range decodeCases {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(c.src), &n); err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if got := Fits(&n, &doc{}); got != c.fast {
			t.Errorf("%q: Fits %v, want %v", c.src, got, c.fast)
		}
		sameAsDecode(t, []byte(c.src), &n)
	}
}

func sameAsDecode(t *testing.T, b []byte, n *yaml.Node) {
	t.Helper()
	var want, got doc
	errWant := Decode("f.yaml", b, &want)
	errGot := DecodeNode("f.yaml", b, n, &got)
	if (errWant == nil) != (errGot == nil) || errWant != nil && errWant.Error() != errGot.Error() {
		t.Fatalf("%q: error %v, Decode's %v", b, errGot, errWant)
	}
	if errWant == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decoded %+v, Decode %+v", b, got, want)
	}
}

func FuzzDecodeNode(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c.src))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var n yaml.Node
		if yaml.Unmarshal(b, &n) != nil {
			return // DecodeNode is only given documents that parse
		}
		sameAsDecode(t, b, &n)
	})
}

func TestPathAt(t *testing.T) {
	doc := []byte("sizing:\n  concurrency: true\n  contexts: [1, 2.5]\nprices:\n  - {sku: a, gpus: x}\n  - sku: b\n    gpus:\n      - 1\n")
	for _, tc := range []struct {
		line  int
		value string
		want  string
	}{
		{2, "true", "sizing.concurrency"},
		{3, "2.5", "sizing.contexts[1]"},
		{5, "x", "prices[0].gpus"},
		{8, "1", "prices[1].gpus[0]"},
		{2, "false", ""},
		{99, "x", ""},
	} {
		if got := PathAt(doc, tc.line, tc.value); got != tc.want {
			t.Errorf("PathAt(%d, %q) = %q, want %q", tc.line, tc.value, got, tc.want)
		}
	}
}
