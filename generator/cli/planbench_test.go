package cli

import (
	"testing"
	"time"

	"dossier/generator/hub/hubtest"
)

// BenchmarkPlanHub sizes the tiny llama from a fake Hub that answers
// every request after 50 ms: "fetch" with an empty user cache each time,
// "cached" a pinned commit already in the cache (no request at all),
// "main" resolving main (one request) to a cached commit.
func BenchmarkPlanHub(b *testing.B) {
	srv := hubtest.New(b, planRepo(b))
	srv.SetLatency(50 * time.Millisecond)
	b.Setenv("HF_ENDPOINT", srv.URL())
	b.Setenv("HF_TOKEN", "")
	b.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	pinned := planRepoID + "@" + planRepoSHA
	plan := func(b *testing.B, ref string) {
		if code, _, errs := run("plan", ref, "--json", "--hardware", "1xH100"); code != 0 {
			b.Fatalf("exit %d: %s", code, errs)
		}
	}
	b.Run("fetch", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			b.Setenv("DOSSIER_CACHE", b.TempDir())
			b.StartTimer()
			plan(b, pinned)
		}
	})
	b.Setenv("DOSSIER_CACHE", b.TempDir())
	plan(b, pinned)
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			plan(b, pinned)
		}
	})
	b.Run("main", func(b *testing.B) {
		for b.Loop() {
			plan(b, planRepoID)
		}
	})
}
