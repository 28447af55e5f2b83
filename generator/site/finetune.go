package site

import (
	"fmt"
	"path/filepath"

	"dossier/generator/arch"
	"dossier/generator/audit"
	"dossier/generator/content"
	"dossier/generator/facts"
	"dossier/generator/lora"
	"dossier/generator/modeltree"
	"dossier/generator/pysnippet"
	"dossier/generator/snapshot"
)

// addFinetune adds a page's fine-tuning preflight (front matter finetune)
// to its facts: the LoRA resolution and training memory (lora.*) and the
// audit of the snippet it names (audit.*), offline, against the site's
// API-change table, snapshots and software windows. A page without the
// block costs nothing. snap may be the head a reused model side keeps,
// without config.json: the snapshot is read again then.
func (s *Site) addFinetune(set *facts.Set, p *content.Page, snap *snapshot.Snapshot) error {
	ft := p.Front.Finetune
	if ft == nil {
		return nil
	}
	field := func(f string) string { return p.Path + ": field finetune." + f }
	if snap.Config == nil {
		full, err := snapshot.Load(snapshotPath(s.Config, p.Front.Model))
		if err != nil {
			return fmt.Errorf("%s: model %s: %w", p.Path, p.Front.Model, err)
		}
		snap = full
	}
	inv, err := modeltree.FromConfig(snap.Config, snap.HFQuantConfig)
	if err != nil {
		return fmt.Errorf("%s: the LoRA targets need the module tree: %w", field("targets"), err)
	}
	a, err := arch.ParseSnapshot(snap)
	if err != nil {
		return fmt.Errorf("%s: %w", field("targets"), err)
	}
	targets, err := lora.ParseTargets(ft.Targets)
	if err != nil {
		return fmt.Errorf("%s: %w", field("targets"), err)
	}
	setup := lora.Setup{Batch: orDefault(ft.Batch, 1), SeqLen: orDefault(ft.SeqLen, 2048), Optimizer: lora.AdamW}
	if ft.Optimizer != "" {
		if setup.Optimizer, err = lora.ParseOptimizer(ft.Optimizer); err != nil {
			return fmt.Errorf("%s: %w", field("optimizer"), err)
		}
	}
	res, err := lora.Resolve(inv, a, targets, orDefault(ft.Rank, 16))
	if err != nil {
		return fmt.Errorf("%s: %w", field("targets"), err)
	}
	mem, err := lora.Estimate(res, lora.Shape{Layers: a.Layers, Hidden: a.Hidden, Vocab: a.Vocab}, setup)
	if err != nil {
		// The setup's batch and seq_len, or the config's shape, not the targets.
		return fmt.Errorf("%s: field finetune: %w", p.Path, err)
	}
	lora.AddFacts(set, res, 0, mem, lora.Frozen{LoRA: set.Get("train.lora_frozen_bytes"), QLoRA: set.Get("train.qlora_frozen_bytes")})
	set.Add(facts.Fact{Key: "lora.memory.setup", Value: fmt.Sprintf("batch %d × %d tokens, %s", setup.Batch, setup.SeqLen, setup.Optimizer),
		Unit: facts.UnitText, Derivation: "front matter finetune (batch, seq_len, optimizer), defaults 1, 2048, adamw"})
	if ft.Snippet == "" {
		return nil
	}
	return s.auditSnippet(set, p, ft)
}

func orDefault(v, d int64) int64 {
	if v == 0 {
		return d
	}
	return v
}

// auditSnippet audits the page's snippet offline and records each finding
// as a fact audit.finding.NN (in line order) with the counts.
func (s *Site) auditSnippet(set *facts.Set, p *content.Page, ft *content.Finetune) error {
	rel := filepath.ToSlash(filepath.Join(s.Config.ContentDir, ft.Snippet))
	path := filepath.Join(s.Config.Dir(s.Config.ContentDir), ft.Snippet)
	src, err := pysnippet.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: field finetune.snippet: %w", p.Path, err)
	}
	sn, err := pysnippet.Parse(src)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	table, err := s.auditTable()
	if err != nil {
		return err
	}
	opts := audit.Options{Known: s.knownModels, KnownSource: "snapshots under " + filepath.ToSlash(filepath.Join(s.Config.DataDir, "hub")),
		Windows: s.Catalog.Software}
	fs := audit.Check(sn, table, opts)
	var errs, warns int64
	for i, f := range fs {
		if f.Severity == audit.Error {
			errs++
		} else {
			warns++
		}
		set.Add(facts.Fact{Key: fmt.Sprintf("audit.finding.%02d", i+1), Value: f.Message, Unit: facts.UnitText,
			Display:    fmt.Sprintf("line %d, %s: %s", f.Line, f.Severity, f.Message),
			Sources:    []string{f.Source},
			Derivation: fmt.Sprintf("dossier audit %s --offline: %s at line %d (%s)", rel, f.Severity, f.Line, f.Kind)})
	}
	how := fmt.Sprintf("dossier audit %s --offline (%s), against %s", rel, ft.SnippetSource, table.Label)
	set.Add(facts.Fact{Key: "audit.errors", Value: errs, Unit: facts.UnitCount, Sources: []string{"content:" + rel}, Derivation: "errors found by " + how})
	set.Add(facts.Fact{Key: "audit.warnings", Value: warns, Unit: facts.UnitCount, Sources: []string{"content:" + rel}, Derivation: "warnings found by " + how})
	return nil
}
