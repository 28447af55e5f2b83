package publish

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories a and b atomically (renameat2 with
// RENAME_EXCHANGE): there is no moment without either.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

// startTime is the process's start time in clock ticks since boot (field
// 22 of /proc/PID/stat), 0 when there is no such process.
func startTime(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}
