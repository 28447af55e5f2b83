package hub

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Progress hears how a sync advances. Methods may be called from several
// goroutines at once.
type Progress interface {
	// Start announces a model and the number of files to be read.
	Start(model string, files int)
	// Add reports files finished and bytes received since the last call.
	Add(files int, bytes int64)
	// Finish ends the model's report.
	Finish()
}

// NopProgress reports nothing: for pipes, logs and tests.
type NopProgress struct{}

func (NopProgress) Start(string, int) {}
func (NopProgress) Add(int, int64)    {}
func (NopProgress) Finish()           {}

// TerminalProgress redraws one status line on a terminal, at most ten
// times a second.
type TerminalProgress struct {
	w     io.Writer
	now   func() time.Time
	mu    sync.Mutex
	model string
	total int
	files int
	bytes int64
	last  time.Time
	width int
}

// NewTerminalProgress writes to w, which should be a terminal: the line is
// redrawn with carriage returns.
func NewTerminalProgress(w io.Writer) *TerminalProgress {
	return &TerminalProgress{w: w, now: time.Now}
}

func (p *TerminalProgress) Start(model string, files int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.model, p.total, p.files, p.bytes, p.width = model, files, 0, 0, 0
	p.draw()
}

func (p *TerminalProgress) Add(files int, bytes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files += files
	p.bytes += bytes
	if files > 0 || p.now().Sub(p.last) >= 100*time.Millisecond {
		p.draw()
	}
}

func (p *TerminalProgress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw()
	fmt.Fprintln(p.w)
}

func (p *TerminalProgress) draw() {
	p.last = p.now()
	line := fmt.Sprintf("sync %s: %d/%d files, %s", p.model, p.files, p.total, humanBytes(p.bytes))
	pad := p.width - len(line)
	p.width = len(line)
	if pad < 0 {
		pad = 0
	}
	fmt.Fprintf(p.w, "\r%s%*s", line, pad, "")
}

func humanBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// IsTerminal reports whether w is a character device, so the caller can
// choose TerminalProgress for a terminal and NopProgress otherwise.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
