package page

import (
	"fmt"
	"strings"
)

// checkShortcodes rejects a line whose shortcodes are not all the one form
// ExpandProse knows, {{< fact KEY >}}: a misspelt, empty or unclosed
// shortcode would otherwise be published as literal text. A shortcode
// opens and closes on one line.
func checkShortcodes(line string) error {
	for {
		i := strings.Index(line, "{{")
		if i < 0 {
			return nil
		}
		rest := line[i+2:]
		var open, close string
		switch {
		case strings.HasPrefix(rest, "<"):
			open, close = "{{<", ">}}"
		case strings.HasPrefix(rest, "%"):
			return fmt.Errorf("shortcode %s: the {{%% %%}} form is not supported; write {{< fact KEY >}}", excerpt(line[i:]))
		default:
			line = rest
			continue
		}
		end := strings.Index(rest, close)
		if end < 0 {
			return fmt.Errorf("shortcode %s opened with %s is never closed with %s on the same line", excerpt(line[i:]), open, close)
		}
		inner := rest[1:end]
		fields := strings.Fields(inner)
		switch {
		case len(fields) == 0:
			return fmt.Errorf("empty shortcode %s: expected {{< fact KEY >}}", line[i:i+2+end+len(close)])
		case fields[0] != "fact":
			return fmt.Errorf("unknown shortcode %q in %s: the only shortcode is {{< fact KEY >}}", fields[0], line[i:i+2+end+len(close)])
		case len(fields) != 2:
			return fmt.Errorf("shortcode %s: expected exactly one fact key, found %d", line[i:i+2+end+len(close)], len(fields)-1)
		case !shortcodeRe.MatchString(line[i : i+2+end+len(close)]):
			return fmt.Errorf("shortcode %s: a fact key is letters, digits and . _ : -", line[i:i+2+end+len(close)])
		}
		line = rest[end+len(close):]
	}
}

func excerpt(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
