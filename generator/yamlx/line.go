package yamlx

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Line returns the line of the value at a dotted field path such as
// accelerators[2].memory_bytes (or accelerators[id=B200].as_of) in the YAML document b, or of the nearest
// enclosing value that exists; 0 when b does not parse.
func Line(b []byte, field string) int {
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) == 0 {
		return 0
	}
	n := doc.Content[0]
	line := n.Line
	for _, part := range strings.Split(strings.ReplaceAll(field, "[", ".["), ".") {
		if part == "" {
			continue
		}
		var next *yaml.Node
		if idx, ok := strings.CutPrefix(part, "["); ok {
			idx = strings.TrimSuffix(idx, "]")
			i, err := strconv.Atoi(idx)
			k, v, byKey := strings.Cut(idx, "=")
			switch {
			case n.Kind != yaml.SequenceNode:
			case byKey: // [id=B200]: the item whose key id is B200
				for _, item := range n.Content {
					for j := 0; item.Kind == yaml.MappingNode && j+1 < len(item.Content); j += 2 {
						if item.Content[j].Value == k && item.Content[j+1].Value == v {
							next = item
						}
					}
				}
			case err == nil && i >= 0 && i < len(n.Content):
				next = n.Content[i]
			}
		} else if n.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == part {
					next = n.Content[j+1]
				}
			}
		}
		if next == nil {
			break
		}
		n, line = next, next.Line
	}
	return line
}

// UnclosedQuote returns the first line (1-based) of b holding an odd
// number of double quotes outside a comment: where a quoted scalar was
// opened and not closed. yaml.v3 reports such an error lines later, where
// the scanner gave up.
func UnclosedQuote(b []byte) (int, bool) {
	for i, line := range strings.Split(string(b), "\n") {
		n, inSingle, inDouble := 0, false, false
		for j := 0; j < len(line); j++ {
			c := line[j]
			switch {
			case inDouble && c == '\\':
				j++
			case c == '"' && !inSingle:
				inDouble = !inDouble
				n++
			case c == '\'' && !inDouble:
				inSingle = !inSingle
			case c == '#' && !inSingle && !inDouble && (j == 0 || line[j-1] == ' '):
				j = len(line)
			}
		}
		if n%2 == 1 {
			return i + 1, true
		}
	}
	return 0, false
}

// Locate improves a YAML syntax error: when a double-quoted value was left
// open at or before the line yaml.v3 reports, it names that line.
func Locate(b []byte, msg string) string {
	m := lineRe.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	reported, _ := strconv.Atoi(m[1])
	if l, ok := UnclosedQuote(b); ok && l <= reported+1 {
		return "line " + strconv.Itoa(l) + ": a double-quoted value opened on this line is not closed (" + strings.Replace(msg, "line "+m[1]+":", "the parser stopped at line "+m[1]+":", 1) + ")"
	}
	return msg
}

// PathAt is the dotted path (sizing.concurrency, prices[2].gpus) of the
// first scalar on line that is value, or "" when there is none: a type
// error from the decoder names the line and the value, and the reader
// needs the key.
func PathAt(b []byte, line int, value string) string {
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) == 0 {
		return ""
	}
	var walk func(n *yaml.Node, path string) (string, bool)
	walk = func(n *yaml.Node, path string) (string, bool) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				child := n.Content[i].Value
				if path != "" {
					child = path + "." + child
				}
				if p, ok := walk(n.Content[i+1], child); ok {
					return p, true
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				if p, ok := walk(c, path+"["+strconv.Itoa(i)+"]"); ok {
					return p, true
				}
			}
		}
		if n.Line == line && path != "" && n.Kind == yaml.ScalarNode && n.Value == value {
			return path, true
		}
		return "", false
	}
	p, _ := walk(doc.Content[0], "")
	return p
}
