package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"dossier/generator/internal/editdist"
)

// FieldError names the configuration key whose value is wrong; Load
// prefixes it with where the value came from (Site.Origin).
type FieldError struct {
	Key string // as written in hugo-like.yaml, e.g. sizing.contexts[1]
	Msg string
}

func (e *FieldError) Error() string { return "field " + e.Key + ": " + e.Msg }

// EnvName is the environment variable that overrides key.
func EnvName(key string) string {
	return "DOSSIER_" + strings.ToUpper(strings.ReplaceAll(baseKey(key), ".", "_"))
}

// baseKey drops an index: sizing.contexts[1] → sizing.contexts.
func baseKey(key string) string {
	if i := strings.IndexByte(key, '['); i >= 0 {
		key = key[:i]
	}
	return key
}

// otherVariables are DOSSIER_* variables read outside the site
// configuration (tests, CI, other commands); otherPrefixes are families of
// them. Add a variable here when another package reads one.
var (
	otherVariables = map[string]bool{
		"DOSSIER_PAGEFIND":               true,
		"DOSSIER_ARTIFACTS":              true,
		"DOSSIER_CHROMIUM":               true,
		"DOSSIER_CACHE":                  true,
		"DOSSIER_TEST_BINARY_IS_DOSSIER": true,
	}
	otherPrefixes = []string{"DOSSIER_PRICING_"}
)

// checkEnviron rejects a DOSSIER_* variable that looks meant for the site
// configuration but names no key: one under a section of it
// (DOSSIER_SIZING_…) or one a typo away from a key. A misspelt override
// would otherwise be ignored without a word; variables other tools read
// are left alone.
func checkEnviron(environ []string) error {
	known := map[string]bool{}
	sections := map[string]bool{}
	var names []string
	for k := range knownKeys {
		known[EnvName(k)] = true
		names = append(names, EnvName(k))
		if sec, _, nested := strings.Cut(k, "."); nested {
			sections["DOSSIER_"+strings.ToUpper(sec)+"_"] = true
		}
	}
	sort.Strings(names)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "DOSSIER_") || known[name] || otherVariables[name] || hasAnyPrefix(name, otherPrefixes) {
			continue
		}
		near := Closest(name, names)
		inSection := false
		for sec := range sections {
			inSection = inSection || strings.HasPrefix(name, sec)
		}
		if !inSection && (near == "" || editdist.Levenshtein(name, near) > 2) {
			continue // not one of ours
		}
		msg := fmt.Sprintf("environment variable %s names no setting of %s", name, FileName)
		if near != "" {
			msg += "; did you mean " + near + "?"
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// origins maps each key set by a flag or an environment variable to a
// description of that source; keys absent from it come from the file.
func origins(flags *pflag.FlagSet, flagKeys map[string]string) map[string]string {
	out := map[string]string{}
	for k := range knownKeys {
		if v, ok := os.LookupEnv(EnvName(k)); ok && v != "" {
			out[k] = "environment variable " + EnvName(k)
		}
	}
	for name, key := range flagKeys {
		if flags != nil && flags.Changed(name) {
			out[key] = "flag --" + name
		}
	}
	return out
}

// Origin says where the value of key came from: a flag, an environment
// variable, or the configuration file.
func (s *Site) Origin(key string) string {
	if o, ok := s.origins[strings.ToLower(baseKey(key))]; ok {
		return o
	}
	if s.File != "" {
		return s.File
	}
	return FileName
}

// blame prefixes a validation error with the origin of its key.
func (s *Site) blame(err error) error {
	if fe, ok := err.(*FieldError); ok {
		return fmt.Errorf("%s: %w", s.Origin(fe.Key), fe)
	}
	return fmt.Errorf("%s: %w", s.Origin(""), err)
}

// checkEnvValues decodes each environment override on its own, so a value
// of the wrong type is blamed on its variable, not on the file.
func checkEnvValues(origin map[string]string) error {
	keys := make([]string, 0, len(origin))
	for k := range origin {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := EnvName(k)
		val, ok := os.LookupEnv(name)
		if !ok || !strings.HasPrefix(origin[k], "environment") {
			continue
		}
		v := viper.New()
		setDefaults(v)
		want := reflect.TypeOf(v.Get(k))
		v.Set(k, val)
		var s Site
		if err := v.Unmarshal(&s, strictNumbers); err != nil {
			return fmt.Errorf("environment variable %s: field %s: expected %s, found %q", name, displayKey(k), kindName(want), val)
		}
	}
	return nil
}

// displayKey spells a lower-cased viper key as hugo-like.yaml does.
func displayKey(k string) string {
	t := reflect.TypeOf(Site{})
	var parts []string
	for _, p := range strings.Split(k, ".") {
		found := false
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Tag.Get("mapstructure") == p {
				parts = append(parts, yamlName(f.Name, p))
				t = f.Type
				found = true
				break
			}
		}
		if !found {
			return k
		}
	}
	return strings.Join(parts, ".")
}

// yamlName is the camel-case spelling of a key: the Go field name with a
// lower-case first word, kept when it matches the key.
func yamlName(field, key string) string {
	for _, n := range []string{spelling[key], strings.ToLower(field[:1]) + field[1:]} {
		if strings.EqualFold(n, key) {
			return n
		}
	}
	return key
}

var spelling = map[string]string{
	"baseurl": "baseURL", "kvdtypebytes": "kvDtypeBytes", "statedtypebytes": "stateDtypeBytes",
	"gpumemoryutilization": "gpuMemoryUtilization", "reservepergpubytes": "reservePerGpuBytes",
	"downloadbytespersecond": "downloadBytesPerSecond",
}

func kindName(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "a comma-separated list"
	}
	return "a string"
}

// validateDirs checks the publish directory can be replaced without
// touching an input. Whether the input directories exist is for the
// commands that read them (see CheckInputDirs).
func (s *Site) validateDirs() error {
	if s.Root == "" {
		return nil // no site: the defaults alone
	}
	if err := s.CheckDestination(s.Dir(s.PublishDir)); err != nil {
		return &FieldError{Key: "publishDir", Msg: err.Error()}
	}
	return nil
}

// CheckInputDirs reports a content, data or templates directory that does
// not exist, naming where its name came from: a typo in contentDir must
// not build an empty site.
func (s *Site) CheckInputDirs() error {
	for _, d := range []struct{ key, dir string }{{"contentDir", s.ContentDir}, {"dataDir", s.DataDir}, {"templatesDir", s.TemplatesDir}} {
		p := s.Dir(d.dir)
		st, err := os.Stat(p)
		var fe *FieldError
		switch {
		case os.IsNotExist(err):
			fe = &FieldError{Key: d.key, Msg: fmt.Sprintf("directory %q does not exist (%s)", d.dir, p)}
		case err != nil:
			fe = &FieldError{Key: d.key, Msg: err.Error()}
		case !st.IsDir():
			fe = &FieldError{Key: d.key, Msg: fmt.Sprintf("%s is not a directory", p)}
		}
		if fe != nil {
			return s.blame(fe)
		}
	}
	return nil
}

// CheckDestination refuses a publish directory whose replacement would
// touch an input: the site root or anything containing it, a directory
// inside content/, data/ or templates/ or containing one, a file, or a
// symbolic link (the swap renames the link, not what it points to).
func (s *Site) CheckDestination(dest string) error {
	abs, err := filepath.Abs(dest)
	if err != nil {
		return err
	}
	root := filepath.Clean(s.Root)
	if within(abs, root) {
		return fmt.Errorf("%s would replace the input directory %s (the site root)", abs, root)
	}
	for _, in := range []string{s.Dir(s.ContentDir), s.Dir(s.DataDir), s.Dir(s.TemplatesDir)} {
		in = filepath.Clean(in)
		if within(in, abs) || within(abs, in) {
			return fmt.Errorf("%s would replace the input directory %s or a part of it: a build replaces its whole destination", abs, in)
		}
	}
	if st, err := os.Lstat(abs); err == nil {
		switch {
		case st.Mode()&os.ModeSymlink != 0:
			target, _ := filepath.EvalSymlinks(abs)
			return fmt.Errorf("%s is a symbolic link (to %s): a build swaps its destination with a rename, which would replace the link; refusing — publish into the target itself", abs, target)
		case !st.IsDir():
			return fmt.Errorf("%s exists and is not a directory", abs)
		}
	}
	return nil
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Closest returns the candidate nearest to s by edit distance, or "" when
// none is near enough to be a likely typo.
func Closest(s string, candidates []string) string {
	best, bestD := "", len(s)/3+2
	for _, c := range candidates {
		if d := editdist.Levenshtein(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
