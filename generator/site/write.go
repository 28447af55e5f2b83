package site

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"dossier/generator/buildcache"
	"dossier/generator/render"
)

// memory keeps rendered files; it is safe for concurrent use. With a
// cache it stores each file as it is written and keeps only its sum, so
// that the largest shared files are never held whole.
type memory struct {
	mu    sync.Mutex
	cache *buildcache.Cache
	files map[string][]byte
	sums  map[string]string // publish path → object sum, with a cache
}

func (m *memory) put(name string, b []byte) error {
	w, keep := m.create(name)
	if _, err := w.Write(b); err != nil {
		return err
	}
	return keep()
}

// create starts the file name; keep, once it is written, keeps it, or
// returns why it could not be written.
func (m *memory) create(name string) (w io.Writer, keep func() error) {
	var kept bytes.Buffer
	var cached *buildcache.Writer
	var err error
	if w = &kept; m.cache != nil {
		if cached, err = m.cache.Create(); err == nil {
			w = cached
		}
	}
	return w, func() error {
		var sum string
		if err == nil && cached != nil {
			sum, err = cached.Store()
		}
		if err != nil {
			return err
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.files == nil {
			m.files, m.sums = map[string][]byte{}, map[string]string{}
		}
		if _, dup := m.files[name]; dup || m.sums[name] != "" {
			return fmt.Errorf("output path %q is written twice", name)
		}
		if cached == nil {
			m.files[name] = kept.Bytes()
		} else {
			m.sums[name] = sum
		}
		return nil
	}
}

// putPage puts a site page at dir (one level below the root): its
// Markdown and the HTML page made from it, titled title, with the tables
// the Markdown prints written straight to HTML.
func (s *Site) putPage(out *memory, dir, title string, md []byte, tables []render.PrintedTable) error {
	html, err := s.Templates.HTML(md, render.HTMLPage{PageTitle: title + " · " + s.Config.Title, SiteTitle: s.Config.Title, Root: "../", MarkdownURL: "index.md", Search: s.Config.Search, Tables: tables}, nil)
	if err != nil {
		return fmt.Errorf("render %sindex.html: %w", dir, err)
	}
	if err := out.put(dir+"index.md", md); err != nil {
		return err
	}
	return out.put(dir+"index.html", html)
}
