package modeltree

import (
	"fmt"
	"slices"
	"sync"
)

// Family is everything dossier knows about one model family, in one place:
// the model_types that select it (its trigger), the layer layout arch
// assumes when config.json lists no layer kinds, how its checkpoint's
// tensors follow from config.json, and the published figure its test
// checks. arch and modeltree both look families up here.
type Family struct {
	Name       string   // registry key, e.g. "gemma3"
	ModelTypes []string // config.json model_type values (top level or text_config) it handles
	Layout     Layout
	// Defaults are the family's config-class defaults for keys a released
	// config.json may omit (Gemma 3 4B states no head counts): arch and
	// the builder read them as if stated.
	Defaults map[string]int64
	// Build enumerates the checkpoint's tensor groups; nil for a family
	// whose layout is known but whose tensors are not (headers only).
	Build func(modelType string, top *reader, hfq []byte) (*Inventory, error)
	// Checks are published totals the family's test reproduces from a real
	// config.json in testdata/<model_type>/.
	Checks []Check
}

// Layout is what arch needs to lay out a family's layers when config.json
// does not list them per layer (layer_types, linear_attn_config, ...).
type Layout struct {
	// Sliding says how a bare sliding_window applies.
	Sliding SlidingRule
	// FullInterval is the default full_attention_interval of a hybrid
	// family (every n-th layer full, the rest linear); 0 for none.
	FullInterval int
	// SlidingPattern is the default sliding_window_pattern (Gemma): every
	// n-th layer (1-based) is global, the others sliding; 0 for none.
	SlidingPattern int
	// SlidingPatternKey is the config field that overrides SlidingPattern.
	SlidingPatternKey string
	// AllLayers is the kind of every layer of a family that has one kind
	// of mixer and no per-layer field ("ssm" for Mamba-2); "" otherwise.
	AllLayers string
	// WindowKey names the field holding the local layers' window when it
	// is not sliding_window (Llama 4's attention_chunk_size: chunked
	// attention caches at most one chunk).
	WindowKey string
}

// SlidingRule says how a family applies a config's sliding_window.
type SlidingRule uint8

const (
	SlidingAll    SlidingRule = iota // every layer (Mistral)
	SlidingOptIn                     // only with use_sliding_window (Qwen), from max_window_layers on
	SlidingIgnore                    // never: the field is vestigial (Mixtral)
)

// Check is a published total the family's test reproduces.
type Check struct {
	Config    string // testdata path of the real config.json
	Repo      string // Hub repository the figure is about
	Published string // the figure as published, e.g. "9.24B"
	Params    int64  // the figure in parameters (exact, or at its rounding)
	Tolerance int64  // the published figure's rounding, 0 when exact
	// NonEmbedding: the figure leaves out the input embedding and the
	// output head (model cards of Qwen and EXAONE state it so).
	NonEmbedding bool
	// ExcludesMTP: the figure leaves out the multi-token-prediction
	// layers (a technical report's main-model count).
	ExcludesMTP bool
	// TextOnly: the figure is the language model's alone (no MTP layers,
	// no vision tower or projector), as Qwen's cards state it.
	TextOnly bool
	Source   string // where it is published (URL)
}

// registry lists every family. An explicit table, not init() side
// effects: adding a family is adding a line here.
func registry() []Family {
	return []Family{
		kimiK3Family(), kimiK25Family(), kimiLinearFamily(),
		deepseekV3Family(),
		llamaFamily(), mistralFamily(), mixtralFamily(),
		qwen2Family(), qwen3Family(), qwen3MoeFamily(), qwen3NextFamily(),
		gptOssFamily(),
		gemma2Family(), phi3Family(), graniteFamily(), olmo2Family(), seedOssFamily(), exaone4Family(), glm4Family(),
		qwen2MoeFamily(), olmoeFamily(), phimoeFamily(), deepseekV2Family(),
		glm4MoeFamily(), ernie45MoeFamily(), minimaxM2Family(), hunyuanMoeFamily(),
		gemma3Family(), mistral3Family(), deepseekV32Family(), llama4Family(),
		nemotronHFamily(), nemotronNASFamily(), glmMoeDsaFamily(), jambaFamily(), qwen3VLFamily(),
		lfm2Family(), smollm3Family(), qwen3_5Family(), mimoV2FlashFamily(), mamba2Family(), gemma4Family(), deepseekV4Family(),
	}
}

type index struct {
	families []Family
	byType   map[string]*Family
}

// families builds the lookup once; a model_type claimed twice is a
// programming error in the table and panics, as template.Funcs does.
var families = sync.OnceValue(func() *index {
	ix := &index{families: registry(), byType: map[string]*Family{}}
	for i := range ix.families {
		f := &ix.families[i]
		for _, mt := range f.ModelTypes {
			if prev, dup := ix.byType[mt]; dup {
				panic(fmt.Sprintf("modeltree: model_type %q registered by %s and %s", mt, prev.Name, f.Name))
			}
			ix.byType[mt] = f
		}
	}
	return ix
})

// Lookup returns the family handling model_type mt.
func Lookup(mt string) (*Family, bool) {
	f, ok := families().byType[mt]
	return f, ok
}

// Families returns every registered family, sorted by name.
func Families() []Family {
	fs := slices.Clone(families().families)
	slices.SortFunc(fs, func(a, b Family) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return fs
}

// Exact reports whether the family's tensors follow from config.json alone
// and a published total confirms it.
func (f *Family) Exact() bool { return f.Build != nil && len(f.Checks) > 0 }

// Status is the one-line support level `dossier families` prints.
func (f *Family) Status() string {
	switch {
	case f.Exact():
		return "exact from config"
	case f.Build != nil:
		return "from config (no published figure checked)"
	}
	return "headers only"
}
