package site

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// topDir is FS_TOPDIR_FL from linux/fs.h (chattr +T).
const topDir = 0x20000

// spread asks the file system to place dir's subdirectories as it places
// top-level ones, in block groups of their own rather than beside dir. On
// an ext4 without a journal (the development VM's and CI's) an inode is
// not reused for a while after it was freed (minutes, here), and finding
// a free one tests every such inode in the group: next to an output just
// replaced, each new file of the next build paid for the thousands
// removed with it (4,000 files in 1,000 new directories: 2.2-3.0 s of
// system time; under a directory with the hint, 0.15 s). Best effort:
// file systems without the flag refuse it.
func spread(dir string) {
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	defer f.Close()
	fd := int(f.Fd())
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil {
		return
	}
	unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(flags|topDir))
}

// exchange swaps the directories a and b atomically (renameat2 with
// RENAME_EXCHANGE): there is no moment without either.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

// soleLink says whether no other directory entry links fi's file.
func soleLink(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 1
}

// willNeed asks the kernel to read the file at p into the page cache in
// the background (best effort).
func willNeed(p string) {
	f, err := os.Open(p)
	if err != nil {
		return
	}
	defer f.Close()
	unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_WILLNEED)
}
