//go:build !linux

package publish

import "errors"

// exchange is not atomic here: Commit renames twice instead.
func exchange(string, string) error { return errors.ErrUnsupported }

// startTime is unknown here: a staging directory is kept only while its
// owner is this process (Cleanup runs under the lock, so any other owner
// is a build that was killed).
func startTime(int) uint64 { return 0 }
