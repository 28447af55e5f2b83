package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"dossier/generator/internal/hfconfig"
	"dossier/generator/internal/safefile"
	"dossier/generator/safetensors"
	"dossier/generator/snapshot"
)

// Size caps on what a sync reads whole. Kimi-K3's index is 60 MB.
const (
	maxConfigBytes = 10 << 20
	maxIndexBytes  = 512 << 20
)

const (
	configFile = "config.json"
	quantFile  = "hf_quant_config.json"
	indexFile  = "model.safetensors.index.json"
)

// fetch gathers one repository at one commit.
type fetch struct {
	c        *Client
	model    string
	sha      string
	progress Progress
	conc     int

	mu       sync.Mutex
	census   *safetensors.Census
	warnings []string
	infos    []shardInfo // by shard, filled by the header workers

	// guesses is each shard's header size from the index, set before
	// indexRead is closed (nil without an index, or on a bad one).
	guesses   map[string]int64
	indexRead chan struct{}

	// keepShapes decides from config.json whether shapes are kept; the
	// header workers wait for configRead when it is set, then read
	// keepTensors, which the config reader set before closing it.
	keepShapes  func(config []byte) bool
	configRead  chan struct{}
	keepTensors bool
	shapes      map[string]string // name → snapshot.FormatShape, under mu
}

func (f *fetch) warn(format string, a ...any) {
	f.mu.Lock()
	f.warnings = append(f.warnings, fmt.Sprintf(format, a...))
	f.mu.Unlock()
}

func (f *fetch) onBytes(n int64) { f.progress.Add(0, n) }

// checkCommit catches a resolve answer from another commit than the one
// pinned: a mirror serving stale files, or a bug in the pinning.
func (f *fetch) checkCommit(path string, meta FileMeta) error {
	if meta.Commit != "" && meta.Commit != f.sha {
		return fmt.Errorf("%s came from commit %s, expected %s", path, meta.Commit, f.sha)
	}
	return nil
}

// plan is what a sync will read, decided from a list of file names.
type plan struct {
	shards        []string // top-level *.safetensors, sorted
	quant, index  bool
	config        bool
	fromModelInfo bool
}

func planFor(paths []string) plan {
	var p plan
	for _, path := range paths {
		switch {
		case path == configFile:
			p.config = true
		case path == quantFile:
			p.quant = true
		case path == indexFile:
			p.index = true
		case snapshot.IsWeightShard(path):
			p.shards = append(p.shards, path)
		}
	}
	sort.Strings(p.shards)
	return p
}

func (p plan) same(q plan) bool {
	return p.config == q.config && p.quant == q.quant && p.index == q.index && slices.Equal(p.shards, q.shards)
}

func (f *fetch) run(ctx context.Context, info *ModelInfo, now time.Time) (*snapshot.Snapshot, error) {
	snap := &snapshot.Snapshot{
		Schema:       snapshot.Schema,
		Model:        f.model,
		Revision:     f.sha,
		Fetched:      now.UTC().Format(time.RFC3339),
		Endpoint:     f.c.base,
		Source:       "dossier sync",
		ConfigSource: "hub:" + configFile,
	}
	if info.Safetensors != nil && len(info.Safetensors.Parameters) > 0 {
		snap.Census = info.Safetensors.Parameters
		snap.CensusSource = "hub:model_info safetensors.parameters"
	}
	// Model info's siblings name the files at this commit, so the reads
	// can start while the tree listing, which adds the sizes, is paged
	// through. Without siblings the tree comes first.
	var tree []TreeEntry
	var p plan
	if len(info.Siblings) > 0 {
		names := make([]string, len(info.Siblings))
		for i, s := range info.Siblings {
			names[i] = s.RFilename
		}
		p = planFor(names)
		p.fromModelInfo = true
	} else {
		var err error
		if tree, err = f.c.listTree(ctx, f.model, f.sha, f.onBytes); err != nil {
			return nil, err
		}
		p = planFor(filePaths(tree))
	}
	if !p.config {
		return nil, fmt.Errorf("%s is not in the repository at %s; the engine needs it", configFile, f.sha)
	}
	f.progress.Start(f.model, 1+b2i(p.quant)+b2i(p.index)+len(p.shards))
	defer f.progress.Finish()

	g := newGroup(ctx)
	if p.fromModelInfo {
		g.Go(func(ctx context.Context) error {
			var err error
			tree, err = f.c.listTree(ctx, f.model, f.sha, f.onBytes)
			return err
		})
	}
	f.configRead = make(chan struct{})
	g.Go(func(ctx context.Context) error {
		defer close(f.configRead)
		b, err := f.json(ctx, configFile)
		snap.Config = b
		if err == nil && f.keepShapes != nil {
			f.keepTensors = f.keepShapes(b)
		}
		return err
	})
	if p.quant {
		g.Go(func(ctx context.Context) error {
			b, err := f.json(ctx, quantFile)
			snap.HFQuantConfig = b
			return err
		})
	}
	f.indexRead = make(chan struct{})
	if p.index {
		g.Go(func(ctx context.Context) error {
			defer close(f.indexRead)
			idx, err := f.index(ctx)
			snap.Index = idx
			return err
		})
	} else {
		close(f.indexRead)
	}
	if len(p.shards) > 0 {
		f.census = &safetensors.Census{}
		f.headers(g, p.shards)
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// Cancelled after the last read had begun: every answer may be in,
	// but a sync the caller gave up on writes nothing.
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}

	if listed := planFor(filePaths(tree)); !listed.same(p) {
		return nil, fmt.Errorf("model info and the tree listing at %s disagree on the files (shards %d vs %d)", f.sha, len(p.shards), len(listed.shards))
	}
	sizes := map[string]int64{}
	for _, e := range tree {
		if e.Type == "file" {
			size := e.Size
			snap.Files = append(snap.Files, snapshot.File{Path: e.Path, Size: &size})
			sizes[e.Path] = e.Size
		}
	}
	sort.Slice(snap.Files, func(i, j int) bool { return snap.Files[i].Path < snap.Files[j].Path })
	shards := make([]TreeEntry, len(p.shards))
	for i, path := range p.shards {
		shards[i] = TreeEntry{Type: "file", Path: path, Size: sizes[path]}
	}
	snap.Shards = shardSummary(shards)
	if w := numberingWarning(shards); w != "" {
		f.warn("%s", w)
	}
	if snap.Index != nil && sizes[indexFile] != snap.Index.FileBytes {
		f.warn("%s is %d bytes in the listing but %d were served", indexFile, sizes[indexFile], snap.Index.FileBytes)
	}
	if f.census != nil {
		snap.Header = &snapshot.Header{
			Bytes:   f.census.HeaderBytes,
			Tensors: f.census.Tensors,
			Elems:   f.census.Elems,
			TBytes:  f.census.Bytes,
			Source:  "hub:safetensors headers (Range reads)",
		}
		f.crossCheck(snap, shards)
	}
	f.attachShapes(snap, safefile.Snapshot.Bytes)
	return snap, nil
}

func filePaths(tree []TreeEntry) []string {
	var paths []string
	for _, e := range tree {
		if e.Type == "file" {
			paths = append(paths, e.Path)
		}
	}
	return paths
}

// json reads a small JSON file that must hold an object.
func (f *fetch) json(ctx context.Context, path string) (json.RawMessage, error) {
	b, meta, err := f.c.readFile(ctx, f.model, f.sha, path, maxConfigBytes, f.onBytes)
	if err != nil {
		return nil, err
	}
	if err := f.checkCommit(path, meta); err != nil {
		return nil, err
	}
	// Python's Infinity and NaN (Nemotron-H's time_step_limit) become
	// JSON a snapshot can hold; arch and modeltree read them back.
	b = hfconfig.Standard(b)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		if err == nil {
			err = fmt.Errorf("found null")
		}
		return nil, fmt.Errorf("%s: expected a JSON object: %w", path, err)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.progress.Add(1, 0)
	return out.Bytes(), nil
}

func (f *fetch) index(ctx context.Context) (*snapshot.Index, error) {
	b, meta, err := f.c.readFile(ctx, f.model, f.sha, indexFile, maxIndexBytes, f.onBytes)
	if err != nil {
		return nil, err
	}
	if err := f.checkCommit(indexFile, meta); err != nil {
		return nil, err
	}
	total, tensors, err := parseIndex(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", indexFile, err)
	}
	f.guesses, _ = headerGuesses(b) // parsed above: cannot fail
	f.progress.Add(1, 0)
	return &snapshot.Index{TotalSize: total, Tensors: tensors, FileBytes: int64(len(b)), Source: "hub:" + indexFile}, nil
}

// shardInfo is what a header says about its file, kept after the header
// itself is dropped (K3's headers hold half a million tensors).
type shardInfo struct {
	fileLen int64 // 8 + N + data the header describes
	size    int64 // file size the server gave, -1 if it did not
}

// shapesMargin is room left in a snapshot for all but its shapes (the
// file listing, the config).
const shapesMargin = 4 << 20

// shapesBytes is about what the shapes add to an encoded snapshot: one
// indented `"name": "shape",` line each.
func shapesBytes(shapes map[string]string) int64 {
	var n int64
	for name, shape := range shapes {
		n += int64(len(name) + len(shape) + 12)
	}
	return n
}

// attachShapes puts the kept shapes into snap unless they would make it
// larger than limit, the size snapshot.Load accepts: a snapshot written
// past it could not be read back.
func (f *fetch) attachShapes(snap *snapshot.Snapshot, limit int64) {
	if len(f.shapes) == 0 {
		return
	}
	if n := shapesBytes(f.shapes); n+shapesMargin > limit {
		f.warn("tensor shapes not kept: %d tensors would add about %d MiB to a snapshot that may hold %d MiB", len(f.shapes), n>>20, limit>>20)
		return
	}
	snap.Tensors, snap.TensorsSource = f.shapes, "hub:safetensors headers (Range reads)"
}

// keepShapesOf records every tensor shape of one header; f.mu is held.
func (f *fetch) keepShapesOf(h *safetensors.Header) {
	if f.shapes == nil {
		f.shapes = map[string]string{}
	}
	for _, t := range h.Tensors {
		f.shapes[t.Name] = snapshot.FormatShape(t.Shape)
	}
}

func (f *fetch) headers(g *group, shards []string) {
	jobs := make(chan int)
	f.infos = make([]shardInfo, len(shards))
	g.Go(func(ctx context.Context) error {
		defer close(jobs)
		for i := range shards {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return nil
			}
		}
		return nil
	})
	for w := 0; w < min(f.conc, len(shards)); w++ {
		g.Go(func(ctx context.Context) error {
			// The index says how long each header is, so one read takes
			// it whole: every K3 header is over firstRange. Waiting for it
			// costs its two requests once; guessing short, one per shard.
			select {
			case <-f.indexRead:
			case <-ctx.Done():
				return nil
			}
			if f.keepShapes != nil {
				select {
				case <-f.configRead:
				case <-ctx.Done():
					return nil
				}
			}
			for i := range jobs {
				path := shards[i]
				first := firstRange
				if n := f.guesses[path]; n > firstRange {
					first = int(n)
				}
				h, meta, err := f.c.safetensorsHeader(ctx, f.model, f.sha, path, first, f.onBytes)
				if err != nil {
					return err
				}
				if err := f.checkCommit(path, meta); err != nil {
					return err
				}
				f.mu.Lock()
				err = f.census.Add(h)
				if err == nil && f.keepTensors {
					f.keepShapesOf(h)
				}
				f.mu.Unlock()
				if err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
				f.infos[i] = shardInfo{fileLen: h.FileLen(), size: meta.Size}
				f.progress.Add(1, 0)
			}
			return nil
		})
	}
}
