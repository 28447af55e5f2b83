//go:build !linux

package site

import (
	"errors"
	"os"
)

// spread is a no-op where there is no Orlov allocator to ask.
func spread(string) {}

// exchange is not atomic here: commit renames twice instead.
func exchange(string, string) error { return errors.ErrUnsupported }

// soleLink is unknown here, so a spare's file is never written over.
func soleLink(os.FileInfo) bool { return false }

// willNeed is a no-op here: files are read when they are needed.
func willNeed(string) {}
