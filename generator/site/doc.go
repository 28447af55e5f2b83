// Package site is the build: it loads the configuration, content, catalogs
// and snapshots, computes every model's facts, renders the pages and
// publishes them (generator/publish), so a failed build leaves the
// previous output as it was.
//
// # The cache: one rule
//
// A build reuses work only through the build cache, .dossier-cache/ under
// the site root (generator/buildcache). Every entry is named by the sha256
// of every input it is computed from and holds what those inputs give, and
// nothing is ever read back from a published directory. A changed input
// changes the name, so an entry is either right or not found; there is
// nothing to invalidate. `build --full` reads no entry but the page records
// it writes (the shared files read the models back one at a time); `build
// --verify` computes every page and shared file from the inputs alone and
// fails on a byte of difference from the cached ones. The stages, this list being the only place that states them:
//
//   - front: a page's model, draft flag and dates, so that a page is not
//     parsed to find its snapshot. Inputs: the generator binary and the
//     page's bytes.
//   - analytic: a config's module-tree figures (the one expensive
//     model-side computation, shared by fine-tunes of one config). Inputs:
//     the generator binary, config.json and the quantization config.
//   - page: a model's published files (index.md, index.html, facts.json,
//     facts.html, charts), its list summary and its models.json entry.
//     Inputs: the generator binary, the effective configuration, every
//     template, every file at the top of data/ (hardware, software,
//     references, local machines, API changes, the speed model), every
//     price list, the GGUF stores, content/snippets/, the ids of the
//     models with a snapshot (a fine-tune's snippet audit checks names
//     against them), the model's corrections log and claim dates, its page
//     and its snapshot.
//   - check: what `dossier check` reports of a page (claim problems,
//     measurements without configuration or date, prose tells, the
//     published-page rules, unarchived sources) and its snapshot's date.
//     Inputs: those of the page stage.
//   - shared: the files that list the models (index, list pages, feeds,
//     models.json, calibration, inputs, compare and search pages) and the
//     assets.
//     Inputs: everything a page depends on but the page and snapshot, the
//     index page, and every published model's summary and entry in order.
//
// Files are stored by the sha256 of their bytes and hard-linked into the
// staging directory, so a file that did not change is the same file in
// the next output, and a build whose every file is already the
// destination's writes nothing (publish.Unchanged).
package site
