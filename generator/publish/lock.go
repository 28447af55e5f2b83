package publish

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrLocked is returned by Acquire without a wait function while another
// build holds the lock.
var ErrLocked = errors.New("another build is publishing")

// Lock is the advisory lock on one destination.
type Lock struct {
	dest string
	f    *os.File
}

// LockPath is the lock file of dest: beside it, since dest itself is
// exchanged.
func LockPath(dest string) string {
	return filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".lock")
}

// Acquire locks dest. When another build holds the lock, wait is told who
// (the holder's process id and when it took the lock) and Acquire blocks
// until the lock is free; with wait nil it fails naming the holder.
func Acquire(dest string, wait func(holder string)) (*Lock, error) {
	dest = filepath.Clean(dest)
	p := LockPath(dest)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dest, err)
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dest, err)
	}
	busy, err := tryLock(f)
	if err == nil && busy {
		holder := readHolder(f)
		if wait == nil {
			f.Close()
			return nil, fmt.Errorf("destination %s: %w (%s; lock file %s)", dest, ErrLocked, holder, p)
		}
		wait(holder)
		err = lock(f)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	self := Self()
	note := fmt.Sprintf("pid %d, locked at %s", self.PID, time.Now().UTC().Format(time.DateTime+" UTC"))
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(note+"\n"), 0)
	}
	return &Lock{dest: dest, f: f}, nil
}

// readHolder is what the holder wrote into the lock file.
func readHolder(f *os.File) string {
	b, _ := io.ReadAll(io.NewSectionReader(f, 0, 256))
	if h := strings.TrimSpace(string(b)); h != "" {
		return "held by build " + h
	}
	return "held by a build that has not said who it is yet"
}

// Release unlocks; the file stays, so that every build locks the same one.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
