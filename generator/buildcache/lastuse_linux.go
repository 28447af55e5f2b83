package buildcache

import (
	"os"
	"syscall"
	"time"
)

// lastUse is when fi's file was last linked, unlinked or written (its
// status change time: a link into an output changes it) and whether no
// other directory links it.
func lastUse(fi os.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fi.ModTime(), true
	}
	return time.Unix(st.Ctim.Sec, st.Ctim.Nsec), st.Nlink == 1
}
