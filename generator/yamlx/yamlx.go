// Package yamlx decodes YAML strictly into typed values: unknown fields are
// errors, and every error names the file, the line and the field.
package yamlx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decode reads one YAML document from b into v, rejecting unknown fields.
// name is the file the bytes came from, used in errors.
func Decode(name string, b []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: empty document", name)
		}
		return fmt.Errorf("%s: %s", name, Locate(b, Explain(b, err)))
	}
	return checkFinite(name, b, v)
}

var (
	lineRe    = regexp.MustCompile(`line (\d+): `)
	unknownRe = regexp.MustCompile(`field (\S+) not found in type (\S+)`)
	typeRe    = regexp.MustCompile("cannot unmarshal !!(\\w+) `([^`]*)` into (\\S+)")
)

// Explain rewrites yaml.v3's messages about the document b into "line N:
// field X: ..." form; a value of the wrong type is named by its key path.
func Explain(b []byte, err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return strings.TrimPrefix(err.Error(), "yaml: ")
	}
	var parts []string
	for _, e := range te.Errors {
		line := ""
		if m := lineRe.FindStringSubmatch(e); m != nil {
			line = "line " + m[1] + ": "
		}
		switch {
		case unknownRe.MatchString(e):
			m := unknownRe.FindStringSubmatch(e)
			parts = append(parts, line+"unknown field "+m[1])
		case typeRe.MatchString(e):
			m := typeRe.FindStringSubmatch(e)
			field := "value " + strconv.Quote(m[2])
			if l, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "line "), ": ")); err == nil {
				if key := PathAt(b, l, m[2]); key != "" {
					field = key + " (value " + strconv.Quote(m[2]) + ")"
				}
			}
			parts = append(parts, fmt.Sprintf("%sfield %s: expected %s, found %s", line, field, kind(m[3]), m[1]))
		default:
			parts = append(parts, e)
		}
	}
	return strings.Join(parts, "; ")
}

func kind(goType string) string {
	switch {
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "an integer"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "a string"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	}
	return "a " + goType
}
