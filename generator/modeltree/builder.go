package modeltree

import (
	"fmt"
	"strconv"
	"strings"
)

// maxTensors bounds one inventory (Kimi K3 has 497,220 tensors).
const maxTensors = 8 << 20

// maxTotal bounds the summed elements, far above any real checkpoint.
const maxTotal = 1 << 56

type tflag uint8

const (
	fExpert tflag = 1 << iota
	fEmbed
	fHead
)

// embedFlags flags the input embedding; with tie_word_embeddings the same
// matrix is also the output head (no lm_head tensor is stored), so it
// carries both flags and ActiveParams counts it as the head.
func embedFlags(tied bool) tflag {
	if tied {
		return fEmbed | fHead
	}
	return fEmbed
}

// builder accumulates tensor groups. Family code calls param for tensors
// that are never quantized and linear for nn.Linear weights, which the
// quantization scheme may turn into payload + scales; inside experts each
// call adds one group of E tensors.
type builder struct {
	gs    []Group
	n     int64   // tensors so far
	mult  int64   // tensors per call: E inside experts, else 1
	block int32   // current experts block, 0 outside
	hint  int     // expected group count, allocated on the first add
	slab  []int64 // backing store for shapes: one allocation per few thousand tensors
	dtype string  // floating dtype of unquantized tensors
	comp  string

	q         *quant // nil: no quantization
	qOn       bool   // q applies to the current component
	qStrip    string // prefix removed from names before q's name rules see them
	quantized bool   // checkpoint carries quantization: high-precision tensors are Unquantized
	total     int64
	blocks    int32 // experts blocks so far
	linears   []Linear
	err       error
}

func newBuilder(dtype string, capHint int) *builder {
	return &builder{hint: min(capHint, 1<<16), dtype: dtype, comp: CompText, mult: 1}
}

// experts adds E routed experts under prefix ("...experts."): fn adds one
// expert's tensors under the prefix it is given. When the quantization
// rules cannot tell expert indices apart (they never look at digits), fn
// runs once with "{E}" for the index and every tensor it adds becomes a
// group of E; otherwise it runs per expert.
func (b *builder) experts(prefix string, E int64, fn func(x string)) {
	if b.q != nil && b.qOn && !b.q.digitBlind() {
		for j := range E {
			fn(prefix + itoa(j) + ".")
		}
		return
	}
	b.blocks++
	b.mult, b.block = E, b.blocks
	fn(prefix + "{E}.")
	b.mult, b.block = 1, 0
}

// setQuant installs the checkpoint's quantization (nil for none). It acts
// on the components in q.scope, each seeing names with its prefix removed.
func (b *builder) setQuant(q *quant) {
	b.q = q
	b.quantized = q != nil
}

// component switches the component of subsequently added tensors.
func (b *builder) component(c string) {
	b.comp = c
	b.qOn = false
	b.qStrip = ""
	if b.q == nil {
		return
	}
	for _, s := range b.q.scope {
		if s.comp == c {
			b.qOn, b.qStrip = true, s.strip
		}
	}
}

func (b *builder) hpRole() Role {
	if b.quantized {
		return Unquantized
	}
	return Plain
}

func (b *builder) failf(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(format, args...)
	}
}

// mul multiplies sizes, failing on overflow.
func (b *builder) mul(dims ...int64) int64 {
	n := int64(1)
	for _, d := range dims {
		if d < 0 || (d != 0 && n > maxTotal/d) {
			b.failf("tensor size overflows: %v", dims)
			return 0
		}
		n *= d
	}
	return n
}

func (b *builder) shape(dims []int64) []int64 {
	if len(b.slab) < len(dims) {
		b.slab = make([]int64, 4096)
	}
	s := b.slab[:len(dims):len(dims)]
	copy(s, dims)
	b.slab = b.slab[len(dims):]
	return s
}

// add appends one tensor (b.mult of them inside experts); params < 0
// means "numel" (an ordinary tensor).
func (b *builder) add(name, dtype string, role Role, params int64, f tflag, dims ...int64) {
	if b.err != nil {
		return
	}
	if b.gs == nil {
		// Allocated here, not in newBuilder, so that a config rejected by
		// validation costs nothing.
		b.gs = make([]Group, 0, b.hint)
	}
	b.n += b.mult
	if b.n > maxTensors {
		b.failf("more than %d tensors", maxTensors)
		return
	}
	numel := b.mul(dims...)
	if params < 0 {
		params = numel
		if len(dims) == 0 {
			params = 0 // the Hub skips scalars
		}
	}
	b.total += b.mul(numel, b.mult)
	if b.total > maxTotal {
		b.failf("model too large: more than %d elements", int64(maxTotal))
		return
	}
	b.gs = append(b.gs, Group{
		Pattern: name, Count: b.mult, Shape: b.shape(dims), DType: dtype, Params: params, Role: role,
		Component: b.comp, Expert: f&fExpert != 0, Embedding: f&fEmbed != 0, Head: f&fHead != 0, block: b.block,
	})
}

// param adds a tensor that quantization never touches, in the model dtype.
func (b *builder) param(name string, f tflag, dims ...int64) {
	b.add(name, b.dtype, b.hpRole(), -1, f, dims...)
}

// paramT is param with an explicit stored dtype.
func (b *builder) paramT(name, dtype string, f tflag, dims ...int64) {
	b.add(name, dtype, b.hpRole(), -1, f, dims...)
}

// keep adds an nn.Linear weight that the release stores at full precision
// although no quantization rule excludes it; callers say why.
func (b *builder) keep(module string, f tflag, out, in int64) {
	if b.err == nil {
		b.linearModule(module, f, out, in)
	}
	b.add(module+".weight", b.dtype, b.hpRole(), -1, f, out, in)
}

// linear adds the weight of nn.Linear `module` ([out, in]), quantized when
// the scheme targets it.
func (b *builder) linear(module string, f tflag, out, in int64) {
	if b.err != nil {
		return
	}
	b.linearModule(module, f, out, in)
	if b.qOn {
		// Inside experts the rules are digit-blind: index 0 stands for all.
		name := strings.Replace(strings.TrimPrefix(module, b.qStrip), "{E}", "0", 1)
		if s := b.q.schemeFor(name); s != nil {
			s.emit(b, module, f, out, in)
			return
		}
	}
	b.add(module+".weight", b.dtype, b.hpRole(), -1, f, out, in)
}

// linearBias adds nn.Linear weight and bias.
func (b *builder) linearBias(module string, f tflag, out, in int64, bias bool) {
	b.linear(module, f, out, in)
	if bias {
		b.param(module+".bias", f, out)
	}
}

// itoa is strconv.Itoa for the int64 loop counters of the family code.
func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// indexed precomputes "<prefix><i>." for i in [0, n).
func indexed(prefix string, n int64) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i) + "."
	}
	return out
}

// ceilDiv is ⌈a/b⌉ for positive b.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
