package modeltree

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"dossier/generator/internal/hfconfig"
)

// quant is one checkpoint's quantization: which nn.Linear modules it
// converts and how each converted weight is stored.
type quant struct {
	method string    // "compressed-tensors", "fp8", "mxfp4", "modelopt"
	scope  []scope   // components it applies to
	ignore *nameSet  // modules kept at full precision
	groups []*scheme // candidate schemes, first match wins
	label  string    // one-line description, Inventory.Quantization
}

// digitBlind reports whether no rule of q tells module names apart by
// their digits, so one expert's answer holds for all.
func (q *quant) digitBlind() bool {
	if q.ignore != nil && !q.ignore.canon {
		return false
	}
	for _, s := range q.groups {
		if s.targets != nil && !s.targets.canon {
			return false
		}
	}
	return true
}

// scope ties a component to the prefix its names lose before rules see them.
type scope struct{ comp, strip string }

// schemeFor returns how module's weight is stored, or nil to keep it.
func (q *quant) schemeFor(module string) *scheme {
	if q.ignore != nil && q.ignore.match(module) {
		return nil
	}
	for _, s := range q.groups {
		if s.targets == nil || s.targets.match(module) {
			return s
		}
	}
	return nil
}

type schemeKind uint8

const (
	ctPackInt schemeKind = iota // compressed-tensors pack-quantized: ints packed in int32
	ctPackFP4                   // compressed-tensors mxfp4/nvfp4-pack-quantized: two FP4 per byte
	ctDense                     // compressed-tensors float/int/naive-quantized: one 8-bit value per element
	hfFP8                       // transformers fine-grained FP8 (DeepSeek-V3 style)
	moNVFP4                     // NVIDIA ModelOpt NVFP4
	moFP8                       // NVIDIA ModelOpt FP8
)

type scheme struct {
	kind       schemeKind
	format     string
	targets    *nameSet // nil: every nn.Linear
	bits       int64
	float      bool
	group      int64
	strategy   string
	block      [2]int64 // 0: no block structure
	symmetric  bool
	gIdx       bool
	scaleDType string // "" = the model dtype
	nvfp4      bool   // ctPackFP4: NVFP4 (F8 scales + global scale) rather than MXFP4
}

// emit stores nn.Linear `module` of logical shape [out, in].
func (s *scheme) emit(b *builder, module string, f tflag, out, in int64) {
	logical := b.mul(out, in)
	scaleDT := s.scaleDType
	if scaleDT == "" {
		scaleDT = b.dtype
	}
	switch s.kind {
	case ctPackInt:
		// compressed-tensors packs num_bits values densely into int32 words
		// along the input dim and records the logical shape in weight_shape,
		// written by torch.tensor(shape), hence I64 (I32 is also seen; the
		// census skips it either way, bytes differ by 8 per matrix).
		b.add(module+".weight_packed", "I32", Payload, logical, f, out, ceilDiv(in*s.bits, 32))
		s.addScale(b, module+".weight_scale", scaleDT, f, out, in)
		b.add(module+".weight_shape", "I64", Aux, 0, f, 2)
		if !s.symmetric {
			b.add(module+".weight_zero_point", "I32", Scale, 0, f, ceilDiv(out*s.bits, 32), s.groups(in))
		}
		if s.gIdx {
			b.add(module+".weight_g_idx", "I32", Aux, 0, f, in)
		}
	case ctPackFP4:
		b.add(module+".weight_packed", "U8", Payload, logical, f, out, ceilDiv(in, 2))
		if s.nvfp4 {
			s.addScale(b, module+".weight_scale", "F8_E4M3", f, out, in)
			b.add(module+".weight_global_scale", "F32", Scale, 0, f, 1)
		} else {
			// MXFP4: one E8M0 exponent per group, stored as uint8.
			s.addScale(b, module+".weight_scale", "U8", f, out, in)
		}
	case ctDense:
		dt := "I8"
		if s.float {
			dt = "F8_E4M3"
		}
		b.add(module+".weight", dt, Payload, logical, f, out, in)
		s.addScale(b, module+".weight_scale", scaleDT, f, out, in)
		if !s.symmetric {
			s.addScale(b, module+".weight_zero_point", "I8", f, out, in)
		}
	case hfFP8:
		// The Hub's census counts these F32 block scales as parameters:
		// DeepSeek-V3's F32 41,555,600 = 15,104 router biases + 41,540,496
		// scale_inv elements (BF16 3,918,786,560 + F8_E4M3 680,571,043,840
		// + F32 41,555,600 = 684,531,386,000). They stay Role Scale; only
		// the census and totals include them, as the Hub does.
		b.add(module+".weight", "F8_E4M3", Payload, logical, f, out, in)
		if s.block[0] > 0 {
			b.add(module+".weight_scale_inv", "F32", Scale, -1, f, ceilDiv(out, s.block[0]), ceilDiv(in, s.block[1]))
		} else {
			b.add(module+".weight_scale_inv", "F32", Scale, 0, f) // a scalar: the Hub skips it
		}
	case moNVFP4:
		b.add(module+".weight", "U8", Payload, logical, f, out, ceilDiv(in, 2))
		b.add(module+".weight_scale", "F8_E4M3", Scale, 0, f, out, ceilDiv(in, s.group))
		b.add(module+".weight_scale_2", "F32", Scale, 0, f)
		b.add(module+".input_scale", "F32", Scale, 0, f)
	case moFP8:
		b.add(module+".weight", "F8_E4M3", Payload, logical, f, out, in)
		b.add(module+".weight_scale", "F32", Scale, 0, f)
		b.add(module+".input_scale", "F32", Scale, 0, f)
	}
}

func (s *scheme) groups(in int64) int64 {
	if s.group > 0 {
		return ceilDiv(in, s.group)
	}
	return 1
}

// addScale adds the scale tensor of a [out, in] weight in its strategy's shape.
func (s *scheme) addScale(b *builder, name, dt string, f tflag, out, in int64) {
	switch s.strategy {
	case "tensor":
		b.add(name, dt, Scale, 0, f, 1)
	case "channel":
		b.add(name, dt, Scale, 0, f, out, 1)
	case "block":
		b.add(name, dt, Scale, 0, f, ceilDiv(out, s.block[0]), ceilDiv(in, s.block[1]))
	default:
		b.add(name, dt, Scale, 0, f, out, s.groups(in))
	}
}

// parseQuant reads a quantization_config object (qc, may be nil) or, when
// that is absent, a ModelOpt hf_quant_config.json (hfq, may be nil); a
// config.json that states its quantization wins over the sibling file. sc
// lists the components the scheme applies to.
func parseQuant(qc *reader, hfq []byte, sc []scope) (*quant, error) {
	if qc == nil {
		if len(hfq) == 0 {
			return nil, nil
		}
		m, err := hfconfig.Decode(hfq, "hf_quant_config.json")
		if err != nil {
			return nil, err
		}
		r := newReader(m, "hf_quant_config")
		q := r.sub("quantization")
		if q == nil {
			if r.Err() != nil {
				return nil, r.Err()
			}
			return nil, fmt.Errorf("hf_quant_config.json: missing required field quantization")
		}
		return parseModelOpt(q, sc)
	}
	method := qc.str("quant_method")
	if err := qc.Err(); err != nil {
		return nil, err
	}
	switch method {
	case "compressed-tensors":
		return parseCompressed(qc, sc)
	case "fp8":
		return parseFP8(qc, sc)
	case "mxfp4":
		// transformers MXFP4 converts only gpt-oss's fused experts, which
		// are parameters, not nn.Linear; gpt_oss.go stores them.
		ig, err := substringRules(qc, "modules_to_not_convert")
		if err != nil {
			return nil, err
		}
		return &quant{method: method, scope: sc, ignore: ig, label: "transformers MXFP4, routed experts only"}, nil
	case "modelopt":
		if q := qc.sub("quantization"); q != nil {
			return parseModelOpt(q, sc)
		}
		return parseModelOpt(qc, sc)
	case "":
		// A ModelOpt export may write its section without quant_method
		// (producer modelopt, quant_algo FP8): vLLM reads it as ModelOpt.
		if qc.has("quant_algo") {
			return parseModelOpt(qc, sc)
		}
		return nil, fmt.Errorf("config: missing required field %s", qc.field("quant_method"))
	}
	return nil, fmt.Errorf("%s: unsupported quant_method %q", qc.field("quant_method"), method)
}

func parseCompressed(qc *reader, sc []scope) (*quant, error) {
	q := &quant{method: "compressed-tensors", scope: sc}
	ignore, err := ctRules(qc, "ignore")
	if err != nil {
		return nil, err
	}
	q.ignore = ignore
	topFormat := qc.str("format")
	groups := qc.sub("config_groups")
	if groups == nil {
		if err := qc.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("config: missing required field %s", qc.field("config_groups"))
	}
	keys := groups.keys()
	sort.Strings(keys) // deterministic: group_0, group_1, ...
	for _, k := range keys {
		g := groups.sub(k)
		if g == nil {
			continue
		}
		s, err := parseCTGroup(g, topFormat)
		if err != nil {
			return nil, err
		}
		if s != nil {
			q.groups = append(q.groups, s)
			q.label = fmt.Sprintf("compressed-tensors %s, %d-bit, group %d", s.format, s.bits, s.group)
		}
	}
	return q, qc.Err()
}

func parseCTGroup(g *reader, topFormat string) (*scheme, error) {
	format := g.str("format")
	if format == "" {
		format = topFormat
	}
	w := g.sub("weights")
	if w == nil {
		return nil, g.Err() // activation-only scheme: weights untouched
	}
	s := &scheme{
		format:    format,
		bits:      w.intOpt("num_bits", 8),
		float:     w.str("type") == "float",
		group:     w.intOpt("group_size", 0),
		strategy:  w.str("strategy"),
		symmetric: w.boolOpt("symmetric", true),
		gIdx:      w.str("actorder") == "group",
	}
	if bs := w.ints("block_structure"); len(bs) == 2 && bs[0] > 0 && bs[1] > 0 {
		s.block = [2]int64{bs[0], bs[1]}
	}
	if s.strategy == "block" && s.block[0] == 0 {
		return nil, fmt.Errorf("%s: block strategy without block_structure", w.path)
	}
	if (s.strategy == "group" || s.strategy == "tensor_group") && s.group <= 0 {
		return nil, fmt.Errorf("%s: %s strategy needs a positive group_size", w.path, s.strategy)
	}
	if s.bits <= 0 || s.bits > 32 {
		return nil, fmt.Errorf("%s.num_bits: %d out of range", w.path, s.bits)
	}
	switch sd := strings.TrimPrefix(w.str("scale_dtype"), "torch."); sd {
	case "":
	case "uint8":
		s.scaleDType = "U8"
	case "float8_e4m3fn":
		s.scaleDType = "F8_E4M3"
	case "float32":
		s.scaleDType = "F32"
	case "float16":
		s.scaleDType = "F16"
	case "bfloat16":
		s.scaleDType = "BF16"
	default:
		return nil, fmt.Errorf("%s.scale_dtype: unsupported %q", w.path, sd)
	}
	switch format {
	case "pack-quantized":
		s.kind = ctPackInt
	case "mxfp4-pack-quantized":
		s.kind = ctPackFP4
	case "nvfp4-pack-quantized":
		s.kind, s.nvfp4 = ctPackFP4, true
	case "float-quantized", "int-quantized", "naive-quantized":
		s.kind = ctDense
	default:
		return nil, fmt.Errorf("%s: unsupported compressed-tensors format %q", g.path, format)
	}
	targets, err := ctTargets(g)
	if err != nil {
		return nil, err
	}
	s.targets = targets
	return s, g.Err()
}

// ctTargets reads a group's targets. The class name "Linear" selects every
// nn.Linear (returned as nil); other class names (capitalized, no dot, such
// as "Embedding") never select an nn.Linear; the rest are module names.
func ctTargets(g *reader) (*nameSet, error) {
	var named []string
	for _, t := range g.strs("targets") {
		if t == "Linear" {
			return nil, nil
		}
		isClass := t != "" && t[0] >= 'A' && t[0] <= 'Z' && !strings.Contains(t, ".")
		if !isClass {
			named = append(named, t)
		}
	}
	if len(named) == 0 {
		named = []string{"re:$^"} // matches nothing
	}
	return ctRuleList(named, g.field("targets"))
}

func parseFP8(qc *reader, sc []scope) (*quant, error) {
	s := &scheme{kind: hfFP8}
	if bs := qc.ints("weight_block_size"); len(bs) == 2 {
		if bs[0] <= 0 || bs[1] <= 0 {
			return nil, fmt.Errorf("%s: block sizes must be positive", qc.field("weight_block_size"))
		}
		s.block = [2]int64{bs[0], bs[1]}
	}
	ig, err := substringRules(qc, "modules_to_not_convert")
	if err != nil {
		return nil, err
	}
	// transformers never converts the output head (get_keys_to_not_convert).
	ig.rules = append(ig.rules, rule{lit: "lm_head", substr: true})
	label := "transformers FP8 (E4M3), per-tensor scales"
	if s.block[0] > 0 {
		label = fmt.Sprintf("transformers FP8 (E4M3), %d×%d block scales", s.block[0], s.block[1])
	}
	return &quant{method: "fp8", scope: sc, ignore: ig, groups: []*scheme{s}, label: label}, qc.Err()
}

// parseModelOpt reads ModelOpt's "quantization" section. The FP8 KV-cache
// scale scalars that kv_cache_quant_algo adds to attention are not listed.
func parseModelOpt(q *reader, sc []scope) (*quant, error) {
	algo := q.str("quant_algo")
	s := &scheme{group: q.intOpt("group_size", 16)}
	switch algo {
	case "NVFP4":
		s.kind = moNVFP4
		if s.group <= 0 {
			return nil, fmt.Errorf("%s: must be positive", q.field("group_size"))
		}
	case "FP8":
		s.kind = moFP8
	case "":
		return nil, fmt.Errorf("config: missing required field %s", q.field("quant_algo"))
	default:
		return nil, fmt.Errorf("%s: unsupported ModelOpt quant_algo %q", q.field("quant_algo"), algo)
	}
	ig, err := globRules(q, "exclude_modules")
	if err != nil {
		return nil, err
	}
	return &quant{method: "modelopt", scope: sc, ignore: ig, groups: []*scheme{s}, label: "ModelOpt " + algo}, q.Err()
}

// nameSet is a list of module-name rules with a memo.
type nameSet struct {
	rules []rule
	canon bool // rules treat all digits alike: memoize on digit-folded names
	memo  map[string]bool
	buf   []byte
}

type rule struct {
	re     *regexp.Regexp // nil: literal
	lit    string
	substr bool // literal matches anywhere (transformers); else the whole name
}

func (s *nameSet) match(name string) bool {
	if s == nil || len(s.rules) == 0 {
		return false
	}
	if !s.canon {
		return s.eval(name)
	}
	// Expert modules differ only in their indices; rules that never look at
	// a digit give the same answer for all of them, so fold digits to '0'.
	s.buf = append(s.buf[:0], name...)
	for i, c := range s.buf {
		if c >= '1' && c <= '9' {
			s.buf[i] = '0'
		}
	}
	if v, ok := s.memo[string(s.buf)]; ok {
		return v
	}
	v := s.eval(name)
	s.memo[string(s.buf)] = v
	return v
}

func (s *nameSet) eval(name string) bool {
	for i := range s.rules {
		r := &s.rules[i]
		switch {
		case r.re != nil:
			if r.re.MatchString(name) {
				return true
			}
		case r.substr:
			if strings.Contains(name, r.lit) {
				return true
			}
		case name == r.lit:
			return true
		}
	}
	return false
}

func newNameSet(rules []rule, texts []string) *nameSet {
	s := &nameSet{rules: rules, canon: true, memo: map[string]bool{}}
	for _, t := range texts {
		// Digits, classes (\d, [0-9], \pN) or counted repeats may tell
		// digits apart; then no memo.
		if strings.ContainsAny(t, "0123456789[") || strings.Contains(t, `\d`) || strings.Contains(t, `\D`) ||
			strings.Contains(t, `\p`) || strings.Contains(t, `\P`) {
			s.canon = false
		}
	}
	return s
}

// ctRules reads compressed-tensors ignore entries: "re:<python regex>" is
// re.match (anchored at the start only), anything else an exact name.
func ctRules(r *reader, key string) (*nameSet, error) {
	list := r.strs(key)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return ctRuleList(list, r.field(key))
}

func ctRuleList(list []string, field string) (*nameSet, error) {
	rules := make([]rule, 0, len(list))
	for i, e := range list {
		if pat, ok := strings.CutPrefix(e, "re:"); ok {
			re, err := regexp.Compile(`^(?:` + pat + `)`)
			if err != nil {
				return nil, fmt.Errorf("%s[%d]: %w", field, i, err)
			}
			rules = append(rules, rule{re: re})
			continue
		}
		rules = append(rules, rule{lit: e})
	}
	return newNameSet(rules, list), nil
}

// substringRules reads transformers' modules_to_not_convert: a substring of
// the module name, or a glob when it contains '*'.
func substringRules(r *reader, key string) (*nameSet, error) {
	list := r.strs(key)
	if err := r.Err(); err != nil {
		return nil, err
	}
	rules := make([]rule, 0, len(list)+1)
	for _, e := range list {
		if strings.Contains(e, "*") {
			rules = append(rules, rule{re: globRegexp(e, false)})
			continue
		}
		rules = append(rules, rule{lit: e, substr: true})
	}
	return newNameSet(rules, list), nil
}

// globRules reads ModelOpt exclude_modules: fnmatch patterns on the whole name.
func globRules(r *reader, key string) (*nameSet, error) {
	list := r.strs(key)
	if err := r.Err(); err != nil {
		return nil, err
	}
	rules := make([]rule, 0, len(list))
	for _, e := range list {
		rules = append(rules, rule{re: globRegexp(e, true)})
	}
	return newNameSet(rules, list), nil
}

func globRegexp(glob string, whole bool) *regexp.Regexp {
	var sb strings.Builder
	if whole {
		sb.WriteByte('^')
	}
	for _, c := range glob {
		switch c {
		case '*':
			sb.WriteString(".*")
		case '?':
			sb.WriteByte('.')
		default:
			sb.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if whole {
		sb.WriteByte('$')
	}
	return regexp.MustCompile(sb.String()) // quoted input always compiles
}
