package site

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

// sink receives files as they are rendered. Implementations are safe for
// concurrent use.
type sink interface {
	// put publishes new bytes.
	put(name string, b []byte) error
	// write publishes what fill writes: a file that lists every model
	// (models.json) is encoded as it goes.
	write(name string, fill func(io.Writer) error) error
}

// pageSink passes files on and notes the directories of the HTML pages
// among them, for the sitemap.
type pageSink struct {
	sink
	mu    sync.Mutex
	pages []string
}

func (ps *pageSink) put(name string, b []byte) error {
	if dir, ok := strings.CutSuffix(name, "index.html"); ok {
		ps.mu.Lock()
		ps.pages = append(ps.pages, dir)
		ps.mu.Unlock()
	}
	return ps.sink.put(name, b)
}

// memory keeps the files in a map.
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

func (m *memory) write(name string, fill func(io.Writer) error) error {
	var b bytes.Buffer
	if err := fill(&b); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return m.put(name, b.Bytes())
}

// cacheSink stores files in the build cache and keeps their sums.
type cacheSink struct {
	s     *Site
	mu    sync.Mutex
	files map[string]string
}

func (cs *cacheSink) put(name string, b []byte) error {
	sum, err := cs.s.cache.Put(b)
	if err != nil {
		return err
	}
	return cs.add(name, sum)
}

func (cs *cacheSink) write(name string, fill func(io.Writer) error) error {
	sum, err := cs.s.cache.Write(fill)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return cs.add(name, sum)
}

func (cs *cacheSink) add(name, sum string) error {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.files == nil {
		cs.files = map[string]string{}
	}
	if _, dup := cs.files[name]; dup {
		return fmt.Errorf("output path %q is written twice", name)
	}
	cs.files[name] = sum
	return nil
}
