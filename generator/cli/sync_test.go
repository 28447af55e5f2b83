package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"dossier/generator/facts"
	"dossier/generator/hub/hubtest"
	"dossier/generator/snapshot"
)

const (
	k3Model = hubtest.K3ID
	k3Ref   = k3Model + "@" + hubtest.K3Revision
	// k3Snap is the K3 snapshot relative to a site root.
	k3Snap = "data/hub/moonshotai/Kimi-K3/snapshot.json"
	// k3Config is the real config.json of moonshotai/Kimi-K3.
	k3Config = "../../testdata/configs/moonshotai__Kimi-K3.json"
	// syncToken is recognisable wherever it might leak.
	syncToken = "hf_SyncTestTOKEN_mustNeverLeak_7f3a9c"
)

// syncOnlyFacts are the K3 facts a build from a synced snapshot may give
// differently from the shipped, hand-assembled one, each with the reason.
// Everything else must be equal, value for value.
var syncOnlyFacts = map[string]string{
	// None so far: the shipped snapshot records the Hub census, the
	// listing's shard count and byte sum and the index, which a sync
	// reproduces exactly, and the engine reads only the fields of
	// config.json the shipped copy kept. Header figures (header bytes,
	// stored elements per dtype) are in the synced snapshot only, but no
	// fact reads them while the index is present: bytes.headers is
	// shard bytes − index total_size in both. A fact that starts reading
	// snapshot.headers belongs here, with its reason.
}

// syncK3Hub serves the real Kimi-K3 (hubtest.K3) and points HF_ENDPOINT and
// HF_TOKEN at it. The repository is gated to syncToken, so a sync that
// succeeds has sent the token.
func syncK3Hub(t *testing.T) *hubtest.Server {
	t.Helper()
	cfg, err := os.ReadFile(k3Config)
	if err != nil {
		t.Fatal(err)
	}
	repo := hubtest.K3(t, cfg)
	repo.Gated, repo.Approved = true, []string{syncToken}
	srv := hubtest.New(t, repo)
	srv.SetValidTokens(syncToken)
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", syncToken)
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	return srv
}

// syncTree maps every file under dir to its contents.
func syncTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		m[strings.TrimPrefix(path, dir)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func syncSameTree(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for p, b := range after {
		if a, ok := before[p]; !ok {
			t.Errorf("%s: %s appeared", what, p)
		} else if a != b {
			t.Errorf("%s: %s changed", what, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s: %s disappeared", what, p)
		}
	}
}

// syncNoToken fails if the token appears in any of the texts.
func syncNoToken(t *testing.T, what string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, syncToken) {
			t.Errorf("%s: the token appears in the output:\n%s", what, s)
		}
	}
}

// syncFactValues reads the fact values of one model's facts.json.
func syncFactValues(t *testing.T, path string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Facts facts.Set `json:"facts"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := make(map[string]json.RawMessage, doc.Facts.Len())
	for k, f := range doc.Facts.Map() {
		v, err := json.Marshal(f.Value)
		if err != nil {
			t.Fatalf("%s: fact %s: %v", path, k, err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			t.Fatalf("%s: fact %s: %v", path, k, err)
		}
		out[k] = c.Bytes()
	}
	return out
}

// TestSyncK3 syncs Kimi-K3 from a fake Hub serving the real checkpoint's
// tensors (hubtest.K3) into a copy of the shipped site whose K3 snapshot
// was deleted, and checks that the site built from it gives every fact
// the shipped snapshot gives; then the dry run, the unchanged re-sync,
// the token, and a failure half-way.
func TestSyncK3(t *testing.T) {
	srv := syncK3Hub(t)
	root := newSite(t)
	snap := filepath.Join(root, k3Snap)
	if err := os.Remove(snap); err != nil {
		t.Fatal(err)
	}
	shipped, err := snapshot.Load(filepath.Join(fixtureSite, k3Snap))
	if err != nil {
		t.Fatal(err)
	}
	var outputs []string
	doSync := func(args ...string) (int, string, string) {
		code, out, errs := run(append([]string{"--source", root, "sync"}, args...)...)
		outputs = append(outputs, out, errs)
		return code, out, errs
	}

	t.Run("dry run writes nothing", func(t *testing.T) {
		before := syncTree(t, root)
		code, out, errs := doSync("--dry-run", k3Ref)
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errs)
		}
		if !strings.Contains(out, "would create a snapshot at 9f62e4e (dry run, nothing written)") {
			t.Errorf("output %q", out)
		}
		syncSameTree(t, "dry run", before, syncTree(t, root))
	})

	t.Run("sync", func(t *testing.T) {
		srv.ResetCounts()
		code, out, errs := doSync(k3Ref)
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errs)
		}
		if !strings.Contains(out, "moonshotai/Kimi-K3: created ") || strings.Contains(out, "warning") {
			t.Errorf("output %q", out)
		}
		// Each shard: one resolve, redirected to the CDN, and at most two
		// Range reads there (a first read sized from the index, then the
		// rest of the header should the guess fall short).
		for i := 1; i <= hubtest.K3Shards; i++ {
			f := fmt.Sprintf("model-%05d-of-%06d.safetensors", i, hubtest.K3Shards)
			resolve, cdn := srv.FileRequests(k3Model, f)
			rResolve, rCDN := srv.FileRanges(k3Model, f)
			if resolve != 1 || cdn < 1 || cdn > 2 || rCDN != cdn || rResolve != resolve {
				t.Errorf("%s: %d resolve and %d CDN requests, of which %d and %d with Range; want 1 and at most 2, all ranged", f, resolve, cdn, rResolve, rCDN)
			}
		}
		// No weights: the headers, a first read sized from the index that
		// runs at most a quarter past each header, the index and config.json.
		if n, most := srv.FileBytesServed(), int64(hubtest.K3HeaderBytes*5/4+hubtest.K3IndexBytes+1<<20); n > most {
			t.Errorf("%d file bytes served; a header sync needs at most %d", n, most)
		}
		if n := srv.CDNAuthorizations(); n != 0 {
			t.Errorf("the token went to the CDN %d times", n)
		}
	})

	t.Run("snapshot matches the shipped one", func(t *testing.T) {
		b, err := os.ReadFile(snap)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(syncToken)) {
			t.Error("the token is in the snapshot")
		}
		s, err := snapshot.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if s.Revision != hubtest.K3Revision || s.Source != "dossier sync" || s.Endpoint != srv.URL() {
			t.Errorf("revision %s, source %q, endpoint %q", s.Revision, s.Source, s.Endpoint)
		}
		if fmt.Sprint(s.Census) != fmt.Sprint(shipped.Census) {
			t.Errorf("census %v, shipped %v", s.Census, shipped.Census)
		}
		if s.Shards.Count != shipped.Shards.Count || s.Shards.Bytes != shipped.Shards.Bytes || s.Shards.Numbered != shipped.Shards.Numbered {
			t.Errorf("shards %+v, shipped %+v", s.Shards, shipped.Shards)
		}
		if s.Index == nil || s.Index.TotalSize != shipped.Index.TotalSize || s.Index.Tensors != shipped.Index.Tensors || s.Index.FileBytes != shipped.Index.FileBytes {
			t.Errorf("index %+v, shipped %+v", s.Index, shipped.Index)
		}
		if h := s.Header; h == nil || h.Bytes != hubtest.K3HeaderBytes || h.Bytes != shipped.Shards.Bytes-shipped.Index.TotalSize || h.Tensors != hubtest.K3Tensors {
			t.Errorf("headers %+v", h)
		}
		var paths, shippedPaths []string
		for _, f := range s.Files {
			paths = append(paths, f.Path)
		}
		for _, f := range shipped.Files {
			shippedPaths = append(shippedPaths, f.Path)
		}
		sort.Strings(shippedPaths)
		if strings.Join(paths, " ") != strings.Join(shippedPaths, " ") {
			t.Errorf("files %v, shipped %v", paths, shippedPaths)
		}
		// The shipped config is the real one reduced: every field it kept
		// has the synced value.
		var got, kept map[string]any
		if err := json.Unmarshal(s.Config, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(shipped.Config, &kept); err != nil {
			t.Fatal(err)
		}
		syncSubset(t, "config", kept, got)
	})

	t.Run("again with the same sha changes nothing", func(t *testing.T) {
		before := syncTree(t, root)
		st1, err := os.Stat(snap)
		if err != nil {
			t.Fatal(err)
		}
		srv.ResetCounts()
		code, out, errs := doSync(k3Ref)
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errs)
		}
		if !strings.Contains(out, "moonshotai/Kimi-K3: already at 9f62e4e") || !strings.Contains(out, "nothing to do") {
			t.Errorf("output %q", out)
		}
		syncSameTree(t, "second sync", before, syncTree(t, root))
		if st2, err := os.Stat(snap); err != nil || !st2.ModTime().Equal(st1.ModTime()) {
			t.Error("the snapshot was rewritten")
		}
		if n := srv.HostRequests("hub") + srv.HostRequests("cdn"); n != 1 {
			t.Errorf("%d requests; want model info only", n)
		}
	})

	t.Run("build gives the shipped facts", func(t *testing.T) {
		synced, ref := t.TempDir(), t.TempDir()
		if code, out, errs := run("--source", root, "build", "--destination", synced); code != 0 {
			t.Fatalf("build of the synced site: exit %d\n%s%s", code, out, errs)
		}
		if code, out, errs := run("--source", newSite(t), "build", "--destination", ref); code != 0 {
			t.Fatalf("build of the shipped site: exit %d\n%s%s", code, out, errs)
		}
		got := syncFactValues(t, filepath.Join(synced, "models", "kimi-k3", "facts.json"))
		want := syncFactValues(t, filepath.Join(ref, "models", "kimi-k3", "facts.json"))
		if len(want) < 100 {
			t.Fatalf("the shipped build has only %d K3 facts", len(want))
		}
		keys := map[string]bool{}
		for k := range got {
			keys[k] = true
		}
		for k := range want {
			keys[k] = true
		}
		differ := map[string]bool{}
		for k := range keys {
			g, gok := got[k]
			w, wok := want[k]
			if gok && wok && bytes.Equal(g, w) {
				continue
			}
			differ[k] = true
			if _, ok := syncOnlyFacts[k]; ok {
				continue
			}
			switch {
			case !gok:
				t.Errorf("%s: only in the shipped build (%s)", k, w)
			case !wok:
				t.Errorf("%s: only in the synced build (%s)", k, g)
			default:
				t.Errorf("%s: synced %s, shipped %s", k, g, w)
			}
		}
		for k := range syncOnlyFacts {
			if !differ[k] {
				t.Errorf("%s is listed as sync-only but both builds give %s", k, got[k])
			}
		}
		// The headline figures, by value.
		for k, v := range map[string]string{
			"bytes.checkpoint": "1560936091448", "bytes.tensors": "1560860324864", "bytes.headers": "75766584",
			"params.census.U8": "2722740830208", "params.census.BF16": "57179884544", "params.census.F32": "11122432",
			"tensors.count": "497220",
		} {
			if string(got[k]) != v {
				t.Errorf("%s = %s, want %s", k, got[k], v)
			}
		}
		syncNoToken(t, "built site", func() []string {
			var all []string
			for _, s := range syncTree(t, synced) {
				all = append(all, s)
			}
			return all
		}()...)
	})

	t.Run("a failure half-way keeps the previous snapshot", func(t *testing.T) {
		// The snapshot on disk is at an older commit, so the sync fetches;
		// one shard fails with an answer that is not worth a retry.
		older := strings.Replace(string(syncRead(t, filepath.Join(fixtureSite, k3Snap))), hubtest.K3Revision, hubtest.SHAFor("an older commit"), 1)
		if err := os.WriteFile(snap, []byte(older), 0o644); err != nil {
			t.Fatal(err)
		}
		before := syncTree(t, root)
		srv.ResetCounts()
		srv.AddFault(hubtest.Fault{Host: "cdn", Path: "model-00048-of-000096.safetensors", Status: http.StatusForbidden, Message: "AccessDenied"})
		defer srv.ClearFaults()
		// One header read at a time, in shard order: shards 1–47 are read
		// before 48 fails. With reads in parallel, the failure could cancel
		// shard 1 while its request was still on the way (once in eight runs).
		code, out, errs := doSync("--concurrency", "1", k3Ref)
		if code == 0 {
			t.Fatalf("exit 0 despite the fault\n%s%s", out, errs)
		}
		if !strings.Contains(errs, "model-00048-of-000096.safetensors") || !strings.Contains(errs, "403") {
			t.Errorf("stderr %q", errs)
		}
		syncSameTree(t, "failed sync", before, syncTree(t, root))
		if _, cdn := srv.FileRequests(k3Model, "model-00048-of-000096.safetensors"); cdn == 0 {
			t.Error("the faulty shard was never asked for")
		}
		// Half-way: the first shards' headers had been read.
		if _, cdn := srv.FileRequests(k3Model, "model-00001-of-000096.safetensors"); cdn == 0 {
			t.Error("the sync failed before reading any header")
		}
	})

	syncNoToken(t, "sync", outputs...)
	for path, content := range syncTree(t, filepath.Join(root, "data")) {
		if strings.Contains(content, syncToken) {
			t.Errorf("the token is in %s", path)
		}
	}
}

func syncRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// syncSubset fails unless every field of small has the same value in big.
func syncSubset(t *testing.T, path string, small, big map[string]any) {
	t.Helper()
	for k, v := range small {
		w, ok := big[k]
		switch sv := v.(type) {
		case map[string]any:
			bv, isMap := w.(map[string]any)
			if !ok || !isMap {
				t.Errorf("%s.%s: shipped an object, synced %v", path, k, w)
				continue
			}
			syncSubset(t, path+"."+k, sv, bv)
		default:
			if !ok || fmt.Sprint(v) != fmt.Sprint(w) {
				t.Errorf("%s.%s: shipped %v, synced %v", path, k, v, w)
			}
		}
	}
}
