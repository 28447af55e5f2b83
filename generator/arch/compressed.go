package arch

import "fmt"

// CompressedKV is DeepSeek-V4's per-layer cache (compress_ratios), after
// vLLM's deepseek_v4_attention.py and deepseek_compressor.py: every layer
// keeps its last Window tokens raw; a layer of ratio r > 0 also keeps one
// compressed row per r tokens, and a ratio-4 layer its indexer's key per 4
// tokens. A row is one shared K=V vector of RowValues values (head_dim).
// Each compressor also holds the window it is filling: coff·r positions
// of a key and a score of coff·dim values in F32 (coff 2 at ratio 4, whose
// windows overlap, else 1), whatever the context.
type CompressedKV struct {
	Window      int64   // sliding_window: raw rows every layer keeps
	RowValues   int64   // head_dim: values per cached row
	IndexValues int64   // index_head_dim: values per indexer key
	RopeValues  int64   // qk_rope_head_dim: the values of a row kept in BF16 by the engine
	TopK        int64   // index_topk: compressed rows a ratio-4 layer attends per decoded token
	Ratios      []int64 // per decoder layer: 0 (window only), 4 or 128
	Src         string  // the config fields read
}

// IndexRatio is the compress ratio of the layers that carry an indexer
// (vLLM builds DeepseekV4Indexer only where compress_ratio == 4).
const IndexRatio = 4

// coff is how many overlapping windows a ratio-r compressor reads.
func coff(r int64) int64 {
	if r == IndexRatio {
		return 2
	}
	return 1
}

// RowsAt is what layer i caches for one sequence of n tokens: raw window
// rows, compressed rows and indexer keys.
func (c *CompressedKV) RowsAt(i int, n int64) (window, compressed, index int64) {
	window = min(n, c.Window)
	if r := c.Ratios[i]; r > 0 {
		compressed = n / r
		if r == IndexRatio {
			index = n / r
		}
	}
	return window, compressed, index
}

// ValuesAt is the cache values of layer i for one sequence of n tokens:
// the bounded window plus the rows that grow with n.
func (c *CompressedKV) ValuesAt(i int, n int64) int64 {
	w, cr, ix := c.RowsAt(i, n)
	return (w+cr)*c.RowValues + ix*c.IndexValues
}

// EngineRowBytes is one cached row as vLLM stores it (fp8_ds_mla, the only
// cache dtype it serves V4 with; head_bytes in deepseek_v4_attention.py):
// the non-RoPE values in FP8, the RoPE values in BF16, one scale byte per
// 64 FP8 values and one pad byte. The sliding window's rows use it too.
func (c *CompressedKV) EngineRowBytes() int64 {
	nope := c.RowValues - c.RopeValues
	return nope + 2*c.RopeValues + nope/64 + 1
}

// EngineIndexBytes is one indexer key as vLLM stores it: index_head_dim
// FP8 values and one F32 scale per 128 (DeepseekV4Indexer's k_cache).
func (c *CompressedKV) EngineIndexBytes() int64 {
	return c.IndexValues + c.IndexValues/128*4
}

// ReadAt is what layer i reads of one sequence's cache to decode a token
// at context n, after vLLM's decode path (_forward_decode): the raw
// window; on a ratio-4 layer the index_topk compressed rows the indexer
// selects and every indexer key it scores; on a ratio-128 layer every
// compressed row (its pre-computed indices cover the whole compressed
// pool).
func (c *CompressedKV) ReadAt(i int, n int64) (window, compressed, index int64) {
	window, compressed, index = c.RowsAt(i, n)
	if c.Ratios[i] == IndexRatio {
		compressed = min(compressed, c.TopK)
	}
	return window, compressed, index
}

// StateValues is the F32 values layer i's compressors hold per sequence
// while filling a window (kv_state + score_state), independent of n.
func (c *CompressedKV) StateValues(i int) int64 {
	row, index := c.StateFactors(i)
	return row*c.RowValues + index*c.IndexValues
}

// StateFactors are StateValues' multipliers of RowValues and IndexValues:
// coff·r positions × (key + score) × coff, for the attention's compressor
// and, at ratio 4, the indexer's. Kept apart so a caller can check the
// products for overflow.
func (c *CompressedKV) StateFactors(i int) (row, index int64) {
	r := c.Ratios[i]
	if r == 0 {
		return 0, 0
	}
	k := coff(r)
	row = k * r * 2 * k
	if r == IndexRatio {
		index = row
	}
	return row, index
}

// compressed reads compress_ratios: the first num_hidden_layers entries
// are the decoder's (the rest are the MTP layers'). It returns false when
// the config has none.
func (p *parser) compressed(text obj, prefix string, n int) bool {
	if !text.Has("compress_ratios") {
		return false
	}
	a := p.a
	ratios, err := text.Ints(prefix, "compress_ratios")
	if err != nil {
		p.keep(err)
		return true
	}
	if len(ratios) < n {
		p.keep(fmt.Errorf("field %scompress_ratios: %d entries for %d layers", prefix, len(ratios), n))
		return true
	}
	window, _, err := text.Limit(prefix, "sliding_window")
	p.keep(err)
	c := &CompressedKV{Window: window, RowValues: a.HeadDim, Ratios: ratios[:n:n],
		Src: fmt.Sprintf("%scompress_ratios, %ssliding_window, %shead_dim, %sindex_head_dim", prefix, prefix, prefix, prefix)}
	c.IndexValues = p.int(text, prefix, "index_head_dim")
	c.RopeValues = a.QKRopeDim
	c.TopK = p.int(text, prefix, "index_topk")
	why := ""
	for i, r := range c.Ratios {
		switch {
		case r != 0 && r != IndexRatio && r != 128:
			why = fmt.Sprintf("field %scompress_ratios[%d]: ratio %d (vLLM's compressor is built for 4 and 128)", prefix, i, r)
		case r == IndexRatio && c.IndexValues == 0:
			why = fmt.Sprintf("field %sindex_head_dim: absent, and the ratio-4 layers cache an indexer key of that width", prefix)
		}
	}
	switch {
	case c.Window == 0:
		why = fmt.Sprintf("field %ssliding_window: absent, and every compressed-attention layer keeps a raw window of that length", prefix)
	case a.HeadDim == 0 || a.HeadDimSrc != "head_dim":
		why = fmt.Sprintf("field %shead_dim: absent, and it is the width of every cached row", prefix)
	}
	if why == "" {
		a.Compressed = c
		a.SlidingWindow = window
	}
	// The layers' cache is neither sliding nor full attention: they get no
	// kind, so nothing sizes them as either. Sizing reads Compressed for
	// the cache of one sequence at a context and for its share per GPU.
	a.Missing["layer_kinds"] = reasonOr(why, fmt.Sprintf("field %scompress_ratios: compressed attention (a raw sliding_window on every layer plus one compressed row per compress_ratio tokens, and an indexer key on the ratio-4 layers) has no layer kind: its cache is sized per context (kv.bytes_at_context) and per GPU in the serving plan", prefix))
	a.LayoutSource = ""
	return true
}

func reasonOr(r, def string) string {
	if r != "" {
		return r
	}
	return def
}
