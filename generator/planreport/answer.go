package planreport

import (
	"fmt"
	"strings"

	"dossier/generator/facts"
	"dossier/generator/page"
)

// answer is the box a reader reads first: label and a value per model.
func (r *Report) answer() []*row {
	n := len(r.Models)
	var out []*row
	add := func(label string, fn func(s *facts.Set) string) {
		rw := &row{key: label, values: make([]string, n)}
		some := false
		for i, m := range r.Models {
			rw.values[i] = fn(m.Facts)
			some = some || rw.values[i] != ""
		}
		if some {
			out = append(out, rw)
		}
	}
	add("checkpoint", checkpoint)
	add("parameters", parameters)
	for i, c := range page.Choices {
		add(c.Label, func(s *facts.Set) string {
			label, ok := page.Chosen(s, c.Key)
			if !ok {
				// As the page says it: what stops the machines of this
				// choice, not only that none is deployable.
				if f := s.Get("deploy." + c.Key + ".layout"); f != nil && f.Reason != "" {
					return "none deployable: " + f.Reason
				}
				return "none deployable"
			}
			// A layout that is also an earlier choice is named, not repeated.
			if prev, ok := page.Repeats(s, i); ok {
				return "the " + prev + " layout"
			}
			return page.ChoiceLine(s, label)
		})
	}
	for _, hw := range r.Asked {
		add(hw, func(s *facts.Set) string { return askedLine(s, hw) })
	}
	add("download", download)
	add("assumes", func(s *facts.Set) string { return display(s, "fit.assumptions") })
	return out
}

// askedLine is the verdict on a layout the reader named.
func askedLine(s *facts.Set, hw string) string {
	d := s.Get("deploy." + hw + ".deployable")
	if d == nil {
		return ""
	}
	if ok, _ := d.Bool(); !ok {
		return d.Display
	}
	return page.ChoiceLine(s, hw)
}

// launch is the command of each model's top choice, with what it needs
// beside the command.
func (r *Report) launch() []launchLine {
	var out []launchLine
	for i, m := range r.Models {
		label, choice, ok := page.Top(m.Facts)
		if !ok {
			continue
		}
		title := fmt.Sprintf("Launch (%s: %s)", choice, label)
		if len(r.Models) > 1 {
			title = fmt.Sprintf("Launch %s (%s: %s)", modelTag(i), choice, label)
		}
		out = append(out, launchLine{title: title, command: display(m.Facts, "deploy."+label+".command"), notes: display(m.Facts, "deploy."+label+".notes")})
	}
	return out
}

type launchLine struct{ title, command, notes string }

// moreLine says what --all adds.
func moreLine(r *Report) string {
	n := 0
	for _, m := range r.Models {
		n += m.Facts.Len()
	}
	return fmt.Sprintf("--all prints the full matrix: every layout and accelerator, and each of the %s facts with its derivation.", facts.Int(int64(n)))
}

// shellLines breaks a command into lines of at most width columns before
// its flags, each but the last ending in " \\", so that the lines paste
// into a shell as one command.
func shellLines(cmd string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(cmd) {
		switch {
		case cur == "":
			cur = w
		case strings.HasPrefix(w, "-") && len(cur)+1+len(w)+2 > width:
			lines = append(lines, cur+" \\")
			cur = "  " + w
		default:
			cur += " " + w
		}
	}
	return append(lines, cur)
}
