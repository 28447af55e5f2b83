package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanDeepseekV4: plan --config on DeepSeek-V4-Flash sizes its tensors,
// its cache per sequence at a context and its serving plan per GPU, and
// leaves KV per token unknown naming compress_ratios, rather than sizing
// its layers as sliding-window attention.
func TestPlanDeepseekV4(t *testing.T) {
	path := filepath.Join("..", "modeltree", "testdata", "deepseek_v4", "deepseek-ai__DeepSeek-V4-Flash.config.json")
	code, doc, stderr := plan(t, path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s := &doc.Facts
	// 284,332,240,471 main + 6,610,048,891 MTP (modeltree's check).
	wantInt(t, s, "params.total", 290_942_289_362)
	// modeltree/testdata/SOURCES.md: 2 window-only, 21 ratio-4, 20 ratio-128 layers.
	wantInt(t, s, "kv.bytes_at_context.131072", 2*128*512*2+21*((128+32768)*512*2+32768*128*2)+20*(128+1024)*512*2)
	for _, key := range []string{"kv.bytes_per_token", "arch.layer_kinds", "serving.8xH200.kv_bytes_per_gpu_per_token"} {
		f := s.Get(key)
		if f == nil || f.Value != nil || !strings.Contains(f.Reason, "compress_ratios") {
			t.Errorf("%s = %+v, want unknown naming compress_ratios", key, f)
		}
	}
	// Served by vLLM in its FP8 layout (584-byte rows, 132-byte indexer
	// keys), whole on each of the 8 TP ranks: one sequence of 131,072
	// tokens holds 43 windows of 128 rows, 21 × 32,768 rows and keys, 20 ×
	// 1,024 rows, and the compressors' F32 state.
	perSeq := int64(43*128*584 + 21*32768*(584+132) + 20*1024*584 + 21*(2*4*2*2*512+2*4*2*2*128)*4 + 20*128*2*512*4)
	usable, ok := s.Get("serving.8xH200.usable_bytes_per_gpu").Int()
	if !ok || usable <= perSeq {
		t.Fatalf("serving.8xH200.usable_bytes_per_gpu = %+v", s.Get("serving.8xH200.usable_bytes_per_gpu"))
	}
	wantInt(t, s, "serving.8xH200.max_concurrency", usable/perSeq)
	wantInt(t, s, "serving.8xH200.state_bytes_per_gpu_per_sequence", 21*(2*4*2*2*512+2*4*2*2*128)*4+20*128*2*512*4)
	if f := s.Get("serving.8xH200.max_concurrency_bf16"); f == nil || f.Value != nil || !strings.Contains(f.Reason, "fp8_ds_mla") {
		t.Errorf("serving.8xH200.max_concurrency_bf16 = %+v, want unknown naming fp8_ds_mla", f)
	}
	if v, ok := s.Get("speed.8xH200.decode_tokens_per_second").Float(); !ok || v <= 0 {
		t.Errorf("speed.8xH200.decode_tokens_per_second = %+v, want a prediction", s.Get("speed.8xH200.decode_tokens_per_second"))
	}
}
