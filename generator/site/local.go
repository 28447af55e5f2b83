package site

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"dossier/generator/catalog"
	"dossier/generator/content"
	"dossier/generator/facts"
	"dossier/generator/localrun"
	"dossier/generator/mlx"
)

// variantRepos are the repositories of one format (GGUF, MLX) a page
// lists under variants:, each once, in page order.
func variantRepos(p *content.Page, format string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range p.Front.Variants {
		k := strings.ToLower(v.Repo)
		if v.Repo == "" || !strings.EqualFold(v.Format, format) || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, v.Repo)
	}
	return out
}

// addMLX adds the mlx.* facts of every MLX variant whose config and
// headers sync has stored, planned on the Macs of the default machine
// classes. A variant not synced adds nothing.
func (s *Site) addMLX(set *facts.Set, p *content.Page) error {
	repos := variantRepos(p, "MLX")
	if len(repos) == 0 {
		return nil
	}
	hosts, err := s.localHosts()
	if err != nil || hosts == nil {
		return err
	}
	var macs []localrun.Machine
	for _, id := range localrun.DefaultMachines {
		if h := hosts.ByID[id]; h == nil || !h.Mac() {
			continue
		}
		m, err := localrun.ParseMachine(id, hosts, s.Catalog)
		if err != nil {
			continue // a site whose catalogs lack the Mac
		}
		macs = append(macs, m)
	}
	var fit *catalog.SpeedFit
	if s.Catalog.Speed != nil {
		fit = s.Catalog.Speed.Fit
	}
	for _, repo := range repos {
		path := mlx.StorePath(s.Config.Dir(s.Config.DataDir), repo)
		st, err := mlx.LoadStore(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		local, _, err := mlx.Build(st, macs, fit, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		local.Add(facts.Fact{Key: "mlx." + st.Label + ".repository", Value: st.Repo + "@" + st.Revision, Display: st.Repo + " at commit " + st.Revision[:7], Unit: facts.UnitText,
			Sources: []string{"hub:safetensors@" + st.Revision[:7]}, Derivation: "the MLX repository the Mac plans read, at the commit sync stored"})
		for f := range local.All() {
			set.Add(*f)
		}
	}
	return nil
}

// hashGGUFStores adds every synced GGUF and MLX store under dataDir to the
// inputs all pages share: a page reused without parsing does not say
// which variants it lists, and stores change seldom.
func hashGGUFStores(h io.Writer, dataDir string) error {
	var paths []string
	for _, name := range []string{localrun.StoreFile, mlx.StoreFile} {
		found, err := filepath.Glob(filepath.Join(dataDir, "hub", "*", "*", name))
		if err != nil {
			return err
		}
		paths = append(paths, found...)
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
	for _, r := range variantRepos(p, "GGUF") {
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

// localRef is a gguf.* or local.* fact a claim of the page checks or
// cites, with the claim's line.
type localRef struct {
	localrun.Ref
	claim string
	line  int
}

// localRefs are the gguf.* and local.* facts the page's claims name; a
// key no plan would add is an error naming the claim.
func localRefs(p *content.Page) ([]localRef, error) {
	var out []localRef
	for _, c := range p.Front.Claims {
		keys := make([]string, 0, len(c.Checks)+len(c.Evidence))
		for _, ch := range c.Checks {
			keys = append(keys, ch.Fact)
		}
		for _, e := range c.Evidence {
			if k, ok := strings.CutPrefix(e, "fact:"); ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			r, ok, err := localrun.ParseRef(k)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: claim %s: %w", p.Path, c.Line, c.ID, err)
			}
			if ok {
				out = append(out, localRef{Ref: r, claim: c.ID, line: c.Line})
			}
		}
	}
	return out, nil
}

// addLocal adds to a page's facts the gguf.* and local.* facts of every
// GGUF variant whose headers sync has stored, with each quant's size set
// against the one the page publishes, planned on the default machine
// classes and on any machine a claim names. A variant not synced adds
// nothing but, for each fact a claim names of a quant the page lists,
// an unknown fact that says so: the claim is unverifiable, not guessed.
func (s *Site) addLocal(set *facts.Set, p *content.Page) error {
	refs, err := localRefs(p)
	if err != nil {
		return err
	}
	planned := false // whether a local.yaml let the synced stores be planned
	defer func() { unknownRefs(set, p, refs, s.Config.Dir(s.Config.DataDir), s.Config.DataDir, planned) }()
	paths := ggufStorePaths(s.Config.Dir(s.Config.DataDir), p)
	if len(paths) == 0 {
		return nil
	}
	hosts, err := s.localHosts()
	if err != nil || hosts == nil {
		return err
	}
	planned = true
	var machines []localrun.Machine
	for _, id := range localrun.DefaultMachines {
		m, err := localrun.ParseMachine(id, hosts, s.Catalog)
		if err != nil {
			continue // a site whose catalogs lack the GPU or host
		}
		machines = append(machines, m)
	}
	for _, r := range refs {
		if r.Machine == "" || slices.ContainsFunc(machines, func(m localrun.Machine) bool { return m.ID == r.Machine }) {
			continue
		}
		m, err := localrun.ParseMachine(r.Machine, hosts, s.Catalog)
		if err != nil {
			return fmt.Errorf("%s:%d: claim %s: fact %s: %w", p.Path, r.line, r.claim, r.Key, err)
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
		local, _, err := localrun.Build(qs, localrun.Sources{Tree: "hub:tree@" + short, Headers: "hub:gguf@" + short}, machines, localrun.Options{Catalog: s.Catalog})
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		repo := variantRepos(p, "GGUF")[i]
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

// unknownRefs adds, for each fact a claim names that no synced store
// gave, an unknown fact with the reason, when the quant is one the page
// lists under a GGUF variant; any other stays absent, and the claim's
// review reports it missing.
func unknownRefs(set *facts.Set, p *content.Page, refs []localRef, dataDir, dataLabel string, planned bool) {
	for _, r := range refs {
		if set.Get(r.Key) != nil {
			continue
		}
		repo := ""
		for _, v := range p.Front.Variants {
			if strings.EqualFold(v.Format, "GGUF") && v.Repo != "" && (r.Quant == "" || v.Name == r.Quant) {
				repo = v.Repo
				break
			}
		}
		if repo == "" {
			continue
		}
		why := fmt.Sprintf("the GGUF headers of %s are not synced: this build has no %s (dossier sync --all --gguf reads them)",
			repo, filepath.ToSlash(localrun.StorePath(dataLabel, repo)))
		if _, err := os.Stat(localrun.StorePath(dataDir, repo)); err == nil {
			why = fmt.Sprintf("%s is synced, but its headers give no %s (no such quant, or no such figure for it on this site's machines)", repo, r.Key)
			if !planned {
				why = fmt.Sprintf("%s is synced, but this site has no %s to plan it with", repo, filepath.ToSlash(filepath.Join(dataLabel, localrun.LocalFile)))
			}
		}
		set.Unknown(r.Key, r.Unit(), why)
	}
}
