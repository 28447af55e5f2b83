// Package usercache keeps the Hub snapshots dossier plan fetched outside a
// site, in the user's cache directory: one file per repository and commit,
// and for each branch or tag the commit it last resolved to. A commit's
// snapshot never changes, so a pinned revision is answered from here
// without a request, and --offline answers a branch from its last commit.
package usercache

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"dossier/generator/internal/safefile"
	"dossier/generator/snapshot"
)

// EnvVar names the variable that overrides the cache directory.
const EnvVar = "DOSSIER_CACHE"

// Cache is the snapshot cache rooted at Dir.
type Cache struct {
	// Dir holds hub/<org>/<name>/<sha>.json and hub/<org>/<name>/refs/<ref>.
	Dir string
}

// ErrNoRef is returned by Ref when no commit of that repository and
// branch or tag has been cached.
var ErrNoRef = errors.New("no cached commit")

var shaRe = regexp.MustCompile(`^[0-9a-f]{40}$`)

// IsCommit reports whether rev is a full commit sha, a revision whose
// snapshot can never change.
func IsCommit(rev string) bool { return shaRe.MatchString(rev) }

// Open returns the cache at $DOSSIER_CACHE, else <user cache dir>/dossier
// (~/.cache/dossier on Linux). getenv reads the environment (os.Getenv);
// nothing is created until a snapshot is stored.
func Open(getenv func(string) string) (*Cache, error) {
	if d := getenv(EnvVar); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %w", EnvVar, d, err)
		}
		return &Cache{Dir: abs}, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return nil, fmt.Errorf("no user cache directory (set %s): %w", EnvVar, err)
	}
	return &Cache{Dir: filepath.Join(base, "dossier")}, nil
}

func (c *Cache) repoDir(model string) (string, error) {
	if !snapshot.ValidModel(model) {
		return "", fmt.Errorf("%q is not an org/name Hub id", model)
	}
	return filepath.Join(c.Dir, "hub", filepath.FromSlash(model)), nil
}

// Path is where the snapshot of model at commit sha lives.
func (c *Cache) Path(model, sha string) (string, error) {
	dir, err := c.repoDir(model)
	if err != nil {
		return "", err
	}
	if !IsCommit(sha) {
		return "", fmt.Errorf("%q is not a 40-hex-digit commit", sha)
	}
	return filepath.Join(dir, sha+".json"), nil
}

// Snapshot returns the cached snapshot of model at commit sha; an error
// wrapping fs.ErrNotExist when there is none. A damaged file is an error
// naming it.
func (c *Cache) Snapshot(model, sha string) (*snapshot.Snapshot, error) {
	path, err := c.Path(model, sha)
	if err != nil {
		return nil, err
	}
	b, err := safefile.Read(path, c.Dir, safefile.Snapshot)
	if err != nil {
		return nil, fmt.Errorf("cached snapshot: %w", err)
	}
	s, err := snapshot.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (remove the file to fetch it again)", path, err)
	}
	if s.Model != model || s.Revision != sha {
		return nil, fmt.Errorf("%s: holds %s@%s, not %s@%s (remove the file to fetch it again)", path, s.Model, s.Revision, model, sha)
	}
	return s, nil
}

// Put stores s under its commit and, when ref is a branch or tag (not the
// commit itself), records that ref resolved to it.
func (c *Cache) Put(s *snapshot.Snapshot, ref string) error {
	path, err := c.Path(s.Model, s.Revision)
	if err != nil {
		return fmt.Errorf("cache snapshot: %w", err)
	}
	b, err := snapshot.Encode(s)
	if err != nil {
		return err
	}
	if err := snapshot.WriteFileAtomic(path, b); err != nil {
		return fmt.Errorf("cache snapshot: %w", err)
	}
	if ref == "" || ref == s.Revision {
		return nil
	}
	return c.SetRef(s.Model, ref, s.Revision)
}

// SetRef records that ref of model resolved to commit sha.
func (c *Cache) SetRef(model, ref, sha string) error {
	path, err := c.refPath(model, ref)
	if err != nil {
		return err
	}
	if !IsCommit(sha) {
		return fmt.Errorf("%q is not a 40-hex-digit commit", sha)
	}
	if err := snapshot.WriteFileAtomic(path, []byte(sha+"\n")); err != nil {
		return fmt.Errorf("cache ref: %w", err)
	}
	return nil
}

// Ref returns the commit ref of model last resolved to; an error wrapping
// ErrNoRef when it was never cached.
func (c *Cache) Ref(model, ref string) (string, error) {
	path, err := c.refPath(model, ref)
	if err != nil {
		return "", err
	}
	b, err := safefile.Read(path, c.Dir, safefile.CacheRef)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s@%s: %w in %s", model, ref, ErrNoRef, c.Dir)
	}
	if err != nil {
		return "", fmt.Errorf("cache ref: %w", err)
	}
	sha := strings.TrimSpace(string(b))
	if !IsCommit(sha) {
		return "", fmt.Errorf("%s: expected a 40-hex-digit commit, found %q (remove the file)", path, sha)
	}
	return sha, nil
}

// refPath escapes the ref into one file name: refs/pr/1 is a branch.
func (c *Cache) refPath(model, ref string) (string, error) {
	dir, err := c.repoDir(model)
	if err != nil {
		return "", err
	}
	if ref == "" || ref == "." || ref == ".." {
		return "", fmt.Errorf("revision %q cannot name a branch or tag", ref)
	}
	return filepath.Join(dir, "refs", url.PathEscape(ref)), nil
}
