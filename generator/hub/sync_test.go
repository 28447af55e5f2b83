package hub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"dossier/generator/hub"
	"dossier/generator/hub/hubtest"
	"dossier/generator/internal/hfconfig"
	"dossier/generator/snapshot"
)

var fixedNow = func() time.Time { return time.Date(2026, 8, 30, 12, 0, 0, 0, time.UTC) }

func TestSyncWritesSnapshot(t *testing.T) {
	repo := smallRepo("acme/toy-moe", 3)
	srv := hubtest.New(t, repo)
	c, _ := newClient(t, srv.URL(), "")
	dir := t.TempDir()

	res, err := hub.Sync(context.Background(), c, dir, "acme/toy-moe", "", hub.Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Written || res.Unchanged || res.Revision != repo.SHA || res.Requested != "main" || res.Previous != "" {
		t.Fatalf("result %+v", res)
	}
	if len(res.Warnings) != 0 {
		t.Fatalf("warnings: %q", res.Warnings)
	}
	s, err := snapshot.Load(snapshot.Path(dir, "acme/toy-moe"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Revision != repo.SHA || s.Source != "dossier sync" || s.Endpoint != srv.URL() || s.Fetched != "2026-08-30T12:00:00Z" {
		t.Fatalf("snapshot head %+v", s)
	}
	if s.Shards.Count != 3 || s.Shards.Numbered != "model-%05d-of-%05d.safetensors" || s.Shards.Source != "hub:tree" {
		t.Fatalf("shards %+v", s.Shards)
	}
	// Every file of the listing, with sizes; the original/ copy is a file,
	// not a shard.
	if len(s.Files) != 7 {
		t.Fatalf("files %+v", s.Files)
	}
	var shardBytes, dataBytes, headerBytes int64
	stored := map[string]int64{}
	for _, f := range repo.Files {
		if !snapshot.IsWeightShard(f.Path) {
			continue
		}
		h, _, err := c.SafetensorsHeader(context.Background(), "acme/toy-moe", repo.SHA, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		shardBytes += h.FileLen()
		dataBytes += h.DataLen()
		headerBytes += 8 + h.Len
		for _, x := range h.Tensors {
			n, _ := x.Elements()
			stored[x.DType] += n
		}
	}
	if s.Shards.Bytes != shardBytes {
		t.Errorf("shard bytes %d, want %d", s.Shards.Bytes, shardBytes)
	}
	if s.Index == nil || s.Index.TotalSize != dataBytes || s.Index.Tensors != 1+6*13 || s.Index.FileBytes <= 0 {
		t.Errorf("index %+v, want total %d", s.Index, dataBytes)
	}
	if s.Header == nil || s.Header.Bytes != headerBytes || s.Header.Tensors != 1+6*13 || s.Header.Bytes+dataBytes != shardBytes {
		t.Errorf("header %+v, want bytes %d", s.Header, headerBytes)
	}
	for dt, n := range stored {
		if s.Header.Elems[dt] != n {
			t.Errorf("elements %s = %d, want %d", dt, s.Header.Elems[dt], n)
		}
	}
	if s.Census["U8"] != repo.Census["U8"] || s.CensusSource == "" {
		t.Errorf("census %v from %q", s.Census, s.CensusSource)
	}
	var cfg map[string]any
	if err := json.Unmarshal(s.Config, &cfg); err != nil || cfg["model_type"] != "toy" {
		t.Errorf("config %s", s.Config)
	}
	// Packed U8: the Hub counts logical parameters, the headers stored
	// bytes. Both are kept; the build judges.
	if !res.CensusDisagrees() {
		t.Error("census rows all agree; want U8 to differ")
	}
	for _, row := range res.Census {
		if row.DType == "U8" && (row.Hub != repo.Census["U8"] || row.Stored != stored["U8"]) {
			t.Errorf("U8 row %+v", row)
		}
		if row.DType == "BF16" && !row.Agree() {
			t.Errorf("BF16 row %+v", row)
		}
		if row.DType == "I32" && (row.InHub || !row.InHeaders) {
			t.Errorf("I32 row %+v", row)
		}
	}
	if res.Headers.Roles["payload"].Tensors != 24 || res.Headers.Roles["scale"].Tensors != 24 || res.Headers.Roles["aux"].Tensors != 24 {
		t.Errorf("roles %+v", res.Headers.Roles)
	}
	if !strings.Contains(res.Summary(), "created") {
		t.Errorf("summary %q", res.Summary())
	}
}

func TestSyncAtRevisionPinsTheCommit(t *testing.T) {
	repo := smallRepo("acme/toy", 1)
	repo.Revisions = map[string]string{"v1.0": hubtest.SHAFor("acme/toy"), "refs/pr/1": hubtest.SHAFor("acme/toy")}
	srv := hubtest.New(t, repo)
	c, _ := newClient(t, srv.URL(), "")
	res, err := hub.Sync(context.Background(), c, t.TempDir(), "acme/toy", "v1.0", hub.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requested != "v1.0" || res.Revision != repo.SHA {
		t.Fatalf("result %+v", res)
	}
	if srv.Count("hub", "/api/models/acme/toy/revision/v1.0") != 1 {
		t.Fatalf("requests %v", srv.Counts())
	}
	// A pull-request ref travels as one escaped path segment.
	info, err := c.ModelInfo(context.Background(), "acme/toy", "refs/pr/1")
	if err != nil || info.SHA != repo.SHA {
		t.Fatalf("refs/pr/1: %+v %v", info, err)
	}
	// Everything after model info is read at the sha, never at the tag.
	for k := range srv.Counts() {
		if strings.Contains(k, "v1.0") && !strings.Contains(k, "/revision/") {
			t.Errorf("request %s uses the tag, not the commit", k)
		}
	}
}

func TestSyncSameRevisionChangesNothing(t *testing.T) {
	srv := hubtest.New(t, smallRepo("acme/toy", 2))
	c, _ := newClient(t, srv.URL(), "")
	dir := t.TempDir()
	if _, err := hub.Sync(context.Background(), c, dir, "acme/toy", "", hub.Options{}); err != nil {
		t.Fatal(err)
	}
	path := snapshot.Path(dir, "acme/toy")
	before, _ := os.ReadFile(path)
	st1, _ := os.Stat(path)
	srv.ResetCounts()

	res, err := hub.Sync(context.Background(), c, dir, "acme/toy", "main", hub.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Unchanged || res.Written || len(res.Changes) != 0 || !strings.Contains(res.Summary(), "nothing to do") {
		t.Fatalf("result %+v", res)
	}
	after, _ := os.ReadFile(path)
	st2, _ := os.Stat(path)
	if !bytes.Equal(before, after) || !st1.ModTime().Equal(st2.ModTime()) {
		t.Fatal("snapshot touched")
	}
	if n := srv.HostRequests("hub") + srv.HostRequests("cdn"); n != 1 {
		t.Fatalf("%d requests; want only model info: %v", n, srv.Counts())
	}
}

func TestSyncNewRevisionDryRunThenWrite(t *testing.T) {
	srv := hubtest.New(t, smallRepo("acme/toy", 2))
	c, _ := newClient(t, srv.URL(), "")
	dir := t.TempDir()
	if _, err := hub.Sync(context.Background(), c, dir, "acme/toy", "", hub.Options{}); err != nil {
		t.Fatal(err)
	}
	path := snapshot.Path(dir, "acme/toy")
	before, _ := os.ReadFile(path)

	next := smallRepo("acme/toy", 3)
	next.SHA = hubtest.SHAFor("acme/toy second commit")
	if err := srv.SetRepo(next); err != nil {
		t.Fatal(err)
	}
	res, err := hub.Sync(context.Background(), c, dir, "acme/toy", "", hub.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Written || !res.DryRun || res.Previous != hubtest.SHAFor("acme/toy") || res.Revision != next.SHA {
		t.Fatalf("dry run %+v", res)
	}
	joined := strings.Join(res.Changes, "\n")
	for _, want := range []string{"revision ", "shards 2 (", "files added (3): model-00001-of-00003.safetensors", "files removed (2): model-00001-of-00002.safetensors", "index total_size"} {
		if !strings.Contains(joined, want) {
			t.Errorf("changes lack %q:\n%s", want, joined)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("dry run wrote the snapshot")
	}
	if !strings.Contains(res.Summary(), "dry run") {
		t.Errorf("summary %q", res.Summary())
	}
	res, err = hub.Sync(context.Background(), c, dir, "acme/toy", "", hub.Options{})
	if err != nil || !res.Written {
		t.Fatalf("%+v %v", res, err)
	}
	s, err := snapshot.Load(path)
	if err != nil || s.Revision != next.SHA || s.Shards.Count != 3 {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestInterruptedSyncKeepsOldSnapshot(t *testing.T) {
	srv := hubtest.New(t, smallRepo("acme/toy", 3))
	c, sl := newClient(t, srv.URL(), "")
	dir := t.TempDir()
	if _, err := hub.Sync(context.Background(), c, dir, "acme/toy", "", hub.Options{}); err != nil {
		t.Fatal(err)
	}
	path := snapshot.Path(dir, "acme/toy")
	before, _ := os.ReadFile(path)
	next := smallRepo("acme/toy", 3)
	next.SHA = hubtest.SHAFor("acme/toy second commit")
	if err := srv.SetRepo(next); err != nil {
		t.Fatal(err)
	}

	t.Run("server keeps failing", func(t *testing.T) {
		srv.AddFault(hubtest.Fault{Host: "cdn", Path: "model-00002-of-00003", Status: 500})
		defer srv.ClearFaults()
		_, err := hub.Sync(context.Background(), c, dir, "acme/toy", "", hub.Options{})
		if !errors.Is(err, hub.ErrServer) || !strings.Contains(err.Error(), "gave up after 5 tries") {
			t.Fatalf("error %v", err)
		}
		if got := sl.got(); len(got) < 4 {
			t.Fatalf("sleeps %v", got)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		srv.SetLatency(20 * time.Millisecond)
		defer srv.SetLatency(0)
		_, err := hub.Sync(ctx, c, dir, "acme/toy", "", hub.Options{Progress: cancelAfter{n: 1, cancel: cancel}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("bad header", func(t *testing.T) {
		bad := smallRepo("acme/toy", 3)
		bad.SHA = next.SHA
		bad.Files[1] = hubtest.File{Path: bad.Files[1].Path, Raw: rawHeader(`{"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,3]}}`), Size: 200}
		if err := srv.SetRepo(bad); err != nil {
			t.Fatal(err)
		}
		_, err := hub.Sync(context.Background(), c, dir, "acme/toy", "", hub.Options{})
		if err == nil || !strings.Contains(err.Error(), bad.Files[1].Path) || !strings.Contains(err.Error(), `tensor "w": data_offsets [0, 3] span 3 bytes; expected 4`) {
			t.Fatalf("error %v", err)
		}
	})

	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("a failed sync changed the snapshot")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
}

// cancelAfter cancels the sync once n files are done.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
}

func (p cancelAfter) Start(string, int) {}
func (p cancelAfter) Add(files int, _ int64) {
	if files > 0 {
		p.cancel()
	}
}
func (p cancelAfter) Finish() {}

func TestSyncBadConfig(t *testing.T) {
	repo := smallRepo("acme/toy", 1)
	for i := range repo.Files {
		if repo.Files[i].Path == "config.json" {
			repo.Files[i].Content = []byte(`{"num_hidden_layers": NaX}`)
		}
	}
	srv := hubtest.New(t, repo)
	c, _ := newClient(t, srv.URL(), "")
	dir := t.TempDir()
	_, err := hub.Sync(context.Background(), c, dir, "acme/toy", "", hub.Options{})
	if err == nil || !strings.Contains(err.Error(), "config.json: expected a JSON object") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(snapshot.Path(dir, "acme/toy")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("snapshot written for a bad config")
	}
}

func TestSyncWarnsOnIntegrityProblems(t *testing.T) {
	repo := smallRepo("acme/toy", 2)
	repo.Files[0].ListedSize = 1 << 20 // the listing disagrees with the file
	srv := hubtest.New(t, repo)
	c, _ := newClient(t, srv.URL(), "")
	res, err := hub.Sync(context.Background(), c, t.TempDir(), "acme/toy", "", hub.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(res.Warnings, "\n")
	if !strings.Contains(joined, "model-00001-of-00002.safetensors: the header describes") || !strings.Contains(joined, "the listing says 1048576 bytes") {
		t.Fatalf("warnings %q", res.Warnings)
	}
}

func TestSyncHubCensusEqualToHeaders(t *testing.T) {
	repo := smallRepo("acme/plain", 1)
	repo.Census = hubtest.StoredCensus(repo.Files)
	srv := hubtest.New(t, repo)
	c, _ := newClient(t, srv.URL(), "")
	res, err := hub.Sync(context.Background(), c, t.TempDir(), "acme/plain", "", hub.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.CensusDisagrees() {
		t.Fatalf("rows %+v", res.Census)
	}
}

func TestSyncConcurrencyBound(t *testing.T) {
	srv := hubtest.New(t, smallRepo("acme/toy", 12))
	srv.SetLatency(10 * time.Millisecond)
	c, _ := newClient(t, srv.URL(), "")
	if _, err := hub.Sync(context.Background(), c, t.TempDir(), "acme/toy", "", hub.Options{Concurrency: 3, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	// Only shard headers go to the CDN here (config and index are small
	// files the Hub serves itself).
	if got := srv.MaxInFlight("cdn"); got > 3 || got < 2 {
		t.Fatalf("max CDN requests in flight %d, want 2..3", got)
	}
}

func TestSyncRejectsBadModelID(t *testing.T) {
	c, _ := newClient(t, "http://127.0.0.1:1", "")
	for _, id := range []string{"noslash", "../etc/passwd", "a/b/c", "a/.."} {
		if _, err := hub.Sync(context.Background(), c, t.TempDir(), id, "", hub.Options{}); err == nil {
			t.Errorf("%q accepted", id)
		}
	}
}

func TestParseRefAndSynced(t *testing.T) {
	m, r, err := hub.ParseRef("moonshotai/Kimi-K3@9f62e4e")
	if err != nil || m != "moonshotai/Kimi-K3" || r != "9f62e4e" {
		t.Fatalf("%q %q %v", m, r, err)
	}
	if m, r, err = hub.ParseRef("org/name"); err != nil || r != "" || m != "org/name" {
		t.Fatalf("%q %q %v", m, r, err)
	}
	if _, _, err := hub.ParseRef("bad@x"); err == nil {
		t.Fatal("bad ref accepted")
	}
	srv := hubtest.New(t, smallRepo("acme/a", 1), smallRepo("acme/b", 1))
	c, _ := newClient(t, srv.URL(), "")
	dir := t.TempDir()
	for _, id := range []string{"acme/b", "acme/a"} {
		if _, err := hub.Sync(context.Background(), c, dir, id, "", hub.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := hub.Synced(dir)
	if err != nil || strings.Join(got, ",") != "acme/a,acme/b" {
		t.Fatalf("%v %v", got, err)
	}
}

func TestSyncWithoutSiblingsAndWithQuantConfig(t *testing.T) {
	repo := smallRepo("acme/toy", 2)
	repo.HideSiblings = true
	repo.Files = append(repo.Files, hubtest.File{Path: "hf_quant_config.json", Content: []byte(`{"quantization": {"quant_algo": "NVFP4"}}`)})
	srv := hubtest.New(t, repo)
	c, _ := newClient(t, srv.URL(), "")
	res, err := hub.Sync(context.Background(), c, t.TempDir(), "acme/toy", "", hub.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.Shards.Count != 2 || !strings.Contains(string(res.Snapshot.HFQuantConfig), "NVFP4") {
		t.Fatalf("snapshot %+v", res.Snapshot)
	}
}

func TestSyncRejectsAnswerFromAnotherCommit(t *testing.T) {
	srv := hubtest.New(t, smallRepo("acme/toy", 2))
	srv.AddFault(hubtest.Fault{Path: "model-00002", Host: "hub", Header: map[string][]string{"X-Repo-Commit": {hubtest.SHAFor("stale")}}})
	c, _ := newClient(t, srv.URL(), "")
	_, err := hub.Sync(context.Background(), c, t.TempDir(), "acme/toy", "", hub.Options{DryRun: true})
	if err == nil || !strings.Contains(err.Error(), "model-00002-of-00002.safetensors came from commit "+hubtest.SHAFor("stale")) {
		t.Fatalf("error %v", err)
	}
}

// TestSyncPythonNumbers: a config.json with Python's Infinity (Nemotron-H's
// time_step_limit) is what the Hub serves and transformers loads: sync
// stores it as standard JSON, and arch reads the number back.
func TestSyncPythonNumbers(t *testing.T) {
	repo := smallRepo("acme/toy", 1)
	for i := range repo.Files {
		if repo.Files[i].Path == "config.json" {
			var cfg map[string]json.RawMessage
			if err := json.Unmarshal(repo.Files[i].Content, &cfg); err != nil {
				t.Fatal(err)
			}
			body := strings.TrimSuffix(strings.TrimSpace(string(repo.Files[i].Content)), "}")
			repo.Files[i].Content = []byte(body + `, "time_step_limit": [0.0, Infinity]}`)
		}
	}
	srv := hubtest.New(t, repo)
	c, _ := newClient(t, srv.URL(), "")
	dir := t.TempDir()
	if _, err := hub.Sync(context.Background(), c, dir, "acme/toy", "", hub.Options{}); err != nil {
		t.Fatalf("a config with Infinity: %v", err)
	}
	snap, err := snapshot.Load(snapshot.Path(dir, "acme/toy"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := hfconfig.Decode(snap.Config, "config.json")
	if err != nil {
		t.Fatal(err)
	}
	var limit []json.RawMessage
	if err := json.Unmarshal(o["time_step_limit"], &limit); err != nil || len(limit) != 2 || hfconfig.NonFinite(limit[1]) != "Infinity" {
		t.Errorf("stored time_step_limit %s", o["time_step_limit"])
	}
}

// TestSyncKeepsShapesWhenAsked: the caller's KeepShapes sees config.json
// and decides; kept, every tensor of every shard is in the snapshot with
// its shape, and the snapshot reads back; not kept, none is.
func TestSyncKeepsShapesWhenAsked(t *testing.T) {
	repo := smallRepo("acme/toy-moe", 3)
	srv := hubtest.New(t, repo)
	c, _ := newClient(t, srv.URL(), "")
	var seen []string
	keep := func(want bool) func([]byte) bool {
		return func(config []byte) bool {
			seen = append(seen, string(config))
			return want
		}
	}
	res, err := hub.Sync(context.Background(), c, t.TempDir(), "acme/toy-moe", "", hub.Options{Now: fixedNow, Concurrency: 2, KeepShapes: keep(true)})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || !strings.Contains(seen[0], `"model_type":"toy"`) {
		t.Fatalf("KeepShapes saw %q", seen)
	}
	s := res.Snapshot
	if len(s.Tensors) != s.Header.Tensors || s.Header.Tensors != 1+6*(4*3+1) || s.TensorsSource == "" {
		t.Fatalf("%d shapes kept of %d tensors, source %q", len(s.Tensors), s.Header.Tensors, s.TensorsSource)
	}
	for name, want := range map[string]string{
		"model.embed_tokens.weight":                           "128x64",
		"model.layers.5.mlp.experts.3.down_proj.weight_scale": "64x4",
		"model.layers.0.mlp.gate.e_score_correction_bias":     "4",
	} {
		if s.Tensors[name] != want {
			t.Errorf("%s: shape %q, want %q", name, s.Tensors[name], want)
		}
	}
	back, err := snapshot.Load(res.Path)
	if err != nil || len(back.Tensors) != len(s.Tensors) {
		t.Fatalf("written snapshot: %v", err)
	}

	res, err = hub.Sync(context.Background(), c, t.TempDir(), "acme/toy-moe", "", hub.Options{Now: fixedNow, KeepShapes: keep(false)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.Tensors != nil || res.Snapshot.TensorsSource != "" {
		t.Errorf("shapes kept though KeepShapes said no: %d", len(res.Snapshot.Tensors))
	}
}

// TestResyncAddsMissingShapes: a snapshot synced without shapes is read
// again at the same commit when KeepShapes now wants them, and the change
// says so; with shapes kept, the next sync is unchanged.
func TestResyncAddsMissingShapes(t *testing.T) {
	repo := smallRepo("acme/toy-moe", 2)
	srv := hubtest.New(t, repo)
	c, _ := newClient(t, srv.URL(), "")
	dir := t.TempDir()
	if _, err := hub.Sync(context.Background(), c, dir, "acme/toy-moe", "", hub.Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	keep := hub.Options{Now: fixedNow, KeepShapes: func([]byte) bool { return true }}
	res, err := hub.Sync(context.Background(), c, dir, "acme/toy-moe", "", keep)
	if err != nil {
		t.Fatal(err)
	}
	if res.Unchanged || !res.Written || len(res.Snapshot.Tensors) != res.Snapshot.Header.Tensors {
		t.Fatalf("unchanged %v, written %v, %d shapes", res.Unchanged, res.Written, len(res.Snapshot.Tensors))
	}
	if want := fmt.Sprintf("tensor shapes kept: %d (the family is not in the registry)", res.Snapshot.Header.Tensors); !slices.Contains(res.Changes, want) {
		t.Errorf("changes %q lack %q", res.Changes, want)
	}
	if res, err = hub.Sync(context.Background(), c, dir, "acme/toy-moe", "", keep); err != nil || !res.Unchanged {
		t.Fatalf("third sync: unchanged %v, %v", res != nil && res.Unchanged, err)
	}
}
