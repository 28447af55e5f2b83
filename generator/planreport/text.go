package planreport

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxLabel caps the label column; longer keys wrap.
const maxLabel = 52

// Text writes the report as plain text, no line wider than Width columns.
func Text(w io.Writer, r *Report) error {
	var b strings.Builder
	r.textHeader(&b)
	b.WriteString("\nAnswer\n")
	r.textRows(&b, r.answer(), false)
	for _, l := range r.launch() {
		b.WriteString("\n" + l.title + "\n")
		for _, line := range shellLines(l.command, Width-2) {
			b.WriteString("  " + line + "\n")
		}
		if l.notes != "" {
			grid(&b, 4, []int{Width - 4}, [][]string{{l.notes}})
		}
	}
	if !r.All {
		b.WriteString("\n")
		grid(&b, 0, []int{Width}, [][]string{{moreLine(r)}})
		_, err := io.WriteString(w, b.String())
		return err
	}
	for _, s := range r.sections() {
		b.WriteString("\n" + s.title + "\n")
		r.textRows(&b, s.rows, r.All)
		for _, t := range s.tables {
			b.WriteString("\n")
			textTable(&b, t)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) textHeader(b *strings.Builder) {
	for i, m := range r.Models {
		name := m.Name
		if len(r.Models) > 1 {
			name = modelTag(i) + ": " + name
		}
		grid(b, 0, []int{Width}, [][]string{{name}})
		grid(b, 2, []int{Width - 2}, [][]string{{"from " + m.Origin}})
	}
	if len(r.Inputs) > 0 {
		grid(b, 2, []int{Width - 2}, [][]string{{strings.Join(r.Inputs, "; ")}})
	}
}

// textRows prints label and one value column per model; with notes, the
// derivation or reason follows each row, indented.
func (r *Report) textRows(b *strings.Builder, rows []*row, notes bool) {
	if len(rows) == 0 {
		return
	}
	const indent = 2
	label := 0
	for _, rw := range rows {
		label = max(label, utf8.RuneCountInString(rw.key))
	}
	label = min(label, maxLabel)
	n := len(r.Models)
	rest := Width - indent - label - 2*n
	widths := []int{label}
	for i := 0; i < n; i++ {
		widths = append(widths, rest/n)
	}
	for _, rw := range rows {
		grid(b, indent, widths, [][]string{append([]string{rw.key}, rw.values...)})
		if !notes {
			continue
		}
		for _, nt := range rw.taggedNotes() {
			grid(b, indent+4, []int{Width - indent - 4}, [][]string{{nt}})
		}
	}
}

// textTable prints a per-layout or per-accelerator table; columns that do
// not fit in Width go to a continuation table with the same row labels.
func textTable(b *strings.Builder, t *table) {
	const indent = 2
	head := []string{"per " + t.entity}
	for _, c := range t.columns {
		head = append(head, columnName(c))
	}
	rows := [][]string{head}
	for _, tr := range t.rows {
		rows = append(rows, append([]string{tr.label}, tr.cells...))
	}
	widths := make([]int, len(head))
	for _, rw := range rows {
		for i, c := range rw {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	widths[0] = min(widths[0], maxLabel)
	for start := 1; start < len(head); {
		end, used := start, indent+widths[0]
		for end < len(head) && (end == start || used+2+widths[end] <= Width) {
			used += 2 + widths[end]
			end++
		}
		cols := append([]int{0}, rangeInts(start, end)...)
		part := make([][]string, len(rows))
		ws := make([]int, len(cols))
		for j, c := range cols {
			ws[j] = min(widths[c], Width-indent-widths[0]-2)
			if j == 0 {
				ws[j] = widths[0]
			}
		}
		for i, rw := range rows {
			for _, c := range cols {
				part[i] = append(part[i], rw[c])
			}
		}
		if start > 1 {
			b.WriteString("\n")
		}
		grid(b, indent, ws, part[:1])
		rule := make([]string, len(ws))
		for j, w := range ws {
			rule[j] = strings.Repeat("-", w)
		}
		grid(b, indent, ws, [][]string{rule})
		grid(b, indent, ws, part[1:])
		start = end
	}
}

func rangeInts(a, b int) []int {
	out := make([]int, 0, b-a)
	for i := a; i < b; i++ {
		out = append(out, i)
	}
	return out
}

// grid writes rows in columns of the given widths, two spaces apart, each
// cell wrapped within its width; trailing spaces are left out. Padding is
// written only before a cell that has text, so a line needs no trimming:
// a K3 report is 84 KB, and building each line apart and trimming it
// allocated 2.4 MB, a tenth of sizing K3 from its config.
func grid(b *strings.Builder, indent int, widths []int, rows [][]string) {
	var wrapped [][]string
	for _, rw := range rows {
		wrapped = wrapped[:0]
		lines := 1
		for i, c := range rw {
			wrapped = append(wrapped, wrap(c, widths[i]))
			lines = max(lines, len(wrapped[i]))
		}
		for l := range lines {
			pad := indent // spaces owed before the next cell with text
			for i := range rw {
				cell := ""
				if l < len(wrapped[i]) {
					cell = wrapped[i][l]
				}
				if cell != "" {
					writeSpaces(b, pad)
					b.WriteString(cell)
					pad = 0
				}
				pad += widths[i] - utf8.RuneCountInString(cell) + 2
			}
			b.WriteByte('\n')
		}
	}
}

const spaces = "                                                                "

func writeSpaces(b *strings.Builder, n int) {
	for n > 0 {
		k := min(n, len(spaces))
		b.WriteString(spaces[:k])
		n -= k
	}
}

// wrap breaks s into lines of at most width runes at spaces, splitting a
// word only when it alone is wider.
func wrap(s string, width int) []string {
	width = max(width, 8)
	if fitsAsIs(s, width) {
		return []string{s}
	}
	return wrapWords(s, width)
}

// wrapWords is wrap without the shortcut.
func wrapWords(s string, width int) []string {
	var lines []string
	var cur []rune
	for _, word := range strings.Fields(s) {
		wr := []rune(word)
		switch {
		case len(cur) == 0:
		case len(cur)+1+len(wr) <= width:
			cur = append(cur, ' ')
		default:
			lines = append(lines, string(cur))
			cur = nil
		}
		for len(cur)+len(wr) > width {
			cut := width - len(cur)
			lines = append(lines, string(append(cur, wr[:cut]...)))
			cur, wr = nil, wr[cut:]
		}
		cur = append(cur, wr...)
	}
	if len(cur) > 0 || len(lines) == 0 {
		lines = append(lines, string(cur))
	}
	return lines
}

// fitsAsIs says whether wrap would return s itself: it is at most width
// runes, its words one space apart, with none before or after (most cells).
func fitsAsIs(s string, width int) bool {
	n, prevSpace := 0, true
	for _, r := range s {
		n++
		if n > width {
			return false
		}
		if r == ' ' {
			if prevSpace {
				return false
			}
			prevSpace = true
			continue
		}
		if unicode.IsSpace(r) || r == utf8.RuneError { // wrapWords makes bad UTF-8 U+FFFD
			return false
		}
		prevSpace = false
	}
	return n > 0 && !prevSpace
}
