package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// A price change changes a few cells of a dossier's tables and nothing
// else of its HTML. DossierHTML records where a page's directly written
// tables are; given that page again, it writes only the tables whose
// Markdown changed into its bytes, when goldmark's input and the layout's
// are as they were: no conversion, no layout.

// DossierParts locates a dossier page's directly written tables.
type DossierParts struct {
	// Skeleton is the sha256 of what the page is made of but those
	// tables: the Markdown goldmark converts (each table a placeholder),
	// the charts inlined in it and the layout's fields.
	Skeleton string
	Tables   []TablePart
}

// TablePart is one table: a hash of its Markdown and its bytes in the page.
type TablePart struct {
	Sum string
	At  [2]int
}

// DossierHTML is HTML for a dossier page and where its directly written
// tables are in it (parts nil when they cannot be located). prev and
// prevParts, a page DossierHTML wrote before with the same templates and
// converter, are written over instead when its skeleton is this page's.
func (t *Templates) DossierHTML(md []byte, p HTMLPage, charts map[string]Chart, prev []byte, prevParts *DossierParts) (page []byte, parts *DossierParts, err error) {
	// The tables written directly on the previous page need not be
	// checked again; if the skeleton is not the previous one, they are.
	var known map[string]bool
	if prevParts != nil {
		known = make(map[string]bool, len(prevParts.Tables))
		for _, tp := range prevParts.Tables {
			known[tp.Sum] = true
		}
	}
	in, direct, parts, ok := swapParts(md, p, charts, known)
	if ok && prevParts != nil && prevParts.Skeleton == parts.Skeleton && prevParts.fits(prev, parts) {
		return spliceTables(prev, prevParts, parts, direct, p.FactsPage), parts, nil
	}
	if known != nil {
		in, direct, parts, ok = swapParts(md, p, charts, nil)
	}
	if !ok {
		page, _, err := t.page(md, p, charts, nil)
		return page, nil, err
	}
	body, spans, err := convertSwapped(markdownFor(p, charts), md, in, direct, p.FactsPage)
	if err != nil {
		return nil, nil, err
	}
	if page, err = t.layout(body, p); err != nil {
		return nil, nil, err
	}
	off := bodyAt(page, string(body))
	if spans == nil || off < 0 {
		return page, nil, nil
	}
	for i, sp := range spans {
		parts.Tables[i].At = [2]int{off + sp[0], off + sp[1]}
	}
	return page, parts, nil
}

// swapParts is swapTables with the page's parts: its skeleton and each
// direct table's sum. ok is false when no table is direct or the skeleton
// cannot be hashed: the page is converted whole.
func swapParts(md []byte, p HTMLPage, charts map[string]Chart, known map[string]bool) (in []byte, direct []PrintedTable, parts *DossierParts, ok bool) {
	in, direct = swapTables(md, p.Tables, p.FactsPage, known)
	if len(direct) == 0 {
		return in, nil, nil, false
	}
	skeleton, ok := skeletonSum(in, p, charts)
	if !ok {
		return in, nil, nil, false
	}
	parts = &DossierParts{Skeleton: skeleton, Tables: make([]TablePart, len(direct))}
	for i, d := range direct {
		if parts.Tables[i].Sum = d.Sum; d.Sum == "" {
			parts.Tables[i].Sum = tableSum(d.Table)
		}
	}
	return in, direct, parts, true
}

// skeletonSum hashes the page but its direct tables: in, goldmark's input,
// the charts and the layout's fields.
func skeletonSum(in []byte, p HTMLPage, charts map[string]Chart) (string, bool) {
	h := sha256.New()
	files := make([]string, 0, len(charts))
	for _, c := range charts {
		files = append(files, c.File)
	}
	slices.Sort(files)
	svgs := make([]string, 0, 2*len(files))
	for _, f := range files {
		for _, c := range charts {
			if c.File == f {
				svgs = append(svgs, f, c.SVG)
				break
			}
		}
	}
	p.Body, p.Tables, p.Table = "", nil, nil
	// Every field but those three, and the charts: html/template encodes
	// JSONLD as json.Marshal does, so equal JSON is an equal script.
	fields, err := json.Marshal(struct {
		Page HTMLPage
		SVGs []string
	}{p, svgs})
	if err != nil {
		return "", false
	}
	h.Write(fields)
	h.Write([]byte{0})
	h.Write(in)
	return hex.EncodeToString(h.Sum(nil)), true
}

// tableSum hashes a table as Table.html writes it: its header, alignment
// and cells, each with its length. 128 bits of sha256.
func tableSum(t *Table) string {
	// One buffer, one hash: a write per row was most of the cost.
	b := make([]byte, 0, t.htmlSize())
	cells := func(cs []string) {
		b = binary.AppendUvarint(b, uint64(len(cs)))
		for _, c := range cs {
			b = binary.AppendUvarint(b, uint64(len(c)))
			b = append(b, c...)
		}
	}
	cells(t.Header)
	b = binary.AppendUvarint(b, uint64(len(t.Align)))
	for _, a := range t.Align {
		b = binary.AppendVarint(b, int64(a))
	}
	for _, r := range t.Rows {
		cells(r)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// fits says whether prevParts locates as many tables as parts, in order,
// each a whole table of prev.
func (pp *DossierParts) fits(prev []byte, parts *DossierParts) bool {
	if len(pp.Tables) != len(parts.Tables) {
		return false
	}
	at := 0
	for _, tp := range pp.Tables {
		s, e := tp.At[0], tp.At[1]
		if s < at || e < s || e > len(prev) || !bytes.HasPrefix(prev[s:e], []byte("<table>\n")) || !bytes.HasSuffix(prev[s:e], []byte("</table>\n")) {
			return false
		}
		at = e
	}
	return true
}

// spliceTables writes prev with each table whose sum changed written
// again, and records where each table went in parts.
func spliceTables(prev []byte, pp, parts *DossierParts, direct []PrintedTable, factsPage string) []byte {
	out := make([]byte, 0, len(prev)+len(prev)/8)
	pos := 0
	for i, tp := range pp.Tables {
		out = append(out, prev[pos:tp.At[0]]...)
		start := len(out)
		if tp.Sum == parts.Tables[i].Sum {
			out = append(out, prev[tp.At[0]:tp.At[1]]...)
		} else {
			out = append(out, direct[i].Table.html(factsPage)...)
		}
		parts.Tables[i].At = [2]int{start, len(out)}
		pos = tp.At[1]
	}
	return append(out, prev[pos:]...)
}

// MarshalText writes the parts as one line: the skeleton, then each
// table's sum, start and end. A manifest holds a thousand of them, and
// decoding them as JSON objects was a fifth of reading it.
func (pp DossierParts) MarshalText() ([]byte, error) {
	b := append([]byte(nil), pp.Skeleton...)
	for _, tp := range pp.Tables {
		b = append(b, ' ')
		b = append(b, tp.Sum...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(tp.At[0]), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(tp.At[1]), 10)
	}
	return b, nil
}

// UnmarshalText reads what MarshalText writes. Anything else reads as
// parts that match no page (an empty skeleton): they are a cache.
func (pp *DossierParts) UnmarshalText(b []byte) error {
	*pp = DossierParts{}
	f := strings.Fields(string(b))
	if len(f) == 0 || (len(f)-1)%3 != 0 {
		return nil
	}
	tables := make([]TablePart, (len(f)-1)/3)
	for i := range tables {
		s, err1 := strconv.Atoi(f[2+3*i])
		e, err2 := strconv.Atoi(f[3+3*i])
		if err1 != nil || err2 != nil {
			return nil
		}
		tables[i] = TablePart{Sum: f[1+3*i], At: [2]int{s, e}}
	}
	pp.Skeleton, pp.Tables = f[0], tables
	return nil
}
