package sizing

import (
	"fmt"
	"strings"

	"dossier/generator/catalog"
	"dossier/generator/facts"
)

// Sizing asks the price lists last: while it derives the facts no price
// decides it records, as costOps, each question it leaves to them, and
// answers them once every such fact is known (answerAll). (Prices reach
// the derivation in one place: it predicts the speed of the cheapest
// serving layout, a choice the answer checks.)

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
	// opDeployCheapest names the deployment (cands) with the fewest $ per
	// million output tokens.
	opDeployCheapest
)

// costOp is one question the derivation leaves to the prices, with the
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
	// in the matrix's order; label is the one the derivation chose, whose
	// speed it predicted.
	cands []candidate
}

type candidate struct {
	label, id string
	n         int64
}

// answerAll answers the questions left to the price lists, in order.
func (c *calc) answerAll() error {
	for _, op := range c.ops {
		if err := c.answer(op); err != nil {
			return err
		}
	}
	return nil
}

// record leaves a question to the answer.
func (c *calc) record(op costOp) { c.ops = append(c.ops, op) }

// answer is the answer for one question.
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
			return fmt.Errorf("sizing: the cheapest layout is %s, but the speed was predicted for %s", best.label, op.label)
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
	case opDeployCheapest:
		c.deployCheapest(op.cands)
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
	// $/M inherits the error bar of the rate it divides by.
	speed := "speed." + op.label + ".decode_tokens_per_second"
	if op.how != "batch 1" {
		speed += "_at_max_concurrency"
	}
	if d := c.s.Get(speed).Display; strings.HasPrefix(d, "≈ ") {
		if i := strings.LastIndex(d, " ("); i > 0 {
			f.Display += d[i:]
		}
	}
}
