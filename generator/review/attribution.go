package review

import (
	"path"
	"strings"
	"unicode"
)

// citedInputs returns the changed input files (paths relative to the
// repository root) behind a fact's sources, each with the source that
// names it ("data/pricing/runpod.json (pricing:RunPod 2026-09-25)"). A
// source that is another fact of the same document stands for that
// fact's own sources. Only files in changed are returned: a fact that
// cites the configuration file is not moved by it unless it changed.
func citedInputs(d *Doc, sources, changed []string) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(srcs []string, depth int)
	walk = func(srcs []string, depth int) {
		for _, s := range srcs {
			if seen[s] {
				continue
			}
			seen[s] = true
			if f := d.Facts.Get(s); f != nil {
				if depth < 8 {
					walk(f.Sources, depth+1)
				}
				continue
			}
			for _, file := range changed {
				if sourceReads(s, d, file) {
					out = append(out, file+" ("+s+")")
				}
			}
		}
	}
	walk(sources, 0)
	return out
}

// sourceReads reports whether the source id s (as facts.json cites it)
// is read from the input file (relative to the repository root).
func sourceReads(s string, d *Doc, file string) bool {
	base := path.Base(file)
	prefix, rest, ok := strings.Cut(s, ":")
	if !ok {
		prefix = ""
	}
	switch prefix {
	case "site":
		return base == firstField(rest, " ")
	case "catalog":
		return base == firstField(firstField(rest, "#"), " ")
	case "pricing":
		// "pricing:RunPod 2026-09-25" is data/pricing/runpod.json (or
		// the hand-written runpod.yaml): the provider's name folded.
		name := rest
		if i := strings.LastIndex(rest, " "); i >= 0 {
			name = rest[:i]
		}
		return path.Base(path.Dir(file)) == "pricing" && fold(strings.TrimSuffix(base, path.Ext(base))) == fold(name)
	case "hub", "analytic":
		return inSnapshot(d, file)
	case "measurement":
		return isPage(d, file)
	}
	switch s {
	case "config.json", "hf_quant_config.json", "model.safetensors.index.json":
		return inSnapshot(d, file)
	}
	if strings.HasPrefix(s, "Hub ") {
		return inSnapshot(d, file)
	}
	// Free text (a model card figure the page quotes): the page.
	return isPage(d, file)
}

// inSnapshot: file is the model's Hub snapshot directory.
func inSnapshot(d *Doc, file string) bool {
	return d.Model != "" && strings.Contains("/"+file, "/hub/"+d.Model+"/")
}

// isPage: file is the model's content page.
func isPage(d *Doc, file string) bool {
	return d.Slug != "" && path.Base(file) == d.Slug+".md"
}

func firstField(s, sep string) string {
	f, _, _ := strings.Cut(strings.TrimSpace(s), sep)
	return f
}

// fold keeps the letters and digits of a provider name, in lower case:
// "Vast.ai" is vastai.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
