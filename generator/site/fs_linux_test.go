package site

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestStagingIsSpread: where the file system keeps inode flags, the
// staging directory carries the top-directory hint, so its subdirectories
// are placed away from the output it replaces.
func TestStagingIsSpread(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "public")
	flags, err := flagsOf(filepath.Dir(dest))
	if err != nil {
		t.Skipf("the file system keeps no inode flags: %v", err)
	}
	if flags&topDir != 0 {
		t.Skip("the test's own directory has the hint: the staging directory's would prove nothing")
	}
	st, err := stage(dest, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.discard()
	if flags, err = flagsOf(st.dir); err != nil {
		t.Fatal(err)
	}
	if flags&topDir == 0 {
		// ext4 and ext2/3 take it; others (tmpfs, xfs) may not.
		var fs unix.Statfs_t
		if unix.Statfs(st.dir, &fs) == nil && fs.Type == unix.EXT4_SUPER_MAGIC {
			t.Fatalf("ext4 staging directory flags %#x lack the hint %#x", flags, topDir)
		}
		t.Skipf("the file system (type %#x) does not keep the hint", fs.Type)
	}
}

func flagsOf(dir string) (uint32, error) {
	f, err := os.Open(dir)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
}
