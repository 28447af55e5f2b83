package site

import (
	"errors"
	"sync"
	"sync/atomic"

	"dossier/generator/buildcache"
	"dossier/generator/sizing"
)

// analytics memoises Analytic, the one expensive model-side computation,
// by the content hash of what it reads: within a build (copies and
// fine-tunes share a config) and across builds (the cache's analytic
// stage). Price, hardware and page edits never change the key.
type analytics struct {
	cache *buildcache.Cache // nil: within this build only
	read  bool              // entries may be read (not --full)
	byKey sync.Map          // key → func() (*sizing.Analytic, error), computed once
	// built counts module trees built, not read from the cache.
	built atomic.Int64
}

// analyticRecord is the analytic stage's record; an error is kept as its
// message, which is all sizing reads of it.
type analyticRecord struct {
	Analytic *sizing.Analytic `json:"analytic,omitempty"`
	Error    string           `json:"error,omitempty"`
}

// analyticKey names the figures of one config: the generator (any code
// change), the config and the quantization config.
func analyticKey(config, hfQuant []byte) string {
	return buildcache.Key(stageAnalytic, generatorKey(), string(config), string(hfQuant))
}

// get returns the figures for a config.
func (m *analytics) get(config, hfQuant []byte) (*sizing.Analytic, error) {
	key := analyticKey(config, hfQuant)
	once, _ := m.byKey.LoadOrStore(key, sync.OnceValues(func() (*sizing.Analytic, error) { return m.compute(key, config, hfQuant) }))
	return once.(func() (*sizing.Analytic, error))()
}

func (m *analytics) compute(key string, config, hfQuant []byte) (*sizing.Analytic, error) {
	var rec analyticRecord
	// A record that does not hold exactly one of the two is computed again.
	if m.cache != nil && m.read && m.cache.Get(stageAnalytic, key, &rec) && (rec.Analytic != nil) != (rec.Error != "") {
		if rec.Error != "" {
			return nil, errors.New(rec.Error)
		}
		return rec.Analytic, nil
	}
	m.built.Add(1)
	an, err := sizing.AnalyticOf(config, hfQuant)
	rec = analyticRecord{Analytic: an}
	if err != nil {
		rec = analyticRecord{Error: err.Error()}
	}
	if m.cache != nil {
		// Not cached is only slower: the figures themselves are fine.
		m.cache.Set(stageAnalytic, key, rec)
	}
	return an, err
}
