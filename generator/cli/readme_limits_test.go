package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ranges "dossier/generator/internal/checked"
	"dossier/generator/internal/hfconfig"
	"dossier/generator/internal/safefile"
	"dossier/generator/internal/sitetest"
)

// TestReadmeStatesTheLimits holds the README's statements of the ranges
// and read limits to the constants the code enforces: each limit is one
// constant, and the README is tested against it.
func TestReadmeStatesTheLimits(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(sitetest.RepoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(b)), " ")
	mib := func(l safefile.Limit) string { return fmt.Sprintf("%d MiB", l.Bytes>>20) }
	for _, want := range []string{
		"GPU counts and tensor-parallel sizes 1–" + thousands(ranges.MaxGPUs),
		"bytes per GPU up to " + power(10, ranges.MaxBytesPerGPU),
		"contexts up to " + power(2, ranges.MaxContext) + " tokens",
		"concurrency up to " + power(2, ranges.MaxConcurrency),
		"prices up to $" + power(10, ranges.MaxUSDPerHour) + "/h",
		"config.json sizes up to " + power(2, hfconfig.MaxInt),
		"1 to " + power(2, ranges.MaxContext) + " tokens and 1 to " + power(2, ranges.MaxConcurrency) + " sequences",
		mib(safefile.Page) + " a page or catalog",
		mib(safefile.Snapshot) + " a Hub snapshot",
		mib(safefile.Config) + " a `config.json`",
		mib(safefile.Site) + " `hugo-like.yaml` or a template",
		fmt.Sprintf("%d KiB a cached ref", safefile.CacheRef.Bytes>>10),
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not state %q", want)
		}
	}
	if safefile.Catalog != (safefile.Limit{Bytes: safefile.Page.Bytes, What: safefile.Catalog.What}) {
		t.Errorf("the README gives pages and catalogs one limit; they differ")
	}
	if safefile.Template.Bytes != safefile.Site.Bytes {
		t.Errorf("the README gives hugo-like.yaml and templates one limit; they differ")
	}
}

// power writes n as base^k, failing loudly (with "?") when it is none.
func power(base int, n float64) string {
	k := math.Round(math.Log(n) / math.Log(float64(base)))
	if math.Pow(float64(base), k) != n {
		return fmt.Sprintf("%v (not a power of %d?)", n, base)
	}
	return fmt.Sprintf("%d^%d", base, int(k))
}

// thousands writes n with a comma every three digits: 65,536.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
