package hub

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"time"

	"dossier/generator/safetensors"
	"dossier/generator/snapshot"
)

// Options tune a Sync. The zero value syncs for real, 16 headers at a
// time, silently.
type Options struct {
	DryRun      bool             // fetch and compare, write nothing
	Concurrency int              // header reads in flight; default 16
	Progress    Progress         // nil reports nothing
	Now         func() time.Time // stamps the snapshot; default time.Now
	// KeepShapes, given config.json, says whether the snapshot keeps every
	// tensor's shape (snapshot.Snapshot.Tensors); nil keeps none. The
	// caller decides: this package does not know which families arch sizes.
	KeepShapes func(config []byte) bool
}

// Result says what a Sync did, or in a dry run would do.
type Result struct {
	Model     string
	Requested string // the revision asked for
	Revision  string // the commit sha the Hub resolved it to
	Previous  string // revision of the snapshot on disk, "" if none
	Path      string // where the snapshot lives
	Created   string // the Hub's createdAt for the repository, "" if not sent
	DryRun    bool
	Unchanged bool // the snapshot on disk is already at Revision: nothing fetched, nothing written
	Written   bool
	Changes   []string // what differs from the snapshot on disk, one line each
	// Census puts the Hub's census beside the elements summed over the
	// headers, per dtype. They differ for packed 4-bit payloads by design
	// (the Hub counts logical parameters); the build decides what a
	// difference means, so both are kept.
	Census   []CensusRow
	Warnings []string            // integrity findings that did not stop the sync
	Snapshot *snapshot.Snapshot  // the new snapshot; nil when Unchanged
	Headers  *safetensors.Census // header census with the split by role
}

// CensusRow is one dtype of the census comparison.
type CensusRow struct {
	DType     string
	Hub       int64 // model info safetensors.parameters (quantization-aware)
	Stored    int64 // stored elements summed over the headers
	InHub     bool
	InHeaders bool
}

// Agree reports whether both sources give the dtype the same count.
func (r CensusRow) Agree() bool { return r.InHub && r.InHeaders && r.Hub == r.Stored }

// CensusDisagrees reports whether any dtype differs between the Hub's
// census and the headers.
func (r *Result) CensusDisagrees() bool {
	for _, row := range r.Census {
		if !row.Agree() {
			return true
		}
	}
	return false
}

// Summary is one line for the terminal.
func (r *Result) Summary() string {
	short := func(s string) string {
		if len(s) > 7 {
			return s[:7]
		}
		return s
	}
	switch {
	case r.Unchanged:
		return fmt.Sprintf("%s: already at %s (%s), nothing to do", r.Model, short(r.Revision), r.Requested)
	case r.DryRun && r.Previous == "":
		return fmt.Sprintf("%s: would create a snapshot at %s (dry run, nothing written)", r.Model, short(r.Revision))
	case r.DryRun:
		return fmt.Sprintf("%s: would update %s → %s, %d changes (dry run, nothing written)", r.Model, short(r.Previous), short(r.Revision), len(r.Changes))
	case r.Previous == "":
		return fmt.Sprintf("%s: created %s at %s", r.Model, r.Path, short(r.Revision))
	}
	return fmt.Sprintf("%s: updated %s → %s, %d changes, wrote %s", r.Model, short(r.Previous), short(r.Revision), len(r.Changes), r.Path)
}

var shaRe = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Sync brings data/hub/<model>/snapshot.json under dataDir to the commit
// revision resolves to ("" means main). If the snapshot on disk is
// already there it fetches nothing more and changes nothing. Otherwise it
// reads the tree, config.json, hf_quant_config.json and the index if
// present, and every top-level shard's header, then writes the snapshot
// atomically; on any error, or a cancelled ctx, the old file stays as it
// was.
func Sync(ctx context.Context, c *Client, dataDir, model, revision string, opts Options) (*Result, error) {
	if err := checkModel(model); err != nil {
		return nil, err
	}
	if revision == "" {
		revision = "main"
	}
	opts = opts.withDefaults()
	res := &Result{Model: model, Requested: revision, Path: snapshot.Path(dataDir, model), DryRun: opts.DryRun}
	prev, err := snapshot.Load(res.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		prev = nil
	case err != nil:
		return nil, fmt.Errorf("sync %s: the snapshot on disk cannot be used (fix or remove it): %w", model, err)
	default:
		res.Previous = prev.Revision
	}

	info, err := resolve(ctx, c, model, revision)
	if err != nil {
		return nil, fmt.Errorf("sync %s@%s: %w", model, revision, err)
	}
	res.resolved(info)
	if prev != nil && prev.Revision == info.SHA && !missingShapes(prev, opts) {
		res.Unchanged = true
		return res, nil
	}
	if err := res.fetchAt(ctx, c, info, opts); err != nil {
		return nil, fmt.Errorf("sync %s@%s: %w", model, revision, err)
	}
	res.Changes = changes(prev, res.Snapshot)
	if opts.DryRun {
		return res, nil
	}
	if _, err := snapshot.Write(dataDir, res.Snapshot); err != nil {
		return nil, fmt.Errorf("sync %s@%s: %w", model, revision, err)
	}
	res.Written = true
	return res, nil
}

// missingShapes: the snapshot on disk read shard headers but kept no
// shapes, and KeepShapes now wants them (a sync from before shapes were
// kept, or a family since dropped from the registry): the same commit is
// read again rather than reported unchanged.
func missingShapes(prev *snapshot.Snapshot, opts Options) bool {
	return opts.KeepShapes != nil && prev.Header != nil && len(prev.Tensors) == 0 && opts.KeepShapes(prev.Config)
}

// Resolved is a revision the Hub resolved to a commit, with the model
// info it answered; Fetch reads that commit without asking again.
type Resolved struct {
	Model     string
	Requested string // the revision asked for
	info      *ModelInfo
}

// Commit is the 40-hex-digit sha the revision resolved to.
func (r *Resolved) Commit() string { return r.info.SHA }

// Resolve asks the Hub which commit revision ("" means main) of model
// names now.
func Resolve(ctx context.Context, c *Client, model, revision string) (*Resolved, error) {
	if err := checkModel(model); err != nil {
		return nil, err
	}
	if revision == "" {
		revision = "main"
	}
	info, err := resolve(ctx, c, model, revision)
	if err != nil {
		return nil, fmt.Errorf("%s@%s: %w", model, revision, err)
	}
	return &Resolved{Model: model, Requested: revision, info: info}, nil
}

// Fetch reads the resolved commit from the Hub into a snapshot, as Sync
// does, and writes nothing: for callers that keep the snapshot elsewhere
// (dossier plan's user cache).
func Fetch(ctx context.Context, c *Client, r *Resolved, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	res := &Result{Model: r.Model, Requested: r.Requested, DryRun: true}
	res.resolved(r.info)
	if err := res.fetchAt(ctx, c, r.info, opts); err != nil {
		return nil, fmt.Errorf("%s@%s: %w", r.Model, r.Requested, err)
	}
	return res, nil
}

func resolve(ctx context.Context, c *Client, model, revision string) (*ModelInfo, error) {
	info, err := c.ModelInfo(ctx, model, revision)
	if err != nil {
		return nil, err
	}
	if !shaRe.MatchString(info.SHA) {
		return nil, fmt.Errorf("model info gives sha %q; expected a 40-hex-digit commit", info.SHA)
	}
	return info, nil
}

// resolved records the commit the Hub answered and notes a renamed
// repository.
func (res *Result) resolved(info *ModelInfo) {
	res.Revision, res.Created = info.SHA, info.CreatedAt
	if info.ID != "" && info.ID != res.Model {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the Hub calls this repository %s", info.ID))
	}
}

// fetchAt reads the repository at the commit info names into
// res.Snapshot, with the header census, warnings and census comparison.
func (res *Result) fetchAt(ctx context.Context, c *Client, info *ModelInfo, opts Options) error {
	f := &fetch{c: c, model: res.Model, sha: info.SHA, progress: opts.Progress, conc: opts.Concurrency, keepShapes: opts.KeepShapes}
	snap, err := f.run(ctx, info, opts.Now())
	if err != nil {
		return err
	}
	res.Snapshot, res.Headers = snap, f.census
	res.Warnings = append(res.Warnings, f.warnings...)
	res.Census = compareCensus(snap.Census, f.census)
	if err := snap.Validate(); err != nil {
		return fmt.Errorf("the Hub's answers do not make a valid snapshot: %w", err)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Concurrency <= 0 {
		o.Concurrency = 16
	}
	if o.Progress == nil {
		o.Progress = NopProgress{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

func compareCensus(hub map[string]int64, hdr *safetensors.Census) []CensusRow {
	rows := map[string]*CensusRow{}
	row := func(dt string) *CensusRow {
		if rows[dt] == nil {
			rows[dt] = &CensusRow{DType: dt}
		}
		return rows[dt]
	}
	for dt, n := range hub {
		r := row(dt)
		r.Hub, r.InHub = n, true
	}
	if hdr != nil {
		for dt, n := range hdr.Elems {
			r := row(dt)
			r.Stored, r.InHeaders = n, true
		}
	}
	out := make([]CensusRow, 0, len(rows))
	for _, dt := range sortedKeys(rows) {
		out = append(out, *rows[dt])
	}
	return out
}

// ParseRef splits "org/name[@revision]"; the revision is "" when absent.
func ParseRef(ref string) (model, revision string, err error) {
	model, revision, _ = strings.Cut(ref, "@")
	if err := checkModel(model); err != nil {
		return "", "", err
	}
	return model, revision, nil
}
