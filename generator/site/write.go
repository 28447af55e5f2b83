package site

import (
	"fmt"
	"sync"
)

// memory keeps rendered files in a map; it is safe for concurrent use.
type memory struct {
	mu    sync.Mutex
	files map[string][]byte
}

func (m *memory) put(name string, b []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = map[string][]byte{}
	}
	if _, dup := m.files[name]; dup {
		return fmt.Errorf("output path %q is written twice", name)
	}
	m.files[name] = b
	return nil
}
