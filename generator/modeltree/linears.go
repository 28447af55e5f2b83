package modeltree

// Linear is one nn.Linear module of the checkpoint, or Count of them that
// differ only in the routed-expert index ("{E}" in Pattern). It is the
// module, not its stored tensors: a quantized Linear stores a payload and
// scales under the same module name. Weights a family stores as plain
// parameters — fused 3-D expert tensors, parameter routers such as
// KimiMoEGate — are not Linear modules and are not listed.
type Linear struct {
	Pattern   string // module name, without ".weight"
	Count     int64
	Out, In   int64 // out_features, in_features
	Component string
	Expert    bool // a routed expert's projection
	Head      bool // the output head (lm_head and MTP heads)
}

// linearModule records the nn.Linear module being added.
func (b *builder) linearModule(module string, f tflag, out, in int64) {
	b.linears = append(b.linears, Linear{Pattern: module, Count: b.mult, Out: out, In: in,
		Component: b.comp, Expert: f&fExpert != 0, Head: f&fHead != 0})
}
