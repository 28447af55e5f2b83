//go:build !linux

package site

// spread is a no-op where there is no Orlov allocator to ask.
func spread(string) {}
