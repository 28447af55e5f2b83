package deploy

import (
	"fmt"
	"path"
	"strings"
)

// Command is the launch command of a deployable candidate with the flags
// that make its verdict true: its parallelism, the context it was judged
// at (its longest single sequence), the cache width and the memory share.
// The flags each engine's commands may use are in testdata/flags, with the
// argument definitions they were read from.
func Command(in Input, c Candidate) string {
	if len(c.Fits) == 0 {
		return ""
	}
	f := c.Fits[0]
	ctx := f.MaxContext
	l := c.Layout
	var w []string
	flag := func(args ...any) {
		for _, a := range args {
			w = append(w, fmt.Sprint(a))
		}
	}
	util := fmt.Sprintf("%.2f", in.Utilization)
	switch c.Engine {
	case VLLM:
		flag("vllm", "serve", in.Model)
		if l.DPAttention {
			flag("--data-parallel-size", l.DP, "--enable-expert-parallel")
		} else {
			flag("--tensor-parallel-size", l.TP)
			if l.PP > 1 {
				flag("--pipeline-parallel-size", l.PP)
			}
			if l.DP > 1 {
				flag("--data-parallel-size", l.DP)
			}
			if l.EP > 1 {
				flag("--enable-expert-parallel")
			}
		}
		flag("--max-model-len", ctx)
		if f.KVBytes == 1 {
			flag("--kv-cache-dtype", "fp8")
		}
		flag("--gpu-memory-utilization", util)
		if in.RemoteCode {
			flag("--trust-remote-code")
		}
	case SGLang:
		flag("python", "-m", "sglang.launch_server", "--model-path", in.Model, "--tp-size", l.TP)
		if l.DPAttention {
			flag("--dp-size", l.DP, "--enable-dp-attention")
		}
		if l.EP > 1 {
			flag("--ep-size", l.EP)
		}
		if l.PP > 1 {
			flag("--pp-size", l.PP)
		}
		if l.Hosts > 1 {
			flag("--nnodes", l.Hosts)
		}
		flag("--context-length", ctx)
		if f.KVBytes == 1 {
			flag("--kv-cache-dtype", "fp8_e4m3")
		}
		flag("--mem-fraction-static", util)
		if in.RemoteCode {
			flag("--trust-remote-code")
		}
	case LlamaCpp:
		flag("llama-server", "-m", path.Base(in.Model)+".gguf", "-ngl", 99, "-c", ctx)
	case MLX:
		flag("mlx_lm.server", "--model", in.Model)
	}
	return strings.Join(w, " ")
}

// Flags returns the flags (tokens starting with "-") of a command, with
// any "=value" cut off.
func Flags(cmd string) []string {
	var out []string
	for _, t := range strings.Fields(cmd) {
		if strings.HasPrefix(t, "-") && len(t) > 1 && (t[1] < '0' || t[1] > '9') {
			if i := strings.IndexByte(t, '='); i > 0 {
				t = t[:i]
			}
			out = append(out, t)
		}
	}
	return out
}
