package hub

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is one part of the tracked set: shard Index of Count (1-based, as
// in --shard 3/8). A model belongs to the shard its id hashes to, so the
// assignment does not move when models are added or removed elsewhere in
// the set, and every model is in exactly one shard. The zero Shard holds
// every model.
type Shard struct{ Index, Count int }

// MaxShards bounds --shard's count: a workflow matrix has at most 256 jobs.
const MaxShards = 256

// ParseShard reads "i/n" with 1 ≤ i ≤ n ≤ MaxShards.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || n > MaxShards || i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard %q: want i/n with 1 ≤ i ≤ n ≤ %d, e.g. 3/8", s, MaxShards)
	}
	return Shard{Index: i, Count: n}, nil
}

// Has reports whether model belongs to the shard.
func (s Shard) Has(model string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(model))
	return int(h.Sum64()%uint64(s.Count)) == s.Index-1
}

func (s Shard) String() string {
	if s.Count == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Target is one model to sync, at a revision ("" means main).
type Target struct{ Model, Revision string }

// Set is what SyncSet syncs: the targets of one shard, within a budget.
type Set struct {
	Targets []Target
	Shard   Shard
	// Budget is the most Hub requests the run may send (0: no limit). A
	// model is started only if the requests spent so far plus the most
	// any model of this run has cost fit within it, so a run ends under
	// its budget unless one model costs more than every model before it.
	// A model is never cut short: its snapshot is whole or not written.
	Budget int64
}

// SetResult says what SyncSet did.
type SetResult struct {
	InShard     int      // targets of the shard
	Synced      int      // written, or already at the resolved commit
	Failed      int      // failed (each reported through the callback)
	Left        []string // not started because the budget was spent: the next run syncs them
	HubRequests int64    // requests to the Hub host this run sent
}

// SyncSet syncs every target of set.Shard in order, calling each with
// every result or error, and stops starting models when the budget would
// be exceeded or ctx is cancelled.
func SyncSet(ctx context.Context, c *Client, dataDir string, set Set, opts Options, each func(Target, *Result, error)) SetResult {
	var out SetResult
	start := c.HubRequests()
	var costliest int64
	var mine []Target
	for _, t := range set.Targets {
		if set.Shard.Has(t.Model) {
			mine = append(mine, t)
		}
	}
	out.InShard = len(mine)
	for i, t := range mine {
		spent := c.HubRequests() - start
		if ctx.Err() != nil || set.Budget > 0 && spent+costliest > set.Budget {
			for _, l := range mine[i:] {
				out.Left = append(out.Left, l.Model)
			}
			break
		}
		before := c.HubRequests()
		r, err := Sync(ctx, c, dataDir, t.Model, t.Revision, opts)
		costliest = max(costliest, c.HubRequests()-before)
		if err != nil {
			out.Failed++
		} else {
			out.Synced++
		}
		each(t, r, err)
		if errors.Is(err, context.Canceled) {
			for _, l := range mine[i+1:] {
				out.Left = append(out.Left, l.Model)
			}
			break
		}
	}
	out.HubRequests = c.HubRequests() - start
	return out
}
