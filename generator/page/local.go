package page

import (
	"sort"
	"strings"

	"dossier/generator/render"
)

// localTable is the "Run it locally" answer per machine class: the
// smallest published quant that fits in VRAM, and the quant with the most
// bits per weight that runs from RAM and VRAM (else the smallest that runs
// mapped from disk), with its context, speed and command. Empty when no
// GGUF variant of the page has been synced.
func (m *Model) localTable() *render.Table {
	t := &render.Table{
		Header: []string{"machine", "smallest in VRAM", "best from RAM + VRAM", "longest context (q8_0 cache)", "decode, one sequence", "command"},
		Align:  []render.Align{render.Left, render.Left, render.Left, render.Right, render.Right, render.Left},
	}
	if !m.Facts.Get("local.repository").Known() {
		// Only unknown facts a claim named on quants never synced.
		return t
	}
	var machines []string
	for k := range m.Facts.Prefixed("local.best_offload.") {
		machines = append(machines, strings.TrimPrefix(k, "local.best_offload."))
	}
	sort.Strings(machines)
	for _, mc := range machines {
		small := m.Facts.Get("local.smallest_vram." + mc)
		smallCell := "none"
		if small.Known() {
			smallCell = small.Display
		}
		quant, bestCell := "", ""
		if best := m.Facts.Get("local.best_offload." + mc); best.Known() {
			quant = best.Display
		} else if disk := m.Facts.Get("local.smallest_mmap." + mc); disk.Known() {
			quant, bestCell = disk.Display, "none; "
		} else {
			t.Rows = append(t.Rows, []string{mc, smallCell, "none: no quant fits even mapped from disk", "—", "—", "—"})
			continue
		}
		k := "local." + quant + "." + mc + "."
		bestCell += quant + " (" + placed(m.Facts.Get(k+"fits").Display, mc) + ")"
		cmd := m.d(k + "command")
		if w := m.Facts.Get(k + "wired_limit_mb"); w.Known() {
			// Past macOS's default share the GPU must be allowed more.
			cmd = "sudo sysctl iogpu.wired_limit_mb=" + strings.ReplaceAll(w.Display, ",", "") + " && " + cmd
		}
		decode := m.d(k + "decode_tokens_per_second")
		if f := m.Facts.Get(k + "decode_tokens_per_second"); f != nil && !f.Known() && m.Facts.Get(k+"fits").Display == "mmap" {
			decode = "unknown: disk-bound" // the reason is in facts.json
		}
		ctx := m.d(k + "max_context_q8_0")
		if f := m.Facts.Get(k + "max_context_q8_0"); f != nil && !f.Known() {
			// No context fits beside what stays in memory: no -c to type.
			t.Rows = append(t.Rows, []string{mc, smallCell, bestCell, "none fits", decode, "—"})
			continue
		}
		t.Rows = append(t.Rows, []string{mc, smallCell, bestCell, ctx, decode, render.Code(cmd)})
	}
	return t
}

// placed says where a plan keeps the weights, in a reader's words: a
// machine without discrete GPUs (no "@") is a Mac when it fits in VRAM,
// a CPU host otherwise.
func placed(fits, machine string) string {
	switch fits {
	case "vram":
		if !strings.Contains(machine, "@") {
			return "in unified memory"
		}
		return "in VRAM"
	case "offload":
		if !strings.Contains(machine, "@") {
			return "in RAM, no GPU"
		}
		return "experts in RAM"
	case "mmap":
		return "mapped from disk"
	}
	return fits
}

// quantsTable lists every synced quant: its files, the size its page
// publishes, bits per weight, the ggml types most of it is stored as, and
// the machine classes it runs on from RAM and VRAM.
func (m *Model) quantsTable() *render.Table {
	t := &render.Table{
		Header: []string{"quant", "files", "published", "bits per weight", "stored as", "experts", "runs from RAM + VRAM on"},
		Align:  []render.Align{render.Left, render.Right, render.Right, render.Right, render.Left, render.Right, render.Left},
	}
	type q struct {
		label string
		bytes int64
	}
	var qs []q
	for k := range m.Facts.Prefixed("gguf.") {
		label, rest, _ := strings.Cut(strings.TrimPrefix(k, "gguf."), ".")
		if b, ok := m.Facts.Get(k).Int(); ok && rest == "bytes" {
			qs = append(qs, q{label, b})
		}
	}
	sort.Slice(qs, func(i, j int) bool { return qs[i].bytes < qs[j].bytes })
	for _, x := range qs {
		p := "gguf." + x.label + "."
		type tc struct {
			name   string
			params int64
		}
		var types []tc
		for k := range m.Facts.Prefixed(p + "census.") {
			n, _ := m.Facts.Get(k).Int()
			types = append(types, tc{strings.TrimPrefix(k, p+"census."), n})
		}
		sort.Slice(types, func(i, j int) bool { return types[i].params > types[j].params })
		var stored []string
		for i, ty := range types {
			if i == 3 {
				break
			}
			stored = append(stored, ty.name)
		}
		var runs []string
		for k := range m.Facts.Prefixed("local." + x.label + ".") {
			mc, field, ok := cutLast(strings.TrimPrefix(k, "local."+x.label+"."))
			if ok && field == "fits" {
				if v := m.Facts.Get(k).Display; v == "vram" || v == "offload" {
					runs = append(runs, mc)
				}
			}
		}
		sort.Strings(runs)
		published := "—"
		if f := m.Facts.Get(p + "published_bytes"); f.Known() {
			published = f.Display
			if ok, _ := m.Facts.Get(p + "published_agrees").Bool(); ok {
				published += " (agrees)"
			} else {
				published += " (differs)"
			}
		}
		runsCell := strings.Join(runs, ", ")
		switch loads := m.Facts.Get(p + "llamacpp_loads"); {
		case loads.Known() && loads.Value == false:
			runsCell = "none: llama.cpp does not load its architecture, " + m.d(p+"architecture")
		case runsCell == "":
			runsCell = "none (only mapped from disk)"
		}
		t.Rows = append(t.Rows, []string{x.label, m.d(p + "bytes"), published, strings.TrimSuffix(m.d(p+"bits_per_weight"), " bits/parameter"),
			strings.Join(stored, ", "), m.d(p + "expert_share"), runsCell})
	}
	return t
}

// cutLast splits "MACHINE.field" at its last dot.
func cutLast(s string) (before, after string, ok bool) {
	i := strings.LastIndexByte(s, '.')
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// mlxTable lists every synced MLX checkpoint on each Mac: whether it fits
// the memory the GPU may wire, the sysctl it needs past the default
// share, its context, speed and command. Empty when none is synced.
func (m *Model) mlxTable() *render.Table {
	t := &render.Table{
		Header: []string{"checkpoint", "Mac", "fits", "context", "decode", "command"},
		Align:  []render.Align{render.Left, render.Left, render.Left, render.Right, render.Right, render.Left},
	}
	var keys []string
	for k := range m.Facts.Prefixed("mlx.") {
		if strings.HasSuffix(k, ".fits") && strings.Count(k, ".") == 3 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts := strings.Split(k, ".")
		label, mac := parts[1], parts[2]
		p := "mlx." + label + "." + mac + "."
		repo := m.Facts.Get("mlx." + label + ".repository")
		name := label
		if repo.Known() {
			name = repo.Display + " (" + label + ")"
		}
		fits := m.d(k)
		if fits == "vram" {
			fits = "in wired memory"
		}
		cmd := "—"
		if c := m.Facts.Get(p + "command"); c.Known() {
			cmd = c.Display
			if w := m.Facts.Get(p + "wired_limit_mb"); w.Known() {
				cmd = "sudo sysctl iogpu.wired_limit_mb=" + strings.ReplaceAll(w.Display, ",", "") + " && " + cmd
			}
			cmd = render.Code(cmd)
		}
		t.Rows = append(t.Rows, []string{name, mac, fits, m.d(p + "max_context"), m.d(p + "decode_tokens_per_second"), cmd})
	}
	return t
}
