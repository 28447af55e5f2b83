package site

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"

	"dossier/generator/sizing"
)

// CacheDir holds, inside a build's output, the module-tree figures of every
// config the build sized, one file per content hash, so the next build
// (and a page that shares a config with another) does not size it again.
const CacheDir = ".dossier/cache/analytic/"

// analytics memoises Analytic, the one expensive model-side computation,
// by the content hash of what it reads: within a build (copies and
// fine-tunes share a config) and across builds (the previous output's
// CacheDir). Price, hardware and page edits never change the key.
type analytics struct {
	prev string // previous output directory, "" for none
	mu   sync.Mutex
	byID map[string]*analyticResult
	// built counts module trees built, not read from a cache.
	built atomic.Int64
}

type analyticResult struct {
	once sync.Once
	an   *sizing.Analytic
	err  error
	file []byte // the cache file, published with the output
}

// cacheFile is a CacheDir entry; an error is kept as its message, which is
// all sizing reads of it.
type cacheFile struct {
	Analytic *sizing.Analytic `json:"analytic,omitempty"`
	Error    string           `json:"error,omitempty"`
}

func newAnalytics(prev string) *analytics {
	return &analytics{prev: prev, byID: map[string]*analyticResult{}}
}

// analyticKey names the figures of one config: the generator (any code
// change), the config and the quantization config.
func analyticKey(config, hfQuant []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "generator %s\nconfig %d\n", generatorKey(), len(config))
	h.Write(config)
	fmt.Fprintf(h, "\nquant %d\n", len(hfQuant))
	h.Write(hfQuant)
	return hex.EncodeToString(h.Sum(nil))
}

// get returns the figures for a config and the key they are cached under.
func (m *analytics) get(config, hfQuant []byte) (key string, an *sizing.Analytic, err error) {
	key = analyticKey(config, hfQuant)
	m.mu.Lock()
	r := m.byID[key]
	if r == nil {
		r = &analyticResult{}
		m.byID[key] = r
	}
	m.mu.Unlock()
	r.once.Do(func() { r.an, r.file, r.err = m.compute(key, config, hfQuant) })
	return key, r.an, r.err
}

func (m *analytics) compute(key string, config, hfQuant []byte) (*sizing.Analytic, []byte, error) {
	if m.prev != "" {
		if b, err := os.ReadFile(filepath.Join(m.prev, filepath.FromSlash(CacheDir+key+".json"))); err == nil {
			var cf cacheFile
			// An unreadable entry is computed again, never trusted.
			if json.Unmarshal(b, &cf) == nil && (cf.Analytic != nil) != (cf.Error != "") {
				if cf.Error != "" {
					return nil, b, errors.New(cf.Error)
				}
				return cf.Analytic, b, nil
			}
		}
	}
	m.built.Add(1)
	an, err := Analytic(config, hfQuant)
	cf := cacheFile{Analytic: an}
	if err != nil {
		cf = cacheFile{Error: err.Error()}
	}
	b, jerr := json.Marshal(cf)
	if jerr != nil {
		b = nil // not cached; the figures themselves are fine
	}
	return an, append(b, '\n'), err
}

// files returns the cache files of the given keys, by output path.
func (m *analytics) files(keys []string) map[string][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string][]byte{}
	sort.Strings(keys)
	for _, k := range keys {
		if r := m.byID[k]; r != nil && len(r.file) > 1 {
			out[CacheDir+k+".json"] = r.file
		}
	}
	return out
}
