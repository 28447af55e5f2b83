package site

import (
	"testing"

	"dossier/generator/config"
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
		s, err := Load(cfg, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Build(s, Options{Destination: dest}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIncrementalBuild rebuilds with every input unchanged: pages are
// reused from the previous output and only the lists are rendered again.
func BenchmarkIncrementalBuild(b *testing.B) {
	cfg, err := config.Load(copySite(b), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	dest := b.TempDir() + "/public"
	s, err := Load(cfg, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Build(s, Options{Destination: dest}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := Load(cfg, Options{Previous: dest})
		if err != nil {
			b.Fatal(err)
		}
		r, err := Build(s, Options{Destination: dest})
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Rebuilt) != 0 {
			b.Fatalf("recomputed %v", r.Rebuilt)
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
