// Package sizing turns a snapshot, its architecture and the site's
// assumptions into facts: parameters and bytes, layout, cache and state,
// fit per hardware entry, cost and download time. Every rule here is
// general; nothing is specific to one model.
package sizing

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"dossier/generator/arch"
	"dossier/generator/catalog"
	"dossier/generator/config"
	"dossier/generator/facts"
	"dossier/generator/safetensors"
	"dossier/generator/snapshot"
)

// Analytic is what a module tree built from config.json alone gives: the
// figures that reconcile the config against the artifacts.
type Analytic struct {
	Census        map[string]int64 // logical parameters per stored dtype
	Elements      map[string]int64 // stored elements per dtype
	TensorBytes   int64
	Tensors       int
	Total         int64
	Active        int64 // per token, with embedding and head
	ActiveNoEmbed int64 // per token, without the input embedding
	Experts       int64 // routed-expert parameters
	PayloadBytes  int64 // quantized payload
	ScaleBytes    int64 // quantization scales
	UnquantParams int64 // parameters kept in higher precision
	UnquantBytes  int64
	// ByComponent is logical parameters per module-tree component ("text",
	// "vision", "projector", "mtp"). The main/MTP split reads it; without
	// it that split is unknown (see mtp.go).
	ByComponent map[string]int64
	// Extras names weights the checkpoint ships that config.json does not
	// declare (modeltree.Inventory.Extras); "" for none.
	Extras string
	// ExpertBytes is the stored bytes of routed-expert tensors (payload and
	// scales), what a streaming runtime reads per expert.
	ExpertBytes int64
	// Placement under tensor parallelism (see serving.go): ReplicatedBytes
	// are held whole by every rank (ReplicatedWhat says which tensors),
	// KVProjBytes are the K and V projections of GQA attention (split down
	// to one KV head per rank), MTPBytes the multi-token-prediction modules
	// (loaded only with speculative decoding). The rest is sharded.
	ReplicatedBytes int64
	ReplicatedWhat  string
	KVProjBytes     int64
	MTPBytes        int64
}

// Input is everything one model's sizing reads.
type Input struct {
	Model    string
	Snapshot *snapshot.Snapshot // nil when sizing a bare config.json
	Arch     *arch.Architecture
	Analytic *Analytic // nil when the family has no module tree
	// AnalyticErr says why Analytic is nil, e.g. "unsupported family X".
	AnalyticErr error
	Sizing      config.Sizing
	Hardware    []string // configurations such as "8xB200"
	Catalog     *catalog.Catalog
	Variants    []Variant // other published forms of the model
	// HeadlineParams is the parameter count the model's authors publish
	// (a content page's published params.total) and HeadlineSource where
	// it was published; bytes.naive_headline multiplies it when set, else
	// the census rounded to two significant figures stands in for it.
	HeadlineParams int64
	HeadlineSource string
	// Measured are the page's speed measurements, set beside the
	// prediction for the same layout (calibrate.go).
	Measured []Measured
}

// Measured is one published speed measurement.
type Measured struct {
	ID, Unit, Kind, Layout, Batch string
	Setting                       string // how it ran ("layer and expert streaming from disk")
	Value                         float64
}

// Variant is another published form of a model with its size on disk.
type Variant struct {
	Name   string
	Bytes  int64
	Source string
}

// Compute derives every sizing fact for one model, keeping what it could
// derive when a figure overflowed (Derive fails then).
func Compute(in Input) *facts.Set {
	c := newCalc(in)
	c.run()
	if err := c.answerAll(); err != nil {
		panic(err.Error())
	}
	return c.s
}

// factsPerModel is about how many facts a model gets with the shipped
// catalogs (1,000 to 1,650): the set starts that large.
const factsPerModel = 1024

func newCalc(in Input) *calc { return &calc{in: in, s: facts.NewSetSize(factsPerModel)} }

func (c *calc) run() {
	c.analyticStatus()
	c.params()
	c.bytesAccounting()
	c.layout()
	c.moe()
	c.memory()
	c.fit()
	c.download()
	c.streaming()
	c.calibrate() // after streaming: a streamed measurement compares with it
	c.training()
	c.variants()
}

type calc struct {
	in    Input
	s     *facts.Set
	cache cacheAt // KV + state per sequence at n tokens; set by memory
	// overflow is the first figure that left the int64 range (see Derive).
	overflow error
	// approx holds the cost facts priced from a catalog entry marked
	// approximate; what is computed from them is shown with "≈" too.
	approx map[string]bool
	// Every layout of the matrix asks for its price and its cache, which
	// depend only on (accelerator, GPUs) and (placement, width): asked
	// once per model each.
	quoted map[quoteKey][]catalog.Quote
	cached map[cacheKey]cacheResult
	// ops are the questions the derivation leaves to the prices
	// (modelside.go).
	ops []costOp
	// plans are the deployment candidates per layout (deploy.go).
	plans *planner
}

type quoteKey struct {
	id string
	n  int
}

// quotes is c.in.Catalog.Quotes, memoised; callers do not modify it.
func (c *calc) quotes(id string, n int) []catalog.Quote {
	k := quoteKey{id, n}
	qs, ok := c.quoted[k]
	if !ok {
		qs = c.in.Catalog.Quotes(id, n)
		if c.quoted == nil {
			c.quoted = map[quoteKey][]catalog.Quote{}
		}
		c.quoted[k] = qs
	}
	return qs
}

// cheapest is c.in.Catalog.Cheapest from the memoised quotes.
func (c *calc) cheapest(id string, n int) (catalog.Quote, bool) {
	return catalog.CheapestOf(c.quotes(id, n))
}

func (c *calc) add(key string, value any, unit, derivation string, sources ...string) *facts.Fact {
	return c.s.Add(facts.Fact{Key: key, Value: value, Unit: unit, Derivation: derivation, Sources: dedupe(sources)})
}

// dedupe drops repeated sources (tensor bytes and census can both come
// from the module tree), keeping the order.
func dedupe(src []string) []string {
	out := src[:0:0]
	for _, s := range src {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func (c *calc) rev() string {
	if c.in.Snapshot == nil {
		return ""
	}
	r := c.in.Snapshot.Revision
	if r == "" {
		return "" // a hand-assembled snapshot whose commit was not recorded
	}
	if len(r) > 7 {
		r = r[:7]
	}
	return "@" + r
}

func (c *calc) src(kind string) string {
	switch kind {
	case "census":
		return "hub:census" + c.rev()
	case "tree":
		return "hub:tree" + c.rev()
	case "index":
		return "hub:index" + c.rev()
	case "headers":
		return "hub:headers" + c.rev()
	}
	return kind
}

const srcConfig = "config.json"
const srcAnalytic = "analytic:module-tree"

// census returns the parameter census to size with and where it came from:
// the Hub's when the snapshot has one, else the analytic count.
func (c *calc) census() (map[string]int64, string) {
	if sn := c.in.Snapshot; sn != nil && len(sn.Census) > 0 {
		return sn.Census, c.src("census")
	}
	if a := c.in.Analytic; a != nil {
		return a.Census, srcAnalytic
	}
	return nil, ""
}

func sum(m map[string]int64) int64 {
	var t int64
	for _, v := range m {
		t += v
	}
	return t
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (c *calc) params() {
	census, src := c.census()
	if census == nil {
		why := "no dtype census in the snapshot and no module tree"
		if c.in.Snapshot == nil {
			why = "sized from config.json alone and no module tree"
		}
		if c.in.AnalyticErr != nil {
			why += " (" + c.in.AnalyticErr.Error() + ")"
		} else {
			why += " for family " + c.in.Arch.Family
		}
		c.s.Unknown("params.total", facts.UnitParams, why)
		return
	}
	total := sum(census)
	// Say where the count came from: a census is what the Hub read from
	// the safetensors headers; the module tree is arithmetic on config.json.
	what := "Hub census (safetensors headers)"
	if src == srcAnalytic {
		what = "analytic count (from config.json)"
	}
	c.add("params.total", total, facts.UnitParams, "sum over dtypes of the "+what, src)
	for _, dt := range sortedKeys(census) {
		f := c.add("params.census."+dt, census[dt], facts.UnitParams,
			fmt.Sprintf("%s parameters in the %s (%s of the total)", dt, what, facts.Percent(float64(census[dt])/float64(total))), src)
		f.Display = facts.Int(census[dt]) + " (" + facts.Params(float64(census[dt])) + ")"
	}
	if a := c.in.Analytic; a != nil {
		c.add("params.total_analytic", a.Total, facts.UnitParams, "module tree from config.json", srcConfig, srcAnalytic)
		for _, dt := range sortedKeys(a.Elements) {
			c.add("elements.stored."+dt, a.Elements[dt], facts.UnitCount, "stored elements of dtype "+dt+" (what a naive header sum reports)", srcAnalytic)
		}
		c.add("tensors.count", int64(a.Tensors), facts.UnitCount, "tensors in the module tree", srcAnalytic)
		if src != srcAnalytic {
			for _, dt := range unionKeys(census, a.Census) {
				d := a.Census[dt] - census[dt]
				f := c.add("reconcile.census_delta."+dt, d, facts.UnitParams,
					fmt.Sprintf("analytic %s − Hub census %s", facts.Int(a.Census[dt]), facts.Int(census[dt])), srcAnalytic, src)
				f.Display = signedInt(d)
			}
		}
	}
}

func unionKeys(a, b map[string]int64) []string {
	m := map[string]int64{}
	for k := range a {
		m[k] = 0
	}
	for k := range b {
		m[k] = 0
	}
	return sortedKeys(m)
}

func signedInt(d int64) string {
	if d > 0 {
		return "+" + facts.Int(d)
	}
	if d == 0 {
		return "0 (exact)"
	}
	return facts.Int(d)
}

// dtypeBits is the storage width of a safetensors dtype, from the one
// table in package safetensors.
func dtypeBits(dt string) (int64, bool) {
	b, ok := safetensors.BitSize(dt)
	return int64(b), ok
}

// torchBits is the width of a torch dtype name from config.json.
func torchBits(s string) (int64, bool) {
	switch strings.TrimPrefix(s, "torch.") {
	case "float32", "float", "int32":
		return 32, true
	case "bfloat16", "float16", "half", "int16":
		return 16, true
	case "uint8", "int8", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu":
		return 8, true
	}
	return 0, false
}

// payloadDType is the container dtype in which a quantization stores its
// quantized weights, as the Hub census names it.
func payloadDType(q arch.Quantization) string {
	switch {
	case q.Method == "compressed-tensors" && (strings.HasPrefix(q.Format, "mxfp4") || strings.HasPrefix(q.Format, "nvfp4")):
		return "U8"
	case q.Method == "compressed-tensors" && q.Format == "pack-quantized":
		return "I32"
	case q.Method == "compressed-tensors" && q.Format == "float-quantized":
		return "F8_E4M3"
	case q.Method == "compressed-tensors" && q.Format == "int-quantized":
		return "I8"
	case q.Method == "fp8":
		return "F8_E4M3"
	case q.Method == "mxfp4":
		return "U8"
	case q.Method == "modelopt" && q.Format == "fp8":
		return "F8_E4M3"
	case q.Method == "modelopt" && q.Format == "nvfp4":
		return "U8"
	}
	return ""
}

func (c *calc) tensorBytes() (int64, string, bool) {
	if sn := c.in.Snapshot; sn != nil {
		if sn.Index != nil {
			return sn.Index.TotalSize, c.src("index"), true
		}
		if sn.Header != nil {
			return sum(sn.Header.TBytes), c.src("headers"), true
		}
	}
	if a := c.in.Analytic; a != nil {
		return a.TensorBytes, srcAnalytic, true
	}
	return 0, "", false
}

func (c *calc) bytesAccounting() {
	sn := c.in.Snapshot
	q := c.in.Arch.Quant
	switch {
	case sn != nil && sn.Shards.Count > 0:
		c.add("bytes.checkpoint", sn.Shards.Bytes, facts.UnitBytes,
			fmt.Sprintf("sum of the %d *.safetensors shard sizes in the file listing", sn.Shards.Count), c.src("tree"))
		c.add("shards.count", int64(sn.Shards.Count), facts.UnitCount, "weight shards in the file listing", c.src("tree"))
	case sn != nil && sn.Shards.Bytes > 0:
		// A captured byte sum without the shard names: the sum is known,
		// the count is not.
		c.add("bytes.checkpoint", sn.Shards.Bytes, facts.UnitBytes,
			"sum of the *.safetensors shard sizes of a file listing whose shard names were not captured", c.src("tree"))
		c.s.Unknown("shards.count", facts.UnitCount, "the snapshot records the shard byte sum but not the shard names")
	case sn != nil:
		why := "no shard sizes in the snapshot"
		if src := strings.TrimSpace(sn.Shards.Source); src != "" {
			why += ": " + src
		}
		c.s.Unknown("bytes.checkpoint", facts.UnitBytes, why)
		c.s.Unknown("shards.count", facts.UnitCount, why)
	default:
		c.s.Unknown("bytes.checkpoint", facts.UnitBytes, "no file listing: sized from config.json alone")
	}
	tb, tsrc, ok := c.tensorBytes()
	if !ok {
		c.s.Unknown("bytes.tensors", facts.UnitBytes, c.noTensorBytes())
	} else {
		c.add("bytes.tensors", tb, facts.UnitBytes, c.tensorBytesHow(tsrc), tsrc)
		if ck, ok := c.s.Get("bytes.checkpoint").Int(); ok {
			if tsrc == srcAnalytic {
				c.add("bytes.headers", ck-tb, facts.UnitBytes, "file bytes − module-tree tensor bytes: the safetensors JSON headers, if the module tree is exact", c.src("tree"), tsrc)
				c.headerPlausibility(ck - tb)
			} else {
				c.add("bytes.headers", ck-tb, facts.UnitBytes, "file bytes − tensor bytes: the safetensors JSON headers", c.src("tree"), tsrc)
			}
		}
		if a := c.in.Analytic; a != nil && tsrc != srcAnalytic {
			f := c.add("reconcile.tensor_bytes_delta", a.TensorBytes-tb, facts.UnitBytes,
				fmt.Sprintf("analytic %s − %s", facts.Int(a.TensorBytes), facts.Int(tb)), srcAnalytic, tsrc)
			f.Display = signedInt(a.TensorBytes - tb)
		}
	}

	census, csrc := c.census()
	total := sum(census)
	nominal, nominalSrc := q.Bits, "quantization_config num_bits"
	if nominal == 0 {
		b, ok := torchBits(c.in.Arch.TorchDType)
		if !ok {
			c.s.Unknown("bytes.naive_exact", facts.UnitBytes, "config states neither a quantization nor a torch dtype")
			return
		}
		nominal, nominalSrc = b, "torch_dtype "+c.in.Arch.TorchDType
	}
	if total > 0 {
		c.naiveHeadline(total, csrc, nominal, nominalSrc)
		c.add("bytes.naive_exact", total*nominal/8, facts.UnitBytes,
			fmt.Sprintf("%s parameters × %d bits ÷ 8", facts.Int(total), nominal), csrc, srcConfig)
		if ok {
			c.add("bits_per_param", float64(tb)*8/float64(total), facts.UnitBits, "tensor bytes × 8 ÷ parameters", tsrc, csrc)
			c.add("bytes.overshoot", tb-total*nominal/8, facts.UnitBytes, "tensor bytes − naive exact multiplication", tsrc, csrc)
		}
	}
	c.quantParts(census, csrc, total, nominal, tb, ok)
}

// naiveHeadline is the headline parameter count × the nominal width: the
// published headline when the input carries one, else the census rounded
// to two significant figures, and the derivation says which.
func (c *calc) naiveHeadline(total int64, csrc string, nominal int64, nominalSrc string) {
	if h := c.in.HeadlineParams; h > 0 {
		src := reasonOr(c.in.HeadlineSource, "published headline")
		c.add("bytes.naive_headline", h*nominal/8, facts.UnitBytes,
			fmt.Sprintf("published headline %s parameters × %d bits (%s) ÷ 8 — the multiplication the announcement invites", facts.Params(float64(h)), nominal, nominalSrc),
			src, srcConfig)
		return
	}
	headline := int64(facts.RoundSig(float64(total), 2))
	c.add("bytes.naive_headline", headline*nominal/8, facts.UnitBytes,
		fmt.Sprintf("census rounded to two significant figures: %s parameters × %d bits (%s) ÷ 8, standing in for a published headline (none given)", facts.Params(float64(headline)), nominal, nominalSrc),
		csrc, srcConfig)
}

// quantParts splits tensor bytes into payload, scales and the modules
// left in higher precision, from the census and the quantization config.
func (c *calc) quantParts(census map[string]int64, csrc string, total, nominal, tb int64, haveTB bool) {
	q := c.in.Arch.Quant
	a := c.in.Analytic
	pdt := payloadDType(q)
	if q.Method == "" {
		c.add("bytes.quant_scales", int64(0), facts.UnitBytes, "not quantized", srcConfig)
		c.add("params.quantized", int64(0), facts.UnitParams, "not quantized", srcConfig)
		return
	}
	if a != nil {
		c.add("bytes.payload", a.PayloadBytes, facts.UnitBytes, "quantized payload in the module tree", srcAnalytic)
		c.add("bytes.quant_scales", a.ScaleBytes, facts.UnitBytes, "scale tensors in the module tree", srcAnalytic)
		c.add("bytes.unquantized", a.UnquantBytes, facts.UnitBytes, "tensors left in higher precision by the quantization's ignore rules", srcAnalytic)
		c.add("params.unquantized", a.UnquantParams, facts.UnitParams, "parameters left in higher precision", srcAnalytic)
		c.add("params.quantized", a.Total-a.UnquantParams, facts.UnitParams, "parameters in quantized payloads: total − unquantized (scales hold none)", srcAnalytic)
		if a.Total > 0 {
			c.add("share.unquantized", float64(a.UnquantParams)/float64(a.Total), facts.UnitShare, "unquantized ÷ total parameters", srcAnalytic)
		}
		c.extraPrecision(a.UnquantParams, a.UnquantBytes, nominal, srcAnalytic)
		return
	}
	qp, ok := census[pdt]
	if pdt == "" || !ok || census == nil {
		c.s.Unknown("bytes.quant_scales", facts.UnitBytes, "quantization "+q.Method+" "+q.Format+": no module tree to place its scales")
		c.s.Unknown("bytes.unquantized", facts.UnitBytes, "quantization "+q.Method+" "+q.Format+": the census does not separate quantized from unquantized parameters")
		return
	}
	c.add("params.quantized", qp, facts.UnitParams, fmt.Sprintf("%s parameters in the census (the quantized payload of %s)", pdt, q.Format), csrc, srcConfig)
	payload := qp * q.Bits / 8
	c.add("bytes.payload", payload, facts.UnitBytes, fmt.Sprintf("%s quantized parameters × %d bits ÷ 8", facts.Int(qp), q.Bits), csrc, srcConfig)
	sb, sok := torchBits(q.ScaleDType)
	if q.GroupSize > 0 && sok {
		scales := qp / q.GroupSize * sb / 8
		c.add("bytes.quant_scales", scales, facts.UnitBytes,
			fmt.Sprintf("one %s scale (%d bits) per %d quantized values: %s ÷ %d", q.ScaleDType, sb, q.GroupSize, facts.Int(qp), q.GroupSize), csrc, srcConfig)
	} else {
		c.s.Unknown("bytes.quant_scales", facts.UnitBytes, "quantization config lacks group_size or a known scale_dtype")
	}
	var up, ub int64
	var parts []string
	for _, dt := range sortedKeys(census) {
		if dt == pdt {
			continue
		}
		bits, ok := dtypeBits(dt)
		if !ok {
			c.s.Unknown("bytes.unquantized", facts.UnitBytes, "unknown dtype "+dt+" in the census")
			return
		}
		up += census[dt]
		ub += census[dt] * bits / 8
		parts = append(parts, fmt.Sprintf("%s × %d B", dt, bits/8))
	}
	c.add("params.unquantized", up, facts.UnitParams, "census parameters outside the payload dtype: the modules the quantization ignores", csrc)
	if total > 0 {
		c.add("share.unquantized", float64(up)/float64(total), facts.UnitShare, "unquantized ÷ total parameters", csrc)
	}
	c.add("bytes.unquantized", ub, facts.UnitBytes, strings.Join(parts, " + "), csrc)
	c.extraPrecision(up, ub, nominal, csrc)
	if haveTB {
		if sc, ok := c.s.Get("bytes.quant_scales").Int(); ok {
			d := tb - (payload + sc + ub)
			f := c.add("reconcile.bytes_parts_delta", d, facts.UnitBytes, "tensor bytes − (payload + scales + unquantized)", csrc)
			f.Display = signedInt(d)
		}
	}
}

// noTensorBytes says why tensor bytes are unknown.
func (c *calc) noTensorBytes() string {
	why := "no index or headers in the snapshot and no module tree"
	if c.in.Snapshot == nil {
		why = "sized from config.json alone and no module tree"
	}
	if c.in.AnalyticErr != nil {
		why += " (" + c.in.AnalyticErr.Error() + ")"
	}
	return why
}

// tensorBytesHow is the derivation of bytes.tensors for its source.
func (c *calc) tensorBytesHow(src string) string {
	switch {
	case src == srcAnalytic && c.in.Snapshot == nil:
		return "tensor bytes of the module tree built from config.json (sized from config.json alone)"
	case src == srcAnalytic:
		return "tensor bytes of the module tree built from config.json (the snapshot has no index or headers)"
	case c.in.Snapshot != nil && c.in.Snapshot.Index == nil:
		return "sum of the tensor sizes in the safetensors headers"
	}
	return "tensor bytes (metadata.total_size of model.safetensors.index.json)"
}

// headerPlausibility checks file bytes − module-tree tensor bytes against
// the tensor count: safetensors headers take on the order of a hundred
// bytes of JSON per tensor, so a residual far from that (or negative)
// means the module tree does not describe the files.
func (c *calc) headerPlausibility(headers int64) {
	a := c.in.Analytic
	if a == nil || a.Tensors == 0 {
		return
	}
	per := float64(headers) / float64(a.Tensors)
	f := c.add("reconcile.header_bytes_per_tensor", per, facts.UnitCount,
		fmt.Sprintf("(file bytes − module-tree tensor bytes) ÷ %s module-tree tensors: JSON header per tensor, typically ~100–200 B when the tree is exact", facts.Int(int64(a.Tensors))),
		c.src("tree"), srcAnalytic)
	f.Display = facts.Fixed(per, 1) + " B per tensor"
}

func (c *calc) extraPrecision(up, ub, nominal int64, src string) {
	if nominal == 0 {
		return
	}
	c.add("bytes.extra_precision", ub-up*nominal/8, facts.UnitBytes,
		fmt.Sprintf("unquantized bytes − the same parameters at %d bits", nominal), src)
}

// analyticStatus records whether config.json could be turned into a module
// tree, so a page of an unsupported family says so instead of guessing.
func (c *calc) analyticStatus() {
	if c.in.Analytic != nil {
		c.add("analytic.supported", true, facts.UnitBool, "config.json family "+c.in.Arch.Family+" has a module tree", srcConfig)
		return
	}
	reason := "no module tree"
	if c.in.AnalyticErr != nil {
		reason = c.in.AnalyticErr.Error()
	}
	c.add("analytic.supported", false, facts.UnitBool, reason, srcConfig).Display = "no: " + reason
}

// UnderivedError says that no parameter count could be derived: no census
// in a snapshot and no module tree from config.json. `plan` exits with
// status 3 on it.
type UnderivedError struct {
	Reason string // params.total's reason, naming the missing family support
}

func (e *UnderivedError) Error() string {
	return "no parameter count derived: " + e.Reason + "; `dossier families` lists the supported families"
}

// Underived returns an *UnderivedError when set holds no parameter count.
func Underived(set *facts.Set) error {
	f := set.Get("params.total")
	switch {
	case f.Known():
		return nil
	case f == nil:
		return &UnderivedError{Reason: "params.total was not computed"}
	}
	return &UnderivedError{Reason: f.Reason}
}
