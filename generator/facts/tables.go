package facts

import (
	"slices"
	"strconv"
	"strings"
)

// A model's facts are mostly matrices: the same figures for every layout
// (serving.<LAYOUT>.fits, fit.<LAYOUT>.margin_bytes, deploy.<LAYOUT>.tp,
// speed.<LAYOUT>.…, cost.<LAYOUT>.…) or every accelerator
// (fit.min_gpus.<ACC>, deploy.smallest_of.<ACC>), each with a derivation
// that differs from row to row only in its numbers. Tabulate finds those
// matrices so that facts.json (schema 2) and the facts page state each
// column's unit, rule and sources once and each row only its own numbers.

// Table is a family of facts keyed prefix.<row>[.column]: one row per
// layout or accelerator, one column per figure.
type Table struct {
	Prefix  string
	Rows    []string
	Columns []*Column
	Cells   [][]*Cell // [row][column]; nil where the row has no such fact
}

// Column is one figure of a table.
type Column struct {
	// Name is the key after the row ("fits", "max_concurrency.8192"), ""
	// when the row ends the key.
	Name string
	Unit string
	// Rules are the derivations the column's rows share, the commonest
	// first, with placeholders: {row} the row, {acc} the accelerator of a
	// layout row (B300 of 8xB300), {1}…{n} the row's own numbers
	// (Cell.Bindings).
	Rules []string
	// Displays are the displays the column's cells give a value (keyed by
	// the value as JSON writes it: "true") where that is not the unit's
	// own display: "fits" for true.
	Displays map[string]string
	// Sources are the sources most rows cite, with the same {row} and
	// {acc} placeholders; a cell citing others carries its own.
	Sources []string
}

// Key is the column's key pattern, with {row} where the row goes.
func (c *Column) Key(prefix string) string {
	if c.Name == "" {
		return prefix + ".{row}"
	}
	return prefix + ".{row}." + c.Name
}

// RowKey is the key of row's facts up to the row: fit.8xH100 of
// fit.8xH100.margin_bytes, or the whole key (fit.min_gpus.H100) in a table
// whose row ends the key. The facts page anchors the row there.
func (t *Table) RowKey(row string) string { return t.Prefix + "." + row }

// RowKeys maps the key of every fact the tables hold to its row's key
// (RowKey): where a link to the fact lands on the facts page.
func (tab *Tabulated) RowKeys() map[string]string {
	n := 0
	for _, t := range tab.Tables {
		n += len(t.Rows) * len(t.Columns)
	}
	rows := make(map[string]string, n)
	for _, t := range tab.Tables {
		for i, row := range t.Rows {
			for _, cell := range t.Cells[i] {
				if cell != nil {
					rows[cell.Fact.Key] = t.RowKey(row)
				}
			}
		}
	}
	return rows
}

// Cell is one fact of a table.
type Cell struct {
	Fact *Fact
	// Rule is the index of the column's rule the derivation follows, and
	// Bindings the values of its {1}…{n} in this row.
	Rule     int
	Bindings []string
	// OwnDerivation: the fact's derivation follows none of the column's
	// rules and is stated in the cell.
	OwnDerivation bool
	// OwnSources: the fact cites other sources than the column's.
	OwnSources bool
}

// Tabulated is a set split into tables and the facts outside any.
type Tabulated struct {
	Tables  []*Table
	Singles []*Fact
}

// minTableRows is the fewest rows a family needs to become a table: a rule
// stated once for one or two rows saves nothing.
const minTableRows = 3

// layoutRow reports whether a key segment is a layout (8xH100,
// 48xA100-40GB: digits, x, a letter, then letters, digits and '-') and
// returns its accelerator.
func layoutRow(seg string) (acc string, ok bool) {
	i := 0
	for i < len(seg) && isDigit(seg[i]) {
		i++
	}
	if i == 0 || i+1 >= len(seg) || seg[i] != 'x' || !isLetter(seg[i+1]) {
		return "", false
	}
	for j := i + 2; j < len(seg); j++ {
		if c := seg[j]; !isLetter(c) && !isDigit(c) && c != '-' {
			return "", false
		}
	}
	return seg[i+1:], true
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// Tabulate splits the set into tables and single facts. Every fact lands
// in exactly one place, and ExpandDerivation of a cell gives back the
// fact's derivation byte for byte (a cell whose text would not is marked
// OwnDerivation).
func (s *Set) Tabulate() *Tabulated {
	keys, fs := s.sorted()
	// The accelerators are those the set's layouts name: a table may be
	// keyed by them (deploy.min_gpus.H100).
	accs := map[string]bool{}
	for _, k := range keys {
		for seg := range strings.SplitSeq(k, ".") {
			if acc, ok := layoutRow(seg); ok {
				accs[acc] = true
			}
		}
	}
	type member struct {
		row, col string
		f        *Fact
	}
	groups := map[string][]member{}
	var prefixes []string
	var singles []*Fact
	for i, k := range keys {
		prefix, row, col, ok := splitRow(k, accs)
		if !ok {
			singles = append(singles, fs[i])
			continue
		}
		if _, seen := groups[prefix]; !seen {
			prefixes = append(prefixes, prefix)
		}
		groups[prefix] = append(groups[prefix], member{row, col, fs[i]})
	}
	out := &Tabulated{}
	for _, prefix := range prefixes {
		ms := groups[prefix]
		rowIndex, colIndex := map[string]int{}, map[string]int{}
		t := &Table{Prefix: prefix}
		var colNames []string
		for _, m := range ms {
			if _, ok := rowIndex[m.row]; !ok {
				rowIndex[m.row] = len(t.Rows)
				t.Rows = append(t.Rows, m.row)
			}
			if _, ok := colIndex[m.col]; !ok {
				colIndex[m.col] = 0
				colNames = append(colNames, m.col)
			}
		}
		if len(t.Rows) < minTableRows {
			for _, m := range ms {
				singles = append(singles, m.f)
			}
			continue
		}
		slices.Sort(colNames)
		for i, c := range colNames {
			colIndex[c] = i
			t.Columns = append(t.Columns, &Column{Name: c})
		}
		t.Cells = make([][]*Cell, len(t.Rows))
		for i := range t.Cells {
			t.Cells[i] = make([]*Cell, len(t.Columns))
		}
		for _, m := range ms {
			t.Cells[rowIndex[m.row]][colIndex[m.col]] = &Cell{Fact: m.f}
		}
		for j, c := range t.Columns {
			fillColumn(t, j, c)
		}
		out.Tables = append(out.Tables, t)
	}
	slices.SortFunc(singles, func(a, b *Fact) int { return strings.Compare(a.Key, b.Key) })
	out.Singles = singles
	return out
}

// splitRow finds the row segment of key: the first segment after the
// family that is a layout or an accelerator.
func splitRow(key string, accs map[string]bool) (prefix, row, col string, ok bool) {
	segs := strings.Split(key, ".")
	for i := 1; i < len(segs); i++ {
		if _, ok := layoutRow(segs[i]); ok || accs[segs[i]] {
			return strings.Join(segs[:i], "."), segs[i], strings.Join(segs[i+1:], "."), true
		}
	}
	return "", "", "", false
}

// rowAccelerator is the accelerator of a layout row, "" for other rows.
func rowAccelerator(row string) string {
	acc, _ := layoutRow(row)
	return acc
}

// fillColumn sets column j's unit, rule and sources from its cells, the
// most common of each, and marks the cells that differ.
func fillColumn(t *Table, j int, c *Column) {
	units := map[string]int{}
	type shape struct {
		skeleton string
		numbers  []string
	}
	shapes := make([]*shape, len(t.Rows))
	skeletons := map[string]int{}
	sourceLists := map[string]int{}
	templSources := make([][]string, len(t.Rows))
	for i, row := range t.Rows {
		cell := t.Cells[i][j]
		if cell == nil {
			continue
		}
		f := cell.Fact
		units[f.Unit]++
		acc := rowAccelerator(row)
		if f.Derivation != "" {
			if tmpl, ok := templateRow(f.Derivation, row, acc); ok {
				sk, nums := splitNumbers(tmpl)
				shapes[i] = &shape{sk, nums}
				skeletons[sk]++
			}
		}
		if len(f.Sources) > 0 {
			list := make([]string, 0, len(f.Sources))
			for _, src := range f.Sources {
				ts, ok := templateRow(src, row, acc)
				if !ok {
					list = nil
					break
				}
				list = append(list, ts)
			}
			if list != nil {
				templSources[i] = list
				sourceLists[strings.Join(list, "\x00")]++
			}
		}
	}
	c.Unit = mostCommon(units)
	c.Displays = sharedDisplays(t, j, c.Unit)
	if srcKey := mostCommon(sourceLists); srcKey != "" && sourceLists[srcKey] >= 2 {
		c.Sources = strings.Split(srcKey, "\x00")
	}
	// Each shape of derivation two rows share is a rule, the commonest
	// first. The numbers all rows of a rule share are part of it; the
	// others are bound per row.
	var skels []string
	for sk, n := range skeletons {
		if n >= 2 {
			skels = append(skels, sk)
		}
	}
	slices.SortFunc(skels, func(a, b string) int {
		if skeletons[a] != skeletons[b] {
			return skeletons[b] - skeletons[a]
		}
		return strings.Compare(a, b)
	})
	ruleOf := map[string]int{}
	varying := make([][]bool, len(skels))
	for r, sk := range skels {
		ruleOf[sk] = r
		var first []string
		for _, sh := range shapes {
			if sh == nil || sh.skeleton != sk {
				continue
			}
			if first == nil {
				first = sh.numbers
				varying[r] = make([]bool, len(first))
				continue
			}
			for k, n := range sh.numbers {
				if n != first[k] {
					varying[r][k] = true
				}
			}
		}
		c.Rules = append(c.Rules, joinRule(sk, first, varying[r]))
	}
	for i, row := range t.Rows {
		cell := t.Cells[i][j]
		if cell == nil {
			continue
		}
		f := cell.Fact
		acc := rowAccelerator(row)
		cell.OwnDerivation = f.Derivation != ""
		if sh := shapes[i]; sh != nil {
			if r, ok := ruleOf[sh.skeleton]; ok {
				var bind []string
				for k, n := range sh.numbers {
					if varying[r][k] {
						bind = append(bind, n)
					}
				}
				if got, err := ExpandRule(c.Rules[r], row, acc, bind); err == nil && got == f.Derivation {
					cell.Rule, cell.Bindings, cell.OwnDerivation = r, bind, false
				}
			}
		}
		if !slices.Equal(templSources[i], c.Sources) || !sameExpansion(c.Sources, row, acc, f.Sources) {
			cell.OwnSources = true
		}
	}
}

// sameExpansion reports whether the templated sources expand to srcs in row.
func sameExpansion(tmpl []string, row, acc string, srcs []string) bool {
	if len(tmpl) != len(srcs) {
		return false
	}
	for i, t := range tmpl {
		if got, err := ExpandRule(t, row, acc, nil); err != nil || got != srcs[i] {
			return false
		}
	}
	return true
}

// mostCommon is the key counted most often, the least in string order
// among equals (so a rebuild picks the same); "" for none.
func mostCommon(counts map[string]int) string {
	best, n := "", 0
	for k, c := range counts {
		if c > n || (c == n && k < best) {
			best, n = k, c
		}
	}
	return best
}

// templateRow replaces the row and its accelerator in text by {row} and
// {acc}; text holding braces of its own (or the NUL splitNumbers marks
// numbers with) is not templated.
func templateRow(text, row, acc string) (string, bool) {
	if strings.ContainsAny(text, "{}\x00") {
		return "", false
	}
	t := strings.ReplaceAll(text, row, "{row}")
	if acc != "" {
		t = strings.ReplaceAll(t, acc, "{acc}")
	}
	return t, true
}

// splitNumbers returns text with each number as derivations print it (8,
// 2.69, 1,048,576: digits, and runs of digits joined by single '.' or
// ',') replaced by NUL, and the numbers in order. A scan, not a regexp:
// it runs for every derivation of a model's matrices.
func splitNumbers(text string) (string, []string) {
	var nums []string
	var sk []byte
	last := 0
	// Sized once: a derivation holds a few numbers, and growing both
	// was most of Tabulate's allocations.
	if i := strings.IndexAny(text, "0123456789"); i < 0 {
		return text, nil
	}
	nums, sk = make([]string, 0, 8), make([]byte, 0, len(text))
	for i := 0; i < len(text); {
		if !isDigit(text[i]) {
			i++
			continue
		}
		start := i
		for i < len(text) && isDigit(text[i]) {
			i++
		}
		for i+1 < len(text) && (text[i] == '.' || text[i] == ',') && isDigit(text[i+1]) {
			i++
			for i < len(text) && isDigit(text[i]) {
				i++
			}
		}
		sk = append(append(sk, text[last:start]...), 0)
		nums = append(nums, text[start:i])
		last = i
	}
	if nums == nil {
		return text, nil
	}
	return string(append(sk, text[last:]...)), nums
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// joinRule puts the shared numbers back into skeleton and {1}…{n} where
// the numbers vary.
func joinRule(skeleton string, numbers []string, varying []bool) string {
	var b strings.Builder
	k, bound := 0, 0
	for i := 0; i < len(skeleton); i++ {
		if skeleton[i] != 0 {
			b.WriteByte(skeleton[i])
			continue
		}
		if varying[k] {
			bound++
			b.WriteString("{" + strconv.Itoa(bound) + "}")
		} else {
			b.WriteString(numbers[k])
		}
		k++
	}
	return b.String()
}

// ExpandRule fills a column rule's placeholders for one row: {row}, {acc}
// and {1}…{n} from bindings. A placeholder it does not know, or a binding
// number past bindings, is an error.
func ExpandRule(rule, row, acc string, bindings []string) (string, error) {
	if !strings.Contains(rule, "{") {
		return rule, nil
	}
	var b strings.Builder
	b.Grow(len(rule) + 16*len(bindings) + len(row))
	rest := rule
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return "", &ruleError{rule, "an unclosed {"}
		}
		b.WriteString(rest[:open])
		name := rest[open+1 : open+end]
		switch name {
		case "row":
			b.WriteString(row)
		case "acc":
			if acc == "" {
				return "", &ruleError{rule, "{acc} in row " + row + ", which is not a layout"}
			}
			b.WriteString(acc)
		default:
			n, err := strconv.Atoi(name)
			if err != nil || n < 1 || n > len(bindings) {
				return "", &ruleError{rule, "placeholder {" + name + "} with " + strconv.Itoa(len(bindings)) + " binding(s)"}
			}
			b.WriteString(bindings[n-1])
		}
		rest = rest[open+end+1:]
	}
}

type ruleError struct{ rule, what string }

func (e *ruleError) Error() string { return "rule " + strconv.Quote(e.rule) + ": " + e.what }

// sharedDisplays maps each value of column j that two or more cells
// display alike, and not as the unit would, to that display.
func sharedDisplays(t *Table, j int, unit string) map[string]string {
	type seen struct {
		value   any
		display string
		n       int
		mixed   bool
	}
	byValue := map[string]*seen{}
	for i := range t.Rows {
		cell := t.Cells[i][j]
		if cell == nil || cell.Fact.Unit != unit {
			continue
		}
		vb, err := appendValue(nil, cell.Fact.Value)
		if err != nil {
			continue
		}
		v := string(vb)
		if sn, ok := byValue[v]; !ok {
			byValue[v] = &seen{value: cell.Fact.Value, display: cell.Fact.Display, n: 1}
		} else if sn.display != cell.Fact.Display {
			sn.mixed = true
		} else {
			sn.n++
		}
	}
	var out map[string]string
	for v, sn := range byValue {
		if sn.mixed || sn.n < 2 {
			continue
		}
		if sn.display == defaultDisplay(unit, sn.value) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[v] = sn.display
	}
	return out
}
