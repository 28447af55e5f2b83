package site

import (
	"fmt"
	"sync"

	"dossier/generator/buildcache"
)

// memory keeps rendered files; it is safe for concurrent use. With a
// cache it stores each file as it comes and keeps only its sum.
type memory struct {
	mu    sync.Mutex
	cache *buildcache.Cache
	files map[string][]byte
	sums  map[string]string // publish path → object sum, with a cache
}

func (m *memory) put(name string, b []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files, m.sums = map[string][]byte{}, map[string]string{}
	}
	if _, dup := m.files[name]; dup || m.sums[name] != "" {
		return fmt.Errorf("output path %q is written twice", name)
	}
	if m.cache == nil {
		m.files[name] = b
		return nil
	}
	sum, err := m.cache.Put(b)
	m.sums[name] = sum
	return err
}
