package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dossier/generator/gguf"
	"dossier/generator/gguf/gguftest"
	"dossier/generator/internal/sitetest"
	"dossier/generator/localrun"
)

// localSite builds the fixture site with unsloth/Kimi-K3-GGUF synced: a
// store written from two K3-shaped quants (eight layers), and the
// machine classes frozen in generator/localrun/testdata/local.yaml (a copy
// of data/local.yaml whose Macs are described in place: the fixture
// catalog lacks some of the shipped one's Apple parts).
func localSite(t *testing.T) string {
	t.Helper()
	root := sitetest.Fixture(t, nil)
	b, err := os.ReadFile("../localrun/testdata/local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "data", "local.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	ty := func(n string) gguf.Type {
		x, ok := gguf.TypeByName(n)
		if !ok {
			t.Fatal(n)
		}
		return x
	}
	var qs []localrun.Quant
	for _, q := range []struct{ label, expert string }{{"UD-IQ1_S", "IQ1_S"}, {"UD-Q2_K_XL", "Q2_K"}} {
		m := gguftest.MoE{
			Layers: 8, DenseLayers: 1, Hidden: 7168, Vocab: 1000, Heads: 96,
			QLoraRank: 1536, KVLoraRnk: 512, RopeDim: 64, NopeDim: 128, VDim: 128, DenseFF: 18432,
			Experts: 896, ExpertsUsed: 16, ExpertIn: 3584, ExpertFF: 3072, SharedFF: 6144, Context: 1 << 20,
			ExpertType: ty(q.expert), MatrixType: ty("Q8_0"), EmbedType: ty("Q6_K"), Shards: 2, Name: q.label + "/Kimi-K3-" + q.label,
		}
		var listed []gguf.Listed
		var hs []*gguf.Header
		for _, f := range m.Build() {
			h, err := gguf.Parse(f.Header, f.Size)
			if err != nil {
				t.Fatal(err)
			}
			hs = append(hs, h)
			listed = append(listed, gguf.Listed{Path: f.Path, Size: f.Size})
		}
		gs, err := gguf.GroupFiles(listed)
		if err != nil {
			t.Fatal(err)
		}
		cq, err := gguf.Combine(gs[0], hs)
		if err != nil {
			t.Fatal(err)
		}
		lq, err := localrun.FromGGUF(cq)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, lq)
	}
	sha := strings.Repeat("ab", 20)
	if _, err := localrun.WriteStore(filepath.Join(root, "data"), localrun.NewStore("unsloth/Kimi-K3-GGUF", sha, qs)); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "public")
	if err := buildSite(root, dest); err != nil {
		t.Fatal(err)
	}
	return dest
}

type localSection struct {
	Found    bool     `json:"found"`
	Machines int      `json:"machines"`
	Quants   []string `json:"quants"`
	Commands int      `json:"commands"`
	Folded   bool     `json:"folded"`
}

// readLocal finds the "Run it locally" heading and reads the two tables
// after it: the rows of the machine table, the quant labels, the command
// cells, and whether the quant table is folded (in a closed <details>,
// not shown).
const readLocal = `(() => {
	const h = [...document.querySelectorAll("h3")].find(e => e.textContent.trim() === "Run it locally");
	if (!h) return {found: false};
	const tables = [];
	for (let e = h.nextElementSibling; e && !/^H[23]$/.test(e.tagName); e = e.nextElementSibling) {
		const t = e.tagName === "TABLE" ? e : e.querySelector("table");
		if (t) tables.push(t);
	}
	const rows = t => [...t.querySelectorAll("tbody tr")];
	return {
		found: true,
		machines: tables.length ? rows(tables[0]).length : 0,
		quants: tables.length > 1 ? rows(tables[1]).map(r => r.cells[0].textContent.trim()) : [],
		commands: tables.length ? rows(tables[0]).filter(r => /llama-server -m /.test(r.textContent)).length : 0,
		folded: tables.length > 1 && !!tables[1].closest("details") && !tables[1].closest("details").open && !tables[1].checkVisibility(),
	};
})()`

func TestBrowserRunItLocally(t *testing.T) {
	dir := localSite(t)
	ts := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(ts.Close)
	for _, w := range []int64{desktopW, phoneW} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			tb := newTab(t, w)
			tb.open(ts.URL + k3Page)
			for _, e := range tb.takeErrors() {
				t.Errorf("console: %s", e)
			}
			s := eval[localSection](tb, readLocal)
			if !s.Found {
				t.Fatal("no \"Run it locally\" heading on the K3 page")
			}
			if s.Machines != len(localrun.DefaultMachines) || s.Commands == 0 {
				t.Errorf("%d machine rows (want %d), %d with a command", s.Machines, len(localrun.DefaultMachines), s.Commands)
			}
			if strings.Join(s.Quants, ",") != "UD-IQ1_S,UD-Q2_K_XL" {
				t.Errorf("quant rows %v", s.Quants)
			}
			if !s.Folded {
				t.Error("the quant table is not folded away behind a closed <details>")
			}
			if o := eval[overflow](tb, readOverflow); o.ScrollWidth > o.InnerWidth+1 {
				t.Errorf("the page scrolls sideways at %d px: %.0f > %.0f; widest: %s", w, o.ScrollWidth, o.InnerWidth, strings.Join(o.Culprits, "; "))
			}
		})
	}
}
