package site

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"dossier/generator/config"
	"dossier/generator/internal/sitetest"
)

// BenchmarkBuild is a full build of the fixture site: load, compute every
// model (K3's module tree is ~500k tensors), render and publish.
func BenchmarkBuild(b *testing.B) {
	cfg, err := config.Load(copySite(b), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	dest := b.TempDir() + "/public"
	for b.Loop() {
		s, err := Load(cfg, Options{Full: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Build(s, Options{Destination: dest}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIncrementalBuild rebuilds with every input unchanged: every
// entry comes from the cache and nothing is written.
func BenchmarkIncrementalBuild(b *testing.B) { benchmarkRebuild(b, "", "", nil, 0) }

// BenchmarkPriceBuild rebuilds after a price changed: every page is
// computed and rendered again, no module tree is built.
func BenchmarkPriceBuild(b *testing.B) {
	benchmarkRebuild(b, "data/pricing/runpod.yaml", "usd_per_gpu_hour: 5.98", func(i int) string { return fmt.Sprintf("usd_per_gpu_hour: 5.98%04d", i+1) }, -1)
}

// BenchmarkSnapshotBuild rebuilds after one snapshot changed: that page,
// and the lists it is on.
func BenchmarkSnapshotBuild(b *testing.B) {
	day := time.Date(2026, 8, 6, 0, 0, 0, 0, time.UTC)
	benchmarkRebuild(b, "data/hub/moonshotai/Kimi-K3/snapshot.json", `"fetched": "2026-08-06"`, func(i int) string {
		return `"fetched": "` + day.AddDate(0, 0, -1-i).Format(time.DateOnly) + `"`
	}, 1)
}

// benchmarkRebuild times builds with the cache, each after replacing in
// file the text old by next(i), text no earlier build had (nothing when
// file is ""), and checks that each recomputed want models (-1: every
// model).
func benchmarkRebuild(b *testing.B, file, old string, next func(i int) string, want int) {
	root := copySite(b)
	cfg, err := config.Load(root, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	dest := b.TempDir() + "/public"
	s, err := Load(cfg, Options{})
	if err != nil {
		b.Fatal(err)
	}
	first, err := Build(s, Options{Destination: dest})
	if err != nil {
		b.Fatal(err)
	}
	if want < 0 {
		want = len(first.Models)
	}
	for i := 0; b.Loop(); i++ {
		if file != "" {
			b.StopTimer()
			new := next(i)
			sitetest.Edit(b, filepath.Join(root, file), old, new)
			old = new
			b.StartTimer()
		}
		s, err := Load(cfg, Options{})
		if err != nil {
			b.Fatal(err)
		}
		r, err := Build(s, Options{Destination: dest})
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Rebuilt) != want || r.ModuleTrees != 0 {
			b.Fatalf("recomputed %v (want %d models), %d module trees", r.Rebuilt, want, r.ModuleTrees)
		}
	}
}

// BenchmarkComputeModel computes every fixture model (module trees from
// the in-build memo after the first pass): sizing, claims, page tables.
func BenchmarkComputeModel(b *testing.B) {
	s := loadSite(b, copySite(b), Options{})
	for b.Loop() {
		for _, e := range s.entries {
			if _, _, err := s.computeModel(e.page); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRenderModel renders every fixture model's files (index.md,
// index.html, facts.json, facts.html, charts) from its computed model.
func BenchmarkRenderModel(b *testing.B) {
	s := loadSite(b, copySite(b), Options{})
	var models []*Model
	for _, e := range s.entries {
		m, _, err := s.computeModel(e.page)
		if err != nil {
			b.Fatal(err)
		}
		models = append(models, m)
	}
	for b.Loop() {
		for _, m := range models {
			if _, err := s.renderModel(m); err != nil {
				b.Fatal(err)
			}
		}
	}
}
