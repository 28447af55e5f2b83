package localrun_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"dossier/generator/localrun"
)

// readFlags reads testdata/llama-server-flags.txt: spelling → accepted
// values (nil: any).
func readFlags(t *testing.T) map[string][]string {
	b, err := os.ReadFile("testdata/llama-server-flags.txt")
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		names, values, ok := strings.Cut(line, "|")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		var vs []string
		if v := strings.Fields(values); len(v) != 1 || v[0] != "ANY" {
			vs = v
		}
		for _, n := range strings.Fields(names) {
			flags[n] = vs
		}
	}
	return flags
}

// Every flag a plan's command uses is one llama-server declares, with a
// value it accepts; the commands cover VRAM, offload, CPU-only and Mac.
func TestCommandsUseDeclaredFlags(t *testing.T) {
	flags := readFlags(t)
	q := dense(t, 8_000_000)
	var cmds []string
	for _, id := range []string{"1xRTX4090@Desktop64", "2xRTX3090@Workstation256", "Desktop64", "M4Max128"} {
		for _, kv := range []string{"f16", "q8_0", "q4_0"} {
			p, err := localrun.Make(q, machine(t, id), localrun.Options{KVType: kv})
			if err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, p.Command)
		}
	}
	seen := map[string]bool{}
	for _, c := range cmds {
		toks := strings.Fields(c)
		if toks[0] != "llama-server" {
			t.Errorf("%q does not run llama-server", c)
		}
		for i := 1; i < len(toks); i++ {
			vals, ok := flags[toks[i]]
			if !ok {
				t.Errorf("%q: %s is not a llama-server flag at the pinned commit", c, toks[i])
				continue
			}
			seen[toks[i]] = true
			if i+1 >= len(toks) {
				t.Errorf("%q: %s has no value", c, toks[i])
				break
			}
			i++
			if vals != nil && !slices.Contains(vals, toks[i]) {
				t.Errorf("%q: %s %s is not one of %v", c, toks[i-1], toks[i], vals)
			}
		}
	}
	for _, f := range []string{"-m", "-ngl", "-c", "-ctk", "-ctv", "-fa"} {
		if !seen[f] {
			t.Errorf("no command used %s", f)
		}
	}
}
