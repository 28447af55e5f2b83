//go:build !linux

package buildcache

import (
	"os"
	"time"
)

// lastUse is the file's modification time here; links are not counted, so
// an object still published may be trimmed (the next build writes it again).
func lastUse(fi os.FileInfo) (time.Time, bool) { return fi.ModTime(), true }
