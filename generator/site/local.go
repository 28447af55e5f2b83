package site

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"dossier/generator/content"
	"dossier/generator/facts"
	"dossier/generator/localrun"
)

// ggufRepos are the GGUF repositories a page lists under variants:, each
// once, in page order.
func ggufRepos(p *content.Page) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range p.Front.Variants {
		k := strings.ToLower(v.Repo)
		if v.Repo == "" || !strings.EqualFold(v.Format, "GGUF") || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, v.Repo)
	}
	return out
}

// hashGGUFStores adds every synced GGUF store under dataDir to the
// inputs all pages share: a page reused without parsing does not say
// which variants it lists, and stores change seldom.
func hashGGUFStores(h io.Writer, dataDir string) error {
	paths, err := filepath.Glob(filepath.Join(dataDir, "hub", "*", "*", localrun.StoreFile))
	if err != nil {
		return err
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(h, "%s\n", filepath.ToSlash(strings.TrimPrefix(p, dataDir)))
		if err := hashFile(h, p); err != nil {
			return err
		}
	}
	return nil
}

// ggufStorePaths are the synced stores (localrun.StoreFile) of a page's
// GGUF variants.
func ggufStorePaths(dataDir string, p *content.Page) []string {
	var out []string
	for _, r := range ggufRepos(p) {
		out = append(out, localrun.StorePath(dataDir, r))
	}
	return out
}

// localHosts reads data/local.yaml once; a site without one plans no
// local machines.
func (s *Site) localHosts() (*localrun.Hosts, error) {
	s.localOnce.Do(func() {
		dir := s.Config.Dir(s.Config.DataDir)
		if _, err := os.Stat(filepath.Join(dir, localrun.LocalFile)); err != nil {
			return
		}
		s.local, s.localErr = localrun.LoadHosts(os.DirFS(dir), dir, s.Catalog)
	})
	return s.local, s.localErr
}

// addLocal adds to a page's facts the gguf.* and local.* facts of every
// GGUF variant whose headers sync has stored, with each quant's size set
// against the one the page publishes. A variant not synced adds nothing:
// the page keeps its published sizes alone.
func (s *Site) addLocal(set *facts.Set, p *content.Page) error {
	paths := ggufStorePaths(s.Config.Dir(s.Config.DataDir), p)
	if len(paths) == 0 {
		return nil
	}
	hosts, err := s.localHosts()
	if err != nil || hosts == nil {
		return err
	}
	var machines []localrun.Machine
	for _, id := range localrun.DefaultMachines {
		m, err := localrun.ParseMachine(id, hosts, s.Catalog)
		if err != nil {
			continue // a site whose catalogs lack the GPU or host
		}
		machines = append(machines, m)
	}
	for i, path := range paths {
		st, err := localrun.LoadStore(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		var qs []localrun.Quant
		for _, q := range st.Quants {
			qs = append(qs, q.Quant())
		}
		short := st.Revision[:7]
		local, _, err := localrun.Build(qs, localrun.Sources{Tree: "hub:tree@" + short, Headers: "hub:gguf@" + short}, machines, localrun.Options{})
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		repo := ggufRepos(p)[i]
		var pubs []localrun.Published
		for _, v := range p.Front.Variants {
			if strings.EqualFold(v.Repo, repo) && strings.EqualFold(v.Format, "GGUF") {
				pubs = append(pubs, localrun.Published{Label: v.Name, Bytes: int64(v.Bytes), Source: v.Source})
			}
		}
		localrun.AddPublishedFacts(local, pubs)
		// Displayed with the short commit: 40 hex digits do not wrap on a phone.
		local.Add(facts.Fact{Key: "local.repository", Value: repo + "@" + st.Revision, Display: repo + " at commit " + short, Unit: facts.UnitText,
			Sources: []string{"hub:gguf@" + short}, Derivation: "the GGUF repository the local plans read, at the commit sync stored"})
		for f := range local.All() {
			set.Add(*f)
		}
	}
	return nil
}
