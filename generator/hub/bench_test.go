package hub_test

import (
	"context"
	"os"
	"testing"
	"time"

	"dossier/generator/hub"
	"dossier/generator/hub/hubtest"
	"dossier/generator/snapshot"
)

// k3Config is the real config.json of moonshotai/Kimi-K3, from which
// hubtest.K3 rebuilds the checkpoint's exact tensor list.
const k3Config = "../../testdata/configs/moonshotai__Kimi-K3.json"

// BenchmarkSyncK3 syncs the real Kimi-K3 (hubtest.K3: 96 shards, 497,220
// tensors, 75,766,584 bytes of prefixes and headers, a 59,764,096-byte
// index) from the fake Hub with 50 ms of latency on every request, as a
// dry run so each iteration does the whole fetch.
func BenchmarkSyncK3(b *testing.B) {
	cfg, err := os.ReadFile(k3Config)
	if err != nil {
		b.Fatal(err)
	}
	repo := hubtest.K3(b, cfg)
	srv := hubtest.New(b, repo)
	var shards []string
	for _, f := range repo.Files {
		if snapshot.IsWeightShard(f.Path) {
			shards = append(shards, f.Path)
		}
	}
	census := repo.Census
	repo = nil // let the tensor list go: the fake keeps only bytes
	srv.SetLatency(50 * time.Millisecond)
	c, _ := newClient(b, srv.URL(), "")
	dir := b.TempDir()
	var res *hub.Result
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res, err = hub.Sync(context.Background(), c, dir, hubtest.K3ID, hubtest.K3Revision, hub.Options{DryRun: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	s := res.Snapshot
	if s.Revision != hubtest.K3Revision || s.Shards.Count != hubtest.K3Shards || s.Shards.Bytes != hubtest.K3ShardBytes ||
		s.Header.Tensors != hubtest.K3Tensors || s.Header.Bytes != hubtest.K3HeaderBytes ||
		s.Index.Tensors != hubtest.K3Tensors || s.Index.TotalSize != hubtest.K3TensorBytes || s.Index.FileBytes != hubtest.K3IndexBytes {
		b.Fatalf("revision %s, shards %+v, headers %d tensors %d bytes, index %+v", s.Revision, s.Shards, s.Header.Tensors, s.Header.Bytes, s.Index)
	}
	for dt, n := range census {
		if s.Census[dt] != n {
			b.Fatalf("census %v, want %v", s.Census, census)
		}
	}
	if len(res.Warnings) != 0 {
		b.Fatalf("warnings %q", res.Warnings)
	}
	// One more sync, counted: every K3 header is over 100 kB, so each
	// shard takes exactly one resolve and two reads of its bytes.
	srv.ResetCounts()
	if _, err := hub.Sync(context.Background(), c, dir, hubtest.K3ID, hubtest.K3Revision, hub.Options{DryRun: true}); err != nil {
		b.Fatal(err)
	}
	for _, f := range shards {
		if resolve, cdn := srv.FileRequests(hubtest.K3ID, f); resolve != 1 || cdn != 2 {
			b.Fatalf("%s: %d resolve and %d CDN requests", f, resolve, cdn)
		}
	}
	b.ReportMetric(float64(s.Header.Bytes), "header-bytes")
	b.ReportMetric(float64(s.Index.FileBytes), "index-bytes")
}
