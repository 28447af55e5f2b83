package sizing

import (
	"fmt"

	"dossier/generator/facts"
	"dossier/generator/internal/checked"
)

// Derive is Compute that fails when a figure leaves the int64 range: the
// error names the inputs the figure was formed from. Compute alone marks
// such a figure unknown; a build must not publish it either way.
func Derive(in Input) (*facts.Set, error) {
	c := newCalc(in)
	c.run()
	if c.overflow != nil {
		return nil, c.overflow
	}
	if err := c.answerAll(); err != nil {
		return nil, err
	}
	return c.s, nil
}

// term is one named input of a checked product or sum.
type term struct {
	name string
	v    int64
}

func (t term) String() string { return fmt.Sprintf("%s %d", t.name, t.v) }

// product multiplies the terms; on overflow it records which figure and
// which inputs, and returns ok false.
func (c *calc) product(what string, ts ...term) (int64, bool) {
	p := int64(1)
	for _, t := range ts {
		var ok bool
		if p, ok = checked.Mul(p, t.v); !ok {
			c.overflowed(what, ts)
			return 0, false
		}
	}
	return p, true
}

// sum adds the terms, recording an overflow as product does.
func (c *calc) sum(what string, ts ...term) (int64, bool) {
	var s int64
	for _, t := range ts {
		var ok bool
		if s, ok = checked.Add(s, t.v); !ok {
			c.overflowed(what, ts)
			return 0, false
		}
	}
	return s, true
}

func (c *calc) overflowed(what string, ts []term) {
	if c.overflow != nil {
		return
	}
	e := &checked.Error{What: fmt.Sprintf("%s of %s", what, c.in.Model)}
	for _, t := range ts {
		e.Inputs = append(e.Inputs, t.String())
	}
	c.overflow = e
}
