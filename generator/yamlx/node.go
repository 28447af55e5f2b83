package yamlx

import (
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DecodeNode is Decode for a document already parsed into doc (from b):
// a caller that reads the node tree for line numbers need not have the
// bytes parsed a second time. When every mapping key has a field to go
// to, the node is decoded; otherwise, or when decoding fails, Decode
// reads b for the same result and error as ever.
func DecodeNode(name string, b []byte, doc *yaml.Node, v any) error {
	if Fits(doc, v) && doc.Decode(v) == nil {
		return checkFinite(name, b, v)
	}
	return Decode(name, b, v)
}

// Fits says whether DecodeNode can decode doc into v without reading the
// bytes again: doc is a mapping whose every key, at every depth, has a
// field of v's type to go to.
func Fits(doc *yaml.Node, v any) bool {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	return root.Kind == yaml.MappingNode && knownFields(root, reflect.TypeOf(v))
}

// knownFields says whether decoding n into a value of type t would find a
// field for every key of every mapping that goes into a struct: what
// yaml.v3's KnownFields checks. It answers false for anything it does not
// follow (aliases, merge keys, keys that are not plain strings), which
// only sends the caller to the strict decoder.
func knownFields(n *yaml.Node, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return false
	}
	if isNull(n) {
		return true
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return true // a type error, reported by the decoder
		}
		fields := structFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" || k.Anchor != "" {
				return false
			}
			ft, ok := fields[k.Value]
			if !ok || !knownFields(n.Content[i+1], ft) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		if n.Kind == yaml.SequenceNode {
			for _, item := range n.Content {
				if !knownFields(item, t.Elem()) {
					return false
				}
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Kind != yaml.ScalarNode || n.Content[i].ShortTag() == "!!merge" || !knownFields(n.Content[i+1], t.Elem()) {
					return false
				}
			}
		}
	case reflect.Interface:
		// decoded as generic values: no fields to miss, but aliases and
		// merges inside are left to the decoder.
		return plain(n)
	}
	return true
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// plain says whether n holds no alias or anchor anywhere.
func plain(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return false
	}
	for _, c := range n.Content {
		if !plain(c) {
			return false
		}
	}
	return true
}

// structFields maps the keys yaml.v3 decodes into t's fields (the yaml
// tag's name, else the lower-cased field name) to the fields' types. It
// reports no keys for a struct with inlined fields, which it does not
// follow.
func structFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(opts, "inline") {
			return nil
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}
