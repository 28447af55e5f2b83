package hub_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"dossier/generator/hub"
	"dossier/generator/hub/hubtest"
)

func TestParseShard(t *testing.T) {
	for _, ok := range []string{"1/1", "3/8", "8/8", "256/256"} {
		if _, err := hub.ParseShard(ok); err != nil {
			t.Errorf("ParseShard(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "0/8", "9/8", "1/0", "1/257", "a/8", "3", "3/8/1", "-1/8", "1/-8"} {
		if _, err := hub.ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) = nil error", bad)
		}
	}
}

// trackedSet is n tiny repositories on one fake Hub.
func trackedSet(t *testing.T, n int) (*hubtest.Server, []hub.Target) {
	t.Helper()
	srv := hubtest.New(t)
	targets := make([]hub.Target, n)
	for i := range targets {
		id := fmt.Sprintf("org%02d/model-%04d", i%37, i)
		if err := srv.SetRepo(smallRepo(id, 1)); err != nil {
			t.Fatal(err)
		}
		targets[i] = hub.Target{Model: id}
	}
	return srv, targets
}

func TestShardsSplitTheSetOnce(t *testing.T) {
	const n, shards = 1000, 8
	_, targets := trackedSet(t, 0)
	for i := 0; i < n; i++ {
		targets = append(targets, hub.Target{Model: fmt.Sprintf("org%02d/model-%04d", i%37, i)})
	}
	count := make([]int, shards+1)
	for _, tg := range targets {
		in := 0
		for i := 1; i <= shards; i++ {
			if (hub.Shard{Index: i, Count: shards}).Has(tg.Model) {
				in++
				count[i]++
			}
		}
		if in != 1 {
			t.Fatalf("%s is in %d shards, want 1", tg.Model, in)
		}
	}
	for i := 1; i <= shards; i++ {
		// FNV-1a spreads 1,000 ids within a third of the even share.
		if count[i] < n/shards*2/3 || count[i] > n/shards*4/3 {
			t.Errorf("shard %d/%d holds %d of %d models", i, shards, count[i], n)
		}
	}
	// Stable: a model's shard does not depend on the rest of the set.
	if a, b := (hub.Shard{Index: 3, Count: 8}).Has("moonshotai/Kimi-K3"), (hub.Shard{Index: 3, Count: 8}).Has("moonshotai/Kimi-K3"); a != b {
		t.Fatal("shard membership is not a function of the id")
	}
}

// TestShardedSyncEqualsOneSync syncs 1,000 tracked models across eight
// shards, each within a request budget, under the Hub's quota, and checks
// that the merged snapshots equal one unsharded sync byte for byte.
func TestShardedSyncEqualsOneSync(t *testing.T) {
	const n, shards = 1000, 8
	srv, targets := trackedSet(t, n)
	opts := hub.Options{Now: fixedNow, Concurrency: 4}

	whole := t.TempDir()
	c, _ := newClient(t, srv.URL(), "")
	res := hub.SyncSet(context.Background(), c, whole, hub.Set{Targets: targets}, opts, failOn(t))
	if res.Synced != n || res.Failed != 0 || len(res.Left) != 0 {
		t.Fatalf("unsharded sync: %+v", res)
	}
	perModel := res.HubRequests / n

	// The quota is the Hub's: a clock the client's sleeps advance, so a
	// spent window costs no real time.
	clock := &testClock{t: fixedNow()}
	srv.SetQuota(300, 5*time.Minute, clock.now)
	merged := t.TempDir()
	// A shard's budget: its share of the set at the cost one model took,
	// with room for the spread of the hash.
	budget := perModel * n / shards * 3 / 2
	total := 0
	for i := 1; i <= shards; i++ {
		dir := t.TempDir() // each shard job has its own checkout
		c, err := hub.New(hub.Config{Endpoint: srv.URL(), UserAgent: "dossier/test", Timeout: 5 * time.Second, Sleep: clock.sleep})
		if err != nil {
			t.Fatal(err)
		}
		res := hub.SyncSet(context.Background(), c, dir, hub.Set{Targets: targets, Shard: hub.Shard{Index: i, Count: shards}, Budget: budget}, opts, failOn(t))
		if res.Failed != 0 || len(res.Left) != 0 || res.Synced != res.InShard {
			t.Fatalf("shard %d: %+v", i, res)
		}
		if res.HubRequests > budget {
			t.Errorf("shard %d sent %d Hub requests, over its budget of %d", i, res.HubRequests, budget)
		}
		total += res.InShard
		copyTree(t, dir, merged)
	}
	if total != n {
		t.Fatalf("the shards synced %d models, want %d", total, n)
	}
	if srv.Refused() == 0 {
		t.Fatal("the quota refused nothing: the test does not exercise the back-off")
	}
	if clock.waited() < 5*time.Minute {
		t.Errorf("the syncs waited %s for the quota, want at least one window", clock.waited())
	}
	sameTrees(t, whole, merged)
	t.Logf("%d Hub requests a model; budget %d a shard; the quota refused %d; waited %s", perModel, budget, srv.Refused(), clock.waited())
}

// TestBudgetLeavesModelsForTheNextRun spends a small budget, then syncs
// the rest in a second run that finds the first run's snapshots current.
func TestBudgetLeavesModelsForTheNextRun(t *testing.T) {
	const n = 40
	srv, targets := trackedSet(t, n)
	dir := t.TempDir()
	opts := hub.Options{Now: fixedNow}
	c, _ := newClient(t, srv.URL(), "")
	first := hub.SyncSet(context.Background(), c, dir, hub.Set{Targets: targets, Budget: 50}, opts, failOn(t))
	if first.HubRequests > 50 || len(first.Left) == 0 || first.Synced+len(first.Left) != n {
		t.Fatalf("first run: %+v", first)
	}
	srv.ResetCounts()
	second := hub.SyncSet(context.Background(), c, dir, hub.Set{Targets: targets}, opts, failOn(t))
	if second.Synced != n || len(second.Left) != 0 {
		t.Fatalf("second run: %+v", second)
	}
	// A model the first run synced costs one model-info request now.
	for _, tg := range targets[:first.Synced] {
		if got := srv.Count("hub", "/api/models/"+tg.Model+"/revision/main"); got != 1 {
			t.Errorf("%s: %d model-info requests in the second run, want 1", tg.Model, got)
		}
		if res, _ := srv.FileRequests(tg.Model, "config.json"); res != 0 {
			t.Errorf("%s: config.json read again though its commit did not move", tg.Model)
		}
	}
}

func failOn(t *testing.T) func(hub.Target, *hub.Result, error) {
	return func(tg hub.Target, _ *hub.Result, err error) {
		if err != nil {
			t.Errorf("sync %s: %v", tg.Model, err)
		}
	}
}

type testClock struct {
	mu   sync.Mutex
	t    time.Time
	wait time.Duration
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *testClock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.t, c.wait = c.t.Add(d), c.wait+d
	c.mu.Unlock()
	return ctx.Err()
}

func (c *testClock) waited() time.Duration { c.mu.Lock(); defer c.mu.Unlock(); return c.wait }

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if _, err := os.Stat(dst); err == nil {
			t.Errorf("%s written by two shards", rel)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func sameTrees(t *testing.T, a, b string) {
	t.Helper()
	files := func(root string) map[string][]byte {
		m := map[string][]byte{}
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				m[rel], _ = os.ReadFile(p)
			}
			return nil
		})
		return m
	}
	fa, fb := files(a), files(b)
	if len(fa) != len(fb) {
		t.Fatalf("%d files unsharded, %d merged", len(fa), len(fb))
	}
	for k, v := range fa {
		if !bytes.Equal(v, fb[k]) {
			t.Errorf("%s differs between the unsharded and the merged sync", k)
		}
	}
}
