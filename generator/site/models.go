package site

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"dossier/generator/claims"
	"dossier/generator/facts"
	"dossier/generator/internal/jsonlist"
	"dossier/generator/page"
)

// ModelsPath is the site's machine-readable model list: one entry per
// model with its headline facts and the serving verdicts the "fits my
// hardware" filter and the compare page read.
const ModelsPath = "models.json"

// headlineKeys are the facts every entry of models.json carries.
var headlineKeys = []string{
	"params.total", "params.active_no_embedding", "bytes.checkpoint", "bits_per_param",
	"kv.bytes_per_token", "download.seconds", "fit.cheapest_serving", "cost.cheapest_serving.usd_per_hour",
	"deploy.cheapest.layout", "deploy.cheapest.usd_per_m_output_tokens",
}

// ModelEntry is one model in models.json.
type ModelEntry struct {
	modelID
	URL      string                  `json:"url"` // the dossier, relative to the site root
	Hub      page.HubLinks           `json:"hub"`
	Facts    map[string]headlineFact `json:"facts"`
	Smallest string                  `json:"smallest_layout"` // deploy.smallest.layout's display; "" when no layout is deployable
	Claims   claimTally              `json:"claims"`
	// MinGPUs is the serving minimum by context (tokens) and accelerator
	// id, as the build computed it (fit.min_gpus_at.CTX.ID); unknown
	// verdicts are left out.
	MinGPUs map[string]map[string]int64 `json:"min_gpus"`
}

type headlineFact struct {
	Value   any    `json:"value"`
	Unit    string `json:"unit"`
	Display string `json:"display"`
	Reason  string `json:"reason,omitempty"`
}

type claimTally struct {
	Checked  int            `json:"checked"`
	Verdicts map[string]int `json:"verdicts"`
	Tally    string         `json:"tally"`
}

type acceleratorJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Class       string `json:"class"`
	MemoryBytes int64  `json:"memory_bytes"`
	Memory      string `json:"memory"`
}

type modelsDoc struct {
	Contexts     []int64           `json:"contexts"`
	Concurrency  int64             `json:"concurrency"`
	Assumptions  string            `json:"assumptions"`
	Accelerators []acceleratorJSON `json:"accelerators"`
	Models       any               `json:"models"` // jsonlist.Placeholder: the entries are streamed (listed)
}

func (s *Site) modelEntry(m *Model) *ModelEntry {
	e := &ModelEntry{
		modelID: idOf(m), URL: "models/" + m.Page.Slug + "/index.html", Hub: m.Page.Hub(),
		Facts: map[string]headlineFact{}, MinGPUs: map[string]map[string]int64{},
		Claims: claimTally{Checked: len(m.Reviews), Verdicts: claims.Tally(m.Reviews), Tally: page.ClaimsTally(m.Reviews)},
	}
	for _, k := range headlineKeys {
		if f := m.Facts.Get(k); f != nil {
			e.Facts[k] = headlineFact{Value: f.Value, Unit: f.Unit, Display: f.Display, Reason: f.Reason}
		}
	}
	if _, full, _, ok := m.Page.Smallest(s.Catalog); ok {
		e.Smallest = full
	}
	for k, rest := range m.Facts.Prefixed("fit.min_gpus_at.") {
		ctx, id, ok := strings.Cut(rest, ".")
		n, known := m.Facts.Get(k).Int()
		if !ok || !known {
			continue
		}
		if e.MinGPUs[ctx] == nil {
			e.MinGPUs[ctx] = map[string]int64{}
		}
		e.MinGPUs[ctx][id] = n
	}
	return e
}

// modelsDocOf is models.json's document but its entries, each written as
// it was encoded when the model was computed.
func (s *Site) modelsDocOf() modelsDoc {
	sz := s.Config.Sizing
	doc := modelsDoc{Contexts: sz.Contexts, Concurrency: sz.Concurrency, Models: jsonlist.Placeholder,
		Assumptions: fmt.Sprintf("%d concurrent sequence(s), %d%% of memory usable, %s reserved per GPU", sz.Concurrency,
			int(sz.GPUMemoryUtilization*100+0.5), facts.GB(float64(sz.ReservePerGPUBytes)))}
	ids := slices.Sorted(maps.Keys(s.Catalog.Accelerators))
	for _, id := range ids {
		a := s.Catalog.Accelerators[id]
		doc.Accelerators = append(doc.Accelerators, acceleratorJSON{ID: id, Name: a.Name, Class: a.Class, MemoryBytes: a.MemoryBytes, Memory: facts.Bytes(float64(a.MemoryBytes))})
	}
	return doc
}
