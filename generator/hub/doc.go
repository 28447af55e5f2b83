// Package hub talks to the Hugging Face Hub (or a mirror of it) and keeps
// the snapshots under data/hub/ current.
//
// The client pins every read to a commit sha, follows the tree listing's
// Link pagination (rewritten to the configured endpoint, since mirrors
// hand back huggingface.co URLs), follows resolve redirects to the CDN
// (relative ones too) without carrying the token there, reads safetensors
// headers with at most two Range requests per file (GGUF headers too,
// see ReadGGUF), retries 408, 429 and
// 5xx answers and dropped connections, and tells 401, gated, 403 and the
// three kinds of 404 apart as typed errors. The token never appears in an
// error, a progress line or a snapshot.
//
// Sync turns one repository at one revision into a snapshot.Snapshot and
// writes it atomically; nothing is written when it fails half-way.
package hub
