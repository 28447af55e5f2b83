package deploy

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// engineLists are the model classes each engine can load, one file per
// engine, read from the engine's own registry at a stated commit.
//
//go:embed engines/*.txt
var engineLists embed.FS

// Support is what one engine can load, as its registry lists it.
type Support struct {
	Engine Engine
	// Key is the field the names are: of config.json, "architectures"
	// (vLLM, SGLang, llama.cpp's converter, by architectures[0]) or
	// "model_type" (mlx-lm imports the module of that name); of a GGUF
	// file's header, "general.architecture" (llama.cpp's loader).
	Key                      string
	Repo, Path, Commit, Read string
	Names                    []string
}

// At names the list's source briefly: "vllm @0002bff".
func (s Support) At() string { return fmt.Sprintf("%s @%s", s.Engine, s.Commit[:7]) }

var hexCommit = regexp.MustCompile(`^[0-9a-f]{40}$`)

// ParseSupport reads one engine list: a header of "# field: value" lines
// naming engine, repo, path, commit (40 hex digits) and read date, and
// optionally the key (else the engine's config.json field), then one name
// a line ("#" starts a comment). name is the file, for errors.
func ParseSupport(name string, b []byte) (Support, error) {
	var s Support
	var engine, key string
	header := map[string]*string{"engine": &engine, "key": &key, "repo": &s.Repo, "path": &s.Path, "commit": &s.Commit, "read": &s.Read}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if c, ok := strings.CutPrefix(line, "#"); ok {
			k, v, ok := strings.Cut(strings.TrimSpace(c), ":")
			if p := header[k]; ok && p != nil && len(s.Names) == 0 {
				*p = strings.TrimSpace(v)
			}
			continue
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		if strings.ContainsAny(line, " \t") {
			return Support{}, fmt.Errorf("%s:%d: %q is not one name", name, n, line)
		}
		s.Names = append(s.Names, line)
	}
	if err := sc.Err(); err != nil {
		return Support{}, fmt.Errorf("%s: %w", name, err)
	}
	for _, k := range []string{"engine", "repo", "path", "commit", "read"} {
		if *header[k] == "" {
			return Support{}, fmt.Errorf("%s: header lacks %q (the source the list was read from)", name, k)
		}
	}
	if !hexCommit.MatchString(s.Commit) {
		return Support{}, fmt.Errorf("%s: header commit %q is not 40 hex digits", name, s.Commit)
	}
	s.Engine = Engine(engine)
	switch s.Engine {
	case VLLM, SGLang, LlamaCpp:
		s.Key = "architectures"
	case MLX:
		s.Key = "model_type"
	default:
		return Support{}, fmt.Errorf("%s: header engine %q is none of vllm, sglang, llama.cpp, mlx", name, engine)
	}
	switch {
	case key == "" || key == s.Key:
	case key == GGUFKey && s.Engine == LlamaCpp:
		s.Key = key
	default:
		return Support{}, fmt.Errorf("%s: header key %q: %s lists %s (or llama.cpp %s)", name, key, s.Engine, s.Key, GGUFKey)
	}
	if len(s.Names) == 0 {
		return Support{}, fmt.Errorf("%s: no names", name)
	}
	return s, nil
}

// GGUFKey is the key of the names llama.cpp's loader accepts: a GGUF
// file's general.architecture.
const GGUFKey = "general.architecture"

// supportLists parses the embedded lists once, the engines' lists of
// config.json names; they are part of the binary, so an error is a build
// defect the tests catch.
var supportLists = sync.OnceValues(func() (map[Engine]Support, error) {
	all, err := parseLists()
	if err != nil {
		return nil, err
	}
	out := map[Engine]Support{}
	for _, s := range all {
		if s.Key != GGUFKey {
			out[s.Engine] = s
		}
	}
	return out, nil
})

// GGUFSupport is llama.cpp's list of the GGUF architectures its loader
// knows (engines/llamacpp-gguf.txt).
var GGUFSupport = sync.OnceValues(func() (Support, error) {
	all, err := parseLists()
	if err != nil {
		return Support{}, err
	}
	for _, s := range all {
		if s.Key == GGUFKey {
			return s, nil
		}
	}
	return Support{}, fmt.Errorf("no engine list of %s", GGUFKey)
})

// Loads reports whether the list has name, and if not, why the engine
// refuses it.
func (s Support) Loads(name string) (ok bool, why string) {
	if slices.Contains(s.Names, name) {
		return true, ""
	}
	return false, fmt.Sprintf("%s has no %s %q (%s %s)", s.At(), s.Key, name, s.Repo, s.Path)
}

// parseLists parses every embedded list, each file once.
func parseLists() ([]Support, error) {
	files, err := engineLists.ReadDir("engines")
	if err != nil {
		return nil, err
	}
	var out []Support
	for _, f := range files {
		name := path.Join("engines", f.Name())
		b, err := engineLists.ReadFile(name)
		if err != nil {
			return nil, err
		}
		s, err := ParseSupport(name, b)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// The constraints an engine's support of the architecture is stated under:
// its own list of classes, and the GPUs it runs the model on.
const (
	archSupport = "engine architecture support"
	gpuSupport  = "engine support on this GPU"
)

// ShapeAccepted reports whether the layout breaks no constraint but the
// engine's support of the architecture (archSupport, gpuSupport): its
// shape is the engine's own, so memory accounting may place the weights
// as the layout does even where the engine refuses the model.
func (c *Candidate) ShapeAccepted() bool {
	for _, v := range c.Violations {
		if v.Constraint != archSupport && v.Constraint != gpuSupport {
			return false
		}
	}
	return true
}

// supportViolation says whether engine e's list lacks the model; ok false
// when it has it or the engine has no list (support then unchecked).
// vLLM's list never refuses: an architecture its registry lacks goes to
// its Transformers backend (unlistedNote).
func supportViolation(in Input, e Engine) (Violation, bool) {
	lists, err := supportLists()
	if err != nil {
		return Violation{archSupport, "engine lists unreadable: " + err.Error()}, true
	}
	s, ok := lists[e]
	if !ok {
		return Violation{}, false
	}
	name := in.Arch.ModelType
	if s.Key == "architectures" {
		if len(in.Arch.Architectures) == 0 {
			return Violation{}, false
		}
		name = in.Arch.Architectures[0]
	}
	if name == "" || slices.Contains(s.Names, name) || e == VLLM {
		return Violation{}, false
	}
	return Violation{archSupport, fmt.Sprintf("%s has no %s (%s %s)", s.At(), name, s.Repo, s.Path)}, true
}

// unlistedNote is the note beside a vLLM layout whose architecture is not
// in vLLM's registry at the list's commit: vLLM's model loader
// (resolve_transformers_arch) then falls back to its Transformers
// backend, which loads any class the installed transformers has, or the
// checkpoint's own code (auto_map) with --trust-remote-code. "" otherwise.
func unlistedNote(in Input, e Engine) string {
	lists, err := supportLists()
	s, ok := lists[e]
	if err != nil || !ok || e != VLLM || len(in.Arch.Architectures) == 0 || slices.Contains(s.Names, in.Arch.Architectures[0]) {
		return ""
	}
	if in.RemoteCode || in.Arch.RemoteCode {
		return fmt.Sprintf("%s lists no %s: it loads through vLLM's Transformers backend with the checkpoint's own code (--trust-remote-code), not checked here", s.At(), in.Arch.Architectures[0])
	}
	return fmt.Sprintf("%s lists no %s: vLLM loads it through its Transformers backend if the installed transformers has the class (a newer vLLM may list it natively), not checked here", s.At(), in.Arch.Architectures[0])
}

// gpuRule is an engine's support of an architecture that depends on the
// GPU it runs on.
type gpuRule struct {
	Engine       Engine
	Architecture string
	Accelerators []string // the catalog parts the engine's check accepts
	Why          string   // the engine's own words when it refuses
}

// gpuRules: DeepSeek-V4's sparse attention runs on FlashMLA sparse, which
// vLLM's is_flashmla_sparse_supported (vllm/v1/attention/ops/flashmla.py
// at effedfb)
// accepts on CUDA capability families 90 and 100 only — Hopper and
// datacenter Blackwell; on ROCm vLLM has a V4 path of its own
// (vllm/models/deepseek_v4/amd). Sources in testdata/SOURCES.md.
var gpuRules = []gpuRule{{
	Engine: VLLM, Architecture: "DeepseekV4ForCausalLM",
	Accelerators: []string{"H100", "H100PCIe", "H200", "B200", "B300", "GB200NVL72", "GB300NVL72", "MI300X", "MI325X", "MI355X"},
	Why:          "FlashMLA Sparse is only supported on Hopper and Blackwell devices.",
}}

// gpuViolation says whether an engine refuses the model on accelerator acc.
func gpuViolation(in Input, e Engine) (Violation, bool) {
	if len(in.Arch.Architectures) == 0 {
		return Violation{}, false
	}
	for _, r := range gpuRules {
		if r.Engine == e && r.Architecture == in.Arch.Architectures[0] && !slices.Contains(r.Accelerators, in.Acc.ID) {
			return Violation{gpuSupport, fmt.Sprintf("%s on %s: vLLM's sparse MLA needs FlashMLA sparse (\"%s\"); runs on %s", r.Architecture, in.Acc.ID, r.Why, strings.Join(r.Accelerators, ", "))}, true
		}
	}
	return Violation{}, false
}
