package sizing

import (
	"encoding/binary"
	"errors"
	"fmt"

	"dossier/generator/catalog"
	"dossier/generator/facts"
	"dossier/generator/internal/binenc"
)

// Sizing runs in two stages. The model stage derives every fact no price
// decides and records, as costOps, each question it leaves to the price
// lists; the cost stage answers them. (Prices reach the model stage in
// one place: it predicts the speed of the cheapest serving layout, a choice
// the cost stage checks.) A build keeps a page's model
// side (ModelSide.AppendBinary) so that the next one, when only prices
// changed, runs the cost stage alone: the model-side facts are not
// recomputed.

// opKind is what a costOp asks of the price lists.
type opKind byte

const (
	// opLayout prices a layout: every provider's quote for a configured
	// entry (full), the cheapest for a layout of the matrix.
	opLayout opKind = iota + 1
	// opSpeed prices a million output tokens at a predicted rate.
	opSpeed
	// opDeployable prices the smallest layout that holds the weights.
	opDeployable
	// opCheapest names the cheapest of the layouts that serve.
	opCheapest
	// opIdle prices the GPUs idle while the weights download.
	opIdle
)

// costOp is one question the model stage leaves to the prices, with the
// model-side figures its answer needs.
type costOp struct {
	kind  opKind
	label string // the layout ("8xB200"); for opIdle the configured entry
	id    string // accelerator
	n     int64  // GPUs
	full  bool   // opLayout: a configured entry
	// value is the predicted tokens/s of opSpeed and the download seconds
	// of opIdle.
	value float64
	how   string // opSpeed: at which batch value was predicted
	// cands are the layouts opCheapest chooses from, one per accelerator
	// in the matrix's order; label is the one the model stage chose, whose
	// speed it predicted.
	cands []candidate
}

type candidate struct {
	label, id string
	n         int64
}

// ErrCheapestMoved says a model side no longer holds under the prices it is
// priced with: another layout became the cheapest that serves, and the
// model stage predicts that layout's speed. Derive the model side again.
var ErrCheapestMoved = errors.New("the cheapest serving layout moved: the model side must be derived again")

// ModelSide is one model's sizing before prices: its facts and the
// questions left to the price lists. Prices decide none of its facts but
// through the choice of the cheapest serving layout, whose speed they
// include; the cost stage checks that choice (ErrCheapestMoved).
type ModelSide struct {
	facts *facts.Set
	ops   []costOp
	// The model stage's quotes, when it just ran: priced with the same
	// catalog, the cost stage asks for them again.
	catalog *catalog.Catalog
	quoted  map[quoteKey][]catalog.Quote
}

// DeriveModelSide runs the model stage.
func DeriveModelSide(in Input) (*ModelSide, error) {
	c := newCalc(in)
	c.run()
	if c.overflow != nil {
		return nil, c.overflow
	}
	return c.modelSide(), nil
}

func (c *calc) modelSide() *ModelSide {
	return &ModelSide{facts: c.s, ops: c.ops, catalog: c.in.Catalog, quoted: c.quoted}
}

// Facts are the model-side facts. WithPrices adds to them.
func (m *ModelSide) Facts() *facts.Set { return m.facts }

// WithPrices runs the cost stage with in's price lists and returns the
// model's whole fact set. The priced facts are added to m's own set: use m
// once, and not at all after an error (some questions may have been
// answered). It returns ErrCheapestMoved when m was derived under prices
// that chose another cheapest layout.
func (m *ModelSide) WithPrices(in Input) (*facts.Set, error) {
	c := &calc{in: in, s: m.facts}
	if in.Catalog == m.catalog {
		c.quoted = m.quoted
	}
	for _, op := range m.ops {
		if err := c.answer(op); err != nil {
			return nil, err
		}
	}
	return c.s, nil
}

// record leaves a question to the cost stage.
func (c *calc) record(op costOp) { c.ops = append(c.ops, op) }

// answer is the cost stage for one question.
func (c *calc) answer(op costOp) error {
	switch op.kind {
	case opLayout:
		c.layoutCost(op.label, op.id, int(op.n), op.full)
	case opSpeed:
		c.tokenCost(op)
	case opDeployable:
		if q, ok := c.cheapest(op.id, int(op.n)); ok {
			c.price("cost.deployable."+op.id+".usd_per_hour", q.USDPerHour, q.Approximate, q.Derivation, q.SourceKey())
		}
	case opCheapest:
		best, q, ok := c.cheapestOf(op.cands)
		if best.label != op.label {
			return ErrCheapestMoved
		}
		if !ok {
			c.s.Unknown("fit.cheapest_serving", facts.UnitText, "no priced layout serves at the stated context: data/pricing prices none of the layouts that do")
			return nil
		}
		c.add("fit.cheapest_serving", best.label, facts.UnitText, "the priced layout that serves at the stated context for the least $/h, across every accelerator, layout and price list", "site:hugo-like.yaml", q.SourceKey())
		c.price("cost.cheapest_serving.usd_per_hour", q.USDPerHour, q.Approximate, "$/h of fit.cheapest_serving", q.SourceKey())
	case opIdle:
		key := "cost." + op.label + ".usd_per_hour"
		if p, ok := c.s.Get(key).Float(); ok {
			f := c.add("download.idle_usd."+op.label, op.value/3600*p, facts.UnitUSD, "download hours × $/h of "+op.label+": GPUs idle while the weights arrive", key, "download.seconds")
			if c.approx[key] {
				f.Display = "≈" + f.Display
			}
		}
	default:
		return fmt.Errorf("sizing: cost question of kind %d", op.kind)
	}
	return nil
}

// cheapestOf is the candidate with the cheapest quote, the first of equals.
func (c *calc) cheapestOf(cands []candidate) (best candidate, q catalog.Quote, ok bool) {
	for _, cd := range cands {
		if cq, priced := c.cheapest(cd.id, int(cd.n)); priced && (!ok || cq.USDPerHour < q.USDPerHour) {
			best, q, ok = cd, cq, true
		}
	}
	return best, q, ok
}

// layoutCost prices a layout: at every provider that quotes it and the
// cheapest for a configured entry, the cheapest alone for the matrix.
func (c *calc) layoutCost(cfg, id string, n int, full bool) {
	switch q, priced := c.cheapest(id, n); {
	case priced && full:
		c.costPerProvider(cfg, id, n)
	case priced:
		c.price("cost."+cfg+".usd_per_hour", q.USDPerHour, q.Approximate, q.Derivation, q.SourceKey())
	case full:
		c.s.Unknown("cost."+cfg+".usd_per_hour", facts.UnitUSDHour, "no price in data/pricing for "+cfg)
	}
}

// tokenCost prices a million output tokens of a layout at the rate its
// speed facts predict.
func (c *calc) tokenCost(op costOp) {
	q, ok := c.cheapest(op.id, int(op.n))
	if !ok {
		return
	}
	usd := q.USDPerHour / (op.value * 3600) * 1e6
	f := c.add("cost."+op.label+".usd_per_million_output_tokens", usd, facts.UnitUSD,
		fmt.Sprintf("$%.2f/h ÷ (%s tokens/s at %s × 3,600) × 10^6", q.USDPerHour, facts.Fixed(op.value, 1), op.how), q.SourceKey(), "speed."+op.label+".decode_tokens_per_second")
	if q.Approximate {
		f.Display = "≈" + f.Display
	}
}

const modelSideHeader = "dossier model side 3\n"

// AppendBinary appends m in the encoding DecodeModelSide reads: the
// questions, then the facts (facts.Set.AppendBinary), then a checksum.
func (m *ModelSide) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = append(dst, modelSideHeader...)
	dst = binary.AppendUvarint(dst, uint64(len(m.ops)))
	for _, op := range m.ops {
		full := byte(0)
		if op.full {
			full = 1
		}
		dst = append(dst, byte(op.kind), full)
		dst = binenc.AppendString(dst, op.label)
		dst = binenc.AppendString(dst, op.id)
		dst = binary.AppendVarint(dst, op.n)
		dst = binenc.AppendFloat(dst, op.value)
		dst = binenc.AppendString(dst, op.how)
		dst = binary.AppendUvarint(dst, uint64(len(op.cands)))
		for _, cd := range op.cands {
			dst = binenc.AppendString(dst, cd.label)
			dst = binenc.AppendString(dst, cd.id)
			dst = binary.AppendVarint(dst, cd.n)
		}
	}
	dst, err := m.facts.AppendBinary(dst)
	if err != nil {
		return nil, fmt.Errorf("sizing: model side: %w", err)
	}
	return binenc.Seal(dst, start), nil
}

// ErrModelSide is wrapped by every error of DecodeModelSide.
var ErrModelSide = errors.New("not a model side encoding")

// DecodeModelSide reads what AppendBinary wrote, all of b.
func DecodeModelSide(b []byte) (*ModelSide, error) {
	r, err := binenc.Open(b, modelSideHeader)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrModelSide, err)
	}
	m := &ModelSide{}
	n := r.Count()
	for range n {
		op := costOp{kind: opKind(r.Byte())}
		if op.kind < opLayout || op.kind > opIdle {
			r.Fail("unknown cost question")
		}
		switch r.Byte() {
		case 0:
		case 1:
			op.full = true
		default:
			r.Fail("bad flag")
		}
		op.label, op.id, op.n = r.String(), r.String(), r.Varint()
		op.value, op.how = r.Float(), r.String()
		for range r.Count() {
			op.cands = append(op.cands, candidate{label: r.String(), id: r.String(), n: r.Varint()})
		}
		m.ops = append(m.ops, op)
	}
	if m.facts = facts.ReadBinary(r); r.Err() == nil && r.Rest() > 0 {
		r.Fail("bytes after the facts")
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrModelSide, err)
	}
	return m, nil
}
