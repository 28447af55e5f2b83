// Package serve is the development server behind `dossier serve`: it builds
// the site into a temporary directory, serves that directory over HTTP,
// watches the site's inputs with fsnotify, rebuilds on change and tells open
// pages to reload through server-sent events.
//
// A failed rebuild leaves the last good build in place; the error goes to
// the log writer and, as an "error" event, to every open page, whose reload
// script shows it in an overlay. The reload script is injected into each
// HTML response only, never into the files on disk.
//
// The server is meant for local use: it binds 127.0.0.1 unless told
// otherwise, and it trusts the files it serves.
package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"dossier/generator/config"
	"dossier/generator/publish"
	"dossier/generator/site"
)

// Paths the server reserves for itself. Site output never lives under
// Prefix, so they cannot shadow a page.
const (
	Prefix     = "/__dossier/"
	ScriptPath = Prefix + "reload.js"
	EventsPath = Prefix + "events"
)

// ScriptTag is what the server inserts before </body> in every HTML
// response.
const ScriptTag = `<script src="` + ScriptPath + `"></script>`

// DefaultDebounce is how long the watcher waits after the last change
// before it rebuilds: editors write a file in several steps.
const DefaultDebounce = 100 * time.Millisecond

// maxDebounce bounds the wait under a stream of changes.
const maxDebounce = 2 * time.Second

// Event names sent on EventsPath.
const (
	EventReload = "reload" // data: the build number
	EventError  = "error"  // data: the build error, as text
)

// Options configure a Server.
type Options struct {
	// Source is the site root holding hugo-like.yaml; default ".".
	Source string
	// Drafts publishes draft pages too.
	Drafts bool
	// Debounce is the quiet time before a rebuild; default DefaultDebounce.
	Debounce time.Duration
	// Log receives build results and errors; default io.Discard.
	Log io.Writer
}

// Server builds, watches and serves one site. It implements http.Handler.
// Create it with New and release it with Close.
type Server struct {
	opts    Options
	root    string // absolute site root
	tmp     string // temporary directory holding the builds
	watcher *fsnotify.Watcher
	logMu   sync.Mutex
	buildMu sync.Mutex // one build at a time

	mu       sync.RWMutex
	current  string // directory of the last good build; "" before the first
	previous string // the build before it, removed after the next swap
	builds   int    // successful builds so far
	lastErr  error  // error of the latest build attempt, nil after a success
	clients  map[chan event]struct{}

	done      chan struct{} // closed by Close
	closeOnce sync.Once
	wg        sync.WaitGroup // the watch loop
	httpMu    sync.Mutex
	https     []*http.Server // servers started by Serve
}

type event struct{ name, data string }

// New loads the site configuration, builds the site once into a fresh
// temporary directory and starts watching the inputs. A configuration that
// cannot be read is an error; a build that fails is not: the server then
// starts without a good build, reports the error and rebuilds on the next
// change. The caller must call Close.
func New(opts Options) (*Server, error) {
	if opts.Source == "" {
		opts.Source = "."
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	cfg, err := config.Load(opts.Source, nil, nil)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "dossier-serve-")
	if err != nil {
		return nil, fmt.Errorf("create build directory: %w", err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("start file watcher: %w", err)
	}
	s := &Server{
		opts:    opts,
		root:    cfg.Root,
		tmp:     tmp,
		watcher: w,
		clients: map[chan event]struct{}{},
		done:    make(chan struct{}),
	}
	if err := s.watch(cfg); err != nil {
		w.Close()
		os.RemoveAll(tmp)
		return nil, err
	}
	s.Rebuild()
	s.wg.Add(1)
	go s.loop()
	return s, nil
}

// Dir returns the directory of the last good build, or "" if no build has
// succeeded yet.
func (s *Server) Dir() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.current
}

// TempDir returns the temporary directory that holds the builds; Close
// removes it.
func (s *Server) TempDir() string { return s.tmp }

// Err returns the error of the latest build attempt, or nil if it
// succeeded.
func (s *Server) Err() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.lastErr
}

// Rebuild builds the site now. On success it swaps in the new output and
// sends "reload" to open pages; on failure it keeps the last good build and
// sends "error". It returns the build error. The watcher calls it after a
// change; tests may call it directly.
func (s *Server) Rebuild() error {
	s.buildMu.Lock()
	defer s.buildMu.Unlock()
	select {
	case <-s.done:
		return errors.New("server closed")
	default:
	}
	start := time.Now()
	dir, n, err := s.build()
	s.mu.Lock()
	if err != nil {
		s.lastErr = err
		s.mu.Unlock()
		s.logf("dossier serve: build failed: %v\n", err)
		if s.Dir() != "" {
			s.logf("dossier serve: still serving the last good build\n")
		}
		s.broadcast(event{EventError, err.Error()})
		return err
	}
	stale := s.previous
	s.previous, s.current, s.lastErr = s.current, dir, nil
	s.builds++
	seq := s.builds
	s.mu.Unlock()
	if stale != "" {
		// The build before the previous one: no request can still be
		// resolving paths in it.
		os.RemoveAll(stale)
		os.Remove(publish.LockPath(stale))
	}
	s.logf("dossier serve: built %d files in %s\n", n, time.Since(start).Round(time.Millisecond))
	s.broadcast(event{EventReload, fmt.Sprint(seq)})
	return nil
}

// build renders the site into a new numbered directory under s.tmp.
func (s *Server) build() (string, int, error) {
	cfg, err := config.Load(s.root, nil, nil)
	if err != nil {
		return "", 0, err
	}
	s.mu.RLock()
	dir := filepath.Join(s.tmp, fmt.Sprintf("build-%d", s.builds+1))
	s.mu.RUnlock()
	// Pages whose inputs did not change are linked from the build cache.
	st, err := site.Load(cfg, site.Options{Drafts: s.opts.Drafts})
	if err != nil {
		return "", 0, err
	}
	os.RemoveAll(dir) // left by an earlier failed publish
	r, err := site.Build(st, site.Options{Destination: dir, Drafts: s.opts.Drafts})
	if err != nil {
		return "", 0, err
	}
	// Pick up directories created since the last build, and the ones a
	// changed configuration names.
	if err := s.watch(cfg); err != nil {
		s.logf("dossier serve: %v\n", err)
	}
	return dir, len(r.Files), nil
}

// watch adds the configured input directories, recursively, and the site
// root (for hugo-like.yaml) to the watcher. Adding a watched path again is
// harmless.
func (s *Server) watch(cfg *config.Site) error {
	if err := s.watcher.Add(cfg.Root); err != nil {
		return fmt.Errorf("watch %s: %w", cfg.Root, err)
	}
	for _, d := range []string{cfg.ContentDir, cfg.DataDir, cfg.TemplatesDir} {
		if err := s.watchTree(cfg.Dir(d)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) watchTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // an optional directory; the build reports it if needed
			}
			return fmt.Errorf("watch %s: %w", p, err)
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err := s.watcher.Add(p); err != nil {
			return fmt.Errorf("watch %s: %w", p, err)
		}
		return nil
	})
}

// relevant reports whether a file event should trigger a rebuild.
func (s *Server) relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	name := filepath.Base(ev.Name)
	if filepath.Dir(ev.Name) == s.root {
		// The root is watched for the configuration file only; anything
		// else there (public/, .git) is not an input.
		if name == config.FileName {
			return true
		}
		// A watched input directory itself replaced or removed.
		fi, err := os.Stat(ev.Name)
		return err == nil && fi.IsDir() && !strings.HasPrefix(name, ".") && s.isInputDir(ev.Name)
	}
	switch {
	case strings.HasPrefix(name, ".#"), strings.HasSuffix(name, "~"),
		strings.HasSuffix(name, ".swp"), strings.HasSuffix(name, ".swx"),
		strings.HasSuffix(name, ".tmp"), name == "4913":
		return false // editor scratch files
	}
	return true
}

func (s *Server) isInputDir(p string) bool {
	cfg, err := config.Load(s.root, nil, nil)
	if err != nil {
		return false
	}
	for _, d := range []string{cfg.ContentDir, cfg.DataDir, cfg.TemplatesDir} {
		if filepath.Clean(cfg.Dir(d)) == filepath.Clean(p) {
			return true
		}
	}
	return false
}

// loop waits for file events, debounces them and rebuilds.
func (s *Server) loop() {
	defer s.wg.Done()
	var (
		timer    *time.Timer
		fire     <-chan time.Time
		deadline time.Time
	)
	for {
		select {
		case <-s.done:
			if timer != nil {
				timer.Stop()
			}
			return
		case ev, ok := <-s.watcher.Events:
			if !ok {
				return
			}
			if !s.relevant(ev) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					s.watchTree(ev.Name)
				}
			}
			now := time.Now()
			if timer == nil {
				deadline = now.Add(maxDebounce)
				timer = time.NewTimer(s.opts.Debounce)
				fire = timer.C
				continue
			}
			wait := min(s.opts.Debounce, deadline.Sub(now))
			timer.Reset(max(wait, 0))
		case err, ok := <-s.watcher.Errors:
			if !ok {
				return
			}
			s.logf("dossier serve: watch: %v\n", err)
		case <-fire:
			timer, fire = nil, nil
			s.Rebuild()
		}
	}
}

func (s *Server) logf(format string, args ...any) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.opts.Log, format, args...)
}

// Serve accepts HTTP connections on ln until ctx is done or Close is
// called, then shuts the HTTP server down. It returns nil after a normal
// stop. It does not call Close.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	s.httpMu.Lock()
	select {
	case <-s.done:
		s.httpMu.Unlock()
		ln.Close()
		return nil
	default:
	}
	s.https = append(s.https, hs)
	s.httpMu.Unlock()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	case <-s.done:
	}
	// Event streams end when s.done closes or their request context ends;
	// Close first lets them go so Shutdown does not wait on them.
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	s.endStreams()
	err := hs.Shutdown(sctx)
	<-errc
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return hs.Close()
	case errors.Is(err, http.ErrServerClosed):
		return nil // Close got there first
	}
	return err
}

// endStreams closes every event stream's channel so its handler returns.
func (s *Server) endStreams() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.clients {
		close(c)
		delete(s.clients, c)
	}
}

// Close stops watching, ends the event streams and the HTTP servers started
// by Serve, and removes the temporary build directory. It is safe to call
// more than once.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.done)
		err = s.watcher.Close()
		s.wg.Wait()
		s.endStreams()
		s.httpMu.Lock()
		for _, hs := range s.https {
			hs.Close()
		}
		s.httpMu.Unlock()
		s.buildMu.Lock() // let a build in progress finish
		defer s.buildMu.Unlock()
		s.mu.Lock()
		s.current, s.previous = "", ""
		s.mu.Unlock()
		if rerr := os.RemoveAll(s.tmp); rerr != nil && err == nil {
			err = rerr
		}
	})
	return err
}

// subscribe registers an event stream. The returned channel is closed when
// the server ends the stream.
func (s *Server) subscribe() (chan event, error) {
	c := make(chan event, 16)
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
		return nil, errors.New("server closed")
	default:
	}
	s.clients[c] = struct{}{}
	return c, s.lastErr
}

func (s *Server) unsubscribe(c chan event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.clients[c]; ok {
		delete(s.clients, c)
		close(c)
	}
}

// broadcast sends ev to every stream. A stream whose buffer is full is
// stuck; it loses the event rather than blocking the builds.
func (s *Server) broadcast(ev event) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for c := range s.clients {
		select {
		case c <- ev:
		default:
		}
	}
}

// ServeHTTP serves the reload script, the event stream and the files of the
// last good build.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case ScriptPath:
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, reloadJS)
		return
	case EventsPath:
		s.serveEvents(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	dir := s.Dir()
	if dir == "" {
		s.serveNoBuild(w)
		return
	}
	s.serveFile(w, r, dir)
}

// serveFile serves one file of the build in dir, with the reload script
// injected into HTML.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, dir string) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		http.Error(w, "build directory: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer root.Close()
	upath := path.Clean("/" + r.URL.Path)
	name := strings.TrimPrefix(upath, "/")
	if name == "" {
		name = "."
	}
	fi, err := root.Stat(name)
	if err != nil {
		s.notFound(w, r)
		return
	}
	if fi.IsDir() {
		if !strings.HasSuffix(r.URL.Path, "/") {
			// Relative links in the pages need the trailing slash.
			target := path.Base(upath) + "/"
			if upath == "/" {
				target = "/"
			}
			if q := r.URL.RawQuery; q != "" {
				target += "?" + q
			}
			http.Redirect(w, r, target, http.StatusMovedPermanently)
			return
		}
		name = path.Join(name, "index.html")
		if fi, err = root.Stat(name); err != nil || fi.IsDir() {
			s.notFound(w, r)
			return
		}
	}
	f, err := root.Open(name)
	if err != nil {
		s.notFound(w, r)
		return
	}
	defer f.Close()
	w.Header().Set("Cache-Control", "no-store")
	if isHTML(name) {
		st, err := f.Stat()
		var body io.ReadSeeker
		if err == nil {
			body, err = injected(f, st.Size())
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		http.ServeContent(w, r, name, fi.ModTime(), body)
		return
	}
	http.ServeContent(w, r, name, fi.ModTime(), f)
}

func isHTML(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".html" || ext == ".htm"
}

// notFound answers 404 with a small HTML page that carries the reload
// script, so a page that a rebuild will create appears by itself.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>404 not found</title></head>\n<body><h1>404 not found</h1><p>%s is not in the current build.</p>\n%s</body></html>\n",
		htmlEscape(r.URL.Path), ScriptTag)
}

// serveNoBuild answers while no build has succeeded yet.
func (s *Server) serveNoBuild(w http.ResponseWriter) {
	msg := "no build yet"
	if err := s.Err(); err != nil {
		msg = err.Error()
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusServiceUnavailable)
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>build failed</title></head>\n<body><h1>The site has not built yet</h1><pre>%s</pre>\n%s</body></html>\n",
		htmlEscape(msg), ScriptTag)
}

func htmlEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Inject returns page with ScriptTag inserted before its last </body>
// (any case), or appended when the page has none: what serveFile streams.
func Inject(page []byte) []byte {
	body, err := injected(bytes.NewReader(page), int64(len(page)))
	if err != nil {
		return page // a bytes.Reader does not fail
	}
	out, _ := io.ReadAll(body)
	return out
}

// serveEvents streams build events as server-sent events until the client
// goes away or the server closes.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	c, lastErr := s.subscribe()
	if c == nil {
		http.Error(w, "server closed", http.StatusServiceUnavailable)
		return
	}
	defer s.unsubscribe(c)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, "retry: 1000\n\n")
	if lastErr != nil {
		// A page opened while the build is broken shows the error at once.
		writeEvent(w, event{EventError, lastErr.Error()})
	}
	if err := rc.Flush(); err != nil {
		return
	}
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case ev, ok := <-c:
			if !ok {
				return
			}
			writeEvent(w, ev)
		case <-ping.C:
			io.WriteString(w, ": ping\n\n")
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

// writeEvent writes one event; each line of the data gets its own data:
// field, as the format requires.
func writeEvent(w io.Writer, ev event) {
	var b strings.Builder
	b.WriteString("event: ")
	b.WriteString(ev.name)
	b.WriteByte('\n')
	data := strings.ReplaceAll(strings.ReplaceAll(ev.data, "\r\n", "\n"), "\r", "\n")
	for line := range strings.SplitSeq(data, "\n") {
		b.WriteString("data: ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
}
