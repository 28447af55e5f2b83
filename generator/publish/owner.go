package publish

import (
	"os"
	"sync"
)

// Owner is a process: its id and start time (0 where unknown), which
// together name it even after the id is reused.
type Owner struct {
	PID   int
	Start uint64
}

// Self is this process.
var Self = sync.OnceValue(func() Owner {
	pid := os.Getpid()
	return Owner{PID: pid, Start: startTime(pid)}
})

// Running says whether o is still running.
func Running(o Owner) bool {
	if o == Self() {
		return true
	}
	start := startTime(o.PID)
	return start != 0 && start == o.Start
}
